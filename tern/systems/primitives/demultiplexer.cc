#include "tern/systems/primitives/demultiplexer.h"

#include <fmt/format.h>

#include "tern/common/default_scalars.h"
#include "tern/systems/primitives/primitive_checks.h"

namespace tern {
namespace {

std::vector<int> EqualSizes(int size, int output_size) {
  internal::CheckPositiveSize("Demultiplexer", "size", size);
  internal::CheckPositiveSize("Demultiplexer", "output_size", output_size);
  if (size % output_size != 0) {
    throw std::invalid_argument(fmt::format(
        "Demultiplexer: size {} is not a multiple of output_size {}", size,
        output_size));
  }
  return std::vector<int>(size / output_size, output_size);
}

}  // namespace

template <typename T>
Demultiplexer<T>::Demultiplexer(const std::vector<int>& output_sizes)
    : LeafSystem<T>() {
  internal::CheckPositiveSize("Demultiplexer", "number of outputs",
                              static_cast<Eigen::Index>(output_sizes.size()));
  int total = 0;
  for (std::size_t i = 0; i < output_sizes.size(); ++i) {
    if (output_sizes[i] < 1) {
      throw std::invalid_argument(fmt::format(
          "Demultiplexer: output {} has size {}; sizes must be at least 1", i,
          output_sizes[i]));
    }
    total += output_sizes[i];
  }
  const InputPort<T>* u = &this->DeclareVectorInputPort("u", total);
  int offset = 0;
  for (std::size_t i = 0; i < output_sizes.size(); ++i) {
    const int n = output_sizes[i];
    this->DeclareVectorOutputPort(
        fmt::format("y{}", i), n,
        [u, offset, n](const Context<T>& context, VectorX<T>* y) {
          *y = u->Eval(context).segment(offset, n);
        });
    offset += n;
  }
}

template <typename T>
Demultiplexer<T>::Demultiplexer(int size, int output_size)
    : Demultiplexer(EqualSizes(size, output_size)) {}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(Demultiplexer)

}  // namespace tern
