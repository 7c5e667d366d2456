#include "tern/systems/primitives/discrete_time_delay.h"

#include "tern/common/default_scalars.h"
#include "tern/systems/primitives/primitive_checks.h"

namespace tern {

template <typename T>
DiscreteTimeDelay<T>::DiscreteTimeDelay(double period, int delay_steps,
                                        int size)
    : LeafSystem<T>(), period_(period), k_(delay_steps), m_(size) {
  internal::CheckPeriod("DiscreteTimeDelay", period);
  internal::CheckPositiveSize("DiscreteTimeDelay", "delay_steps", delay_steps);
  internal::CheckPositiveSize("DiscreteTimeDelay", "size", size);
  // The FIFO, oldest sample first: [u(t_{n-k}); ...; u(t_{n-1})].
  this->DeclareDiscreteState(k_ * m_);
  this->DeclarePeriodicDiscreteUpdateEvent(period, 0.0,
                                           &DiscreteTimeDelay::Shift);
  this->DeclareVectorInputPort("u", m_);
  this->DeclareVectorOutputPort("y", m_, &DiscreteTimeDelay::CalcOutput,
                                ticket::kXd);
}

template <typename T>
EventStatus DiscreteTimeDelay<T>::Shift(const Context<T>& context,
                                        DiscreteValues<T>* next) const {
  const VectorX<T>& x = context.get_discrete_state(0);
  VectorX<T>& x_next = next->get_mutable_vector(0);
  const Eigen::Index older = static_cast<Eigen::Index>(k_ - 1) * m_;
  x_next.head(older) = x.tail(older);
  x_next.tail(m_) = this->get_input_port(0).Eval(context);
  return EventStatus::Succeeded();
}

template <typename T>
void DiscreteTimeDelay<T>::CalcOutput(const Context<T>& context,
                                      VectorX<T>* y) const {
  *y = context.get_discrete_state(0).head(m_);
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(DiscreteTimeDelay)

}  // namespace tern
