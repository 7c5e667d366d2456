#pragma once
// Demultiplexer: splits input "u" into consecutive segments, outputs
// "y0".."y{n-1}" of the given sizes, direct feedthrough.
#include <vector>

#include "tern/systems/framework/leaf_system.h"

namespace tern {

template <typename T>
class Demultiplexer final : public LeafSystem<T> {
 public:
  // One output per entry of output_sizes (each >= 1, at least one output);
  // the input has their total size.
  explicit Demultiplexer(const std::vector<int>& output_sizes);
  // An input of `size` split into outputs of output_size each; size must be
  // a positive multiple of output_size.
  explicit Demultiplexer(int size, int output_size = 1);
};

}  // namespace tern
