#include "tern/systems/primitives/multiplexer.h"

#include <fmt/format.h>

#include "tern/common/default_scalars.h"
#include "tern/systems/primitives/primitive_checks.h"

namespace tern {

template <typename T>
Multiplexer<T>::Multiplexer(const std::vector<int>& input_sizes)
    : LeafSystem<T>() {
  internal::CheckPositiveSize("Multiplexer", "number of inputs",
                              static_cast<Eigen::Index>(input_sizes.size()));
  int total = 0;
  for (std::size_t i = 0; i < input_sizes.size(); ++i) {
    if (input_sizes[i] < 1) {
      throw std::invalid_argument(fmt::format(
          "Multiplexer: input {} has size {}; sizes must be at least 1", i,
          input_sizes[i]));
    }
    this->DeclareVectorInputPort(fmt::format("u{}", i), input_sizes[i]);
    total += input_sizes[i];
  }
  this->DeclareVectorOutputPort("y", total, &Multiplexer::CalcOutput);
}

template <typename T>
Multiplexer<T>::Multiplexer(int num_scalar_inputs)
    : Multiplexer(std::vector<int>(
          internal::CheckPositiveSize("Multiplexer", "num_scalar_inputs",
                                      num_scalar_inputs),
          1)) {}

template <typename T>
void Multiplexer<T>::CalcOutput(const Context<T>& context,
                                VectorX<T>* y) const {
  Eigen::Index offset = 0;
  for (int i = 0; i < this->num_input_ports(); ++i) {
    const VectorX<T>& u = this->get_input_port(i).Eval(context);
    y->segment(offset, u.size()) = u;
    offset += u.size();
  }
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(Multiplexer)

}  // namespace tern
