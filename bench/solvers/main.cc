// Nanoseconds per LCP solve, Tern against Siconos numerics in the same
// process on the same problems, each solve on the next problem of a pool of
// 32 random ones:
//   contactN: the Anitescu-Potra contact LCP of N contacts with 4 friction
//             directions, N x (1 + 4 + 1) rows (normal, friction, lambda);
//   spdN:     symmetric positive definite N x N (frictionless-contact-like).
// Lemke: Tern SolveLcpLemke (cold; and warm from the same problem's answer,
// the case of a contact set unchanged since the last step) vs Siconos
// lcp_lexicolemke. PGS: 50 sweeps exactly (tolerance 0) for Tern SolveLcpPgs
// and Siconos lcp_pgs, so both do the same work; block PGS (Tern only; Siconos
// has no dense block PGS for the LCP) to tolerance 1e-8, cold and warm.
// After the Google Benchmark output, a table gives Tern / Siconos per row.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "bench/common/timing_reporter.h"
#include "tern/solvers/lemke.h"
#include "tern/solvers/projected_gauss_seidel.h"
#include "tern/solvers/test/random_lcp.h"

extern "C" {
#include <LCP_Solvers.h>
#include <LinearComplementarityProblem.h>
#include <NumericsMatrix.h>
#include <SolverOptions.h>
#include <lcp_cst.h>
}

namespace {

using tern::solvers::LcpResult;
namespace ts = tern::solvers;

constexpr int kPool = 32;

struct Problem {
  ts::test::Lcp lcp;
  Eigen::VectorXd z_solution;    // Tern Lemke's answer (for warm starts)
  NumericsMatrix* nm = nullptr;  // Siconos copy of M
  LinearComplementarityProblem siconos;
};

struct Pool {
  std::string name;
  int contacts = 0;  // 0: not a contact problem
  std::vector<Problem> problems;
};

Pool* MakePool(const std::string& name, int contacts, int n_spd) {
  auto* pool = new Pool{name, contacts, std::vector<Problem>(kPool)};
  std::mt19937_64 rng(42);
  for (Problem& p : pool->problems) {
    if (contacts > 0) {
      p.lcp = ts::test::RandomContactLcp(contacts, 4, 0.5, 8 * contacts, &rng);
    } else {
      const Eigen::MatrixXd M = ts::test::RandomSpd(n_spd, &rng);
      p.lcp = {M, ts::test::QFromSolution(M, 0.5, 0.5, &rng)};
    }
    const int n = static_cast<int>(p.lcp.q.size());
    ts::LemkeWorkspace ws;
    p.z_solution = Eigen::VectorXd::Zero(n);
    Eigen::VectorXd w(n);
    const LcpResult r =
        ts::SolveLcpLemke(p.lcp.M, p.lcp.q, {}, &ws, p.z_solution, w);
    if (!r.ok())
      std::fprintf(stderr, "%s: a problem is not solved\n", name.c_str());
    p.nm = NM_create(NM_DENSE, n, n);
    std::memcpy(p.nm->matrix0, p.lcp.M.data(), sizeof(double) * n * n);
    p.siconos.size = n;
    p.siconos.M = p.nm;
    p.siconos.q = p.lcp.q.data();
  }
  return pool;
}

int Size(const Pool& pool) {
  return static_cast<int>(pool.problems[0].lcp.q.size());
}

void TernLemke(benchmark::State& state, Pool* pool, bool warm) {
  const int n = Size(*pool);
  ts::LemkeWorkspace ws(n);
  ts::LemkeSettings settings;
  settings.warm_start = warm;
  Eigen::VectorXd z(n), w(n);
  int i = 0, failures = 0;
  for (auto _ : state) {
    const Problem& p = pool->problems[i];
    if (warm) z = p.z_solution;
    failures += !ts::SolveLcpLemke(p.lcp.M, p.lcp.q, settings, &ws, z, w).ok();
    benchmark::DoNotOptimize(z.data());
    i = (i + 1) % kPool;
  }
  state.counters["failures"] = failures;
}

void SiconosLemke(benchmark::State& state, Pool* pool) {
  const int n = Size(*pool);
  SolverOptions* options = solver_options_create(SICONOS_LCP_LEMKE);
  Eigen::VectorXd z(n), w(n);
  int i = 0, failures = 0;
  for (auto _ : state) {
    Problem& p = pool->problems[i];
    int info = 0;
    lcp_lexicolemke(&p.siconos, z.data(), w.data(), &info, options);
    failures += info != 0;
    benchmark::DoNotOptimize(z.data());
    i = (i + 1) % kPool;
  }
  state.counters["failures"] = failures;
  solver_options_delete(options);
}

constexpr int kSweeps = 50;

void TernPgs(benchmark::State& state, Pool* pool) {
  const int n = Size(*pool);
  ts::PgsSettings settings;
  settings.max_iterations = kSweeps;
  settings.tolerance = 0.0;
  Eigen::VectorXd z(n), w(n);
  int i = 0;
  for (auto _ : state) {
    const Problem& p = pool->problems[i];
    z.setZero();
    ts::SolveLcpPgs(p.lcp.M, p.lcp.q, settings, z, w);
    benchmark::DoNotOptimize(z.data());
    i = (i + 1) % kPool;
  }
}

void SiconosPgs(benchmark::State& state, Pool* pool) {
  const int n = Size(*pool);
  SolverOptions* options = solver_options_create(SICONOS_LCP_PGS);
  options->iparam[SICONOS_IPARAM_MAX_ITER] = kSweeps;
  options->dparam[SICONOS_DPARAM_TOL] = 0.0;
  Eigen::VectorXd z(n), w(n);
  int i = 0;
  for (auto _ : state) {
    Problem& p = pool->problems[i];
    int info = 0;
    z.setZero();
    lcp_pgs(&p.siconos, z.data(), w.data(), &info, options);
    benchmark::DoNotOptimize(z.data());
    i = (i + 1) % kPool;
  }
  solver_options_delete(options);
}

void TernBlockPgs(benchmark::State& state, Pool* pool, bool warm) {
  const int n = Size(*pool);
  const std::vector<int> blocks(pool->contacts, 6);
  ts::BlockPgsWorkspace ws(blocks);
  ts::PgsSettings settings;
  settings.tolerance = 1e-8;
  settings.max_iterations = 10000;
  Eigen::VectorXd z(n), w(n);
  int i = 0, failures = 0;
  double sweeps = 0;
  for (auto _ : state) {
    const Problem& p = pool->problems[i];
    // Warm: the answer perturbed by 1e-3 relative, as from a previous step.
    if (warm) {
      z = p.z_solution * (1.0 + 1e-3);
    } else {
      z.setZero();
    }
    const LcpResult r =
        ts::SolveLcpBlockPgs(p.lcp.M, p.lcp.q, settings, &ws, z, w);
    failures += !r.ok();
    sweeps += r.iterations;
    benchmark::DoNotOptimize(z.data());
    i = (i + 1) % kPool;
  }
  state.counters["failures"] = failures;
  state.counters["sweeps"] =
      benchmark::Counter(sweeps, benchmark::Counter::kAvgIterations);
}

void RegisterAll(Pool* pool) {
  const std::string p = pool->name + "/";
  benchmark::RegisterBenchmark(
      (p + "Lemke/tern").c_str(),
      [pool](benchmark::State& s) { TernLemke(s, pool, false); });
  benchmark::RegisterBenchmark(
      (p + "Lemke/siconos").c_str(),
      [pool](benchmark::State& s) { SiconosLemke(s, pool); });
  benchmark::RegisterBenchmark(
      (p + "LemkeWarm/tern").c_str(),
      [pool](benchmark::State& s) { TernLemke(s, pool, true); });
  if (pool->contacts > 0) {
    benchmark::RegisterBenchmark(
        (p + "BlockPgs/tern").c_str(),
        [pool](benchmark::State& s) { TernBlockPgs(s, pool, false); });
    benchmark::RegisterBenchmark(
        (p + "BlockPgsWarm/tern").c_str(),
        [pool](benchmark::State& s) { TernBlockPgs(s, pool, true); });
  } else {
    benchmark::RegisterBenchmark(
        (p + "Pgs50/tern").c_str(),
        [pool](benchmark::State& s) { TernPgs(s, pool); });
    benchmark::RegisterBenchmark(
        (p + "Pgs50/siconos").c_str(),
        [pool](benchmark::State& s) { SiconosPgs(s, pool); });
  }
}

// Records ns per solve of every run, then prints Tern / Siconos.
class RatioReporter : public tern::bench::TimingReporter {
 public:
  void PrintRatios(const std::vector<Pool*>& pools) {
    MergeMedians();
    std::printf("\n%-12s %-12s %10s %10s %8s\n", "problem", "solver", "tern ns",
                "siconos ns", "ratio");
    for (const Pool* pool : pools) {
      for (const char* alg : {"Lemke", "LemkeWarm", "Pgs50"}) {
        const std::string base = pool->name + "/";
        auto t = ns_.find(base + alg + "/tern");
        // Warm Lemke is compared with Siconos's (cold-only) Lemke.
        const std::string peer =
            std::string(alg) == "LemkeWarm" ? "Lemke" : alg;
        auto s = ns_.find(base + peer + "/siconos");
        if (t == ns_.end() || s == ns_.end()) continue;
        std::printf("%-12s %-12s %10.0f %10.0f %8.2f\n", pool->name.c_str(),
                    alg, t->second, s->second, t->second / s->second);
      }
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<Pool*> pools = {
      MakePool("contact4", 4, 0), MakePool("contact16", 16, 0),
      MakePool("spd24", 0, 24), MakePool("spd96", 0, 96)};
  for (Pool* pool : pools) RegisterAll(pool);
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintRatios(pools);
  benchmark::Shutdown();
  for (Pool* pool : pools) {
    for (Problem& p : pool->problems) NM_free(p.nm);
    delete pool;
  }
  return 0;
}
