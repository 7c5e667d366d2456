#include "tern/systems/primitives/matrix_gain.h"

#include "tern/common/default_scalars.h"
#include "tern/systems/primitives/primitive_checks.h"

namespace tern {

template <typename T>
MatrixGain<T>::MatrixGain(const MatrixX<double>& D) : LeafSystem<T>(), D_(D) {
  internal::CheckPositiveSize("MatrixGain", "number of rows of D", D_.rows());
  internal::CheckPositiveSize("MatrixGain", "number of columns of D",
                              D_.cols());
  internal::CheckFinite("MatrixGain", "D", D_);
  D_t_ = D_.template cast<T>();
  this->DeclareVectorInputPort("u", static_cast<int>(D_.cols()));
  this->DeclareVectorOutputPort("y", static_cast<int>(D_.rows()),
                                &MatrixGain::CalcOutput);
}

template <typename T>
MatrixGain<T>::MatrixGain(int size)
    : MatrixGain(MatrixX<double>::Identity(
          internal::CheckPositiveSize("MatrixGain", "size", size), size)) {}

template <typename T>
void MatrixGain<T>::CalcOutput(const Context<T>& context, VectorX<T>* y) const {
  y->noalias() = D_t_ * this->get_input_port(0).Eval(context);
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(MatrixGain)

}  // namespace tern
