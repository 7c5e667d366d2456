// Work-precision benchmark: Tern's integration rules against Boost.Odeint,
// GSL and SUNDIALS CVODE, in the same process, on the same problem code.
//
// Problems (HNW I/II; IVP Test Set): Arenstorf orbit (non-stiff, one period),
// Van der Pol in Hairer's scaled form with eps = 1e-6 on [0, 2] (stiff),
// Robertson on [0, 40] (stiff). Reference solutions: Tern's DOP853 run in
// long double (64-bit mantissa) at rtol 1e-17; for the stiff problems its
// step is stability-limited, so the local errors are far below the
// tolerance; cross-checked against RadauIIA5 in double at rtol 1e-13.
//
// For each solver a sweep of tolerances (four per decade) is timed in thread
// CPU time (the machine may be shared): the mean over repetitions lasting at
// least 10 ms, in kRounds rounds that visit every run in turn, keeping the
// fastest round. Accuracy is the IVP Test Set's mixed
// error
//   digits = -log10(max_i |y_i - ref_i| / (1 + |ref_i|)).
// For each target (3, 5, 7, 9 digits) the cheapest run of each solver that
// reaches it is printed, then Tern's best time over the fastest peer's
// (RATIO). STRICT repeats the ratio counting only runs whose tighter runs
// (same solver) all reach the target too: accuracy is not monotone in the
// tolerance, and a lucky cancellation at one tolerance should not decide.
#include <array>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "problems.h"
#include "tern/integrators/embedded_rules.h"
#include "tern/integrators/error_control.h"
#include "tern_runs.h"
#ifdef TERN_BENCH_BOOST_ROSENBROCK4
#include "boost_rosenbrock4.h"
#endif

#ifdef TERN_HAVE_BOOST_ODEINT
#include <boost/numeric/odeint.hpp>
#endif
#ifdef TERN_HAVE_GSL
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_odeiv2.h>
#endif
#ifdef TERN_HAVE_CVODE
#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>
#endif

namespace {

// ---------------------------------------------------------------- problems
// Each problem: N, t0, tf, y0, a scalar-generic rhs, an analytic Jacobian.
long g_rhs = 0;  // right-hand-side evaluations of the current run
long g_jac = 0;  // Jacobian evaluations of the current run

using tern_bench::Arenstorf;
using tern_bench::Robertson;
using tern_bench::VanDerPol;

// ----------------------------------------------------------------- results
struct Run {
  std::string solver;
  double rtol;
  double seconds;  // per solve
  long rhs, steps, jac, lu;
  double digits;
  bool tern;
};

template <typename P>
double Digits(const std::array<double, P::N>& y,
              const std::array<double, P::N>& ref) {
  double e = 0;
  for (int i = 0; i < P::N; ++i) {
    e = std::max(e, std::abs(y[i] - ref[i]) / (1 + std::abs(ref[i])));
  }
  return e > 0 ? -std::log10(e) : 17;
}

// Runs solve() (which returns the final state and fills stats) once for
// its statistics and accuracy; the time is measured later by TimeRun.
struct Stats {
  long steps = 0, jac = 0, lu = 0;
};
template <typename P, typename Solve>
std::optional<Run> Calibrate(const std::string& solver, bool tern, double rtol,
                             const std::array<double, P::N>& ref, Solve solve) {
  Stats st;
  g_rhs = g_jac = 0;
  std::array<double, P::N> y;
  try {
    y = solve(&st);
  } catch (const std::exception& e) {
    return std::nullopt;
  }
  if (!std::isfinite(y[0])) return std::nullopt;
  const long rhs = g_rhs, jac = st.jac > 0 ? st.jac : g_jac;
  return Run{solver,
             rtol,
             std::numeric_limits<double>::infinity(),
             rhs,
             st.steps,
             jac,
             st.lu,
             Digits<P>(y, ref),
             tern};
}

// CPU time of the calling thread, s: unlike wall-clock time it does not
// count the time other processes hold the core.
double ThreadSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         1e-9 * static_cast<double>(ts.tv_nsec);
}

// Mean thread CPU time of one solve over repetitions lasting at least
// kRoundSeconds.
constexpr double kRoundSeconds = 0.01;
constexpr int kRounds = 5;
template <typename Solve>
double TimeRun(Solve& solve) {
  int reps = 0;
  const double start = ThreadSeconds();
  double elapsed = 0;
  do {
    Stats st;
    solve(&st);
    ++reps;
    elapsed = ThreadSeconds() - start;
  } while (elapsed < kRoundSeconds);
  return elapsed / reps;
}

// ------------------------------------------------------------------- Tern
template <typename P>
using TVec = Eigen::Matrix<double, P::N, 1>;

template <typename P>
std::array<double, P::N> ToArray(const TVec<P>& v) {
  std::array<double, P::N> a;
  for (int i = 0; i < P::N; ++i) a[i] = v(i);
  return a;
}
template <typename P>
TVec<P> Start() {
  TVec<P> v;
  const auto y0 = P::Y0();
  for (int i = 0; i < P::N; ++i) v(i) = y0[i];
  return v;
}

// Tern's runs live in tern_runs.cc; this adds their counts to the totals.
template <typename P, tern_bench::TernRule kRule>
std::array<double, P::N> Tern(double rtol, double atol, Stats* st) {
  tern_bench::TernCounts c;
  const auto y = tern_bench::TernSolve<P>(kRule, rtol, atol, &c);
  g_rhs += c.rhs;
  g_jac += c.jac;
  st->steps = c.steps;
  st->jac = c.jac;
  st->lu = c.lu;
  return y;
}

// Reference: DOP853 in long double.
template <typename P>
std::array<double, P::N> Reference() {
  using LVec = Eigen::Matrix<long double, P::N, 1>;
  tern::AdaptiveStepper<tern::DormandPrince853, LVec> stepper;
  stepper.mutable_settings().rtol = 1e-17;
  stepper.mutable_settings().atol =
      P::kName == std::string("robertson") ? 1e-22 : 1e-17;
  stepper.mutable_settings().dense_output = false;
  stepper.mutable_settings().min_step = 1e-20;
  LVec y;
  const auto y0 = P::Y0();
  for (int i = 0; i < P::N; ++i) y(i) = y0[i];
  auto f = [](const long double& t, const LVec& x, LVec* xd) {
    P::Rhs(t, x, *xd);
  };
  stepper.Integrate(f, static_cast<long double>(P::kT0),
                    static_cast<long double>(P::kTf), &y);
  std::array<double, P::N> out;
  for (int i = 0; i < P::N; ++i) out[i] = static_cast<double>(y(i));
  return out;
}

// ------------------------------------------------------------------ peers
#ifdef TERN_HAVE_BOOST_ODEINT
namespace odeint = boost::numeric::odeint;

template <typename P>
std::array<double, P::N> BoostDopri5(double rtol, double atol, Stats* st) {
  using State = std::array<double, P::N>;
  State y = P::Y0();
  auto sys = [](const State& x, State& dx, double t) {
    ++g_rhs;
    P::Rhs(t, x, dx);
  };
  st->steps = static_cast<long>(odeint::integrate_adaptive(
      odeint::make_controlled(atol, rtol, odeint::runge_kutta_dopri5<State>()),
      sys, y, P::kT0, P::kTf, 1e-6));
  return y;
}

#ifdef TERN_BENCH_BOOST_ROSENBROCK4
// rosenbrock4 lives in a C++17 translation unit (boost_rosenbrock4.h).
template <typename P>
std::array<double, P::N> BoostRosenbrock4(double rtol, double atol, Stats* st) {
  tern_bench::Rosenbrock4Counts counts;
  const auto y = tern_bench::BoostRosenbrock4<P>(rtol, atol, &counts);
  g_rhs += counts.rhs;
  g_jac += counts.jac;
  st->steps = counts.steps;
  st->jac = counts.jac;
  st->lu = counts.jac;  // one Jacobian and one LU per attempted step
  return y;
}
#endif  // TERN_BENCH_BOOST_ROSENBROCK4
#endif

#ifdef TERN_HAVE_GSL
template <typename P>
int GslRhs(double t, const double y[], double f[], void*) {
  ++g_rhs;
  P::Rhs(t, y, f);
  return GSL_SUCCESS;
}
template <typename P>
int GslJac(double, const double y[], double* dfdy, double dfdt[], void*) {
  ++g_jac;
  struct Wrap {
    double* d;
    double& operator()(int i, int j) { return d[i * P::N + j]; }
  } J{dfdy};
  P::Jac(y, J);
  for (int i = 0; i < P::N; ++i) dfdt[i] = 0;
  return GSL_SUCCESS;
}
template <typename P>
std::array<double, P::N> Gsl(const gsl_odeiv2_step_type* type, double rtol,
                             double atol, Stats* st) {
  gsl_odeiv2_system sys{GslRhs<P>, GslJac<P>, P::N, nullptr};
  gsl_odeiv2_driver* d =
      gsl_odeiv2_driver_alloc_y_new(&sys, type, 1e-6, atol, rtol);
  gsl_odeiv2_driver_set_nmax(d, 0);
  std::array<double, P::N> y = P::Y0();
  double t = P::kT0;
  const int status = gsl_odeiv2_driver_apply(d, &t, P::kTf, y.data());
  st->steps = static_cast<long>(d->n);
  gsl_odeiv2_driver_free(d);
  if (status != GSL_SUCCESS) y[0] = std::numeric_limits<double>::quiet_NaN();
  return y;
}
#endif

#ifdef TERN_HAVE_CVODE
template <typename P>
int CvRhs(sunrealtype t, N_Vector y, N_Vector yd, void*) {
  ++g_rhs;
  const double* a = N_VGetArrayPointer(y);
  double* b = N_VGetArrayPointer(yd);
  P::Rhs(t, a, b);
  return 0;
}
template <typename P>
int CvJac(sunrealtype, N_Vector y, N_Vector, SUNMatrix J, void*, N_Vector,
          N_Vector, N_Vector) {
  struct Wrap {
    SUNMatrix m;
    sunrealtype& operator()(int i, int j) { return SM_ELEMENT_D(m, i, j); }
  } w{J};
  P::Jac(N_VGetArrayPointer(y), w);
  return 0;
}
// method: CV_ADAMS (fixed-point iteration, no Jacobian) or CV_BDF (Newton,
// dense LU, analytic Jacobian).
template <typename P>
std::array<double, P::N> Cvode(int method, double rtol, double atol,
                               Stats* st) {
  SUNContext ctx;
  SUNContext_Create(nullptr, &ctx);
  N_Vector y = N_VNew_Serial(P::N, ctx);
  const auto y0 = P::Y0();
  for (int i = 0; i < P::N; ++i) NV_Ith_S(y, i) = y0[i];
  void* mem = CVodeCreate(method, ctx);
  CVodeInit(mem, CvRhs<P>, P::kT0, y);
  CVodeSStolerances(mem, rtol, atol);
  CVodeSetMaxNumSteps(mem, 100000000);
  SUNMatrix A = nullptr;
  SUNLinearSolver LS = nullptr;
  SUNNonlinearSolver NLS = nullptr;
  if (method == CV_BDF) {
    A = SUNDenseMatrix(P::N, P::N, ctx);
    LS = SUNLinSol_Dense(y, A, ctx);
    CVodeSetLinearSolver(mem, LS, A);
    CVodeSetJacFn(mem, CvJac<P>);
  } else {
    NLS = SUNNonlinSol_FixedPoint(y, 0, ctx);
    CVodeSetNonlinearSolver(mem, NLS);
  }
  sunrealtype t = P::kT0;
  const int flag = CVode(mem, P::kTf, y, &t, CV_NORMAL);
  long nst = 0, nje = 0, nsetups = 0;
  CVodeGetNumSteps(mem, &nst);
  if (method == CV_BDF) {
    CVodeGetNumJacEvals(mem, &nje);
    CVodeGetNumLinSolvSetups(mem, &nsetups);
  }
  st->steps = nst;
  st->jac = nje;
  st->lu = nsetups;
  std::array<double, P::N> out;
  for (int i = 0; i < P::N; ++i) out[i] = NV_Ith_S(y, i);
  if (flag < 0) out[0] = std::numeric_limits<double>::quiet_NaN();
  N_VDestroy(y);
  CVodeFree(&mem);
  if (LS) SUNLinSolFree(LS);
  if (A) SUNMatDestroy(A);
  if (NLS) SUNNonlinSolFree(NLS);
  SUNContext_Free(&ctx);
  return out;
}
#endif

// ------------------------------------------------------------------ sweep
using Solver = std::function<std::array<double, 4>(double, double, Stats*)>;

template <typename P>
void Sweep() {
  const auto ref = Reference<P>();
  std::printf("\n== %s: reference (DOP853, long double) =", P::kName);
  for (double r : ref) std::printf(" %.17g", r);
  std::printf("\n");
  // atol per problem: Robertson's y2 ~ 1e-5 needs a small atol.
  const double atol_factor = P::kName == std::string("robertson") ? 1e-6 : 1.0;
  std::vector<double> rtols;
  // Four tolerances per decade, the same for every solver.
  const int kmin = P::kStiff ? 8 : 12, kmax = P::kStiff ? 44 : 52;
  for (int k = kmin; k <= kmax; ++k) rtols.push_back(std::pow(10.0, -k / 4.0));

  std::vector<Run> runs;
  using Fn = std::function<std::array<double, P::N>(double, double, Stats*)>;
  std::vector<std::tuple<std::string, bool, Fn>> solvers;
  if constexpr (!P::kStiff) {
    solvers.emplace_back("tern bs3", true, Tern<P, tern_bench::TernRule::kBs3>);
    solvers.emplace_back("tern dopri5", true,
                         Tern<P, tern_bench::TernRule::kDopri5>);
    solvers.emplace_back("tern dop853", true,
                         Tern<P, tern_bench::TernRule::kDop853>);
#ifdef TERN_HAVE_BOOST_ODEINT
    solvers.emplace_back("boost dopri5", false, BoostDopri5<P>);
#endif
#ifdef TERN_HAVE_GSL
    solvers.emplace_back("gsl rk8pd", false, [](double r, double a, Stats* s) {
      return Gsl<P>(gsl_odeiv2_step_rk8pd, r, a, s);
    });
#endif
#ifdef TERN_HAVE_CVODE
    solvers.emplace_back("cvode adams", false,
                         [](double r, double a, Stats* s) {
                           return Cvode<P>(CV_ADAMS, r, a, s);
                         });
#endif
  } else {
    solvers.emplace_back("tern radau5", true,
                         Tern<P, tern_bench::TernRule::kRadau5>);
    solvers.emplace_back("tern kaps_rentrop4", true,
                         Tern<P, tern_bench::TernRule::kKapsRentrop4>);
    solvers.emplace_back("tern rodas4", true,
                         Tern<P, tern_bench::TernRule::kRodas4>);
#if defined(TERN_HAVE_BOOST_ODEINT) && defined(TERN_BENCH_BOOST_ROSENBROCK4)
    solvers.emplace_back("boost rosenbrock4", false, BoostRosenbrock4<P>);
#endif
#ifdef TERN_HAVE_GSL
    solvers.emplace_back("gsl msbdf", false, [](double r, double a, Stats* s) {
      return Gsl<P>(gsl_odeiv2_step_msbdf, r, a, s);
    });
#endif
#ifdef TERN_HAVE_CVODE
    solvers.emplace_back("cvode bdf", false, [](double r, double a, Stats* s) {
      return Cvode<P>(CV_BDF, r, a, s);
    });
#endif
  }
  std::vector<std::function<std::array<double, P::N>(Stats*)>> solves;
  for (const auto& [name, tern, fn] : solvers) {
    for (double rtol : rtols) {
      auto solve = [&fn, rtol, atol_factor](Stats* s) {
        return fn(rtol, rtol * atol_factor, s);
      };
      auto run = Calibrate<P>(name, tern, rtol, ref, solve);
      if (run) {
        runs.push_back(*run);
        solves.push_back(solve);
      }
    }
  }
  // Rounds over all runs in turn, keeping each run's fastest round: a load
  // spike from other processes then rarely decides a comparison.
  for (int round = 0; round < kRounds; ++round) {
    for (std::size_t i = 0; i < runs.size(); ++i) {
      runs[i].seconds = std::min(runs[i].seconds, TimeRun(solves[i]));
    }
  }
  // The cheapest run of `name` reaching `target` digits; if `strict`, the
  // run and every tighter run of the same solver must reach it, so a lucky
  // error cancellation at one tolerance does not count.
  auto cheapest = [&runs](const std::string& name, int target, bool strict) {
    const Run* best = nullptr;
    for (const Run& r : runs) {
      if (r.solver != name || r.digits < target) continue;
      bool holds = true;
      for (const Run& q : runs) {
        if (strict && q.solver == name && q.rtol <= r.rtol &&
            q.digits < target) {
          holds = false;
        }
      }
      if (holds && (best == nullptr || r.seconds < best->seconds)) best = &r;
    }
    return best;
  };
  for (int target : {3, 5, 7, 9}) {
    std::printf("-- %s, %d digits\n", P::kName, target);
    for (bool strict : {false, true}) {
      const Run* best_tern = nullptr;
      const Run* best_peer = nullptr;
      for (const auto& [name, tern, fn] : solvers) {
        const Run* best = cheapest(name, target, strict);
        if (!strict) {
          if (best == nullptr) {
            std::printf("   %-20s  (never reached)\n", name.c_str());
            continue;
          }
          std::printf(
              "   %-20s rtol %8.1e  %10.2f us  rhs %8ld  steps %7ld  jac %6ld  "
              "lu %6ld  digits %5.2f\n",
              name.c_str(), best->rtol, best->seconds * 1e6, best->rhs,
              best->steps, best->jac, best->lu, best->digits);
        }
        if (best == nullptr) continue;
        const Run*& slot = tern ? best_tern : best_peer;
        if (slot == nullptr || best->seconds < slot->seconds) slot = best;
      }
      if (best_tern && best_peer) {
        std::printf(
            "%-6s %-10s %d digits: tern best %-20s %10.2f us / fastest peer "
            "%-20s %10.2f us = %.2f\n",
            strict ? "STRICT" : "RATIO", P::kName, target,
            best_tern->solver.c_str(), best_tern->seconds * 1e6,
            best_peer->solver.c_str(), best_peer->seconds * 1e6,
            best_tern->seconds / best_peer->seconds);
      }
    }
  }
}

}  // namespace

int main() {
#ifndef TERN_HAVE_BOOST_ODEINT
  std::printf("note: Boost.Odeint not found; its peers are skipped\n");
#endif
#if defined(TERN_HAVE_BOOST_ODEINT) && !defined(TERN_BENCH_BOOST_ROSENBROCK4)
  std::printf("note: Boost rosenbrock4 not built; its peer is skipped\n");
#endif
#ifndef TERN_HAVE_GSL
  std::printf("note: GSL not found; its peers are skipped\n");
#endif
#ifndef TERN_HAVE_CVODE
  std::printf("note: SUNDIALS CVODE not found; its peers are skipped\n");
#endif
  Sweep<Arenstorf>();
  Sweep<VanDerPol>();
  Sweep<Robertson>();
  return 0;
}
