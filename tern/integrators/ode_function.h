#pragma once
// OdeFunction: the right-hand side xdot = f(t, x) handed to integration
// rules by a driver that is not a plain callable (the Simulator's Context
// wrapper, a name-selected integrator). Rules themselves are templates over
// any callable `f(t, x, &xdot)`; this interface is how a run-time driver
// provides one, with optional Jacobian and second-order structure.
#include <Eigen/Core>

#include "tern/common/autodiff.h"
#include "tern/common/eigen_types.h"

namespace tern {

template <typename T>
class OdeFunction {
 public:
  virtual ~OdeFunction() = default;
  // Writes f(t, x) into *xdot, which has x's size already.
  virtual void Eval(const T& t, const VectorX<T>& x, VectorX<T>* xdot) = 0;
  // Optional Jacobian J = df/dx (n x n, presized). Return false (the
  // default) when not available; implicit rules then use central
  // differences (JacobianScheme::kAutomatic). The Simulator implements it
  // by autodiff when the diagram is available in AutoDiffXd.
  virtual bool EvalJacobian(const T& t, const VectorX<T>& x, MatrixX<T>* J) {
    (void)t;
    (void)x;
    (void)J;
    return false;
  }
  void operator()(const T& t, const VectorX<T>& x, VectorX<T>* xdot) {
    Eval(t, x, xdot);
  }
};

// Second-order structure x = [q; v] (nq + nv states):
//   qdot = N(q) v,   vdot = vdot(t, q, v).
// Rules that need it (semi_explicit_euler, semi_implicit_euler_v,
// semi_implicit_euler_q, velocity_verlet; IntegratorBase::
// requires_second_order()) take an OdeFunction that is a
// SecondOrderOdeFunction; every other rule sees it as a plain OdeFunction
// whose Eval stacks [N(q) v; vdot]. Jacobians are optional: without them
// the semi-implicit forms use central differences.
template <typename T>
class SecondOrderOdeFunction : public OdeFunction<T> {
 public:
  using ConstRef = Eigen::Ref<const VectorX<T>>;
  using Ref = Eigen::Ref<VectorX<T>>;

  SecondOrderOdeFunction(Eigen::Index num_positions,
                         Eigen::Index num_velocities)
      : nq_(num_positions), nv_(num_velocities) {}
  Eigen::Index num_positions() const { return nq_; }
  Eigen::Index num_velocities() const { return nv_; }

  // qdot = N(q) v (nq).
  virtual void EvalQdot(const T& t, ConstRef q, ConstRef v, Ref qdot) = 0;
  // vdot (nv).
  virtual void EvalVdot(const T& t, ConstRef q, ConstRef v, Ref vdot) = 0;
  // Optional d vdot / d v (nv x nv, presized); false = not available.
  virtual bool EvalVdotJacobianV(const T& t, ConstRef q, ConstRef v,
                                 MatrixX<T>* J) {
    (void)t, (void)q, (void)v, (void)J;
    return false;
  }
  // Optional d (N(q) v) / d q at fixed v (nq x nq); false = not available.
  virtual bool EvalQdotJacobianQ(const T& t, ConstRef q, ConstRef v,
                                 MatrixX<T>* J) {
    (void)t, (void)q, (void)v, (void)J;
    return false;
  }

  void Eval(const T& t, const VectorX<T>& x, VectorX<T>* xdot) final {
    EvalQdot(t, x.head(nq_), x.tail(nv_), xdot->head(nq_));
    EvalVdot(t, x.head(nq_), x.tail(nv_), xdot->tail(nv_));
  }

 private:
  Eigen::Index nq_, nv_;
};

// Adapts a callable generic in its scalar, `f(t, x, &xdot)` callable with
// double and AutoDiffXd vectors, to OdeFunction<double> with an exact
// Jacobian by forward-mode autodiff. Convenient for tests and scripts; the
// autodiff Jacobian allocates (AutoDiffXd), so hot loops should use a
// fixed-size template rule instead.
template <typename F>
class AutoDiffOdeFunction final : public OdeFunction<double> {
 public:
  explicit AutoDiffOdeFunction(F f) : f_(std::move(f)) {}
  void Eval(const double& t, const VectorX<double>& x,
            VectorX<double>* xdot) override {
    f_(t, x, xdot);
  }
  bool EvalJacobian(const double& t, const VectorX<double>& x,
                    MatrixX<double>* J) override {
    const VectorX<AutoDiffXd> x_ad = InitializeAutoDiff(x);
    VectorX<AutoDiffXd> xd_ad(x.size());
    f_(AutoDiffXd(t), x_ad, &xd_ad);
    *J = ExtractGradient(xd_ad, x.size());
    return true;
  }

 private:
  F f_;
};

}  // namespace tern
