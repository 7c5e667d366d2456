#include "tern/systems/primitives/pid_controller.h"

#include <fmt/format.h>

#include "tern/common/default_scalars.h"
#include "tern/systems/primitives/primitive_checks.h"

namespace tern {

template <typename T>
PidController<T>::PidController(const VectorX<double>& kp,
                                const VectorX<double>& ki,
                                const VectorX<double>& kd)
    : LeafSystem<T>(), kp_(kp), ki_(ki), kd_(kd) {
  n_ = internal::CheckPositiveSize("PidController", "size of kp", kp.size());
  internal::CheckSize("PidController", "ki", ki, n_);
  internal::CheckSize("PidController", "kd", kd, n_);
  internal::CheckFinite("PidController", "kp", kp);
  internal::CheckFinite("PidController", "ki", ki);
  internal::CheckFinite("PidController", "kd", kd);
  this->DeclareContinuousState(n_);
  this->DeclareVectorInputPort("estimated_state", 2 * n_);
  this->DeclareVectorInputPort("desired_state", 2 * n_);
  this->DeclareVectorOutputPort("control", n_, &PidController::CalcControl);
}

template <typename T>
void PidController<T>::set_integral_value(
    Context<T>* context, const Eigen::Ref<const VectorX<T>>& value) const {
  if (value.size() != n_) {
    throw std::invalid_argument(fmt::format(
        "PidController '{}': set_integral_value got a value of size {}, "
        "expected {}",
        this->GetPathName(), value.size(), n_));
  }
  this->GetMyMutableContextFromRoot(context).SetContinuousState(value);
}

template <typename T>
void PidController<T>::DoCalcTimeDerivatives(
    const Context<T>& context, Eigen::Ref<VectorX<T>> derivatives) const {
  const VectorX<T>& x = get_input_port_estimated_state().Eval(context);
  const VectorX<T>& xd = get_input_port_desired_state().Eval(context);
  derivatives = xd.head(n_) - x.head(n_);
}

template <typename T>
void PidController<T>::CalcControl(const Context<T>& context,
                                   VectorX<T>* control) const {
  const VectorX<T>& x = get_input_port_estimated_state().Eval(context);
  const VectorX<T>& xd = get_input_port_desired_state().Eval(context);
  const auto integral = context.get_continuous_state_vector();
  for (int i = 0; i < n_; ++i) {
    // Each term is made a plain T before it is summed: Eigen's
    // AutoDiffScalar reconciles an empty gradient (e.g. of a fixed input or
    // of the default integral) with a nonempty one only between plain
    // scalars, not inside scaled expressions.
    T u = xd[i] - x[i];
    u *= kp_[i];
    T integral_term = integral[i];
    integral_term *= ki_[i];
    T derivative_term = xd[n_ + i] - x[n_ + i];
    derivative_term *= kd_[i];
    u += integral_term;
    u += derivative_term;
    (*control)[i] = u;
  }
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(PidController)

}  // namespace tern
