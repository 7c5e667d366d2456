#pragma once
// Prerequisites of a computed value (an output port), as a bit mask. A cached
// output is recomputed only when a version counter it depends on changed.
// kInputs means "any input port": since an input may be wired to anything
// upstream, it depends on every source. An output whose prerequisites do not
// include kInputs has no direct feedthrough (this is how feedthrough is
// inferred), and evaluating an input while computing it throws.
#include <cstdint>

namespace tern {

using Prerequisites = std::uint8_t;

namespace ticket {
inline constexpr Prerequisites kTime = 1 << 0;
inline constexpr Prerequisites kXc = 1 << 1;  // continuous state
inline constexpr Prerequisites kXd = 1 << 2;  // discrete state
inline constexpr Prerequisites kXa = 1 << 3;  // abstract state
inline constexpr Prerequisites kParams =
    1 << 4;  // numeric and abstract parameters
inline constexpr Prerequisites kFixedInputs = 1 << 5;  // internal: FixValue
inline constexpr Prerequisites kInputs = 1 << 6;       // any input port
inline constexpr Prerequisites kNothing = 0;
inline constexpr Prerequisites kAllState = kXc | kXd | kXa;
inline constexpr Prerequisites kAllSources =
    kTime | kAllState | kParams | kFixedInputs | kInputs;
inline constexpr int kNumVersions =
    6;  // time, xc, xd, xa, params, fixed inputs
}  // namespace ticket

}  // namespace tern
