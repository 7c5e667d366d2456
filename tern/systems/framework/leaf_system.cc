#include "tern/systems/framework/leaf_system.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "tern/common/default_scalars.h"

namespace tern {

template <typename T>
LeafSystem<T>::LeafSystem(std::string default_name) {
  this->set_name(std::move(default_name));
  this->leaves_.push_back(this);
}

template <typename T>
LeafSystem<T>::~LeafSystem() = default;

template <typename T>
bool LeafSystem<T>::HasDirectFeedthrough(int in, int out) const {
  this->get_input_port(in);  // range check
  return (this->get_output_port(out).prerequisites() & ticket::kInputs) != 0;
}

template <typename T>
void LeafSystem<T>::DeclareContinuousState(int num_state_variables) {
  DeclareContinuousState(0, 0, num_state_variables);
}

template <typename T>
void LeafSystem<T>::DeclareContinuousState(int num_q, int num_v, int num_z) {
  DeclareContinuousState(VectorX<double>::Zero(num_q + num_v + num_z), num_q,
                         num_v);
}

template <typename T>
void LeafSystem<T>::DeclareContinuousState(const VectorX<double>& initial,
                                           int num_q, int num_v) {
  if (this->num_continuous_states() > 0) {
    throw std::logic_error(fmt::format(
        "System '{}': continuous state declared twice", this->GetPathName()));
  }
  if (num_q < 0 || num_v < 0 || num_q + num_v > initial.size() ||
      num_v > num_q) {
    throw std::invalid_argument(fmt::format(
        "System '{}': continuous state of size {} cannot have nq = {}, nv = {} "
        "(need 0 <= nv <= nq and nq + nv <= size)",
        this->GetPathName(), initial.size(), num_q, num_v));
  }
  xc0_ = initial;
  this->nq_ = num_q;
  this->nv_ = num_v;
  this->nz_ = static_cast<int>(initial.size()) - num_q - num_v;
}

template <typename T>
int LeafSystem<T>::DeclareDiscreteState(int size) {
  return DeclareDiscreteState(VectorX<double>::Zero(size));
}

template <typename T>
int LeafSystem<T>::DeclareDiscreteState(const VectorX<double>& initial) {
  xd0_.push_back(initial);
  this->num_groups_ = static_cast<int>(xd0_.size());
  return this->num_groups_ - 1;
}

template <typename T>
int LeafSystem<T>::DeclareAbstractState(const AbstractValue& initial) {
  xa0_.push_back(initial.Clone());
  this->num_abstract_ = static_cast<int>(xa0_.size());
  return this->num_abstract_ - 1;
}

template <typename T>
int LeafSystem<T>::DeclareNumericParameter(const VectorX<double>& initial) {
  p0_.push_back(initial);
  return static_cast<int>(p0_.size()) - 1;
}

template <typename T>
int LeafSystem<T>::DeclareAbstractParameter(const AbstractValue& initial) {
  ap0_.push_back(initial.Clone());
  return static_cast<int>(ap0_.size()) - 1;
}

template <typename T>
const InputPort<T>& LeafSystem<T>::DeclareVectorInputPort(
    std::string name, int size, std::optional<RandomDistribution> random_type) {
  if (size < 0) {
    throw std::invalid_argument(
        fmt::format("System '{}': input port '{}' cannot have negative size {}",
                    this->GetPathName(), name, size));
  }
  const int index = this->num_input_ports();
  const InputPort<T>& port = this->AddInputPort(std::make_unique<InputPort<T>>(
      this, index, std::move(name), PortDataType::kVector, size, random_type,
      nullptr));
  if (!scalar_kernel_output_.empty()) {
    CheckScalarKernelInputs(scalar_kernel_output_);
  }
  return port;
}

template <typename T>
const InputPort<T>& LeafSystem<T>::DeclareAbstractInputPort(
    std::string name, const AbstractValue& model) {
  const int index = this->num_input_ports();
  const InputPort<T>& port = this->AddInputPort(std::make_unique<InputPort<T>>(
      this, index, std::move(name), PortDataType::kAbstract, 0, std::nullopt,
      model.Clone()));
  if (!scalar_kernel_output_.empty()) {
    CheckScalarKernelInputs(scalar_kernel_output_);
  }
  return port;
}

template <typename T>
const OutputPort<T>& LeafSystem<T>::DeclareVectorOutputPort(
    std::string name, int size,
    std::function<void(const Context<T>&, VectorX<T>*)> calc,
    Prerequisites prerequisites) {
  if (size < 0 || !calc) {
    throw std::invalid_argument(fmt::format(
        "System '{}': output port '{}' needs a size >= 0 and a calc function",
        this->GetPathName(), name));
  }
  const int index = this->num_output_ports();
  return this->AddOutputPort(std::make_unique<OutputPort<T>>(
      this, index, std::move(name), PortDataType::kVector, size, prerequisites,
      std::move(calc), nullptr, nullptr));
}

template <typename T>
const OutputPort<T>& LeafSystem<T>::DeclareAbstractOutputPort(
    std::string name, const AbstractValue& model,
    std::function<void(const Context<T>&, AbstractValue*)> calc,
    Prerequisites prerequisites) {
  if (!calc) {
    throw std::invalid_argument(
        fmt::format("System '{}': output port '{}' needs a calc function",
                    this->GetPathName(), name));
  }
  const int index = this->num_output_ports();
  return this->AddOutputPort(std::make_unique<OutputPort<T>>(
      this, index, std::move(name), PortDataType::kAbstract, 0, prerequisites,
      nullptr, std::move(calc), model.Clone()));
}

template <typename T>
void LeafSystem<T>::AddEventChecked(Event<T> event) {
  if (event.trigger == TriggerType::kPeriodic &&
      !(event.period > 0 && std::isfinite(event.period) && event.offset >= 0 &&
        std::isfinite(event.offset))) {
    throw std::invalid_argument(fmt::format(
        "System '{}': periodic {} event needs a finite period > 0 and a "
        "finite offset >= 0 (got period {}, offset {})",
        this->GetPathName(), to_string(event.kind), event.period,
        event.offset));
  }
  events_.push_back(std::move(event));
}

template <typename T>
void LeafSystem<T>::AddWitnessChecked(WitnessFunction<T> witness) {
  if (!witness.calc) {
    throw std::invalid_argument(
        fmt::format("System '{}': witness function '{}' needs a calc function",
                    this->GetPathName(), witness.name));
  }
  witnesses_.push_back(std::move(witness));
}

template <typename T>
const OutputPort<T>& LeafSystem<T>::DeclareKernelPort(
    std::string name, int size, OutputKernel<T> kernel,
    Prerequisites prerequisites) {
  const System<T>* self = this;
  const bool reads = (prerequisites & ticket::kInputs) != 0;
  const OutputPort<T>& port = DeclareVectorOutputPort(
      std::move(name), size,
      [self, kernel, reads](const Context<T>& c, VectorX<T>* y) {
        const internal::EvaluatedInputs<T> u(*self, c, reads);
        kernel(*self, c, u.view(), y->data());
      },
      prerequisites);
  const_cast<OutputPort<T>&>(port).kernel_ = kernel;
  return port;
}

template <typename T>
void LeafSystem<T>::CheckScalarKernelInputs(
    const std::string& output_name) const {
  const auto fail = [&](const std::string& why) {
    throw std::logic_error(
        fmt::format("System '{}': scalar kernel output '{}' {}",
                    this->GetPathName(), output_name, why));
  };
  if (this->num_input_ports() > 2) {
    fail(fmt::format("needs at most two input ports; the system has {}",
                     this->num_input_ports()));
  }
  for (int i = 0; i < this->num_input_ports(); ++i) {
    const InputPort<T>& port = this->get_input_port(i);
    if (port.get_data_type() != PortDataType::kVector || port.size() != 1) {
      fail(fmt::format("needs vector inputs of size 1; input '{}' is not",
                       port.get_name()));
    }
  }
}

template <typename T>
void LeafSystem<T>::CheckOneContinuousState() const {
  if (xc0_.size() != 1) {
    throw std::logic_error(fmt::format(
        "System '{}': a scalar time-derivatives kernel needs exactly one "
        "continuous state; the system has {}",
        this->GetPathName(), xc0_.size()));
  }
}

template <typename T>
void LeafSystem<T>::DoCalcTimeDerivatives(
    const Context<T>& context, Eigen::Ref<VectorX<T>> derivatives) const {
  if (derivatives_kernel_ != nullptr) {
    const internal::EvaluatedInputs<T> u(*this, context, true);
    derivatives_kernel_(*this, context, u.view(), derivatives.data());
    return;
  }
  throw std::logic_error(fmt::format(
      "System '{}' declares {} continuous states but does not override "
      "DoCalcTimeDerivatives",
      this->GetPathName(), context.num_continuous_states()));
}

template <typename T>
void LeafSystem<T>::DoMapVelocityToQDot(const Context<T>&,
                                        const Eigen::Ref<const VectorX<T>>& v,
                                        Eigen::Ref<VectorX<T>> qdot) const {
  if (v.size() != qdot.size()) {
    throw std::logic_error(
        fmt::format("System '{}' has nq = {} != nv = {} and must override "
                    "DoMapVelocityToQDot",
                    this->GetPathName(), qdot.size(), v.size()));
  }
  qdot = v;
}

template <typename T>
void LeafSystem<T>::SetDefaultState(const Context<T>&, State<T>* state) const {
  state->get_mutable_continuous_state_vector() = xc0_.template cast<T>();
  auto& xd = state->get_mutable_discrete_state();
  for (int i = 0; i < xd.num_groups(); ++i)
    xd.get_mutable_vector(i) = xd0_[i].template cast<T>();
  for (int i = 0; i < state->num_abstract_states(); ++i)
    state->abstract_value(i).SetFrom(*xa0_[i]);
}

template <typename T>
void LeafSystem<T>::SetDefaultParameters(Context<T>* context) const {
  for (int i = 0; i < context->num_numeric_parameter_groups(); ++i)
    context->get_mutable_numeric_parameter(i) = p0_[i].template cast<T>();
  for (int i = 0; i < context->num_abstract_parameters(); ++i)
    context->mutable_abstract_parameter_value(i).SetFrom(*ap0_[i]);
}

template <typename T>
void LeafSystem<T>::SetRandomState(const Context<T>& context, State<T>* state,
                                   RandomGenerator*) const {
  SetDefaultState(context, state);
}

template <typename T>
void LeafSystem<T>::SetRandomParameters(Context<T>* context,
                                        RandomGenerator*) const {
  SetDefaultParameters(context);
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(LeafSystem)

}  // namespace tern
