#pragma once
// Jacobian of discrete dynamics: J = dx'/dz with z = [x; u], n x (n + m),
// for an explicit rule, Exponential or PassThrough (discrete_dynamics.h).
//
//   DiscreteJacobian<RK4>(model, z, &J);                 // z: KnotPoint
//   DiscreteJacobian<RK4>(model, x, u, t, dt, &J, JacobianMethod::kAnalytic);
//
// Methods:
//   kAutoDiff           forward mode with fixed-size dual numbers
//                       AutoDiffN<n + m> (AutoDiffXd for run-time sizes)
//                       through DiscreteDynamics. No heap allocation for
//                       fixed-size models. The default.
//   kCentralDifference  central differences, step cbrt(eps) max(1, |z_j|),
//                       2 (n + m) evaluations of DiscreteDynamics.
//   kAnalytic           the model's continuous Jacobian [df/dx df/du]
//                       (model.h, HasAnalyticJacobian) chained through the
//                       rule's stages. The chain rule through an explicit
//                       Runge-Kutta step equals the same step applied to the
//                       variational equation Phi' = df/dx Phi + df/du [0 I],
//                       Phi(0) = [I 0] ("internal numerical differentiation",
//                       Bock 1981; Hairer, Norsett & Wanner I, sec. II.6), so
//                       the rule itself is run on [x; vec(Phi)] and no rule's
//                       arithmetic is written twice. Exponential gives
//                       [Ad Bd]; PassThrough uses model.DiscreteJacobian.
// Throws std::invalid_argument on wrong sizes, or when kAnalytic is asked of a
// model without a Jacobian (kAutoDiff of one whose Dynamics is not a template
// over the scalar).
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "tern/common/autodiff.h"
#include "tern/systems/analysis/discrete_dynamics.h"

namespace tern {

enum class JacobianMethod { kAutoDiff, kCentralDifference, kAnalytic };

// "autodiff", "central_difference", "analytic".
const char* to_string(JacobianMethod method);

namespace internal {

[[noreturn]] void ThrowJacobianMethodUnavailable(const char* caller,
                                                 JacobianMethod method,
                                                 const std::string& model_name,
                                                 const char* reason);

template <int K, class D>
auto LeftCols(D&& m, Eigen::Index k) {
  if constexpr (K == Eigen::Dynamic) {
    return m.leftCols(k);
  } else {
    (void)k;
    return m.template leftCols<K>();
  }
}

template <int K, class D>
auto RightCols(D&& m, Eigen::Index k) {
  if constexpr (K == Eigen::Dynamic) {
    return m.rightCols(k);
  } else {
    (void)k;
    return m.template rightCols<K>();
  }
}

template <int K, class D>
auto Head(D&& v, Eigen::Index k) {
  if constexpr (K == Eigen::Dynamic) {
    return v.head(k);
  } else {
    (void)k;
    return v.template head<K>();
  }
}

template <int K, class D>
auto Tail(D&& v, Eigen::Index k) {
  if constexpr (K == Eigen::Dynamic) {
    return v.tail(k);
  } else {
    (void)k;
    return v.template tail<K>();
  }
}

// Writes the first nz derivatives of v (rows) into J; empty derivatives are
// zero.
template <class V, class JD>
void ExtractDerivatives(const V& v, Eigen::Index nz, JD* J) {
  using DerType = typename V::Scalar::DerType;
  constexpr int kCols = JD::ColsAtCompileTime;
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    if constexpr (kCols != Eigen::Dynamic &&
                  DerType::SizeAtCompileTime != Eigen::Dynamic) {
      J->row(i) = v(i).derivatives().template head<kCols>().transpose();
    } else if (v(i).derivatives().size() >= nz) {
      J->row(i) = v(i).derivatives().head(nz).transpose();
    } else {
      J->row(i).setZero();
    }
  }
}

// A model's n x (n + m) Jacobian stored row by row, so that a row is
// contiguous (and vectorized) in ChainRowsSkippingZeros. A row-major matrix
// of one column is not allowed by Eigen; that case stays column-major.
template <class M>
using RowMajorJacobianOf =
    Eigen::Matrix<double, kNumStatesOf<M>, kNumKnotOf<M>,
                  (kNumKnotOf<M> == 1 && kNumStatesOf<M> != 1)
                      ? Eigen::ColMajor
                      : Eigen::RowMajor>;

// out = A.leftCols(n) * P for A (n x (n + m)), P and out (n x k, row-major
// for speed), skipping the zero entries of A. Continuous model Jacobians are
// mostly structural zeros (the quadrotor's 13 x 13 state block has 55
// nonzeros), and without FMA or AVX a dense n x n x k product costs about as
// much as finite differences. out must not alias P.
template <class JA, class PD, class OD>
void ChainRowsSkippingZeros(const JA& A, const PD& P, OD* out) {
  constexpr int kCols = PD::ColsAtCompileTime;
  const Eigen::Index n = P.rows();
  for (Eigen::Index i = 0; i < n; ++i) {
    if constexpr (kCols != Eigen::Dynamic) {
      // Accumulate in registers, store once.
      Eigen::Matrix<double, 1, kCols> acc =
          Eigen::Matrix<double, 1, kCols>::Zero();
      for (Eigen::Index k = 0; k < n; ++k) {
        const double a = A(i, k);
        if (a != 0.0) acc += a * P.row(k);
      }
      out->row(i) = acc;
    } else {
      auto row = out->row(i);
      row.setZero();
      for (Eigen::Index k = 0; k < n; ++k) {
        const double a = A(i, k);
        if (a != 0.0) row += a * P.row(k);
      }
    }
  }
}

// f = f(x, u, t) (n) and Jc = [df/dx df/du] (n x (n + m)) by one forward-mode
// evaluation with fixed-size dual numbers of n + m directions.
template <class M>
void ContinuousJacobianAutoDiff(const M& model, const StateOf<M, double>& x,
                                const InputOf<M, double>& u, double t,
                                StateOf<M, double>* f, JacobianOf<M>* Jc) {
  using AD = AutoDiffFor<kNumKnotOf<M>>;
  const Eigen::Index n = x.size();
  const Eigen::Index nz = n + u.size();
  auto xa = SizedVector<StateOf<M, AD>>(n);
  auto ua = SizedVector<InputOf<M, AD>>(u.size());
  SeedAutoDiff<AD>(x, nz, 0, &xa);
  SeedAutoDiff<AD>(u, nz, n, &ua);
  auto fa = SizedVector<StateOf<M, AD>>(n);
  EvalDynamics(model, xa, ua, AD(t), &fa);
  f->resize(n);
  Jc->resize(n, nz);
  for (Eigen::Index i = 0; i < n; ++i) (*f)(i) = fa(i).value();
  ExtractDerivatives(fa, nz, Jc);
}

// f and Jc from the model's Dynamics and analytic Jacobian.
template <class M>
void ContinuousJacobianAnalytic(const M& model, const StateOf<M, double>& x,
                                const InputOf<M, double>& u, double t,
                                StateOf<M, double>* f, JacobianOf<M>* Jc) {
  EvalDynamics(model, x, u, t, f);
  Jc->resize(x.size(), x.size() + u.size());
  model.Jacobian(x, u, t, Jc);
}

template <template <typename> class Rule, class M>
TERN_FLATTEN void DiscreteJacobianAutoDiff(const M& model,
                                           const StateOf<M, double>& x,
                                           const InputOf<M, double>& u,
                                           double t, double dt,
                                           JacobianOf<M>* J) {
  constexpr int kNZ = kNumKnotOf<M>;
  using AD = AutoDiffFor<kNZ>;
  if constexpr (!DynamicsAcceptsScalar<M, AD>) {
    ThrowJacobianMethodUnavailable(
        "DiscreteJacobian", JacobianMethod::kAutoDiff, ModelName(model),
        "its Dynamics is not a template over the scalar type");
  } else {
    const Eigen::Index n = x.size();
    const Eigen::Index nz = n + u.size();
    auto xa = SizedVector<StateOf<M, AD>>(n);
    auto ua = SizedVector<InputOf<M, AD>>(u.size());
    SeedAutoDiff<AD>(x, nz, 0, &xa);
    SeedAutoDiff<AD>(u, nz, n, &ua);
    // t and dt stay doubles: J is with respect to [x; u] only.
    const StateOf<M, AD> xn = DiscreteDynamicsAt<Rule>(model, xa, ua, t, dt);
    ExtractDerivatives(xn, nz, J);
  }
}

template <template <typename> class Rule, class M>
void DiscreteJacobianCentralDifference(const M& model,
                                       const StateOf<M, double>& x,
                                       const InputOf<M, double>& u, double t,
                                       double dt, JacobianOf<M>* J) {
  constexpr int kN = kNumStatesOf<M>;
  constexpr int kM = kNumInputsOf<M>;
  const Eigen::Index n = x.size();
  const Eigen::Index m = u.size();
  // Balances truncation O(h^2) against rounding O(eps / h).
  const double rel_step = std::cbrt(std::numeric_limits<double>::epsilon());
  auto z = SizedVector<KnotVectorOf<M, double>>(n + m);
  Head<kN>(z, n) = x;
  Tail<kM>(z, m) = u;
  for (Eigen::Index j = 0; j < n + m; ++j) {
    const double zj = z(j);
    const double h = rel_step * std::max(1.0, std::abs(zj));
    z(j) = zj + h;
    const double zp = z(j);
    const StateOf<M, double> fp =
        DiscreteDynamics<Rule>(model, Head<kN>(z, n), Tail<kM>(z, m), t, dt);
    z(j) = zj - h;
    const double zm = z(j);
    const StateOf<M, double> fm =
        DiscreteDynamics<Rule>(model, Head<kN>(z, n), Tail<kM>(z, m), t, dt);
    z(j) = zj;
    J->col(j) = (fp - fm) / (zp - zm);
  }
}

template <template <typename> class Rule, class M>
void DiscreteJacobianAnalytic(const M& model, const StateOf<M, double>& x,
                              const InputOf<M, double>& u, double t, double dt,
                              JacobianOf<M>* J) {
  constexpr RuleKind kKind = RuleTraits<Rule>::kKind;
  constexpr int kN = kNumStatesOf<M>;
  constexpr int kM = kNumInputsOf<M>;
  constexpr int kNZ = kNumKnotOf<M>;
  const Eigen::Index n = x.size();
  const Eigen::Index m = u.size();
  const Eigen::Index nz = n + m;
  if constexpr (kKind == RuleKind::kExponential) {
    Eigen::MatrixXd Ad, Bd;
    DiscretizeZeroOrderHold(model.A(), model.B(), dt, &Ad, &Bd);
    LeftCols<kN>(*J, n) = Ad;
    RightCols<kM>(*J, m) = Bd;
  } else if constexpr (kKind == RuleKind::kPassThrough) {
    if constexpr (requires { model.DiscreteJacobian(x, u, t, dt, J); }) {
      model.DiscreteJacobian(x, u, t, dt, J);
    } else {
      ThrowJacobianMethodUnavailable(
          "DiscreteJacobian<PassThrough>", JacobianMethod::kAnalytic,
          ModelName(model),
          "it has no DiscreteJacobian(x, u, t, dt, &J) member");
    }
  } else if constexpr (!HasAnalyticJacobian<M>) {
    ThrowJacobianMethodUnavailable("DiscreteJacobian",
                                   JacobianMethod::kAnalytic, ModelName(model),
                                   "it has no Jacobian(x, u, t, &J) member");
  } else {
    // Run the rule on y = [x; vec(Phi)], Phi = dx/dz (n x nz) stored row by
    // row for ChainRowsSkippingZeros.
    constexpr int kAug = (kN == Eigen::Dynamic || kNZ == Eigen::Dynamic)
                             ? Eigen::Dynamic
                             : kN * (1 + kNZ);
    using Aug = Vector<double, kAug>;
    using Phi = RowMajorJacobianOf<M>;
    auto y = SizedVector<Aug>(n * (1 + nz));
    Head<kN>(y, n) = x;
    {
      Eigen::Map<Phi> phi0(y.data() + n, n, nz);
      phi0.setZero();
      LeftCols<kN>(phi0, n).setIdentity();
    }
    auto xs = SizedVector<StateOf<M, double>>(n);
    auto xdot = SizedVector<StateOf<M, double>>(n);
    JacobianOf<M> Jc(n, nz);
    auto f = [&](const double& tt, const Aug& yy, Aug* ydot) {
      xs = Head<kN>(yy, n);
      ContinuousJacobianAnalytic(model, xs, u, tt, &xdot, &Jc);
      ydot->resize(yy.size());
      Head<kN>(*ydot, n) = xdot;
      // Phi' = df/dx Phi + df/du [0 I].
      Eigen::Map<const Phi> P(yy.data() + n, n, nz);
      Eigen::Map<Phi> dP(ydot->data() + n, n, nz);
      ChainRowsSkippingZeros(Jc, P, &dP);
      RightCols<kM>(dP, m) += RightCols<kM>(Jc, m);
    };
    auto rule = MakeRule<Rule, Aug>(y.size());
    rule.Step(f, t, dt, &y);
    *J = Eigen::Map<const Phi>(y.data() + n, n, nz);
  }
}

}  // namespace internal

// J = dx'/d[x; u] (n x (n + m)) of DiscreteDynamics<Rule>(model, x, u, t, dt).
template <template <typename> class Rule, class M, class XD, class UD>
void DiscreteJacobian(const M& model, const Eigen::MatrixBase<XD>& x,
                      const Eigen::MatrixBase<UD>& u, double t, double dt,
                      JacobianOf<M>* J,
                      JacobianMethod method = JacobianMethod::kAutoDiff) {
  internal::CheckStateInputSizes("DiscreteJacobian", model, x.size(), u.size());
  internal::CheckTimeStep("DiscreteJacobian", model, t, dt);
  const StateOf<M, double> xx = x;
  const InputOf<M, double> uu = u;
  J->resize(xx.size(), xx.size() + uu.size());
  switch (method) {
    case JacobianMethod::kAutoDiff:
      internal::DiscreteJacobianAutoDiff<Rule>(model, xx, uu, t, dt, J);
      return;
    case JacobianMethod::kCentralDifference:
      internal::DiscreteJacobianCentralDifference<Rule>(model, xx, uu, t, dt,
                                                        J);
      return;
    case JacobianMethod::kAnalytic:
      internal::DiscreteJacobianAnalytic<Rule>(model, xx, uu, t, dt, J);
      return;
  }
}

// J = dx'/dz (n x (n + m)) at knot point z = [x; u] with its t and dt.
template <template <typename> class Rule, class M, int Nx, int Nu>
void DiscreteJacobian(const M& model, const KnotPoint<Nx, Nu, double>& z,
                      JacobianOf<M>* J,
                      JacobianMethod method = JacobianMethod::kAutoDiff) {
  DiscreteJacobian<Rule>(model, z.x(), z.u(), z.t(), z.dt(), J, method);
}

}  // namespace tern
