#pragma once
// SystemModel: a System<double> / System<AutoDiffXd> pair (the same block or
// diagram built on both scalars, DESIGN.md "Scalars") used as a model in the
// sense of model.h, so that a diagram can be discretized, differentiated and
// linearized like any model. The state is the system's continuous state
// (nc), the input the value of its only vector input port (m; 0 if it has no
// input port). Discrete and abstract state and parameters are held at the
// values of the contexts given (or the defaults).
//
// Run-time sized; Jacobians by kAutoDiff use AutoDiffXd through the
// AutoDiffXd system, kCentralDifference the double one. The adapter owns one
// scratch context per scalar, so use one adapter per thread.
//
// LinearizeSystem gives A, B and, for an output port, C, D of
//   xcdot = f(x, u, t), y = g(x, u, t) about (x0, u0, t).
#include <memory>
#include <string>
#include <type_traits>

#include "tern/common/autodiff.h"
#include "tern/systems/framework/system.h"

namespace tern {

class SystemModel {
 public:
  // Neither system may be destroyed before the adapter. They must have the
  // same sizes. Throws std::invalid_argument naming the system if they do
  // not, or if a system has more than one input port or a non-vector one.
  SystemModel(const System<double>& system,
              const System<AutoDiffXd>& system_ad);
  ~SystemModel();
  SystemModel(const SystemModel&) = delete;
  SystemModel& operator=(const SystemModel&) = delete;

  Eigen::Index num_states() const { return num_states_; }
  Eigen::Index num_inputs() const { return num_inputs_; }
  std::string name() const;

  // Contexts holding the non-continuous state and parameters used by every
  // evaluation (defaults until changed).
  Context<double>& mutable_context() { return *context_; }
  Context<AutoDiffXd>& mutable_context_ad() { return *context_ad_; }

  // xdot (nc) = f(x, u, t) through the system of scalar T.
  template <class T>
  requires(std::is_same_v<T, double> ||
           std::is_same_v<T, AutoDiffXd>) void Dynamics(const VectorX<T>& x,
                                                        const VectorX<T>& u,
                                                        const T& t,
                                                        VectorX<T>* xdot) const;

 private:
  const System<double>* system_;
  const System<AutoDiffXd>* system_ad_;
  // Scratch written by the const Dynamics (see the class comment).
  std::unique_ptr<Context<double>> context_;
  std::unique_ptr<Context<AutoDiffXd>> context_ad_;
  Eigen::Index num_states_{0};
  Eigen::Index num_inputs_{0};
};

struct SystemLinearization {
  Eigen::MatrixXd A;  // nc x nc
  Eigen::MatrixXd B;  // nc x m
  Eigen::MatrixXd C;  // p x nc (empty without an output port)
  Eigen::MatrixXd D;  // p x m
};

// Linearizes `system` (AutoDiffXd, evaluated exactly by forward mode) about
// continuous state x0 (nc), input u0 (m) and time t, with its other state and
// parameters from `context` (defaults if null). output_port < 0 skips C, D.
// Throws std::invalid_argument naming the system on wrong sizes or ports.
SystemLinearization LinearizeSystem(
    const System<AutoDiffXd>& system, const Eigen::VectorXd& x0,
    const Eigen::VectorXd& u0, double t = 0, int output_port = 0,
    const Context<AutoDiffXd>* context = nullptr);

}  // namespace tern
