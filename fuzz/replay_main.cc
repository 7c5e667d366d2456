// A main() for a libFuzzer harness without libFuzzer: runs
// LLVMFuzzerTestOneInput once on every file given (or in the folders
// given), so that the corpus is a regression test in any build (GCC, ASan,
// CI). Understands two of libFuzzer's flags: -timeout=S fails if one input
// takes more than S seconds, -rss_limit_mb=M fails if the process's peak
// resident memory passes M MB. Exit code 0 when every input ran within
// both limits.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size);

namespace {

long PeakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024;  // ru_maxrss is in KB on Linux
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  double timeout = 0;
  long rss_limit_mb = 0;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("-timeout=", 0) == 0) {
      timeout = std::stod(a.substr(9));
    } else if (a.rfind("-rss_limit_mb=", 0) == 0) {
      rss_limit_mb = std::stol(a.substr(14));
    } else if (fs::is_directory(a)) {
      for (const auto& e : fs::directory_iterator(a)) {
        if (e.is_regular_file()) files.push_back(e.path());
      }
    } else if (fs::is_regular_file(a)) {
      files.emplace_back(a);
    } else {
      std::fprintf(stderr, "replay: %s: no such file or folder\n", argv[i]);
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::fprintf(stderr, "replay: no inputs\n");
    return 2;
  }
  int failures = 0;
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
    const auto start = std::chrono::steady_clock::now();
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                           bytes.size());
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    const long rss = PeakRssMb();
    std::printf("%s: %zu bytes, %.3f s, peak RSS %ld MB\n", f.c_str(),
                bytes.size(), seconds, rss);
    if (timeout > 0 && seconds > timeout) {
      std::fprintf(stderr, "replay: %s: took %.1f s, more than -timeout=%g\n",
                   f.c_str(), seconds, timeout);
      ++failures;
    }
    if (rss_limit_mb > 0 && rss > rss_limit_mb) {
      std::fprintf(stderr,
                   "replay: %s: peak RSS %ld MB, more than -rss_limit_mb=%ld\n",
                   f.c_str(), rss, rss_limit_mb);
      ++failures;
    }
  }
  std::printf("replay: %zu inputs, %d failures\n", files.size(), failures);
  return failures == 0 ? 0 : 1;
}
