#include "tern/multibody/tree/dynamics.h"

#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <stdexcept>
#include <type_traits>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "tern/common/default_scalars.h"
#include "tern/multibody/tree/joint_kernels.h"

namespace tern {

using internal::CheckExternalForces;
using internal::CheckSizes;
using internal::GravityAcceleration;

namespace {

// Writes S^T f into out[0..nv).
template <typename T>
inline void ProjectForce(const RigidBody<T>& b, const Matrix6<T>& S,
                         const SpatialForce<T>& f, T* out) {
  switch (b.joint.type) {
    case JointType::kFixed:
      return;
    case JointType::kRevolute:
    case JointType::kPrismatic:
      out[0] = S.col(0).dot(f);
      return;
    case JointType::kFloating:
      for (int k = 0; k < 6; ++k) out[k] = f(k);
      return;
    case JointType::kBall:
      for (int k = 0; k < 3; ++k) out[k] = f(k);
      return;
    case JointType::kPlanar:
      for (int k = 0; k < 3; ++k) out[k] = S.col(k).dot(f);
      return;
  }
}

}  // namespace

namespace {

// Raw pointers to the cache's per-body arrays, taken once per call. Eigen's
// SSE stores may alias anything, so through std::vector the compiler would
// reload each array's base pointer after every store.
template <typename T>
struct Workspace {
  explicit Workspace(KinematicsCache<T>* c)
      : X_PB(c->X_PB.data()),
        X_WB(c->X_WB.data()),
        p_PB_W(c->p_PB_W.data()),
        S(c->S.data()),
        S_W(c->S_W.data()),
        Ic(c->Ic.data()),
        IA(c->IA.data()),
        V_W(c->V_W.data()),
        c_W(c->c_W.data()),
        V(c->V.data()),
        vJ(c->vJ.data()),
        U(c->U.data()),
        Dinv(c->Dinv.data()),
        u(c->u.data()),
        f(c->f.data()),
        a(c->a.data()),
        vdot(c->vdot.data()) {}
  RigidTransform<T>* X_PB;
  RigidTransform<T>* X_WB;
  Vector3<T>* p_PB_W;
  Matrix6<T>* S;
  SpatialMotion<T>* S_W;
  SpatialInertia<T>* Ic;
  Matrix6<T>* IA;
  SpatialMotion<T>* V_W;
  SpatialMotion<T>* c_W;
  SpatialMotion<T>* V;
  SpatialMotion<T>* vJ;
  Matrix6<T>* U;
  Matrix6<T>* Dinv;
  Vector6<T>* u;
  SpatialForce<T>* f;
  SpatialMotion<T>* a;
  T* vdot;
};

// Calls f(std::integral_constant<int, K>{}) for K = k in {0, 1, 2}: the
// simple-revolute fast paths take their axis as a compile-time constant.
template <typename F>
TERN_ALWAYS_INLINE decltype(auto) WithAxis(int k, F&& f) {
  switch (k) {
    case 0:
      return f(std::integral_constant<int, 0>{});
    case 1:
      return f(std::integral_constant<int, 1>{});
    default:
      return f(std::integral_constant<int, 2>{});
  }
}

#if defined(__SSE2__)
// 3-vectors as (x0, x1) and (x2, -) in SSE2 registers, and 6-vectors as
// the pairs (0-1, 2-3, 4-5) of their storage.
struct Pair3 {
  __m128d lo, hi;
};
TERN_ALWAYS_INLINE Pair3 Upper(const double* x) {  // elements 0-2
  return {_mm_loadu_pd(x), _mm_load_sd(x + 2)};
}
TERN_ALWAYS_INLINE Pair3 Lower(const double* x) {  // elements 3-5
  const __m128d x23 = _mm_loadu_pd(x + 2), x45 = _mm_loadu_pd(x + 4);
  return {_mm_shuffle_pd(x23, x45, 1), _mm_unpackhi_pd(x45, x45)};
}
TERN_ALWAYS_INLINE Pair3 Cross(const Pair3& a, const Pair3& b) {
  // (a1 b2 - a2 b1, a2 b0 - a0 b2) and a0 b1 - a1 b0.
  const __m128d a12 = _mm_shuffle_pd(a.lo, a.hi, 1);
  const __m128d a20 = _mm_unpacklo_pd(a.hi, a.lo);
  const __m128d b20 = _mm_unpacklo_pd(b.hi, b.lo);
  const __m128d b12 = _mm_shuffle_pd(b.lo, b.hi, 1);
  const __m128d lo = _mm_sub_pd(_mm_mul_pd(a12, b20), _mm_mul_pd(a20, b12));
  const __m128d t = _mm_mul_pd(a.lo, _mm_shuffle_pd(b.lo, b.lo, 1));
  return {lo, _mm_sub_sd(t, _mm_unpackhi_pd(t, t))};
}
TERN_ALWAYS_INLINE Pair3 Add(const Pair3& a, const Pair3& b) {
  return {_mm_add_pd(a.lo, b.lo), _mm_add_pd(a.hi, b.hi)};
}
TERN_ALWAYS_INLINE void Store6(const Pair3& p, const Pair3& q, double* out) {
  _mm_storeu_pd(out, p.lo);
  _mm_storeu_pd(out + 2, _mm_unpacklo_pd(p.hi, q.lo));
  _mm_storeu_pd(out + 4, _mm_shuffle_pd(q.lo, q.hi, 1));
}
#endif

// v x m and v x* f (RBDA eqs. 2.31, 2.32). For double, on SSE2 pairs: a
// 3-vector read of a 6-vector's lower half (elements 3-5) just stored as
// pairs would straddle two stores and stall.
template <typename T>
TERN_ALWAYS_INLINE SpatialMotion<T> CrossMotionByPairs(
    const SpatialMotion<T>& v, const SpatialMotion<T>& m) {
#if defined(__SSE2__)
  if constexpr (std::is_same_v<T, double>) {
    const Pair3 w = Upper(v.data()), u = Lower(v.data());
    const Pair3 a = Upper(m.data()), b = Lower(m.data());
    SpatialMotion<T> out;
    Store6(Cross(w, a), Add(Cross(w, b), Cross(u, a)), out.data());
    return out;
  }
#endif
  return CrossMotion(v, m);
}
// v x* (I v), the velocity-product force of a rigid body (RBDA eq. 5.9).
template <typename T>
TERN_ALWAYS_INLINE SpatialForce<T> BiasForceByPairs(const SpatialInertia<T>& I,
                                                    const SpatialMotion<T>& v) {
#if defined(__SSE2__)
  if constexpr (std::is_same_v<T, double>) {
    const Pair3 w = Upper(v.data()), u = Lower(v.data());
    const Pair3 h = Upper(I.h.data());
    // I v = [I w + h x u; m u - h x w].
    const __m128d w0 = _mm_unpacklo_pd(w.lo, w.lo);
    const __m128d w1 = _mm_unpackhi_pd(w.lo, w.lo);
    const __m128d w2 = _mm_unpacklo_pd(w.hi, w.hi);
    const double* Ic = I.I.data();
    Pair3 n = {_mm_add_pd(_mm_add_pd(_mm_mul_pd(_mm_loadu_pd(Ic), w0),
                                     _mm_mul_pd(_mm_loadu_pd(Ic + 3), w1)),
                          _mm_mul_pd(_mm_loadu_pd(Ic + 6), w2)),
               _mm_add_sd(_mm_add_sd(_mm_mul_sd(_mm_load_sd(Ic + 2), w0),
                                     _mm_mul_sd(_mm_load_sd(Ic + 5), w1)),
                          _mm_mul_sd(_mm_load_sd(Ic + 8), w2))};
    n = Add(n, Cross(h, u));
    const __m128d m = _mm_set1_pd(I.m);
    const Pair3 hw = Cross(h, w);
    const Pair3 fl = {_mm_sub_pd(_mm_mul_pd(m, u.lo), hw.lo),
                      _mm_sub_pd(_mm_mul_pd(m, u.hi), hw.hi)};
    SpatialForce<T> out;
    Store6(Add(Cross(w, n), Cross(u, fl)), Cross(w, fl), out.data());
    return out;
  }
#endif
  return CrossForce(v, SpatialForce<T>(I * v));
}

// *S = [a; 0], written as whole pairs for double (so that the pair loads
// that read it back right away are forwarded from the stores).
template <typename T>
TERN_ALWAYS_INLINE void StoreRevoluteColumn(const Vector3<T>& a,
                                            SpatialMotion<T>* S) {
#if defined(__SSE2__)
  if constexpr (std::is_same_v<T, double>) {
    double* o = S->data();
    _mm_storeu_pd(o, _mm_loadu_pd(a.data()));
    _mm_storeu_pd(o + 2, _mm_load_sd(a.data() + 2));
    _mm_storeu_pd(o + 4, _mm_setzero_pd());
    return;
  }
#endif
  S->template head<3>() = a;
  S->template tail<3>().setZero();
}

// WorldPoseAndSubspace for a body with b.simple_revolute about e_K and a
// parent other than the world. R_WB mixes two columns of R_WP with the
// joint's cos and sin, and X_WB is returned by value as well as stored, so
// that callers use it from registers rather than reading back what was
// just stored (element by element, which a wider load cannot forward).
template <int K, typename T>
TERN_ALWAYS_INLINE RigidTransform<T> SimpleRevoluteWorldPose(
    const RigidBody<T>& b, int i, const T* q, const Workspace<T>& w,
    SpatialMotion<T>* S_W) {
  constexpr int i1 = (K + 1) % 3, i2 = (K + 2) % 3;
  T cq, sq;
  internal::SimpleRevolutePose(b, K, q + b.position_start, &w.X_PB[i], &w.S[i],
                               &cq, &sq);
  const RigidTransform<T>& X_WP = w.X_WB[b.parent];
  RigidTransform<T> X;
  X.R.col(K) = X_WP.R.col(K);
  X.R.col(i1) = cq * X_WP.R.col(i1) + sq * X_WP.R.col(i2);
  X.R.col(i2) = cq * X_WP.R.col(i2) - sq * X_WP.R.col(i1);
  const Vector3<T> p_PB_W = internal::Multiply3(X_WP.R, b.joint.X_PJ.p);
  w.p_PB_W[i] = p_PB_W;
  X.p = X_WP.p + p_PB_W;
  // Stored column by column, as the children load it.
  if constexpr (!std::is_same_v<T, double>) internal::MakeCoherent(&X);
  RigidTransform<T>& X_WB = w.X_WB[i];
  for (int k = 0; k < 3; ++k) X_WB.R.col(k) = X.R.col(k);
  X_WB.p = X.p;
  StoreRevoluteColumn(Vector3<T>(X.R.col(K) * b.axis_sign), S_W);
  return X;
}

// X_PB, X_WB of body i from q, the offset p_PB_W of its origin from its
// parent's in world axes, and its joint's subspace columns in the
// world-aligned frame at the body's origin written to S_W[0 .. nv_i);
// returns X_WB. The dynamics algorithms work in these frames, one per body,
// so that no quantity is ever taken about the world origin: the distance of
// the bodies from it (a robot 10 km away, or the 1 m arm of a small wrist
// link whose inertia is 1e-4 of the parallel-axis term) then costs no
// digits. Only the offsets p_PB_W, link lengths computed from rotations,
// pass between frames. Joint axes pass through the body origin, so a
// revolute column is [axis; 0]: the world column is a column of R_WB (or
// R_WB times the axis), with no 6x6 transform of S.
template <typename T>
TERN_ALWAYS_INLINE RigidTransform<T> WorldPoseAndSubspace(
    const RigidBody<T>& b, int i, const T* q, const Workspace<T>& w,
    SpatialMotion<T>* S_W) {
  if (b.simple_revolute && b.parent != 0) {
    return WithAxis(b.axis_index, [&](auto K) {
      return SimpleRevoluteWorldPose<K>(b, i, q, w, S_W);
    });
  }
  internal::JointPoseAndSubspace(b, q + b.position_start, &w.X_PB[i], &w.S[i]);
  if (b.parent == 0) {
    w.X_WB[i] = w.X_PB[i];
    w.p_PB_W[i] = w.X_PB[i].p;
  } else {
    const RigidTransform<T>& X_WP = w.X_WB[b.parent];
    const Vector3<T> p_PB_W = internal::Multiply3(X_WP.R, w.X_PB[i].p);
    w.p_PB_W[i] = p_PB_W;
    w.X_WB[i].R.noalias() = X_WP.R * w.X_PB[i].R;
    w.X_WB[i].p = X_WP.p + p_PB_W;
  }
  if constexpr (!std::is_same_v<T, double>) internal::MakeCoherent(&w.X_WB[i]);
  const RigidTransform<T>& X = w.X_WB[i];
  switch (b.joint.type) {
    case JointType::kFixed:
      return X;
    case JointType::kRevolute: {
      if (b.axis_index >= 0) {
        StoreRevoluteColumn(Vector3<T>(X.R.col(b.axis_index) * b.axis_sign),
                            S_W);
      } else {
        StoreRevoluteColumn(internal::Multiply3(X.R, b.joint.axis), S_W);
      }
      return X;
    }
    case JointType::kPrismatic:
      S_W[0].template head<3>().setZero();
      S_W[0].template tail<3>().noalias() = X.R * b.joint.axis;
      return X;
    case JointType::kFloating:
      for (int k = 0; k < 3; ++k) {
        S_W[k].template head<3>() = X.R.col(k);
        S_W[k].template tail<3>().setZero();
        S_W[k + 3].template head<3>().setZero();
        S_W[k + 3].template tail<3>() = X.R.col(k);
      }
      return X;
    case JointType::kBall:
      for (int k = 0; k < 3; ++k) {
        S_W[k].template head<3>() = X.R.col(k);
        S_W[k].template tail<3>().setZero();
      }
      return X;
    case JointType::kPlanar:
      for (int k = 0; k < 3; ++k) {
        S_W[k].template head<3>() = internal::Multiply3(
            X.R, Vector3<T>(w.S[i].col(k).template head<3>()));
        S_W[k].template tail<3>() = internal::Multiply3(
            X.R, Vector3<T>(w.S[i].col(k).template tail<3>()));
      }
      return X;
  }
  return X;
}

// m + rest with m's linear part taken at the child's origin: it gains
// w x r (r = p_PB_W). For double, on pairs of components with SSE2, the
// layout of a 6-vector in registers: GCC builds a pair from two scalars
// through memory, and a pair loaded over two scalar stores stalls.
template <typename T>
TERN_ALWAYS_INLINE SpatialMotion<T> ShiftedMotionPlus(
    const SpatialMotion<T>& m, const Vector3<T>& r,
    const SpatialMotion<T>& rest) {
  SpatialMotion<T> out;
#if defined(__SSE2__)
  if constexpr (std::is_same_v<T, double>) {
    const __m128d w01 = _mm_loadu_pd(m.data());
    const __m128d m23 = _mm_loadu_pd(m.data() + 2);
    const __m128d m45 = _mm_loadu_pd(m.data() + 4);
    const __m128d r01 = _mm_loadu_pd(r.data());
    const __m128d r2x = _mm_load_sd(r.data() + 2);
    const __m128d zero = _mm_setzero_pd();
    // (v3, v4, v5) += (w1 r2 - w2 r1, w2 r0 - w0 r2, w0 r1 - w1 r0).
    const __m128d d23 = _mm_sub_pd(_mm_mul_pd(w01, _mm_unpacklo_pd(zero, r2x)),
                                   _mm_mul_pd(_mm_unpacklo_pd(zero, m23), r01));
    const __m128d d45 = _mm_sub_pd(_mm_mul_pd(_mm_unpacklo_pd(m23, w01), r01),
                                   _mm_mul_pd(w01, _mm_unpacklo_pd(r2x, r01)));
    const double* x = rest.data();
    _mm_storeu_pd(out.data(), _mm_add_pd(w01, _mm_loadu_pd(x)));
    _mm_storeu_pd(out.data() + 2,
                  _mm_add_pd(_mm_add_pd(m23, _mm_loadu_pd(x + 2)), d23));
    _mm_storeu_pd(out.data() + 4,
                  _mm_add_pd(_mm_add_pd(m45, _mm_loadu_pd(x + 4)), d45));
    return out;
  }
#endif
  out = m + rest;
  out(3) += m(1) * r(2) - m(2) * r(1);
  out(4) += m(2) * r(0) - m(0) * r(2);
  out(5) += m(0) * r(1) - m(1) * r(0);
  return out;
}

#if defined(__SSE2__)
// A 6-vector (or 6x6 column) x in pairs (x01, x23, x45) gains [r]x times
// its lower half in its upper half: rows 0-1 gain (r1 y2 - r2 y1,
// r2 y0 - r0 y2) and row 2 gains r0 y1 - r1 y0 for y = (x3, x4, x5) =
// (x23[1], x45[0], x45[1]). r01 = (r0, r1), r12 = (r1, r2), r20 = (r2, r0).
TERN_ALWAYS_INLINE void ShiftPairs(__m128d r01, __m128d r12, __m128d r20,
                                   __m128d* x01, __m128d* x23, __m128d x45) {
  *x01 =
      _mm_add_pd(*x01, _mm_sub_pd(_mm_mul_pd(r12, _mm_unpackhi_pd(x45, *x23)),
                                  _mm_mul_pd(r20, x45)));
  const __m128d t = _mm_mul_pd(r01, _mm_shuffle_pd(x45, *x23, 2));
  *x23 = _mm_add_pd(*x23, _mm_move_sd(_mm_setzero_pd(),
                                      _mm_sub_sd(t, _mm_unpackhi_pd(t, t))));
}
#endif

// *out += f given about the child's origin, taken about the parent's (r =
// p_PB_W): [n + r x f; f].
template <typename T>
TERN_ALWAYS_INLINE void AddShiftedForce(const SpatialForce<T>& f,
                                        const Vector3<T>& r,
                                        SpatialForce<T>* out) {
#if defined(__SSE2__)
  if constexpr (std::is_same_v<T, double>) {
    const __m128d r01 = _mm_loadu_pd(r.data());
    const __m128d r12 = _mm_loadu_pd(r.data() + 1);
    const __m128d r20 = _mm_unpacklo_pd(_mm_load_sd(r.data() + 2), r01);
    __m128d x01 = _mm_loadu_pd(f.data());
    __m128d x23 = _mm_loadu_pd(f.data() + 2);
    const __m128d x45 = _mm_loadu_pd(f.data() + 4);
    ShiftPairs(r01, r12, r20, &x01, &x23, x45);
    double* o = out->data();
    _mm_storeu_pd(o, _mm_add_pd(_mm_loadu_pd(o), x01));
    _mm_storeu_pd(o + 2, _mm_add_pd(_mm_loadu_pd(o + 2), x23));
    _mm_storeu_pd(o + 4, _mm_add_pd(_mm_loadu_pd(o + 4), x45));
    return;
  }
#endif
  const Vector3<T> fl = f.template tail<3>();
  const Vector3<T> n =
      Vector3<T>(f.template head<3>()) + internal::Cross(r, fl);
  for (int k = 0; k < 3; ++k) {
    (*out)(k) += n(k);
    (*out)(k + 3) += fl(k);
  }
}

// *out += X* (M - w U^T) X^-1, with M given about the child's origin and X
// the translation from it to the parent's (r = p_PB_W), both world-aligned
// (RBDA eq. 2.66 with R = 1). For the force transform Xf = [[1, [r]x],
// [0, 1]], X* N X^-1 = Xf N Xf^T: rows 0-2 of each column gain [r]x times
// rows 3-5, then columns 0-2 gain (columns 3-5) [r]x^T. For double, on
// pairs of rows with SSE2 (see ShiftedMotionPlus), so the 6x6 is never
// stored in pieces and read back whole. w U^T is the ABA's rank-N
// correction, or nothing for N = 0.
template <typename T, int N>
TERN_ALWAYS_INLINE void AddShiftedInertia(const Matrix6<T>& M,
                                          const Eigen::Matrix<T, 6, N>* w,
                                          const Eigen::Matrix<T, 6, N>* U,
                                          const Vector3<T>& r,
                                          Matrix6<T>* out) {
  Matrix6<T>& O = *out;
#if defined(__SSE2__)
  if constexpr (std::is_same_v<T, double>) {
    const __m128d r01 = _mm_loadu_pd(r.data());
    const __m128d r12 = _mm_loadu_pd(r.data() + 1);
    const __m128d r2x = _mm_load_sd(r.data() + 2);
    const __m128d r20 = _mm_unpacklo_pd(r2x, r01);
    __m128d n[6][3];
    for (int j = 0; j < 6; ++j) {
      __m128d x01 = _mm_loadu_pd(&M(0, j));
      __m128d x23 = _mm_loadu_pd(&M(2, j));
      __m128d x45 = _mm_loadu_pd(&M(4, j));
      if constexpr (N > 0) {
        const Vector6<T> wu = *w * U->row(j).transpose();
        x01 = _mm_sub_pd(x01, _mm_loadu_pd(wu.data()));
        x23 = _mm_sub_pd(x23, _mm_loadu_pd(wu.data() + 2));
        x45 = _mm_sub_pd(x45, _mm_loadu_pd(wu.data() + 4));
      }
      ShiftPairs(r01, r12, r20, &x01, &x23, x45);
      n[j][0] = x01;
      n[j][1] = x23;
      n[j][2] = x45;
    }
    for (int j = 3; j < 6; ++j) {
      for (int h = 0; h < 3; ++h) {
        double* o = &O(2 * h, j);
        _mm_storeu_pd(o, _mm_add_pd(_mm_loadu_pd(o), n[j][h]));
      }
    }
    const __m128d s0 = _mm_set1_pd(r(0)), s1 = _mm_set1_pd(r(1)),
                  s2 = _mm_set1_pd(r(2));
    for (int h = 0; h < 3; ++h) {
      // Columns 0-2 gain -(N_right (r x e_k)).
      double* o0 = &O(2 * h, 0);
      double* o1 = &O(2 * h, 1);
      double* o2 = &O(2 * h, 2);
      __m128d c0 = _mm_add_pd(n[0][h], _mm_sub_pd(_mm_mul_pd(s1, n[5][h]),
                                                  _mm_mul_pd(s2, n[4][h])));
      __m128d c1 = _mm_add_pd(n[1][h], _mm_sub_pd(_mm_mul_pd(s2, n[3][h]),
                                                  _mm_mul_pd(s0, n[5][h])));
      __m128d c2 = _mm_add_pd(n[2][h], _mm_sub_pd(_mm_mul_pd(s0, n[4][h]),
                                                  _mm_mul_pd(s1, n[3][h])));
      _mm_storeu_pd(o0, _mm_add_pd(_mm_loadu_pd(o0), c0));
      _mm_storeu_pd(o1, _mm_add_pd(_mm_loadu_pd(o1), c1));
      _mm_storeu_pd(o2, _mm_add_pd(_mm_loadu_pd(o2), c2));
    }
    return;
  }
#endif
  Matrix6<T> Nm = M;
  if constexpr (N > 0) Nm.noalias() -= *w * U->transpose();
  for (int j = 0; j < 6; ++j) {
    const Vector3<T> y = Nm.col(j).template tail<3>();
    Nm.col(j).template head<3>() += internal::Cross(r, y);
  }
  for (int j = 3; j < 6; ++j) O.col(j) += Nm.col(j);
  O.col(0) += Nm.col(0) - r(2) * Nm.col(4) + r(1) * Nm.col(5);
  O.col(1) += Nm.col(1) + r(2) * Nm.col(3) - r(0) * Nm.col(5);
  O.col(2) += Nm.col(2) - r(1) * Nm.col(3) + r(0) * Nm.col(4);
}

}  // namespace

namespace {

// R x for R = R_K(angle), the rotation about e_K with c = cos and s = sin of
// the angle: only the components i1, i2 (cyclic after K) mix. R^T x is the
// rotation by -angle: RotateAboutAxis<K>(c, -s, x).
template <int K, typename T>
TERN_ALWAYS_INLINE Vector3<T> RotateAboutAxis(const T& c, const T& s,
                                              const Vector3<T>& x) {
  constexpr int i1 = (K + 1) % 3, i2 = (K + 2) % 3;
  Vector3<T> y;
  y(K) = x(K);
  y(i1) = c * x(i1) - s * x(i2);
  y(i2) = s * x(i1) + c * x(i2);
  return y;
}

// RNEA pass-1 step (RBDA Table 5.1) for a body with b.simple_revolute about
// e_K: X_PB = (R_K(angle), p) and S = [axis_sign e_K; 0], so X_PB^-1 costs
// two plane rotations, S qd adds to one component and v x (S qd) is a
// permutation of v's components scaled by the joint rate.
template <int K, typename T>
TERN_ALWAYS_INLINE void RneaSimpleRevoluteKinematics(const RigidBody<T>& b,
                                                     int i, const T* q,
                                                     const T* v, const T* vdot,
                                                     const Workspace<T>& c) {
  constexpr int i1 = (K + 1) % 3, i2 = (K + 2) % 3;
  T cq, sq;
  internal::SimpleRevolutePose(b, K, q + b.position_start, &c.X_PB[i], &c.S[i],
                               &cq, &sq);
  const T nsq = -sq;  // X_PB^-1 rotates by R_K(angle)^T = R_K(-angle)
  const Vector3<T>& p = b.joint.X_PJ.p;
  const T wJ = b.axis_sign * v[b.velocity_start];
  const T aJ = b.axis_sign * vdot[b.velocity_start];
  const SpatialMotion<T>& V_p = c.V[b.parent];
  const SpatialMotion<T>& a_p = c.a[b.parent];
  // V = X^-1 V_p + S qd.
  const Vector3<T> Vp_w = V_p.template head<3>();
  const Vector3<T> Vp_v = V_p.template tail<3>() - internal::Cross(p, Vp_w);
  Vector3<T> w = RotateAboutAxis<K>(cq, nsq, Vp_w);
  const Vector3<T> vl = RotateAboutAxis<K>(cq, nsq, Vp_v);
  w(K) += wJ;
  // a = X^-1 a_p + S qdd + V x (S qd), with x x e_K = x_i2 e_i1 - x_i1 e_i2.
  const Vector3<T> ap_w = a_p.template head<3>();
  const Vector3<T> ap_v = a_p.template tail<3>() - internal::Cross(p, ap_w);
  Vector3<T> aw = RotateAboutAxis<K>(cq, nsq, ap_w);
  Vector3<T> av = RotateAboutAxis<K>(cq, nsq, ap_v);
  aw(K) += aJ;
  aw(i1) += w(i2) * wJ;
  aw(i2) -= w(i1) * wJ;
  av(i1) += vl(i2) * wJ;
  av(i2) -= vl(i1) * wJ;
  SpatialMotion<T>& V = c.V[i];
  SpatialMotion<T>& a = c.a[i];
  SpatialMotion<T>& vJ = c.vJ[i];
  for (int k = 0; k < 3; ++k) {
    V(k) = w(k);
    V(k + 3) = vl(k);
    a(k) = aw(k);
    a(k + 3) = av(k);
    vJ(k) = vJ(k + 3) = internal::ConstantLike(0.0, wJ);
  }
  vJ(K) = wJ;
}

// RNEA pass-2 step for a body with b.simple_revolute about e_K: tau_i =
// S^T f_i and f_parent += X_PB* f_i = [R n + p x (R f); R f].
template <int K, typename T>
TERN_ALWAYS_INLINE void RneaSimpleRevoluteForce(const RigidBody<T>& b, int i,
                                                const Workspace<T>& c, T* tau) {
  constexpr int i1 = (K + 1) % 3, i2 = (K + 2) % 3;
  const SpatialForce<T>& f = c.f[i];
  *tau = b.axis_sign * f(K);
  if (b.parent > 0) {
    const Matrix3<T>& R = c.X_PB[i].R;
    const T cq = R(i1, i1), sq = R(i2, i1);
    const Vector3<T> fl =
        RotateAboutAxis<K>(cq, sq, Vector3<T>(f.template tail<3>()));
    const Vector3<T> n =
        RotateAboutAxis<K>(cq, sq, Vector3<T>(f.template head<3>())) +
        internal::Cross(b.joint.X_PJ.p, fl);
    SpatialForce<T>& f_p = c.f[b.parent];
    for (int k = 0; k < 3; ++k) {
      f_p(k) += n(k);
      f_p(k + 3) += fl(k);
    }
  }
}

// f_i = I a_i + v_i x* (I v_i) (RBDA eq. 5.9) in body coordinates.
template <typename T>
TERN_ALWAYS_INLINE void RneaBodyForce(const SpatialInertia<T>& I,
                                      const SpatialMotion<T>& V,
                                      const SpatialMotion<T>& a,
                                      SpatialForce<T>* f) {
  const SpatialForce<T> Ia = I * a;
  const SpatialForce<T> h = CrossForce(V, SpatialForce<T>(I * V));
  for (int k = 0; k < 6; ++k) (*f)(k) = Ia(k) + h(k);
}

}  // namespace

namespace {

// F = (n, f) = Ic S for one subspace column S in the body's world-aligned
// frame, with the zero half of a revolute or prismatic column skipped. The
// halves are kept apart: a 3-vector read of the lower half of a 6-vector
// just stored would straddle two stores and stall.
template <typename T>
TERN_ALWAYS_INLINE void CompositeTimesColumn(const RigidBody<T>& b,
                                             const SpatialInertia<T>& Ic,
                                             const SpatialMotion<T>& S,
                                             Vector3<T>* n, Vector3<T>* f) {
  const Vector3<T> w = S.template head<3>();
  const Vector3<T> v = S.template tail<3>();
  if (b.joint.type == JointType::kRevolute) {
    *n = internal::Multiply3(Ic.I, w);
    *f = internal::Cross(w, Ic.h);
  } else if (b.joint.type == JointType::kPrismatic) {
    *n = internal::Cross(Ic.h, v);
    *f = Ic.m * v;
  } else {
    *n = internal::Multiply3(Ic.I, w) + internal::Cross(Ic.h, v);
    *f = Ic.m * v - internal::Cross(Ic.h, w);
  }
}

// S . (n, f) for one subspace column.
template <typename T>
TERN_ALWAYS_INLINE T Dot(const SpatialMotion<T>& S, const Vector3<T>& n,
                         const Vector3<T>& f) {
  return S.template head<3>().dot(n) + S.template tail<3>().dot(f);
}

// out[k] = S_k . F for the subspace columns S_W[0 .. nv) of body b, all
// about b's origin, using the zero halves of the common joints' columns.
template <typename T>
TERN_ALWAYS_INLINE void ProjectColumns(const RigidBody<T>& b,
                                       const SpatialMotion<T>* S_W,
                                       const Vector3<T>& n, const Vector3<T>& f,
                                       T* out) {
  switch (b.joint.type) {
    case JointType::kFixed:
      return;
    case JointType::kRevolute:
      out[0] = S_W[0].template head<3>().dot(n);
      return;
    case JointType::kPrismatic:
      out[0] = S_W[0].template tail<3>().dot(f);
      return;
    case JointType::kFloating:
      for (int k = 0; k < 3; ++k) {
        out[k] = S_W[k].template head<3>().dot(n);
        out[k + 3] = S_W[k + 3].template tail<3>().dot(f);
      }
      return;
    case JointType::kBall:
      for (int k = 0; k < 3; ++k) out[k] = S_W[k].template head<3>().dot(n);
      return;
    case JointType::kPlanar:
      for (int k = 0; k < 3; ++k) {
        out[k] =
            S_W[k].template head<3>().dot(n) + S_W[k].template tail<3>().dot(f);
      }
      return;
  }
}

}  // namespace

template <typename T>
const MatrixX<T>& MassMatrix(const RigidBodyTree<T>& tree,
                             KinematicsCache<T>* cache, const VectorX<T>& q) {
  CheckSizes("MassMatrix", tree, *cache, q.size(), -1);
  if (cache->H.rows() != tree.num_velocities()) {
    throw std::invalid_argument(fmt::format(
        "MassMatrix: the KinematicsCache of tree '{}' was made without the "
        "mass matrix (with_mass_matrix = false)",
        tree.name()));
  }
  const Workspace<T> c(cache);
  const int nb = tree.num_bodies();
  const int nv = tree.num_velocities();
  const RigidBody<T>* bodies = tree.bodies().data();
  // The composite rigid body algorithm (RBDA Table 6.2) with each body's
  // composite inertia and joint subspace expressed in the world-aligned
  // frame at the body's origin (see WorldPoseAndSubspace): a composite
  // passes to the parent by a shift of origin along the link (no rotation),
  // and H_ij = S_j . F_i with F_i = Ic_i S_i shifted along the links from
  // body i up to body j. Nothing is taken about the world origin, so H does
  // not lose digits with the distance of the bodies from it. Composite
  // inertias are kept as the 10 parameters (m, h, I), not as 6x6 matrices.
  for (int i = 1; i < nb; ++i) {
    const RigidBody<T>& b = bodies[i];
    const RigidTransform<T> X_WB =
        WorldPoseAndSubspace(b, i, q.data(), c, &c.S_W[b.velocity_start]);
    // A body welded to another is counted in its carrier's inertia, and only
    // passes on the composites of any children it has.
    if (b.welded || (b.parent == 0 && b.num_velocities == 0)) {
      c.Ic[i] = SpatialInertia<T>();
    } else {
      c.Ic[i] = b.central_inertia_with_welded.Rotated(X_WB.R);
    }
  }
  // Only the entries of dof pairs on one branch are written; the others
  // are structural zeros, set when the cache was made (KinematicsCache) and
  // written by nothing else, so H is not cleared here.
  MatrixX<T>& H = cache->H;
  T* Hd = H.data();
  for (int i = nb - 1; i > 0; --i) {
    const RigidBody<T>& b = bodies[i];
    const int vi = b.velocity_start;
    for (int k = 0; k < b.num_velocities; ++k) {
      const int col = vi + k;
      Vector3<T> n, f;
      CompositeTimesColumn(b, c.Ic[i], c.S_W[col], &n, &f);
      Hd[col * (nv + 1)] = Dot(c.S_W[col], n, f) + b.joint.armature;
      for (int j = vi; j < col; ++j) {
        const T Hij = Dot(c.S_W[j], n, f);
        Hd[col * nv + j] = Hij;
        Hd[j * nv + col] = Hij;
      }
      // Up the path to the root: F about each ancestor's origin in turn.
      T out[6];
      for (int from = i, j = b.parent; j > 0; from = j, j = bodies[j].parent) {
        n += internal::Cross(c.p_PB_W[from], f);
        const RigidBody<T>& bj = bodies[j];
        if (bj.num_velocities == 0) continue;
        ProjectColumns(bj, &c.S_W[bj.velocity_start], n, f, out);
        for (int r = 0; r < bj.num_velocities; ++r) {
          const int row = bj.velocity_start + r;
          Hd[col * nv + row] = out[r];
          Hd[row * nv + col] = out[r];
        }
      }
    }
    if (b.parent > 0) c.Ic[b.parent] += c.Ic[i].Shifted(c.p_PB_W[i]);
  }
  return H;
}

template <typename T>
const VectorX<T>& InverseDynamics(const RigidBodyTree<T>& tree,
                                  KinematicsCache<T>* cache,
                                  const VectorX<T>& q, const VectorX<T>& v,
                                  const VectorX<T>& vdot,
                                  const std::vector<SpatialForce<T>>* f_ext) {
  CheckSizes("InverseDynamics", tree, *cache, q.size(), v.size(), vdot.size(),
             "vdot");
  CheckExternalForces("InverseDynamics", tree, f_ext);
  const Workspace<T> c(cache);
  const int nb = tree.num_bodies();
  const RigidBody<T>* bodies = tree.bodies().data();
  T* tau = cache->tau.data();
  // RNEA (RBDA Table 5.1) in body coordinates.
  c.a[0] = GravityAcceleration(tree);
  for (int i = 1; i < nb; ++i) {
    const RigidBody<T>& b = bodies[i];
    internal::RunStep<T>([&] {
      const int p = b.parent;
      if (b.simple_revolute) {
        WithAxis(b.axis_index, [&](auto K) {
          RneaSimpleRevoluteKinematics<K>(b, i, q.data(), v.data(), vdot.data(),
                                          c);
        });
      } else {
        internal::JointPoseAndSubspace(b, q.data() + b.position_start,
                                       &c.X_PB[i], &c.S[i]);
        const SpatialMotion<T> vJ =
            internal::JointVelocity(b, c.S[i], v.data() + b.velocity_start);
        c.vJ[i] = vJ;
        c.V[i] = InverseTransformMotion(c.X_PB[i], c.V[p]);
        c.V[i] += vJ;
        c.a[i] = InverseTransformMotion(c.X_PB[i], c.a[p]);
        c.a[i] +=
            internal::JointVelocity(b, c.S[i], vdot.data() + b.velocity_start);
        c.a[i] += CrossMotion(c.V[i], vJ);
        internal::AddJointBias(b, vJ, &c.a[i]);
      }
      if constexpr (!std::is_same_v<T, double>) {
        internal::MakeCoherent(&c.V[i]);
        internal::MakeCoherent(&c.a[i]);
      }
      // Bodies welded to the world or to a carrier add no inertial force of
      // their own (the carrier's inertia includes theirs).
      if (b.welded || (p == 0 && b.num_velocities == 0)) {
        c.f[i].setZero();
      } else {
        RneaBodyForce(b.inertia_with_welded, c.V[i], c.a[i], &c.f[i]);
      }
      if (f_ext != nullptr) c.f[i] -= (*f_ext)[i];
    });
  }
  for (int i = nb - 1; i > 0; --i) {
    const RigidBody<T>& b = bodies[i];
    internal::RunStep<T>([&] {
      const int vi = b.velocity_start;
      if (b.simple_revolute) {
        WithAxis(b.axis_index, [&](auto K) {
          RneaSimpleRevoluteForce<K>(b, i, c, tau + vi);
        });
      } else {
        ProjectForce(b, c.S[i], c.f[i], tau + vi);
        if (b.parent > 0) c.f[b.parent] += TransformForce(c.X_PB[i], c.f[i]);
      }
      for (int k = 0; k < b.num_velocities; ++k) {
        tau[vi + k] +=
            b.joint.damping * v(vi + k) + b.joint.armature * vdot(vi + k);
      }
    });
  }
  return cache->tau;
}

template <typename T>
const VectorX<T>& BiasTerm(const RigidBodyTree<T>& tree,
                           KinematicsCache<T>* cache, const VectorX<T>& q,
                           const VectorX<T>& v,
                           const std::vector<SpatialForce<T>>* f_ext) {
  CheckSizes("BiasTerm", tree, *cache, q.size(), v.size());
  // vdot = 0 without a temporary: vdot's storage is the cache's.
  cache->vdot.setZero();
  return InverseDynamics(tree, cache, q, v, cache->vdot, f_ext);
}

namespace {

// ForwardDynamics found a joint whose articulated inertia D = S^T IA S (+
// armature) is singular: the mass matrix is, and vdot would be NaN.
template <typename T>
[[noreturn]] TERN_NOINLINE void ThrowSingular(const RigidBody<T>& b,
                                              const T& D) {
  throw std::runtime_error(fmt::format(
      "ForwardDynamics: the articulated inertia of {} joint '{}' (body '{}') "
      "is singular (pivot {:.3g}): the mass matrix is singular, e.g. a "
      "massless body at the end of the joint; give the body mass and "
      "inertia, or the joint armature (CheckMassMatrixNonsingular tells at "
      "build time)",
      JointTypeName(b.joint.type), b.joint.name, b.name,
      ExtractDoubleOrThrow(D)));
}

// The inverse of a small symmetric positive definite matrix (D = S^T IA S of
// a multi-dof joint) by Cholesky, D = L L^T, then D^-1 = L^-T L^-1, in
// fixed-size loops the compiler unrolls: Eigen's LLT solve with a matrix
// right-hand side goes through its blocked triangular solver, which for a
// 6x6 costs several times the arithmetic.
template <typename T, int N, typename Out>
TERN_ALWAYS_INLINE void SpdInverse(const RigidBody<T>& b,
                                   const Eigen::Matrix<T, N, N>& D, Out* Dinv) {
  using std::sqrt;
  Eigen::Matrix<T, N, N> L = Eigen::Matrix<T, N, N>::Zero();
  Eigen::Matrix<T, N, 1> inv_diag;
  for (int j = 0; j < N; ++j) {
    T d = D(j, j);
    for (int k = 0; k < j; ++k) d -= L(j, k) * L(j, k);
    // A pivot that rounding alone separates from zero: D is singular.
    if (!(d > T(1e-13) * D(j, j))) ThrowSingular(b, d);
    L(j, j) = sqrt(d);
    inv_diag(j) = T(1) / L(j, j);
    for (int i = j + 1; i < N; ++i) {
      T x = D(i, j);
      for (int k = 0; k < j; ++k) x -= L(i, k) * L(j, k);
      L(i, j) = x * inv_diag(j);
    }
  }
  // Linv = L^-1 (lower triangular), column by column.
  Eigen::Matrix<T, N, N> Linv = Eigen::Matrix<T, N, N>::Zero();
  for (int j = 0; j < N; ++j) {
    Linv(j, j) = inv_diag(j);
    for (int i = j + 1; i < N; ++i) {
      T x(0);
      for (int k = j; k < i; ++k) x -= L(i, k) * Linv(k, j);
      Linv(i, j) = x * inv_diag(i);
    }
  }
  // D^-1 = Linv^T Linv, symmetric.
  for (int j = 0; j < N; ++j) {
    for (int i = j; i < N; ++i) {
      T x(0);
      for (int k = i; k < N; ++k) x += Linv(k, i) * Linv(k, j);
      (*Dinv)(i, j) = x;
      (*Dinv)(j, i) = x;
    }
  }
}

// ABA pass-2 step for body i with an N-dof joint (N = 1 for revolute and
// prismatic, 3 for ball and planar, 6 for floating), with fixed sizes so
// nothing is allocated; quantities are in the world-aligned frame at the
// body's origin. The parent's articulated inertia and bias force receive
//   Ia = IA - U D^-1 U^T,  pa = p + Ia c + U D^-1 u   (RBDA Table 7.1)
// (pa as p + IA c + U D^-1 (u - U^T c)), shifted from the body's origin to
// the parent's along the link: a translation, no rotation.
template <typename T, int N>
TERN_ALWAYS_INLINE void AbaBackward(const RigidBody<T>& b,
                                    const Workspace<T>& c, int i,
                                    const VectorX<T>& v,
                                    const VectorX<T>& tau) {
  const int vi = b.velocity_start;
  if constexpr (N == 1) {
    // One dof: U and S are vectors, D a scalar; spelled out in always-inlined
    // kernels so the code does not depend on GCC's inlining of Eigen.
    const SpatialMotion<T>& s = c.S_W[vi];
    const SpatialMotion<T>& c_i = c.c_W[i];
    const Matrix6<T>& IA_i = c.IA[i];
    // U = IA s and IA c in one sweep over IA's columns; a revolute column
    // [a; 0] (about the body's origin, on the axis) needs half of them.
    Vector6<T> U = IA_i.col(0) * s(0);
    Vector6<T> IAc = IA_i.col(0) * c_i(0);
    const int ns = b.joint.type == JointType::kRevolute ? 3 : 6;
    for (int k = 1; k < 6; ++k) {
      if (k < ns) U += IA_i.col(k) * s(k);
      IAc += IA_i.col(k) * c_i(k);
    }
    c.U[i].col(0) = U;
    const T D = s.dot(U) + b.joint.armature;
    // One comparison, predicted: a singular articulated inertia would make
    // vdot NaN or meaningless. U scales D: D is S^T U, and rounding leaves
    // a few ulps of |U| where the exact D is zero.
    if (!(D > T(1e-13) * U.cwiseAbs().maxCoeff())) ThrowSingular(b, D);
    const T Dinv = T(1) / D;
    c.Dinv[i](0, 0) = Dinv;
    const T u = tau(vi) - s.dot(c.f[i]) - b.joint.damping * v(vi);
    c.u[i](0) = u;
    if (b.parent > 0) {
      const int p = b.parent;
      const Vector6<T> UDinv = U * Dinv;
      const SpatialForce<T> pa = c.f[i] + IAc + UDinv * (u - U.dot(c_i));
      AddShiftedForce(pa, c.p_PB_W[i], &c.f[p]);
      // Ia = IA_i - UDinv U^T, shifted to the parent's origin.
      const Eigen::Matrix<T, 6, 1>& w = UDinv;
      AddShiftedInertia<T, 1>(IA_i, &w, &U, c.p_PB_W[i], &c.IA[p]);
    }
    return;
  }
  Eigen::Matrix<T, 6, N> S;
  for (int k = 0; k < N; ++k) S.col(k) = c.S_W[vi + k];
  auto U = c.U[i].template leftCols<N>();
  U.noalias() = c.IA[i] * S;
  Eigen::Matrix<T, N, N> D;
  D.noalias() = S.transpose() * U;
  D.diagonal().array() += b.joint.armature;
  auto Dinv = c.Dinv[i].template topLeftCorner<N, N>();
  SpdInverse<T, N>(b, D, &Dinv);
  auto u = c.u[i].template head<N>();
  u = tau.template segment<N>(vi);
  u.noalias() -= S.transpose() * c.f[i];
  u -= b.joint.damping * v.template segment<N>(vi);
  if (b.parent > 0) {
    Eigen::Matrix<T, 6, N> UDinv;
    UDinv.noalias() = U * Dinv;
    Eigen::Matrix<T, N, 1> w = u;
    w.noalias() -= U.transpose() * c.c_W[i];
    const int p = b.parent;
    Matrix6<T>& IA_p = c.IA[p];
    const Matrix6<T>& IA_i = c.IA[i];
    SpatialForce<T> pa = c.f[i];
    pa.noalias() += UDinv * w;
    pa.noalias() += IA_i * c.c_W[i];
    AddShiftedForce(pa, c.p_PB_W[i], &c.f[p]);
    const Eigen::Matrix<T, 6, N> U_N = U;
    AddShiftedInertia<T, N>(IA_i, &UDinv, &U_N, c.p_PB_W[i], &IA_p);
  }
}

// ABA pass-3 step: a = a_parent + c; vdot_i = D^-1 (u - U^T a); a += S vdot_i.
template <typename T, int N>
TERN_ALWAYS_INLINE void AbaForward(const RigidBody<T>& b, const Workspace<T>& c,
                                   int i, SpatialMotion<T>* a) {
  const int vi = b.velocity_start;
  if constexpr (N == 1) {
    const T x = c.Dinv[i](0, 0) * (c.u[i](0) - c.U[i].col(0).dot(*a));
    c.vdot[vi] = x;
    *a += c.S_W[vi] * x;
    return;
  }
  Eigen::Matrix<T, N, 1> w = c.u[i].template head<N>();
  w.noalias() -= c.U[i].template leftCols<N>().transpose() * *a;
  Eigen::Map<Eigen::Matrix<T, N, 1>> x(c.vdot + vi);
  x.noalias() = c.Dinv[i].template topLeftCorner<N, N>() * w;
  for (int k = 0; k < N; ++k) *a += c.S_W[vi + k] * x(k);
}

// ABA pass-1 step for body i: pose, world subspace, velocity, the
// velocity-product acceleration c_i = v_i x vJ + X c_J, and the rigid-body
// inertia and bias force that start IA_i and pA_i.
template <typename T>
TERN_ALWAYS_INLINE void AbaKinematics(
    const RigidBody<T>& b, int i, const Workspace<T>& c, const T* q, const T* v,
    const std::vector<SpatialForce<T>>* f_ext) {
  const int vi = b.velocity_start;
  const RigidTransform<T> X = WorldPoseAndSubspace(b, i, q, c, &c.S_W[vi]);
  SpatialMotion<T> vJ;
  if (b.num_velocities == 1) {
    vJ = c.S_W[vi] * v[vi];
  } else {
    vJ.setZero();
    for (int k = 0; k < b.num_velocities; ++k) vJ += c.S_W[vi + k] * v[vi + k];
  }
  // The parent's velocity about this body's origin (the world's is zero):
  // [w; v + w x r].
  const SpatialMotion<T> V =
      b.parent == 0 ? vJ : ShiftedMotionPlus(c.V_W[b.parent], c.p_PB_W[i], vJ);
  c.V_W[i] = V;
  c.c_W[i] = CrossMotionByPairs(V, vJ);
  if (b.joint.type == JointType::kPlanar) {
    SpatialMotion<T> cJ = SpatialMotion<T>::Zero();
    internal::AddJointBias(b, internal::JointVelocity(b, c.S[i], v + vi), &cJ);
    c.c_W[i] += TransformMotion(RigidTransform<T>(X.R, Vector3<T>::Zero()), cJ);
  }
  // A body welded to the world (often a robot's base) has no dofs and
  // passes nothing to a parent: its inertia does not enter. One welded to
  // another body is counted in its carrier's inertia and only passes on
  // the external force and the articulated inertias of its children.
  if (b.parent == 0 && b.num_velocities == 0) return;
  if (b.welded) {
    c.IA[i].setZero();
    c.f[i].setZero();
  } else {
    const SpatialInertia<T> I_W = b.central_inertia_with_welded.Rotated(X.R);
    I_W.WriteMatrix(&c.IA[i]);
    c.f[i] = BiasForceByPairs(I_W, V);
  }
  if (f_ext != nullptr) {
    // f_ext is about the body origin, in body axes: rotated only.
    const SpatialForce<T>& fe = (*f_ext)[i];
    c.f[i].template head<3>() -=
        internal::Multiply3(X.R, Vector3<T>(fe.template head<3>()));
    c.f[i].template tail<3>() -=
        internal::Multiply3(X.R, Vector3<T>(fe.template tail<3>()));
  }
}

}  // namespace

template <typename T>
const VectorX<T>& ForwardDynamics(const RigidBodyTree<T>& tree,
                                  KinematicsCache<T>* cache,
                                  const VectorX<T>& q, const VectorX<T>& v,
                                  const VectorX<T>& tau,
                                  const std::vector<SpatialForce<T>>* f_ext) {
  CheckSizes("ForwardDynamics", tree, *cache, q.size(), v.size(), tau.size(),
             "tau");
  CheckExternalForces("ForwardDynamics", tree, f_ext);
  const Workspace<T> c(cache);
  const int nb = tree.num_bodies();
  const RigidBody<T>* bodies = tree.bodies().data();
  // The articulated-body algorithm (RBDA Table 7.1) in world-aligned frames
  // at each body's origin (RBDA sec. 7.3 allows any coordinates; see
  // WorldPoseAndSubspace): articulated inertias and bias forces pass to the
  // parent by a shift along the link, with no rotation, and nothing is
  // taken about the world origin, so accuracy does not depend on the
  // distance of the bodies from it.
  // Pass 1: poses, velocities, velocity-product accelerations c_i = v_i x vJ
  // + X c_J, rigid-body inertias and bias forces.
  for (int i = 1; i < nb; ++i) {
    internal::RunStep<T>(
        [&] { AbaKinematics(bodies[i], i, c, q.data(), v.data(), f_ext); });
  }
  // Pass 2: articulated inertias and bias forces, leaves to root.
  for (int i = nb - 1; i > 0; --i) {
    const RigidBody<T>& b = bodies[i];
    switch (b.num_velocities) {
      case 0:
        // A welded body moves with its parent (c_i = 0): its inertia and
        // bias force add to the parent's unchanged.
        if (b.parent > 0) {
          internal::RunStep<T>([&] {
            AddShiftedInertia<T, 0>(c.IA[i], nullptr, nullptr, c.p_PB_W[i],
                                    &c.IA[b.parent]);
            AddShiftedForce(c.f[i], c.p_PB_W[i], &c.f[b.parent]);
          });
        }
        break;
      case 1:
        internal::RunStep<T>([&] { AbaBackward<T, 1>(b, c, i, v, tau); });
        break;
      case 3:
        internal::RunStep<T>([&] { AbaBackward<T, 3>(b, c, i, v, tau); });
        break;
      case 6:
        internal::RunStep<T>([&] { AbaBackward<T, 6>(b, c, i, v, tau); });
        break;
    }
  }
  // Pass 3: accelerations, root to leaves, as one flattened step: each
  // body's work is short, and the acceleration passes on in registers.
  c.a[0] = GravityAcceleration(tree);
  internal::RunStep<T>([&] {
    for (int i = 1; i < nb; ++i) {
      const RigidBody<T>& b = bodies[i];
      // The parent's acceleration about this body's origin; the world's,
      // -g, is the same about any point.
      SpatialMotion<T> a =
          b.parent == 0
              ? SpatialMotion<T>(c.a[0] + c.c_W[i])
              : ShiftedMotionPlus(c.a[b.parent], c.p_PB_W[i], c.c_W[i]);
      switch (b.num_velocities) {
        case 0:
          break;
        case 1:
          AbaForward<T, 1>(b, c, i, &a);
          break;
        case 3:
          AbaForward<T, 3>(b, c, i, &a);
          break;
        case 6:
          AbaForward<T, 6>(b, c, i, &a);
          break;
      }
      c.a[i] = a;
    }
  });
  return cache->vdot;
}

#define TERN_INSTANTIATE_DYNAMICS(T)                                    \
  template const MatrixX<T>& MassMatrix<T>(                             \
      const RigidBodyTree<T>&, KinematicsCache<T>*, const VectorX<T>&); \
  template const VectorX<T>& InverseDynamics<T>(                        \
      const RigidBodyTree<T>&, KinematicsCache<T>*, const VectorX<T>&,  \
      const VectorX<T>&, const VectorX<T>&,                             \
      const std::vector<SpatialForce<T>>*);                             \
  template const VectorX<T>& BiasTerm<T>(                               \
      const RigidBodyTree<T>&, KinematicsCache<T>*, const VectorX<T>&,  \
      const VectorX<T>&, const std::vector<SpatialForce<T>>*);          \
  template const VectorX<T>& ForwardDynamics<T>(                        \
      const RigidBodyTree<T>&, KinematicsCache<T>*, const VectorX<T>&,  \
      const VectorX<T>&, const VectorX<T>&,                             \
      const std::vector<SpatialForce<T>>*);

TERN_INSTANTIATE_DYNAMICS(double)
TERN_INSTANTIATE_DYNAMICS(AutoDiffXd)

}  // namespace tern
