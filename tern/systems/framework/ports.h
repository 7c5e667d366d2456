#pragma once
// Input and output ports of a System. A port is part of the (immutable)
// system; its value lives in a Context. Vector ports carry VectorX<T> of a
// fixed size; abstract ports carry any copyable type through AbstractValue.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "tern/common/eigen_types.h"
#include "tern/common/random_distribution.h"
#include "tern/common/value.h"
#include "tern/systems/framework/context.h"
#include "tern/systems/framework/dependency_ticket.h"

namespace tern {

template <typename T>
class System;
template <typename T>
class LeafSystem;

enum class PortDataType { kVector, kAbstract };

template <typename T>
class InputPort {
 public:
  InputPort(const System<T>* system, int index, std::string name,
            PortDataType type, int size,
            std::optional<RandomDistribution> random,
            std::unique_ptr<AbstractValue> model);

  const std::string& get_name() const { return name_; }
  int get_index() const { return index_; }
  PortDataType get_data_type() const { return type_; }
  // Vector size (0 for abstract ports).
  int size() const { return size_; }
  const System<T>& get_system() const { return *system_; }
  // "system_path.port_name", for messages.
  std::string GetFullDescription() const;
  bool is_random() const { return random_.has_value(); }
  std::optional<RandomDistribution> get_random_type() const { return random_; }
  // Model value of an abstract port (nullptr for vector ports).
  const AbstractValue* model_value() const { return model_.get(); }

  // The value of a vector port. `context` is this port's system's context.
  // Inline fast path for a wired port (defined after OutputPort).
  const VectorX<T>& Eval(const Context<T>& context) const;
  // The value of an abstract port, as V.
  template <typename V>
  const V& Eval(const Context<T>& context) const {
    return EvalAbstract(context).template get_value<V>();
  }
  const AbstractValue& EvalAbstract(const Context<T>& context) const;
  // True if the port is connected or has a fixed value.
  bool HasValue(const Context<T>& context) const;

  // Fixes the value of this port in `context`. Vector ports accept an Eigen
  // vector (or a scalar for size 1); abstract ports any V or AbstractValue.
  template <typename V>
  void FixValue(Context<T>* context, const V& value) const {
    if constexpr (std::is_base_of_v<Eigen::EigenBase<V>, V>) {
      FixVectorValue(context, VectorX<T>(value.template cast<T>()));
    } else if constexpr (std::is_base_of_v<AbstractValue, V>) {
      FixAbstractValue(context, value);
    } else if constexpr (std::is_convertible_v<V, T> && !std::is_class_v<V>) {
      FixVectorValue(context, VectorX<T>::Constant(1, T(value)));
    } else {
      FixAbstractValue(context, Value<V>(value));
    }
  }
  void FixVectorValue(Context<T>* context, const VectorX<T>& value) const;
  void FixAbstractValue(Context<T>* context, const AbstractValue& value) const;

 private:
  void CheckContext(const Context<T>& context) const;
  const VectorX<T>& EvalSlow(const Context<T>& context) const;
  internal::FixedInput<T>& FixedSlotFor(Context<T>* context) const;
  const internal::FixedInput<T>& Resolve(
      const Context<T>& context, const internal::InputSource<T>** src) const;

  const System<T>* system_;
  int index_;
  std::string name_;
  PortDataType type_;
  int size_;
  std::optional<RandomDistribution> random_;
  std::unique_ptr<AbstractValue> model_;
};

namespace internal {
template <typename T>
class EvaluationPlan;
}  // namespace internal

// The inputs handed to a kernel (an output kernel, see
// LeafSystem::DeclareVectorOutputKernel, or a time-derivatives kernel):
// u[i] points to the value of vector input port i (nullptr for an abstract
// port). Every vector input is evaluated before the kernel runs, so each must
// be connected or fixed; a kernel whose prerequisites leave out
// ticket::kInputs gets no inputs and must not read u. In an evaluation plan
// the pointers are resolved once.
template <typename T>
class KernelInputs {
 public:
  explicit KernelInputs(const T* const* u) : u_(u) {}
  const T* operator[](int i) const { return u_[i]; }

 private:
  const T* const* u_;
};

namespace internal {
// A system's vector inputs evaluated in `context` for one kernel call made
// outside an evaluation plan (none when `read` is false). Allocates only for
// systems with more than kInline input ports.
template <typename T>
class EvaluatedInputs {
 public:
  EvaluatedInputs(const System<T>& system, const Context<T>& context,
                  bool read);
  EvaluatedInputs(const EvaluatedInputs&) = delete;
  EvaluatedInputs& operator=(const EvaluatedInputs&) = delete;
  KernelInputs<T> view() const { return KernelInputs<T>(data_); }

 private:
  static constexpr int kInline = 8;
  const T* inline_[kInline] = {};
  std::vector<const T*> heap_;
  const T* const* data_{inline_};
};
}  // namespace internal

// An output kernel: y (size of the port) from the system, its context and
// its vector inputs. A plain function, so a plan can call it directly.
template <typename T>
using OutputKernel = void (*)(const System<T>& system,
                              const Context<T>& context,
                              const KernelInputs<T>& u, T* y);

// The scalar form of an output kernel of size 1 (LeafSystem::
// DeclareScalarOutputKernel): y from the values of the system's (at most
// two, size-1) vector inputs, zero where there is none. Passed by value so
// that, in a plan, a chain of such kernels hands values over in registers.
template <typename T>
using ScalarKernel = T (*)(const System<T>& system, const Context<T>& context,
                           T u0, T u1);

template <typename T>
class OutputPort {
 public:
  using VectorCalc = std::function<void(const Context<T>&, VectorX<T>*)>;
  using AbstractCalc = std::function<void(const Context<T>&, AbstractValue*)>;

  // A leaf port computed by `calc` (vector) or `abstract_calc`.
  OutputPort(const System<T>* system, int index, std::string name,
             PortDataType type, int size, Prerequisites prerequisites,
             VectorCalc calc, AbstractCalc abstract_calc,
             std::unique_ptr<AbstractValue> model);
  // A diagram port forwarding child `child`'s output port `child_port`.
  OutputPort(const System<T>* system, int index, std::string name,
             const OutputPort<T>& source, int child);

  const std::string& get_name() const { return name_; }
  int get_index() const { return index_; }
  PortDataType get_data_type() const { return type_; }
  int size() const { return size_; }
  const System<T>& get_system() const { return *system_; }
  std::string GetFullDescription() const;
  Prerequisites prerequisites() const { return prerequisites_; }
  const AbstractValue* model_value() const { return model_.get(); }
  // The kernel computing this port, if it was declared with one.
  OutputKernel<T> kernel() const { return kernel_; }
  // Its scalar form, if declared with DeclareScalarOutputKernel.
  ScalarKernel<T> scalar_kernel() const { return scalar_kernel_; }
  // For diagram ports: the exported child index and its port (else -1).
  int exported_child() const { return child_; }
  const OutputPort<T>* exported_port() const { return source_; }

  // The (cached) value; recomputed only if a prerequisite changed.
  const VectorX<T>& Eval(const Context<T>& context) const;
  template <typename V>
  const V& Eval(const Context<T>& context) const {
    return EvalAbstract(context).template get_value<V>();
  }
  const AbstractValue& EvalAbstract(const Context<T>& context) const;
  // Computes the value into `value` without the cache.
  void Calc(const Context<T>& context, VectorX<T>* value) const;
  // A new value of this port's type (vector ports: Value<VectorX<T>>).
  std::unique_ptr<AbstractValue> Allocate() const;

 private:
  friend class InputPort<T>;
  friend class LeafSystem<T>;
  friend class internal::EvaluationPlan<T>;
  void CheckContext(const Context<T>& context) const;
  // The leaf's cache entry, recomputed if a prerequisite changed. The
  // inline test covers the common case: nothing changed since the entry
  // was last validated.
  const internal::CacheEntry<T>& EvalLeaf(const Context<T>& context) const {
    const auto& entry = context.cache_.data()[index_];
    if (entry.serial == context.storage_->serial) return entry;
    return Revalidate(context);
  }
  const internal::CacheEntry<T>& Revalidate(const Context<T>& context) const;
  const internal::CacheEntry<T>& Recompute(const Context<T>& context) const;

  const System<T>* system_;
  int index_;
  std::string name_;
  PortDataType type_;
  int size_;
  Prerequisites prerequisites_;
  Prerequisites version_mask_;  // which version counters the cache checks
  VectorCalc calc_;
  AbstractCalc abstract_calc_;
  std::unique_ptr<AbstractValue> model_;
  const OutputPort<T>* source_{nullptr};
  int child_{-1};
  OutputKernel<T> kernel_{nullptr};
  ScalarKernel<T> scalar_kernel_{nullptr};
};

template <typename T>
inline const VectorX<T>& InputPort<T>::Eval(const Context<T>& context) const {
  // A wired vector input of the right context, outside a no-inputs
  // computation, reads the upstream leaf's cache directly.
  if (&context.get_system() == system_) {
    const auto& src = context.input_sources_.data()[index_];
    if (src.upstream && type_ == PortDataType::kVector &&
        context.storage_->computing_without_inputs != &context) {
      return src.port->EvalLeaf(*src.context).vector;
    }
  }
  return EvalSlow(context);
}

}  // namespace tern
