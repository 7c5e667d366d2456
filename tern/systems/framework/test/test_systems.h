#pragma once
// Small systems shared by the framework tests.
#include <string>

#include "tern/systems/framework/leaf_system.h"

namespace tern::test {

// y = k u (direct feedthrough); counts how often its output is computed.
template <typename T>
class TestGain final : public LeafSystem<T> {
 public:
  TestGain(double k, int size) : k_(k) {
    this->DeclareVectorInputPort("u", size);
    this->DeclareVectorOutputPort("y", size, &TestGain::CalcY);
  }
  mutable int calc_count = 0;

 private:
  void CalcY(const Context<T>& c, VectorX<T>* y) const {
    ++calc_count;
    *y = k_ * this->get_input_port().Eval(c);
  }
  double k_;
};

// xdot = u, y = x (no feedthrough).
template <typename T>
class TestIntegrator final : public LeafSystem<T> {
 public:
  explicit TestIntegrator(int size) {
    this->DeclareContinuousState(size);
    this->DeclareVectorInputPort("u", size);
    this->DeclareVectorOutputPort(
        "y", size,
        [](const Context<T>& c, VectorX<T>* y) {
          *y = c.get_continuous_state_vector();
        },
        ticket::kXc);
  }
  void DoCalcTimeDerivatives(const Context<T>& c,
                             Eigen::Ref<VectorX<T>> xdot) const override {
    xdot = this->get_input_port().Eval(c);
  }
};

// y = value (a numeric parameter).
template <typename T>
class TestSource final : public LeafSystem<T> {
 public:
  explicit TestSource(const VectorX<double>& value) {
    this->DeclareNumericParameter(value);
    this->DeclareVectorOutputPort(
        "y", static_cast<int>(value.size()),
        [](const Context<T>& c, VectorX<T>* y) {
          *y = c.get_numeric_parameter(0);
        },
        ticket::kParams);
  }
};

}  // namespace tern::test
