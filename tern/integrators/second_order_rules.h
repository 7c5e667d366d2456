#pragma once
// Fixed-step rules for second-order state x = [q; v] with
//   qdot = N(q) v,   vdot = vdot(t, q, v)
// (seed 003; Hairer, Lubich & Wanner, Geometric Numerical Integration,
// 2nd ed., I.1 and VI.3).
//
// A second-order model on the template path is any type with
//   void Qdot(const S& t, const Q& q, const V& v, Q* qdot) const;  // N(q) v
//   void Vdot(const S& t, const Q& q, const V& v, V* vdot) const;
// (templates over the vector types where autodiff is wanted) and optionally
//   bool VdotJacobianV(const double& t, const Q& q, const V& v, Mat* J) const;
//   bool QdotJacobianQ(const double& t, const Q& q, const V& v, Mat* J) const;
// giving d vdot / d v (nv x nv) and d (N(q) v) / d q at fixed v (nq x nq).
// The implicit forms use those if present (returning false = not
// available), else forward-mode autodiff if Vdot / Qdot accept autodiff
// vectors for v / q, else central differences.
//
// Each rule is a class template over the position and velocity vector types
// (fixed-size or VectorX<double>), owns its scratch, and provides
//   void Step(const Sys& sys, const Scalar& t, const Scalar& h, Q* q, V* v);
// On a Newton failure it throws std::runtime_error naming the rule, the time,
// the step and the worst component, leaving q and v unchanged.
#include <fmt/format.h>

#include <Eigen/LU>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "tern/common/autodiff.h"
#include "tern/integrators/integrator_error.h"
#include "tern/integrators/jacobian.h"

namespace tern {
namespace internal {

template <typename Sys, typename Q, typename V, typename Mat>
concept HasVdotJacobianV = requires(const Sys& s, const double& t, const Q& q,
                                    const V& v, Mat* J) {
  s.VdotJacobianV(t, q, v, J);
};
template <typename Sys, typename Q, typename V, typename Mat>
concept HasQdotJacobianQ = requires(const Sys& s, const double& t, const Q& q,
                                    const V& v, Mat* J) {
  s.QdotJacobianQ(t, q, v, J);
};
template <typename Sys, typename Q, typename V>
concept VdotAutoDiffInV = requires(const Sys& s, const double& t, const Q& q,
                                   const AutoDiffVectorFor<V, 0>& v,
                                   AutoDiffVectorFor<V, 0>* out) {
  s.Vdot(t, q, v, out);
};
template <typename Sys, typename Q, typename V>
concept QdotAutoDiffInQ = requires(const Sys& s, const double& t,
                                   const AutoDiffVectorFor<Q, 0>& q, const V& v,
                                   AutoDiffVectorFor<Q, 0>* out) {
  s.Qdot(t, q, v, out);
};

template <typename Call>
bool CallOptionalJacobian(Call&& call) {
  if constexpr (std::is_void_v<decltype(call())>) {
    call();
    return true;
  } else {
    return call();
  }
}

// Index of the entry of largest magnitude.
template <typename Vec>
Eigen::Index WorstComponent(const Vec& d) {
  Eigen::Index arg = 0;
  double largest = -1;
  for (Eigen::Index i = 0; i < d.size(); ++i) {
    const double a = std::abs(d(i));
    if (!(a <= largest)) {
      largest = a;
      arg = i;
      if (!std::isfinite(a)) break;
    }
  }
  return arg;
}

}  // namespace internal

// Simbody's SemiExplicitEulerIntegrator, the "gaming" form 2 (seed 003):
//   v1 = v0 + h vdot(q0, v0),   q1 = q0 + h N(q0) v1.
// Symplectic Euler when vdot does not depend on v; with velocity-dependent
// forces (damping, Coriolis) it is only explicit and loses stability for
// h c > 2 where c is the damping rate. Order 1, two evaluations per step.
template <typename QVec, typename VVec = QVec>
class SemiExplicitEuler {
 public:
  using Scalar = typename QVec::Scalar;
  static constexpr int kOrder = 1;
  static constexpr const char* kName = "semi_explicit_euler";

  explicit SemiExplicitEuler(
      Eigen::Index nq = internal::DefaultSizeOf<QVec>(),
      Eigen::Index nv = internal::DefaultSizeOf<VVec>()) {
    Resize(nq, nv);
  }
  void Resize(Eigen::Index nq, Eigen::Index nv) {
    qd_.resize(nq);
    a_.resize(nv);
  }
  template <typename Sys>
  void Step(const Sys& sys, const Scalar& t, const Scalar& h, QVec* q,
            VVec* v) {
    sys.Vdot(t, *q, *v, &a_);
    v->noalias() += h * a_;
    sys.Qdot(t, *q, *v, &qd_);
    q->noalias() += h * qd_;
  }

 private:
  QVec qd_;  // (nq)
  VVec a_;   // (nv)
};

// Semi-implicit Euler, form 2, implicit in v (HLW, Geometric Numerical
// Integration, eq. I.1.9; the method Simbody's documentation says it could
// not afford):
//   v1 = v0 + h vdot(q0, v1)   (Newton, Jacobian d vdot / d v),
//   q1 = q0 + h N(q0) v1.
// True symplectic Euler for mechanical systems with velocity-dependent
// forces; stable for arbitrarily strong linear damping. Order 1.
template <typename QVec, typename VVec = QVec>
class SemiImplicitEulerV {
 public:
  using Scalar = double;
  static constexpr int kOrder = 1;
  static constexpr const char* kName = "semi_implicit_euler_v";
  static constexpr int NV = VVec::RowsAtCompileTime;
  using Mat = Eigen::Matrix<double, NV, NV>;

  explicit SemiImplicitEulerV(
      Eigen::Index nq = internal::DefaultSizeOf<QVec>(),
      Eigen::Index nv = internal::DefaultSizeOf<VVec>()) {
    Resize(nq, nv);
  }
  void Resize(Eigen::Index nq, Eigen::Index nv) {
    qd_.resize(nq);
    for (VVec* x : {&a_, &v1_, &r_, &dv_, &vp_, &ap_}) x->resize(nv);
    J_.resize(nv, nv);
    M_.resize(nv, nv);
    if constexpr (Mat::RowsAtCompileTime == Eigen::Dynamic) {
      lu_ = Eigen::PartialPivLU<Mat>(nv);
    }
    v_ad_.resize(nv);
    a_ad_.resize(nv);
  }
  // Newton stops when max |dv_i| <= newton_tolerance * (1 + max |v_i|).
  void set_newton_tolerance(double tol) { newton_tol_ = tol; }
  void set_max_newton_iterations(int k) { max_iter_ = k; }
  std::int64_t newton_iterations() const { return newton_iterations_; }
  std::int64_t jacobian_evaluations() const { return jacobians_; }
  std::int64_t lu_factorizations() const { return lus_; }
  // Evaluations of Vdot and Qdot made by the last Step (Jacobian included).
  int last_evaluations() const { return evals_; }

  template <typename Sys>
  void Step(const Sys& sys, const double& t, const double& h, QVec* q,
            VVec* v) {
    const Eigen::Index nv = v->size();
    evals_ = 0;
    v1_ = *v;
    for (int k = 0; k < max_iter_; ++k) {
      // Full Newton: residual and Jacobian at the current iterate.
      EvalWithJacobian(sys, t, *q, v1_);
      r_.noalias() = v1_ - *v - h * a_;
      M_.setIdentity(nv, nv);
      M_.noalias() -= h * J_;
      lu_.compute(M_);
      ++lus_;
      ++newton_iterations_;
      dv_.noalias() = lu_.solve(r_);
      v1_ -= dv_;
      const double scale = 1 + v1_.cwiseAbs().maxCoeff();
      const double step = dv_.cwiseAbs().maxCoeff();
      if (!std::isfinite(step)) break;
      if (step <= newton_tol_ * scale) {
        sys.Qdot(t, *q, v1_, &qd_);
        ++evals_;
        q->noalias() += h * qd_;
        *v = v1_;
        return;
      }
    }
    const Eigen::Index i = internal::WorstComponent(dv_);
    throw IntegratorStepError(
        fmt::format(
            "{}: Newton iteration on v did not converge in {} iterations at t "
            "= "
            "{} with h = {}; worst velocity component {} (last update {})",
            kName, max_iter_, t, h, i, dv_(i)),
        q->size() + i);
  }

 private:
  template <typename Sys>
  void EvalWithJacobian(const Sys& sys, double t, const QVec& q,
                        const VVec& v) {
    ++jacobians_;
    if constexpr (internal::HasVdotJacobianV<Sys, QVec, VVec, Mat>) {
      if (internal::CallOptionalJacobian(
              [&] { return sys.VdotJacobianV(t, q, v, &J_); })) {
        sys.Vdot(t, q, v, &a_);
        ++evals_;
        return;
      }
    }
    if constexpr (internal::VdotAutoDiffInV<Sys, QVec, VVec>) {
      using AdScalar = typename internal::AutoDiffVectorFor<VVec, 0>::Scalar;
      const Eigen::Index nv = v.size();
      internal::SeedAutoDiff<AdScalar>(v, nv, 0, &v_ad_);
      sys.Vdot(t, q, v_ad_, &a_ad_);
      ++evals_;
      for (Eigen::Index i = 0; i < nv; ++i) {
        a_(i) = a_ad_(i).value();
        if (a_ad_(i).derivatives().size() == 0) {
          J_.row(i).setZero();
        } else {
          J_.row(i) = a_ad_(i).derivatives().head(nv).transpose();
        }
      }
    } else {
      sys.Vdot(t, q, v, &a_);
      const double cbrt_eps = std::cbrt(std::numeric_limits<double>::epsilon());
      vp_ = v;
      for (Eigen::Index j = 0; j < v.size(); ++j) {
        const double d = cbrt_eps * std::max(1.0, std::abs(v(j)));
        vp_(j) = v(j) + d;
        sys.Vdot(t, q, vp_, &ap_);
        J_.col(j) = ap_;
        vp_(j) = v(j) - d;
        sys.Vdot(t, q, vp_, &ap_);
        J_.col(j) = (J_.col(j) - ap_) / (2 * d);
        vp_(j) = v(j);
      }
      evals_ += 1 + 2 * static_cast<int>(v.size());
    }
  }

  QVec qd_;
  VVec a_, v1_, r_, dv_, vp_, ap_;
  Mat J_, M_;
  Eigen::PartialPivLU<Mat> lu_;
  internal::AutoDiffVectorFor<VVec, 0> v_ad_, a_ad_;
  double newton_tol_{1e-12};
  int max_iter_{10};
  int evals_{0};
  std::int64_t newton_iterations_{0}, jacobians_{0}, lus_{0};
};

// Semi-implicit Euler, form 1, implicit in q (seed 003's "Form 1"):
//   q1 = q0 + h N(q1) v0   (Newton, Jacobian d (N(q) v0) / d q),
//   v1 = v0 + h vdot(q1, v0).
// When N is constant (q̇ = v) the Newton solve is trivial and the rule is
// explicit. It is explicit in v, so strong damping limits its step exactly
// as for the gaming form (tested); it answers the seed's open question.
// Order 1.
template <typename QVec, typename VVec = QVec>
class SemiImplicitEulerQ {
 public:
  using Scalar = double;
  static constexpr int kOrder = 1;
  static constexpr const char* kName = "semi_implicit_euler_q";
  static constexpr int NQ = QVec::RowsAtCompileTime;
  using Mat = Eigen::Matrix<double, NQ, NQ>;

  explicit SemiImplicitEulerQ(
      Eigen::Index nq = internal::DefaultSizeOf<QVec>(),
      Eigen::Index nv = internal::DefaultSizeOf<VVec>()) {
    Resize(nq, nv);
  }
  void Resize(Eigen::Index nq, Eigen::Index nv) {
    for (QVec* x : {&qd_, &q1_, &r_, &dq_, &qp_, &qdp_}) x->resize(nq);
    a_.resize(nv);
    J_.resize(nq, nq);
    M_.resize(nq, nq);
    if constexpr (Mat::RowsAtCompileTime == Eigen::Dynamic) {
      lu_ = Eigen::PartialPivLU<Mat>(nq);
    }
    q_ad_.resize(nq);
    qd_ad_.resize(nq);
  }
  void set_newton_tolerance(double tol) { newton_tol_ = tol; }
  void set_max_newton_iterations(int k) { max_iter_ = k; }
  std::int64_t newton_iterations() const { return newton_iterations_; }
  std::int64_t jacobian_evaluations() const { return jacobians_; }
  std::int64_t lu_factorizations() const { return lus_; }
  int last_evaluations() const { return evals_; }

  template <typename Sys>
  void Step(const Sys& sys, const double& t, const double& h, QVec* q,
            VVec* v) {
    const Eigen::Index nq = q->size();
    evals_ = 0;
    // Predictor: explicit Euler in q.
    sys.Qdot(t, *q, *v, &qd_);
    ++evals_;
    q1_.noalias() = *q + h * qd_;
    bool converged = false;
    for (int k = 0; k < max_iter_; ++k) {
      EvalWithJacobian(sys, t, q1_, *v);
      r_.noalias() = q1_ - *q - h * qd_;
      const double scale = 1 + q1_.cwiseAbs().maxCoeff();
      if (r_.cwiseAbs().maxCoeff() <= newton_tol_ * scale) {
        converged = true;
        break;
      }
      M_.setIdentity(nq, nq);
      M_.noalias() -= h * J_;
      lu_.compute(M_);
      ++lus_;
      ++newton_iterations_;
      dq_.noalias() = lu_.solve(r_);
      q1_ -= dq_;
      if (!std::isfinite(dq_.cwiseAbs().maxCoeff())) break;
    }
    if (!converged) {
      const Eigen::Index i = internal::WorstComponent(r_);
      throw IntegratorStepError(
          fmt::format(
              "{}: Newton iteration on q did not converge in {} iterations at "
              "t "
              "= {} with h = {}; worst position component {} (residual {})",
              kName, max_iter_, t, h, i, r_(i)),
          i);
    }
    sys.Vdot(t, q1_, *v, &a_);
    ++evals_;
    v->noalias() += h * a_;
    *q = q1_;
  }

 private:
  // qd_ = N(q) v and J_ = d (N(q) v) / d q at fixed v.
  template <typename Sys>
  void EvalWithJacobian(const Sys& sys, double t, const QVec& q,
                        const VVec& v) {
    ++jacobians_;
    if constexpr (internal::HasQdotJacobianQ<Sys, QVec, VVec, Mat>) {
      if (internal::CallOptionalJacobian(
              [&] { return sys.QdotJacobianQ(t, q, v, &J_); })) {
        sys.Qdot(t, q, v, &qd_);
        ++evals_;
        return;
      }
    }
    if constexpr (internal::QdotAutoDiffInQ<Sys, QVec, VVec>) {
      using AdScalar = typename internal::AutoDiffVectorFor<QVec, 0>::Scalar;
      const Eigen::Index nq = q.size();
      internal::SeedAutoDiff<AdScalar>(q, nq, 0, &q_ad_);
      sys.Qdot(t, q_ad_, v, &qd_ad_);
      ++evals_;
      for (Eigen::Index i = 0; i < nq; ++i) {
        qd_(i) = qd_ad_(i).value();
        if (qd_ad_(i).derivatives().size() == 0) {
          J_.row(i).setZero();
        } else {
          J_.row(i) = qd_ad_(i).derivatives().head(nq).transpose();
        }
      }
    } else {
      sys.Qdot(t, q, v, &qd_);
      const double cbrt_eps = std::cbrt(std::numeric_limits<double>::epsilon());
      qp_ = q;
      for (Eigen::Index j = 0; j < q.size(); ++j) {
        const double d = cbrt_eps * std::max(1.0, std::abs(q(j)));
        qp_(j) = q(j) + d;
        sys.Qdot(t, qp_, v, &qdp_);
        J_.col(j) = qdp_;
        qp_(j) = q(j) - d;
        sys.Qdot(t, qp_, v, &qdp_);
        J_.col(j) = (J_.col(j) - qdp_) / (2 * d);
        qp_(j) = q(j);
      }
      evals_ += 1 + 2 * static_cast<int>(q.size());
    }
  }

  QVec qd_, q1_, r_, dq_, qp_, qdp_;
  VVec a_;
  Mat J_, M_;
  Eigen::PartialPivLU<Mat> lu_;
  internal::AutoDiffVectorFor<QVec, 0> q_ad_, qd_ad_;
  double newton_tol_{1e-12};
  int max_iter_{10};
  int evals_{0};
  std::int64_t newton_iterations_{0}, jacobians_{0}, lus_{0};
};

// Velocity Verlet / Stormer-Verlet (HLW, Geometric Numerical Integration,
// eq. I.1.17), explicit form for qdot = N(q) v:
//   v_half = v0 + h/2 a0,                        a0 = vdot(q0, v0)
//   q1     = q0 + h N(q0 + h/2 N(q0) v_half) v_half
//   v1     = v_half + h/2 a1,                    a1 = vdot(q1, v~)
// with the predictor v~ = v_half + h/2 a0 (= v0 + h a0). One vdot and two
// N(q) v evaluations per step: a1 is kept and serves as the next step's a0
// (first same as last, FSAL) when that step starts at the (t, q, v) this one
// returned; any other start, or Reset(), evaluates a0 afresh.
// With vdot = vdot(q) (N arbitrary) a1 = vdot(q1) = vdot(q1, v1), so this is
// exactly Stormer-Verlet (symplectic for N = I, time-reversible, order 2).
// For velocity-dependent vdot, v~ and the reused a1 are O(h^2) from v1 and
// vdot(q1, v1), which keeps order 2. FSAL is used for double only (an
// autodiff state equal in value may differ in derivatives).
template <typename QVec, typename VVec = QVec>
class VelocityVerlet {
 public:
  using Scalar = typename QVec::Scalar;
  static constexpr int kOrder = 2;
  static constexpr const char* kName = "velocity_verlet";

  explicit VelocityVerlet(Eigen::Index nq = internal::DefaultSizeOf<QVec>(),
                          Eigen::Index nv = internal::DefaultSizeOf<VVec>()) {
    Resize(nq, nv);
  }
  void Resize(Eigen::Index nq, Eigen::Index nv) {
    qd_.resize(nq);
    qm_.resize(nq);
    q_end_.resize(nq);
    a_.resize(nv);
    vh_.resize(nv);
    vt_.resize(nv);
    v_end_.resize(nv);
    Reset();
  }
  // Forgets the acceleration kept for reuse (call when vdot itself changed).
  void Reset() { a_valid_ = false; }

  template <typename Sys>
  void Step(const Sys& sys, const Scalar& t, const Scalar& h, QVec* q,
            VVec* v) {
    const Scalar h2 = h / 2;
    if (!Reusable(t, *q, *v)) sys.Vdot(t, *q, *v, &a_);
    vh_.noalias() = *v + h2 * a_;
    sys.Qdot(t, *q, vh_, &qd_);
    qm_.noalias() = *q + h2 * qd_;
    sys.Qdot(t + h2, qm_, vh_, &qd_);
    q->noalias() += h * qd_;
    vt_.noalias() = vh_ + h2 * a_;
    t_end_ = t + h;
    a_valid_ = false;  // until the step has finished
    sys.Vdot(t_end_, *q, vt_, &a_);
    v->noalias() = vh_ + h2 * a_;
    if constexpr (std::is_same_v<Scalar, double>) {
      q_end_ = *q;
      v_end_ = *v;
      a_valid_ = true;
    }
  }

 private:
  bool Reusable(const Scalar& t, const QVec& q, const VVec& v) const {
    return a_valid_ && t == t_end_ && q == q_end_ && v == v_end_;
  }

  QVec qd_, qm_, q_end_;
  VVec a_, vh_, vt_, v_end_;
  Scalar t_end_{0};
  bool a_valid_{false};
};

}  // namespace tern
