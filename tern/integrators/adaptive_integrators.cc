// Run-time adapters (IntegratorBase) for the embedded explicit pairs.
#include <fmt/format.h>

#include "tern/common/autodiff.h"
#include "tern/integrators/embedded_rules.h"
#include "tern/integrators/error_control.h"
#include "tern/integrators/integrator_factories.h"

namespace tern {
namespace {

template <typename T>
struct OdeFunctionCaller {
  OdeFunction<T>* f;
  void operator()(const T& t, const VectorX<T>& x, VectorX<T>* xd) const {
    f->Eval(t, x, xd);
  }
};

template <template <typename> class Rule>
constexpr int DenseOrder() {
  const std::string_view name = Rule<Eigen::VectorXd>::kName;
  return name == "bs3" ? 3 : name == "dopri5" ? 4 : 7;
}

// AdaptiveStepper<Rule, VectorX<T>> behind IntegratorBase<T>.
template <template <typename> class Rule, typename T>
class ErrorControlledIntegrator final : public IntegratorBase<T> {
 public:
  std::string name() const override { return Rule<VectorX<T>>::kName; }
  int order() const override { return Rule<VectorX<T>>::kOrder; }
  bool supports_error_control() const override { return true; }
  void Initialize(Eigen::Index n) override {
    stepper_.Resize(n);
    n_ = n;
  }
  T Step(OdeFunction<T>& f, const T& t, const T& t_limit,
         VectorX<T>* x) override {
    if (x->size() != n_) {
      throw std::invalid_argument(
          fmt::format("{}: state has size {} but Initialize was called with {}",
                      name(), x->size(), n_));
    }
    stepper_.mutable_settings() = this->settings_;
    stepper_.ResetStatistics();
    last_f_ = &f;
    OdeFunctionCaller<T> caller{&f};
    try {
      const T t1 = stepper_.Step(caller, t, t_limit, x);
      this->stats_ += stepper_.statistics();
      return t1;
    } catch (...) {
      this->stats_ += stepper_.statistics();
      throw;
    }
  }
  void Reset() override {
    stepper_.Reset();
    last_f_ = nullptr;
  }
  int dense_output_order() const override { return DenseOrder<Rule>(); }
  void DenseOutput(const T& t, VectorX<T>* x) override {
    if (last_f_ == nullptr) {
      stepper_.DenseOutput(t, x);  // throws: no step
      return;
    }
    stepper_.ResetStatistics();
    OdeFunctionCaller<T> caller{last_f_};
    stepper_.DenseOutput(caller, t, x);
    this->stats_ += stepper_.statistics();
  }

 private:
  AdaptiveStepper<Rule, VectorX<T>> stepper_;
  OdeFunction<T>* last_f_{nullptr};  // right-hand side of the last Step
  Eigen::Index n_{0};
};

}  // namespace

namespace internal {

template <typename T>
std::unique_ptr<IntegratorBase<T>> MakeErrorControlledExplicitIntegrator(
    const std::string& name) {
  if (name == "bs3") {
    return std::make_unique<ErrorControlledIntegrator<BogackiShampine3, T>>();
  }
  if (name == "dopri5") {
    return std::make_unique<ErrorControlledIntegrator<DormandPrince5, T>>();
  }
  if (name == "dop853") {
    return std::make_unique<ErrorControlledIntegrator<DormandPrince853, T>>();
  }
  return nullptr;
}

std::vector<std::string> ErrorControlledExplicitIntegratorNames() {
  return {"bs3", "dopri5", "dop853"};
}

template std::unique_ptr<IntegratorBase<double>>
MakeErrorControlledExplicitIntegrator<double>(const std::string&);
template std::unique_ptr<IntegratorBase<AutoDiffXd>>
MakeErrorControlledExplicitIntegrator<AutoDiffXd>(const std::string&);

}  // namespace internal
}  // namespace tern
