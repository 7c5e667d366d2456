#include "tern/systems/framework/evaluation_plan.h"

#include <algorithm>

#include "tern/common/default_scalars.h"
#include "tern/systems/framework/leaf_system.h"

namespace tern {
namespace internal {

namespace {
// Version bits that change between the evaluations a plan serves.
constexpr Prerequisites kTimeOrXc = ticket::kTime | ticket::kXc;
}  // namespace

template <typename T>
void EvaluationPlan<T>::Clear() {
  storage_ = nullptr;
  steps_.clear();
  input_pointers_.clear();
  prepare_.clear();
  leaves_.clear();
}

template <typename T>
int EvaluationPlan<T>::num_kernel_steps() const {
  return static_cast<int>(
      std::count_if(steps_.begin(), steps_.end(),
                    [](const Step& s) { return s.kernel != nullptr; }));
}

template <typename T>
int EvaluationPlan<T>::ResolveInputs(
    const Context<T>& ctx, const std::vector<const CacheEntry<T>*>& planned,
    Needs* needs) {
  // Resolve every input to a stable pointer: an upstream output the plan
  // computes earlier (or that stays valid through a step), or a fixed
  // value. Anything else (an abstract input, an upstream output that
  // changes within a step but is not planned) keeps the calc path.
  const int begin = static_cast<int>(input_pointers_.size());
  const System<T>& owner = ctx.get_system();
  Needs found;
  for (int i = 0; i < owner.num_input_ports(); ++i) {
    const InputSource<T>& src = ctx.input_sources_[i];
    bool resolved = true;
    if (owner.get_input_port(i).get_data_type() != PortDataType::kVector) {
      resolved = false;
    } else if (src.upstream) {
      const CacheEntry<T>* up = &src.context->cache_[src.port->index_];
      if (std::find(planned.begin(), planned.end(), up) == planned.end()) {
        if (src.port->version_mask_ & kTimeOrXc) {
          resolved = false;
        } else {
          found.push_back({src.port, src.context});
        }
      }
      input_pointers_.push_back(up->vector.data());
    } else {
      const FixedInput<T>& fixed = src.context->fixed_inputs_[src.index];
      resolved = fixed.has_value;
      input_pointers_.push_back(fixed.vector.data());
    }
    if (!resolved) {
      input_pointers_.resize(begin);
      return -1;
    }
  }
  needs->insert(needs->end(), found.begin(), found.end());
  return begin;
}

template <typename T>
void EvaluationPlan<T>::SetUpScalarCall(ScalarKernel<T> fn,
                                        const System<T>& system,
                                        int inputs_begin,
                                        ScalarCall* call) const {
  // Where a scalar kernel reads an input its system does not have.
  static const T kZero(0);
  const int n = inputs_begin >= 0 ? system.num_input_ports() : 0;
  call->fn = fn;
  call->u0 = n > 0 ? input_pointers_[inputs_begin] : &kZero;
  call->u1 = n > 1 ? input_pointers_[inputs_begin + 1] : &kZero;
  // The register holding the previous step's output is only set by a
  // scalar step.
  if (!steps_.empty() && steps_.back().scalar.fn != nullptr) {
    const T* previous = steps_.back().entry->vector.data();
    call->u0_last = call->u0 == previous;
    call->u1_last = call->u1 == previous;
  }
}

template <typename T>
void EvaluationPlan<T>::Record(const System<T>& system,
                               const Context<T>& context, VectorX<T>* xdot) {
  Clear();
  ContextStorage<T>* storage = context.storage_;
  Needs trace;
  storage->trace = &trace;
  try {
    system.CalcTimeDerivatives(context, xdot);
  } catch (...) {
    storage->trace = nullptr;
    throw;
  }
  storage->trace = nullptr;

  std::vector<const CacheEntry<T>*> planned;
  for (const auto& [port, ctx] : trace) {
    if (!(port->version_mask_ & kTimeOrXc)) continue;
    Step step;
    step.port = port;
    step.context = ctx;
    step.entry = &ctx->cache_[port->index_];
    step.system = &ctx->get_system();
    step.y = step.entry->vector.data();
    if (port->kernel_ != nullptr && !(port->prerequisites_ & ticket::kInputs)) {
      // Reads no inputs (Record's pass through the calc would have thrown).
      step.kernel = port->kernel_;
    } else if (port->kernel_ != nullptr) {
      step.inputs_begin = ResolveInputs(*ctx, planned, &prepare_);
      if (step.inputs_begin >= 0) step.kernel = port->kernel_;
    }
    if constexpr (std::is_same_v<T, double>) {
      if (step.kernel != nullptr && port->scalar_kernel_ != nullptr) {
        SetUpScalarCall(port->scalar_kernel_, *step.system, step.inputs_begin,
                        &step.scalar);
      }
    }
    planned.push_back(step.entry);
    steps_.push_back(step);
  }
  for (int k = 0; k < static_cast<int>(system.leaves().size()); ++k) {
    const Context<T>& leaf_ctx = system.leaf_context(context, k);
    if (leaf_ctx.xc_size_ == 0) continue;
    ContinuousLeaf leaf;
    leaf.system = system.leaves()[k];
    leaf.context = &leaf_ctx;
    leaf.start = leaf_ctx.xc_start_ - context.xc_start_;
    leaf.size = leaf_ctx.xc_size_;
    if (leaf.system->time_derivatives_kernel() != nullptr) {
      leaf.inputs_begin = ResolveInputs(leaf_ctx, planned, &prepare_);
      if (leaf.inputs_begin >= 0) {
        leaf.kernel = leaf.system->time_derivatives_kernel();
        const ScalarKernel<T> scalar =
            leaf.system->scalar_time_derivatives_kernel();
        if (std::is_same_v<T, double> && scalar != nullptr && leaf.size == 1) {
          SetUpScalarCall(scalar, *leaf.system, leaf.inputs_begin,
                          &leaf.scalar);
        }
      }
    }
    leaves_.push_back(leaf);
  }
  // input_pointers_ is complete: point the kernels into it.
  const auto view = [this](int begin) {
    return KernelInputs<T>(begin >= 0 ? input_pointers_.data() + begin
                                      : nullptr);
  };
  for (Step& s : steps_) s.inputs = view(s.inputs_begin);
  // Chains: a scalar step followed by scalar steps that each read the
  // previous output as u0 (and not as u1).
  for (int i = static_cast<int>(steps_.size()) - 1; i >= 0; --i) {
    Step& s = steps_[i];
    if (s.scalar.fn == nullptr) continue;
    s.chain = 1;
    if (i + 1 < static_cast<int>(steps_.size())) {
      const Step& next = steps_[i + 1];
      if (next.scalar.fn != nullptr && next.scalar.u0_last &&
          !next.scalar.u1_last) {
        s.chain = 1 + next.chain;
      }
    }
  }
  for (ContinuousLeaf& leaf : leaves_) leaf.inputs = view(leaf.inputs_begin);
  storage_ = storage;
}

template <typename T>
void EvaluationPlan<T>::Prepare() const {
  for (const auto& [port, ctx] : prepare_) port->EvalLeaf(*ctx);
}

template <typename T>
void EvaluationPlan<T>::Eval(VectorX<T>* xdot) const {
  const std::uint64_t serial = storage_->serial;
  T last{};  // the output of the previous step, if it was a scalar one
  const Step* s = steps_.data();
  const Step* const end = s + steps_.size();
  while (s != end) {
    if (s->scalar.fn != nullptr) {
      last = Call(s->scalar, *s->system, *s->context, last);
      *s->y = last;
      s->entry->serial = serial;
      // The rest of its chain: each step reads the previous output as u0
      // (the tightest loop, as in a chain of scalar blocks).
      const Step* const chain_end = s + s->chain;
      for (++s; s != chain_end; ++s) {
        last = s->scalar.fn(*s->system, *s->context, last, *s->scalar.u1);
        *s->y = last;
        s->entry->serial = serial;
      }
    } else {
      if (s->kernel != nullptr) {
        s->kernel(*s->system, *s->context, s->inputs, s->y);
        s->entry->serial = serial;
      } else {
        s->port->Recompute(*s->context);
      }
      ++s;
    }
  }
  for (const ContinuousLeaf& leaf : leaves_) {
    if (leaf.scalar.fn != nullptr) {
      (*xdot)[leaf.start] =
          Call(leaf.scalar, *leaf.system, *leaf.context, last);
    } else if (leaf.kernel != nullptr) {
      leaf.kernel(*leaf.system, *leaf.context, leaf.inputs,
                  xdot->data() + leaf.start);
    } else {
      leaf.system->DoCalcTimeDerivatives(*leaf.context,
                                         xdot->segment(leaf.start, leaf.size));
    }
  }
}

template class EvaluationPlan<double>;
template class EvaluationPlan<AutoDiffXd>;

}  // namespace internal
}  // namespace tern
