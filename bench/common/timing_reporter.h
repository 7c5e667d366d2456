#pragma once
// Timing helpers for the benchmark programs.
// TimingReporter: Google Benchmark's console reporter that also keeps every
// benchmark's CPU time per iteration (ns), so that a program can print
// Tern / peer ratios after the run. With --benchmark_repetitions the ratio
// uses the median over the repetitions (the last repetition otherwise):
// call MergeMedians() before reading ns_.
#include <benchmark/benchmark.h>
#include <time.h>

#include <limits>
#include <map>
#include <string>
#include <vector>

namespace tern::bench {

// CPU time of all threads of this process, s.
inline double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         1e-9 * static_cast<double>(ts.tv_nsec);
}

class TimingReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median") {
        median_ns_[r.run_name.str()] = r.GetAdjustedCPUTime();
      } else if (r.iterations > 0 && r.run_type == Run::RT_Iteration) {
        ns_[r.benchmark_name()] = r.GetAdjustedCPUTime();
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }

 protected:
  // Replaces each repeated benchmark's last time by its median.
  void MergeMedians() {
    for (const auto& [name, ns] : median_ns_) ns_[name] = ns;
  }
  std::map<std::string, double> ns_;  // benchmark name -> ns per iteration

 private:
  std::map<std::string, double> median_ns_;
};

// Console reporter that keeps every benchmark's counters (items_per_second
// and user counters), the median over repetitions when repeated, for
// programs that print ratios of throughputs measured in wall-clock time.
class CounterReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      const bool median =
          r.run_type == Run::RT_Aggregate && r.aggregate_name == "median";
      if (!median && r.run_type != Run::RT_Iteration) continue;
      std::string name = r.run_name.function_name;
      if (!r.run_name.args.empty()) name += "/" + r.run_name.args;
      auto& slot = (median ? median_ : last_)[name];
      for (const auto& [name, counter] : r.counters) slot[name] = counter.value;
    }
    ConsoleReporter::ReportRuns(runs);
  }

  // Counter `counter` of benchmark `run` (its name and arguments, e.g.
  // "BM_Foo/2", without the /min_time: and /real_time suffixes), the median
  // if it was repeated; NaN if there is none.
  double Get(const std::string& run, const std::string& counter) const {
    for (const auto* runs : {&median_, &last_}) {
      const auto found = runs->find(run);
      if (found == runs->end()) continue;
      const auto it = found->second.find(counter);
      if (it != found->second.end()) return it->second;
    }
    return std::numeric_limits<double>::quiet_NaN();
  }

 private:
  using Counters = std::map<std::string, double>;
  std::map<std::string, Counters> median_, last_;
};

}  // namespace tern::bench
