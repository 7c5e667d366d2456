#pragma once
// TimingReporter: Google Benchmark's console reporter that also keeps every
// benchmark's CPU time per iteration (ns), so that a program can print
// Tern / peer ratios after the run. With --benchmark_repetitions the ratio
// uses the median over the repetitions (the last repetition otherwise):
// call MergeMedians() before reading ns_.
#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <vector>

namespace tern::bench {

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

}  // namespace tern::bench
