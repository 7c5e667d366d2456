#pragma once
// Embedded explicit Runge-Kutta pairs for error-controlled integration, as
// class templates over the state vector type Vec (fixed-size Eigen vector or
// VectorX<T>). Each owns its stages and scratch (no allocation per step) and
// offers
//   Vec& f0();                              // f(t, x) at the step start
//   void Attempt(f, t, h, x, &x1);          // one trial step, f0() given
//   double ErrorNorm(x, x1, tol, &worst);   // HNW weighted RMS norm
//   int Accept(f, t, h, x, x1, dense);      // make f0() = f(t + h, x1),
//                                           // prepare dense output; returns
//                                           // extra f evaluations made
//   void DenseOutput(theta, &x);            // x(t + theta h), last step
// and, where the interpolant needs more evaluations of f (dop853),
//   bool dense_pending() const;             // they are still to be made
//   int CompleteDense(f);                   // make them; returns how many
//   void Step(f, t, h, &x);                 // plain fixed step (order tests)
// AdaptiveStepper (error_control.h) drives them with PI step-size control.
#include <Eigen/Core>

#include "tern/integrators/error_control.h"

namespace tern {

// Bogacki & Shampine's 3(2) pair (Appl. Math. Lett. 2, 1989), FSAL: three
// new evaluations per step; propagates the 3rd-order solution; dense output
// by the cubic Hermite interpolant (3rd order). Good at loose tolerances.
template <typename Vec>
class BogackiShampine3 {
 public:
  using Scalar = typename Vec::Scalar;
  static constexpr int kOrder = 3;
  static constexpr int kErrorOrder = 2;
  static constexpr int kEvaluationsPerAttempt = 3;
  static constexpr const char* kName = "bs3";

  explicit BogackiShampine3(Eigen::Index n = internal::DefaultSizeOf<Vec>()) {
    Resize(n);
  }
  void Resize(Eigen::Index n) {
    for (Vec* v :
         {&k1_, &k2_, &k3_, &k4_, &xs_, &err_, &r1_, &r2_, &r3_, &r4_}) {
      v->resize(n);
    }
  }
  Vec& f0() { return k1_; }
  Vec& scratch() { return xs_; }

  template <typename F>
  void Attempt(F& f, const Scalar& t, const Scalar& h, const Vec& x, Vec* x1) {
    xs_.noalias() = x + (h * 0.5) * k1_;
    f(t + h * 0.5, xs_, &k2_);
    xs_.noalias() = x + (h * 0.75) * k2_;
    f(t + h * 0.75, xs_, &k3_);
    x1->noalias() =
        x + h * ((2.0 / 9) * k1_ + (1.0 / 3) * k2_ + (4.0 / 9) * k3_);
    f(t + h, *x1, &k4_);
    err_.noalias() = h * ((-5.0 / 72) * k1_ + (1.0 / 12) * k2_ +
                          (1.0 / 9) * k3_ + (-1.0 / 8) * k4_);
  }
  double ErrorNorm(const Vec& x, const Vec& x1, const Tolerances& tol,
                   Eigen::Index* worst) const {
    return WeightedRmsNorm(err_, x, x1, tol, worst);
  }
  template <typename F>
  int Accept(F&, const Scalar&, const Scalar& h, const Vec& x, const Vec& x1,
             bool dense) {
    if (dense) {
      r1_ = x;
      r2_.noalias() = x1 - x;
      r3_.noalias() = h * k1_ - r2_;
      r4_.noalias() = r2_ - h * k4_ - r3_;
    }
    k1_ = k4_;
    return 0;
  }
  void DenseOutput(const Scalar& theta, Vec* out) const {
    const Scalar s1 = Scalar(1) - theta;
    out->noalias() = r1_ + theta * (r2_ + s1 * (r3_ + theta * r4_));
  }
  template <typename F>
  void Step(F&& f, const Scalar& t, const Scalar& h, Vec* x) {
    f(t, *x, &k1_);
    Attempt(f, t, h, *x, &xs_);
    *x = xs_;
  }

 private:
  Vec k1_, k2_, k3_, k4_, xs_, err_;
  Vec r1_, r2_, r3_, r4_;  // dense output of the last accepted step
};

// Dormand & Prince's 5(4) pair (J. Comput. Appl. Math. 6, 1980; HNW I,
// table II.5.2), FSAL: six new evaluations per step; propagates the
// 5th-order solution; 4th-order dense output by Shampine's interpolant
// (Math. Comp. 46, 1986; HNW I, II.6). The default non-stiff rule.
template <typename Vec>
class DormandPrince5 {
 public:
  using Scalar = typename Vec::Scalar;
  static constexpr int kOrder = 5;
  static constexpr int kErrorOrder = 4;
  static constexpr int kEvaluationsPerAttempt = 6;
  static constexpr const char* kName = "dopri5";

  explicit DormandPrince5(Eigen::Index n = internal::DefaultSizeOf<Vec>()) {
    Resize(n);
  }
  void Resize(Eigen::Index n) {
    for (Vec* v : {&k1_, &k2_, &k3_, &k4_, &k5_, &k6_, &k7_, &xs_, &err_, &r1_,
                   &r2_, &r3_, &r4_, &r5_}) {
      v->resize(n);
    }
  }
  Vec& f0() { return k1_; }
  Vec& scratch() { return xs_; }

  template <typename F>
  void Attempt(F& f, const Scalar& t, const Scalar& h, const Vec& x, Vec* x1) {
    xs_.noalias() = x + (h * (1.0 / 5)) * k1_;
    f(t + h * (1.0 / 5), xs_, &k2_);
    xs_.noalias() = x + h * ((3.0 / 40) * k1_ + (9.0 / 40) * k2_);
    f(t + h * (3.0 / 10), xs_, &k3_);
    xs_.noalias() =
        x + h * ((44.0 / 45) * k1_ + (-56.0 / 15) * k2_ + (32.0 / 9) * k3_);
    f(t + h * (4.0 / 5), xs_, &k4_);
    xs_.noalias() = x + h * ((19372.0 / 6561) * k1_ + (-25360.0 / 2187) * k2_ +
                             (64448.0 / 6561) * k3_ + (-212.0 / 729) * k4_);
    f(t + h * (8.0 / 9), xs_, &k5_);
    xs_.noalias() = x + h * ((9017.0 / 3168) * k1_ + (-355.0 / 33) * k2_ +
                             (46732.0 / 5247) * k3_ + (49.0 / 176) * k4_ +
                             (-5103.0 / 18656) * k5_);
    f(t + h, xs_, &k6_);
    x1->noalias() = x + h * ((35.0 / 384) * k1_ + (500.0 / 1113) * k3_ +
                             (125.0 / 192) * k4_ + (-2187.0 / 6784) * k5_ +
                             (11.0 / 84) * k6_);
    f(t + h, *x1, &k7_);
    err_.noalias() = h * ((71.0 / 57600) * k1_ + (-71.0 / 16695) * k3_ +
                          (71.0 / 1920) * k4_ + (-17253.0 / 339200) * k5_ +
                          (22.0 / 525) * k6_ + (-1.0 / 40) * k7_);
  }
  double ErrorNorm(const Vec& x, const Vec& x1, const Tolerances& tol,
                   Eigen::Index* worst) const {
    return WeightedRmsNorm(err_, x, x1, tol, worst);
  }
  template <typename F>
  int Accept(F&, const Scalar&, const Scalar& h, const Vec& x, const Vec& x1,
             bool dense) {
    if (dense) {
      constexpr double d1 = -12715105075.0 / 11282082432.0;
      constexpr double d3 = 87487479700.0 / 32700410799.0;
      constexpr double d4 = -10690763975.0 / 1880347072.0;
      constexpr double d5 = 701980252875.0 / 199316789632.0;
      constexpr double d6 = -1453857185.0 / 822651844.0;
      constexpr double d7 = 69997945.0 / 29380423.0;
      r1_ = x;
      r2_.noalias() = x1 - x;
      r3_.noalias() = h * k1_ - r2_;
      r4_.noalias() = r2_ - h * k7_ - r3_;
      r5_.noalias() =
          h * (d1 * k1_ + d3 * k3_ + d4 * k4_ + d5 * k5_ + d6 * k6_ + d7 * k7_);
    }
    k1_ = k7_;
    return 0;
  }
  void DenseOutput(const Scalar& theta, Vec* out) const {
    const Scalar s1 = Scalar(1) - theta;
    out->noalias() =
        r1_ + theta * (r2_ + s1 * (r3_ + theta * (r4_ + s1 * r5_)));
  }
  template <typename F>
  void Step(F&& f, const Scalar& t, const Scalar& h, Vec* x) {
    f(t, *x, &k1_);
    Attempt(f, t, h, *x, &r1_);
    *x = r1_;
  }

 private:
  Vec k1_, k2_, k3_, k4_, k5_, k6_, k7_, xs_, err_;
  Vec r1_, r2_, r3_, r4_, r5_;  // dense output of the last accepted step
};

// Dormand & Prince's 8(5,3) pair DOP853 (Hairer, Norsett & Wanner, Solving
// ODEs I, 2nd ed., II.10; coefficients as published with the DOP853 code):
// 12 stages, order 8, error estimated from a 5th- and a 3rd-order embedded
// solution combined as in HNW's code (robust at tight tolerances), 7th-order
// dense output with three extra stages, evaluated only when the
// interpolant is asked for (CompleteDense). Chosen over Verner's pairs because
// its combined estimator is the most tested at tolerances down to 1e-13 and
// its dense output is part of the published method (needed for witness
// functions); Verner 9(8) would pay 16 stages for little gain at double
// precision.
template <typename Vec>
class DormandPrince853 {
 public:
  using Scalar = typename Vec::Scalar;
  static constexpr int kOrder = 8;
  static constexpr int kErrorOrder = 7;  // controller exponent 1/8
  static constexpr int kEvaluationsPerAttempt = 11;
  static constexpr const char* kName = "dop853";

  explicit DormandPrince853(Eigen::Index n = internal::DefaultSizeOf<Vec>()) {
    Resize(n);
  }
  void Resize(Eigen::Index n) {
    for (Vec* v : {&k1_, &k2_,  &k3_,  &k4_,  &k5_, &k6_,   &k7_,   &k8_,
                   &k9_, &k10_, &k11_, &k12_, &xs_, &err5_, &err3_, &r1_,
                   &r2_, &r3_,  &r4_,  &r5_,  &r6_, &r7_,   &r8_}) {
      v->resize(n);
    }
  }
  Vec& f0() { return k1_; }
  Vec& scratch() { return xs_; }

  template <typename F>
  void Attempt(F& f, const Scalar& t, const Scalar& h, const Vec& x, Vec* x1) {
    using C = Coefficients;
    xs_.noalias() = x + (h * C::a21) * k1_;
    f(t + h * C::c2, xs_, &k2_);
    xs_.noalias() = x + h * (C::a31 * k1_ + C::a32 * k2_);
    f(t + h * C::c3, xs_, &k3_);
    xs_.noalias() = x + h * (C::a41 * k1_ + C::a43 * k3_);
    f(t + h * C::c4, xs_, &k4_);
    xs_.noalias() = x + h * (C::a51 * k1_ + C::a53 * k3_ + C::a54 * k4_);
    f(t + h * C::c5, xs_, &k5_);
    xs_.noalias() = x + h * (C::a61 * k1_ + C::a64 * k4_ + C::a65 * k5_);
    f(t + h * C::c6, xs_, &k6_);
    xs_.noalias() =
        x + h * (C::a71 * k1_ + C::a74 * k4_ + C::a75 * k5_ + C::a76 * k6_);
    f(t + h * C::c7, xs_, &k7_);
    xs_.noalias() = x + h * (C::a81 * k1_ + C::a84 * k4_ + C::a85 * k5_ +
                             C::a86 * k6_ + C::a87 * k7_);
    f(t + h * C::c8, xs_, &k8_);
    xs_.noalias() = x + h * (C::a91 * k1_ + C::a94 * k4_ + C::a95 * k5_ +
                             C::a96 * k6_ + C::a97 * k7_ + C::a98 * k8_);
    f(t + h * C::c9, xs_, &k9_);
    xs_.noalias() =
        x + h * (C::a101 * k1_ + C::a104 * k4_ + C::a105 * k5_ + C::a106 * k6_ +
                 C::a107 * k7_ + C::a108 * k8_ + C::a109 * k9_);
    f(t + h * C::c10, xs_, &k10_);
    xs_.noalias() = x + h * (C::a111 * k1_ + C::a114 * k4_ + C::a115 * k5_ +
                             C::a116 * k6_ + C::a117 * k7_ + C::a118 * k8_ +
                             C::a119 * k9_ + C::a1110 * k10_);
    f(t + h * C::c11, xs_, &k11_);
    xs_.noalias() = x + h * (C::a121 * k1_ + C::a124 * k4_ + C::a125 * k5_ +
                             C::a126 * k6_ + C::a127 * k7_ + C::a128 * k8_ +
                             C::a129 * k9_ + C::a1210 * k10_ + C::a1211 * k11_);
    f(t + h, xs_, &k12_);
    // xs_ = sum b_i k_i (the 8th-order increment over h).
    xs_.noalias() = C::b1 * k1_ + C::b6 * k6_ + C::b7 * k7_ + C::b8 * k8_ +
                    C::b9 * k9_ + C::b10 * k10_ + C::b11 * k11_ + C::b12 * k12_;
    x1->noalias() = x + h * xs_;
    err3_.noalias() =
        h * (xs_ - C::bhh1 * k1_ - C::bhh2 * k9_ - C::bhh3 * k12_);
    err5_.noalias() =
        h * (C::er1 * k1_ + C::er6 * k6_ + C::er7 * k7_ + C::er8 * k8_ +
             C::er9 * k9_ + C::er10 * k10_ + C::er11 * k11_ + C::er12 * k12_);
  }

  // HNW's combined estimate: err5^2 / sqrt(err5^2 + 0.01 err3^2), both in
  // the weighted RMS norm.
  double ErrorNorm(const Vec& x, const Vec& x1, const Tolerances& tol,
                   Eigen::Index* worst) const {
    const Eigen::Index n = x.size();
    double e5 = 0, e3 = 0, largest = -1;
    Eigen::Index arg = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      const double sc =
          tol.atol_at(i) +
          tol.rtol * std::max(std::abs(ExtractDoubleOrThrow(x(i))),
                              std::abs(ExtractDoubleOrThrow(x1(i))));
      const double q5 = ExtractDoubleOrThrow(err5_(i)) / sc;
      const double q3 = ExtractDoubleOrThrow(err3_(i)) / sc;
      if (!std::isfinite(q5) || !std::isfinite(q3)) {
        *worst = i;
        return std::numeric_limits<double>::infinity();
      }
      if (q5 * q5 > largest) {
        largest = q5 * q5;
        arg = i;
      }
      e5 += q5 * q5;
      e3 += q3 * q3;
    }
    *worst = arg;
    double deno = e5 + 0.01 * e3;
    if (deno <= 0) deno = 1;
    return e5 / std::sqrt(static_cast<double>(n) * deno);
  }

  template <typename F>
  int Accept(F& f, const Scalar& t, const Scalar& h, const Vec& x,
             const Vec& x1, bool dense) {
    // k4_ takes f(t + h, x1): the first stage of the next step.
    f(t + h, x1, &k4_);
    dense_pending_ = dense;
    if (dense) {
      // Keep what the interpolant needs beyond the stages k6..k12, which
      // stay untouched until the next Attempt: x, x1 - x, the old f0 (in
      // r3_ until CompleteDense), t and h. The three extra stages cost
      // three evaluations of f, about a quarter of a step; they are made
      // only if the interpolant is asked for in this step.
      r1_ = x;
      r2_.noalias() = x1 - x;
      r3_ = k1_;
      t_dense_ = t;
      h_dense_ = h;
    }
    k1_ = k4_;
    return 1;
  }
  bool dense_pending() const { return dense_pending_; }
  // Completes the interpolant of the last accepted step (three evaluations
  // of f); returns the number of evaluations made (0 if already done).
  template <typename F>
  int CompleteDense(F& f) {
    if (!dense_pending_) return 0;
    using C = Coefficients;
    const Scalar& t = t_dense_;
    const Scalar& h = h_dense_;
    const Vec& x = r1_;
    const Vec& k1 = r3_;  // f at the start of the step
    r5_.noalias() = C::d41 * k1 + C::d46 * k6_ + C::d47 * k7_ + C::d48 * k8_ +
                    C::d49 * k9_ + C::d410 * k10_ + C::d411 * k11_ +
                    C::d412 * k12_;
    r6_.noalias() = C::d51 * k1 + C::d56 * k6_ + C::d57 * k7_ + C::d58 * k8_ +
                    C::d59 * k9_ + C::d510 * k10_ + C::d511 * k11_ +
                    C::d512 * k12_;
    r7_.noalias() = C::d61 * k1 + C::d66 * k6_ + C::d67 * k7_ + C::d68 * k8_ +
                    C::d69 * k9_ + C::d610 * k10_ + C::d611 * k11_ +
                    C::d612 * k12_;
    r8_.noalias() = C::d71 * k1 + C::d76 * k6_ + C::d77 * k7_ + C::d78 * k8_ +
                    C::d79 * k9_ + C::d710 * k10_ + C::d711 * k11_ +
                    C::d712 * k12_;
    // Three extra stages (14, 15, 16) for the 7th-order interpolant; k13
    // is f(t + h, x1) in k4_. They reuse k2_, k3_, k5_.
    xs_.noalias() = x + h * (C::a141 * k1 + C::a147 * k7_ + C::a148 * k8_ +
                             C::a149 * k9_ + C::a1410 * k10_ + C::a1411 * k11_ +
                             C::a1412 * k12_ + C::a1413 * k4_);
    f(t + h * C::c14, xs_, &k2_);
    xs_.noalias() = x + h * (C::a151 * k1 + C::a156 * k6_ + C::a157 * k7_ +
                             C::a158 * k8_ + C::a1511 * k11_ + C::a1512 * k12_ +
                             C::a1513 * k4_ + C::a1514 * k2_);
    f(t + h * C::c15, xs_, &k3_);
    xs_.noalias() = x + h * (C::a161 * k1 + C::a166 * k6_ + C::a167 * k7_ +
                             C::a168 * k8_ + C::a169 * k9_ + C::a1613 * k4_ +
                             C::a1614 * k2_ + C::a1615 * k3_);
    f(t + h * C::c16, xs_, &k5_);
    r5_ = h *
          (r5_ + C::d413 * k4_ + C::d414 * k2_ + C::d415 * k3_ + C::d416 * k5_);
    r6_ = h *
          (r6_ + C::d513 * k4_ + C::d514 * k2_ + C::d515 * k3_ + C::d516 * k5_);
    r7_ = h *
          (r7_ + C::d613 * k4_ + C::d614 * k2_ + C::d615 * k3_ + C::d616 * k5_);
    r8_ = h *
          (r8_ + C::d713 * k4_ + C::d714 * k2_ + C::d715 * k3_ + C::d716 * k5_);
    r3_ = h * r3_ - r2_;  // r3_ held f at the step start until here
    r4_.noalias() = r2_ - h * k4_ - r3_;
    dense_pending_ = false;
    return 3;
  }
  void DenseOutput(const Scalar& s, Vec* out) const {
    const Scalar s1 = Scalar(1) - s;
    out->noalias() =
        r1_ +
        s * (r2_ +
             s1 * (r3_ +
                   s * (r4_ + s1 * (r5_ + s * (r6_ + s1 * (r7_ + s * r8_))))));
  }
  template <typename F>
  void Step(F&& f, const Scalar& t, const Scalar& h, Vec* x) {
    f(t, *x, &k1_);
    Attempt(f, t, h, *x, &r1_);
    *x = r1_;
  }

 private:
  struct Coefficients;
  Vec k1_, k2_, k3_, k4_, k5_, k6_, k7_, k8_, k9_, k10_, k11_, k12_, xs_;
  Vec err5_, err3_;
  Vec r1_, r2_, r3_, r4_, r5_, r6_, r7_, r8_;  // dense output, last step
  bool dense_pending_{false};       // r3_..r8_ not yet computed (CompleteDense)
  Scalar t_dense_{0}, h_dense_{0};  // the step the dense output is for
};

template <typename Vec>
struct DormandPrince853<Vec>::Coefficients {
  static constexpr double c2 = 0.526001519587677318785587544488e-01;
  static constexpr double c3 = 0.789002279381515978178381316732e-01;
  static constexpr double c4 = 0.118350341907227396726757197510e+00;
  static constexpr double c5 = 0.281649658092772603273242802490e+00;
  static constexpr double c6 = 0.333333333333333333333333333333e+00;
  static constexpr double c7 = 0.25e+00;
  static constexpr double c8 = 0.307692307692307692307692307692e+00;
  static constexpr double c9 = 0.651282051282051282051282051282e+00;
  static constexpr double c10 = 0.6e+00;
  static constexpr double c11 = 0.857142857142857142857142857142e+00;
  static constexpr double c14 = 0.1e+00;
  static constexpr double c15 = 0.2e+00;
  static constexpr double c16 = 0.777777777777777777777777777778e+00;

  static constexpr double b1 = 5.42937341165687622380535766363e-2;
  static constexpr double b6 = 4.45031289275240888144113950566e0;
  static constexpr double b7 = 1.89151789931450038304281599044e0;
  static constexpr double b8 = -5.8012039600105847814672114227e0;
  static constexpr double b9 = 3.1116436695781989440891606237e-1;
  static constexpr double b10 = -1.52160949662516078556178806805e-1;
  static constexpr double b11 = 2.01365400804030348374776537501e-1;
  static constexpr double b12 = 4.47106157277725905176885569043e-2;

  static constexpr double bhh1 = 0.244094488188976377952755905512e+00;
  static constexpr double bhh2 = 0.733846688281611857341361741547e+00;
  static constexpr double bhh3 = 0.220588235294117647058823529412e-01;

  static constexpr double er1 = 0.1312004499419488073250102996e-01;
  static constexpr double er6 = -0.1225156446376204440720569753e+01;
  static constexpr double er7 = -0.4957589496572501915214079952e+00;
  static constexpr double er8 = 0.1664377182454986536961530415e+01;
  static constexpr double er9 = -0.3503288487499736816886487290e+00;
  static constexpr double er10 = 0.3341791187130174790297318841e+00;
  static constexpr double er11 = 0.8192320648511571246570742613e-01;
  static constexpr double er12 = -0.2235530786388629525884427845e-01;

  static constexpr double a21 = 5.26001519587677318785587544488e-2;
  static constexpr double a31 = 1.97250569845378994544595329183e-2;
  static constexpr double a32 = 5.91751709536136983633785987549e-2;
  static constexpr double a41 = 2.95875854768068491816892993775e-2;
  static constexpr double a43 = 8.87627564304205475450678981324e-2;
  static constexpr double a51 = 2.41365134159266685502369798665e-1;
  static constexpr double a53 = -8.84549479328286085344864962717e-1;
  static constexpr double a54 = 9.24834003261792003115737966543e-1;
  static constexpr double a61 = 3.7037037037037037037037037037e-2;
  static constexpr double a64 = 1.70828608729473871279604482173e-1;
  static constexpr double a65 = 1.25467687566822425016691814123e-1;
  static constexpr double a71 = 3.7109375e-2;
  static constexpr double a74 = 1.70252211019544039314978060272e-1;
  static constexpr double a75 = 6.02165389804559606850219397283e-2;
  static constexpr double a76 = -1.7578125e-2;
  static constexpr double a81 = 3.70920001185047927108779319836e-2;
  static constexpr double a84 = 1.70383925712239993810214054705e-1;
  static constexpr double a85 = 1.07262030446373284651809199168e-1;
  static constexpr double a86 = -1.53194377486244017527936158236e-2;
  static constexpr double a87 = 8.27378916381402288758473766002e-3;
  static constexpr double a91 = 6.24110958716075717114429577812e-1;
  static constexpr double a94 = -3.36089262944694129406857109825e0;
  static constexpr double a95 = -8.68219346841726006818189891453e-1;
  static constexpr double a96 = 2.75920996994467083049415600797e1;
  static constexpr double a97 = 2.01540675504778934086186788979e1;
  static constexpr double a98 = -4.34898841810699588477366255144e1;
  static constexpr double a101 = 4.77662536438264365890433908527e-1;
  static constexpr double a104 = -2.48811461997166764192642586468e0;
  static constexpr double a105 = -5.90290826836842996371446475743e-1;
  static constexpr double a106 = 2.12300514481811942347288949897e1;
  static constexpr double a107 = 1.52792336328824235832596922938e1;
  static constexpr double a108 = -3.32882109689848629194453265587e1;
  static constexpr double a109 = -2.03312017085086261358222928593e-2;
  static constexpr double a111 = -9.3714243008598732571704021658e-1;
  static constexpr double a114 = 5.18637242884406370830023853209e0;
  static constexpr double a115 = 1.09143734899672957818500254654e0;
  static constexpr double a116 = -8.14978701074692612513997267357e0;
  static constexpr double a117 = -1.85200656599969598641566180701e1;
  static constexpr double a118 = 2.27394870993505042818970056734e1;
  static constexpr double a119 = 2.49360555267965238987089396762e0;
  static constexpr double a1110 = -3.0467644718982195003823669022e0;
  static constexpr double a121 = 2.27331014751653820792359768449e0;
  static constexpr double a124 = -1.05344954667372501984066689879e1;
  static constexpr double a125 = -2.00087205822486249909675718444e0;
  static constexpr double a126 = -1.79589318631187989172765950534e1;
  static constexpr double a127 = 2.79488845294199600508499808837e1;
  static constexpr double a128 = -2.85899827713502369474065508674e0;
  static constexpr double a129 = -8.87285693353062954433549289258e0;
  static constexpr double a1210 = 1.23605671757943030647266201528e1;
  static constexpr double a1211 = 6.43392746015763530355970484046e-1;

  static constexpr double a141 = 5.61675022830479523392909219681e-2;
  static constexpr double a147 = 2.53500210216624811088794765333e-1;
  static constexpr double a148 = -2.46239037470802489917441475441e-1;
  static constexpr double a149 = -1.24191423263816360469010140626e-1;
  static constexpr double a1410 = 1.5329179827876569731206322685e-1;
  static constexpr double a1411 = 8.20105229563468988491666602057e-3;
  static constexpr double a1412 = 7.56789766054569976138603589584e-3;
  static constexpr double a1413 = -8.298e-3;
  static constexpr double a151 = 3.18346481635021405060768473261e-2;
  static constexpr double a156 = 2.83009096723667755288322961402e-2;
  static constexpr double a157 = 5.35419883074385676223797384372e-2;
  static constexpr double a158 = -5.49237485713909884646569340306e-2;
  static constexpr double a1511 = -1.08347328697249322858509316994e-4;
  static constexpr double a1512 = 3.82571090835658412954920192323e-4;
  static constexpr double a1513 = -3.40465008687404560802977114492e-4;
  static constexpr double a1514 = 1.41312443674632500278074618366e-1;
  static constexpr double a161 = -4.28896301583791923408573538692e-1;
  static constexpr double a166 = -4.69762141536116384314449447206e0;
  static constexpr double a167 = 7.68342119606259904184240953878e0;
  static constexpr double a168 = 4.06898981839711007970213554331e0;
  static constexpr double a169 = 3.56727187455281109270669543021e-1;
  static constexpr double a1613 = -1.39902416515901462129418009734e-3;
  static constexpr double a1614 = 2.9475147891527723389556272149e0;
  static constexpr double a1615 = -9.15095847217987001081870187138e0;

  static constexpr double d41 = -0.84289382761090128651353491142e+01;
  static constexpr double d46 = 0.56671495351937776962531783590e+00;
  static constexpr double d47 = -0.30689499459498916912797304727e+01;
  static constexpr double d48 = 0.23846676565120698287728149680e+01;
  static constexpr double d49 = 0.21170345824450282767155149946e+01;
  static constexpr double d410 = -0.87139158377797299206789907490e+00;
  static constexpr double d411 = 0.22404374302607882758541771650e+01;
  static constexpr double d412 = 0.63157877876946881815570249290e+00;
  static constexpr double d413 = -0.88990336451333310820698117400e-01;
  static constexpr double d414 = 0.18148505520854727256656404962e+02;
  static constexpr double d415 = -0.91946323924783554000451984436e+01;
  static constexpr double d416 = -0.44360363875948939664310572000e+01;
  static constexpr double d51 = 0.10427508642579134603413151009e+02;
  static constexpr double d56 = 0.24228349177525818288430175319e+03;
  static constexpr double d57 = 0.16520045171727028198505394887e+03;
  static constexpr double d58 = -0.37454675472269020279518312152e+03;
  static constexpr double d59 = -0.22113666853125306036270938578e+02;
  static constexpr double d510 = 0.77334326684722638389603898808e+01;
  static constexpr double d511 = -0.30674084731089398182061213626e+02;
  static constexpr double d512 = -0.93321305264302278729567221706e+01;
  static constexpr double d513 = 0.15697238121770843886131091075e+02;
  static constexpr double d514 = -0.31139403219565177677282850411e+02;
  static constexpr double d515 = -0.93529243588444783865713862664e+01;
  static constexpr double d516 = 0.35816841486394083752465898540e+02;
  static constexpr double d61 = 0.19985053242002433820987653617e+02;
  static constexpr double d66 = -0.38703730874935176555105901742e+03;
  static constexpr double d67 = -0.18917813819516756882830838328e+03;
  static constexpr double d68 = 0.52780815920542364900561016686e+03;
  static constexpr double d69 = -0.11573902539959630126141871134e+02;
  static constexpr double d610 = 0.68812326946963000169666922661e+01;
  static constexpr double d611 = -0.10006050966910838403183860980e+01;
  static constexpr double d612 = 0.77771377980534432092869265740e+00;
  static constexpr double d613 = -0.27782057523535084065932004339e+01;
  static constexpr double d614 = -0.60196695231264120758267380846e+02;
  static constexpr double d615 = 0.84320405506677161018159903784e+02;
  static constexpr double d616 = 0.11992291136182789328035130030e+02;
  static constexpr double d71 = -0.25693933462703749003312586129e+02;
  static constexpr double d76 = -0.15418974869023643374053993627e+03;
  static constexpr double d77 = -0.23152937917604549567536039109e+03;
  static constexpr double d78 = 0.35763911791061412378285349910e+03;
  static constexpr double d79 = 0.93405324183624310003907691704e+02;
  static constexpr double d710 = -0.37458323136451633156875139351e+02;
  static constexpr double d711 = 0.10409964950896230045147246184e+03;
  static constexpr double d712 = 0.29840293426660503123344363579e+02;
  static constexpr double d713 = -0.43533456590011143754432175058e+02;
  static constexpr double d714 = 0.96324553959188282948394950600e+02;
  static constexpr double d715 = -0.39177261675615439165231486172e+02;
  static constexpr double d716 = -0.14972683625798562581422125276e+03;
};

}  // namespace tern
