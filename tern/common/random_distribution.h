#pragma once
// The distributions a random input port can be tagged with (seed 002). They
// are deliberately few: a system transforms the sample itself.
namespace tern {

enum class RandomDistribution {
  kUniform,      // uniform on [0, 1)
  kGaussian,     // standard normal, mean 0, variance 1
  kExponential,  // exponential with rate 1
};

// "uniform", "gaussian" or "exponential".
inline const char* to_string(RandomDistribution d) {
  switch (d) {
    case RandomDistribution::kUniform:
      return "uniform";
    case RandomDistribution::kGaussian:
      return "gaussian";
    case RandomDistribution::kExponential:
      return "exponential";
  }
  return "unknown";
}

}  // namespace tern
