#pragma once
// AllFinite: whether n doubles are all finite, in one pass that the
// compiler vectorizes (Eigen's allFinite() on a dynamic vector costs about
// seven instructions a value). For the per-step checks of user input and
// of a step's state; a caller that finds a non-finite value then looks for
// it to name it.
#include <cstddef>

namespace tern {

inline bool AllFinite(const double* x, std::ptrdiff_t n) {
  // x * 0 is 0 for a finite x and NaN for an infinite or NaN one; four
  // independent sums so that the loop needs no reassociation to vectorize.
  double acc[4] = {0, 0, 0, 0};
  const std::ptrdiff_t n4 = n - n % 4;
  for (std::ptrdiff_t i = 0; i < n4; i += 4) {
    for (int k = 0; k < 4; ++k) acc[k] += x[i + k] * 0.0;
  }
  for (std::ptrdiff_t i = n4; i < n; ++i) acc[0] += x[i] * 0.0;
  return acc[0] + acc[1] + acc[2] + acc[3] == 0;
}

}  // namespace tern
