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
void EvaluationPlan<T>::Record(const System<T>& system,
                               const Context<T>& context, VectorX<T>* xdot) {
  Clear();
  ContextStorage<T>* storage = context.storage_;
  std::vector<std::pair<const OutputPort<T>*, const Context<T>*>> trace;
  storage->trace = &trace;
  try {
    system.CalcTimeDerivatives(context, xdot);
  } catch (...) {
    storage->trace = nullptr;
    throw;
  }
  storage->trace = nullptr;

  std::vector<const CacheEntry<T>*> planned;
  const auto is_planned = [&](const CacheEntry<T>* e) {
    return std::find(planned.begin(), planned.end(), e) != planned.end();
  };
  for (const auto& [port, ctx] : trace) {
    if (!(port->version_mask_ & kTimeOrXc)) continue;
    Step step;
    step.port = port;
    step.context = ctx;
    step.entry = &ctx->cache_[port->index_];
    step.system = &ctx->get_system();
    if (port->kernel_ != nullptr && !(port->prerequisites_ & ticket::kInputs)) {
      // Reads no inputs (Record's pass through the calc would have thrown).
      step.kernel = port->kernel_;
      step.inputs_begin = -1;
    } else if (port->kernel_ != nullptr) {
      // Resolve every input to a stable pointer: an upstream output the plan
      // computes earlier (or that stays valid through a step), or a fixed
      // value. Anything else (an abstract input, an upstream output that
      // changes within a step but is not planned) keeps the calc path.
      const int begin = static_cast<int>(input_pointers_.size());
      bool resolved = true;
      std::vector<std::pair<const OutputPort<T>*, const Context<T>*>> needs;
      const System<T>& owner = ctx->get_system();
      for (int i = 0; i < owner.num_input_ports() && resolved; ++i) {
        const InputSource<T>& src = ctx->input_sources_[i];
        if (owner.get_input_port(i).get_data_type() != PortDataType::kVector) {
          resolved = false;
        } else if (src.upstream) {
          const CacheEntry<T>* up = &src.context->cache_[src.port->index_];
          if (!is_planned(up)) {
            if (src.port->version_mask_ & kTimeOrXc) {
              resolved = false;
            } else {
              needs.push_back({src.port, src.context});
            }
          }
          input_pointers_.push_back(up->vector.data());
        } else {
          const FixedInput<T>& fixed = src.context->fixed_inputs_[src.index];
          resolved = fixed.has_value;
          input_pointers_.push_back(fixed.vector.data());
        }
      }
      if (resolved) {
        step.kernel = port->kernel_;
        step.inputs_begin = begin;
        prepare_.insert(prepare_.end(), needs.begin(), needs.end());
      } else {
        input_pointers_.resize(begin);
      }
    }
    planned.push_back(step.entry);
    steps_.push_back(step);
  }
  for (int k = 0; k < static_cast<int>(system.leaves().size()); ++k) {
    const Context<T>& leaf_ctx = system.leaf_context(context, k);
    if (leaf_ctx.xc_size_ == 0) continue;
    leaves_.push_back({system.leaves()[k], &leaf_ctx,
                       leaf_ctx.xc_start_ - context.xc_start_,
                       leaf_ctx.xc_size_});
  }
  for (Step& s : steps_) {
    s.inputs = s.inputs_begin >= 0
                   ? KernelInputs<T>(input_pointers_.data() + s.inputs_begin,
                                     nullptr, nullptr)
                   : KernelInputs<T>(nullptr, s.system, s.context);
  }
  storage_ = storage;
}

template <typename T>
void EvaluationPlan<T>::Prepare() const {
  for (const auto& [port, ctx] : prepare_) port->EvalLeaf(*ctx);
}

template <typename T>
void EvaluationPlan<T>::Eval(VectorX<T>* xdot) const {
  const std::uint64_t serial = storage_->serial;
  for (const Step& s : steps_) {
    if (s.kernel != nullptr) {
      s.kernel(*s.system, *s.context, s.inputs, s.entry->vector.data());
      s.entry->serial = serial;
      s.entry->valid = true;
    } else {
      s.port->Recompute(*s.context);
    }
  }
  for (const ContinuousLeaf& leaf : leaves_) {
    leaf.system->DoCalcTimeDerivatives(*leaf.context,
                                       xdot->segment(leaf.start, leaf.size));
  }
}

template class EvaluationPlan<double>;
template class EvaluationPlan<AutoDiffXd>;

}  // namespace internal
}  // namespace tern
