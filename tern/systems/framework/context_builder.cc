#include "tern/systems/framework/context_builder.h"

#include <functional>
#include <vector>

#include "tern/common/default_scalars.h"
#include "tern/systems/framework/diagram.h"
#include "tern/systems/framework/leaf_system.h"

namespace tern::internal {
namespace {

struct Counters {
  Eigen::Index xc{0};
  int groups{0}, abstract{0}, numeric{0}, abstract_params{0}, leaves{0};
};

}  // namespace

template <typename T>
std::unique_ptr<Context<T>> ContextBuilder<T>::Create(const System<T>& root) {
  auto storage = std::make_unique<ContextStorage<T>>();
  std::vector<T> xc_values;
  Counters counters;

  // Depth-first build of the tree, appending each leaf's declarations to
  // the flat storage in flattened leaf order.
  std::function<std::unique_ptr<Context<T>>(const System<T>&,
                                            const Context<T>*)>
      build = [&](const System<T>& system, const Context<T>* parent) {
        std::unique_ptr<Context<T>> ctx(new Context<T>());
        ctx->system_ = &system;
        ctx->parent_ = parent;
        ctx->storage_ = storage.get();
        ctx->xc_start_ = counters.xc;
        ctx->group_start_ = counters.groups;
        ctx->abstract_start_ = counters.abstract;
        ctx->numeric_param_start_ = counters.numeric;
        ctx->abstract_param_start_ = counters.abstract_params;
        ctx->leaf_start_ = counters.leaves;
        if (const auto* leaf = dynamic_cast<const LeafSystem<T>*>(&system)) {
          for (Eigen::Index i = 0; i < leaf->default_continuous_state().size();
               ++i)
            xc_values.push_back(T(leaf->default_continuous_state()[i]));
          counters.xc += leaf->default_continuous_state().size();
          ctx->nq_ = system.num_positions();
          ctx->nv_ = system.num_velocities();
          ctx->nz_ = system.num_misc_continuous_states();
          for (const auto& g : leaf->default_discrete_state())
            storage->xd.push_back(g.template cast<T>());
          counters.groups +=
              static_cast<int>(leaf->default_discrete_state().size());
          for (const auto& a : leaf->default_abstract_state())
            storage->xa.push_back(a->Clone());
          counters.abstract +=
              static_cast<int>(leaf->default_abstract_state().size());
          for (const auto& p : leaf->default_numeric_parameters())
            storage->numeric_parameters.push_back(p.template cast<T>());
          counters.numeric +=
              static_cast<int>(leaf->default_numeric_parameters().size());
          for (const auto& p : leaf->default_abstract_parameters())
            storage->abstract_parameters.push_back(p->Clone());
          counters.abstract_params +=
              static_cast<int>(leaf->default_abstract_parameters().size());
          ++counters.leaves;
          storage->leaf_contexts.push_back(ctx.get());
          ctx->cache_.resize(system.num_output_ports());
          for (int p = 0; p < system.num_output_ports(); ++p) {
            const auto& port = system.get_output_port(p);
            if (port.get_data_type() == PortDataType::kVector) {
              ctx->cache_[p].vector = VectorX<T>::Zero(port.size());
            } else {
              ctx->cache_[p].abstract = port.model_value()->Clone();
            }
          }
        } else {
          const auto& diagram = static_cast<const Diagram<T>&>(system);
          for (int i = 0; i < diagram.num_subsystems(); ++i)
            ctx->subcontexts_.push_back(
                build(diagram.get_subsystem(i), ctx.get()));
          ctx->output_targets_.resize(system.num_output_ports());
        }
        ctx->xc_size_ = counters.xc - ctx->xc_start_;
        ctx->num_groups_ = counters.groups - ctx->group_start_;
        ctx->num_abstract_ = counters.abstract - ctx->abstract_start_;
        ctx->num_numeric_params_ = counters.numeric - ctx->numeric_param_start_;
        ctx->num_abstract_params_ =
            counters.abstract_params - ctx->abstract_param_start_;
        ctx->num_leaves_ = counters.leaves - ctx->leaf_start_;
        ctx->fixed_inputs_.resize(system.num_input_ports());
        ctx->input_sources_.resize(system.num_input_ports());
        return ctx;
      };
  auto root_ctx = build(root, nullptr);
  storage->xc.resize(static_cast<Eigen::Index>(xc_values.size()));
  for (size_t i = 0; i < xc_values.size(); ++i) storage->xc[i] = xc_values[i];

  // Resolve output targets (diagram ports) and input sources, once.
  std::function<OutputTarget<T>(const Context<T>*, int)> resolve_output =
      [&](const Context<T>* ctx, int port) -> OutputTarget<T> {
    const System<T>& s = *ctx->system_;
    if (dynamic_cast<const LeafSystem<T>*>(&s) != nullptr)
      return {ctx, &s.get_output_port(port)};
    const auto& d = static_cast<const Diagram<T>&>(s);
    const PortLocator loc = d.GetExportedOutput(port);
    return resolve_output(ctx->subcontexts_[loc.child].get(), loc.port);
  };
  std::function<InputSource<T>(const Context<T>*, int)> resolve_input =
      [&](const Context<T>* ctx, int port) -> InputSource<T> {
    const Context<T>* parent = ctx->parent_;
    if (parent == nullptr) return {ctx, port, false, nullptr};
    const auto& d = static_cast<const Diagram<T>&>(*parent->system_);
    const int child = d.GetSubsystemIndex(*ctx->system_);
    const PortLocator up = d.GetUpstream({child, port});
    if (up.child >= 0) {
      const OutputTarget<T> t =
          resolve_output(parent->subcontexts_[up.child].get(), up.port);
      return {t.context, t.port->get_index(), true, t.port};
    }
    const int exported = d.GetExportingInput({child, port});
    if (exported >= 0) return resolve_input(parent, exported);
    return {ctx, port, false, nullptr};
  };
  std::function<void(Context<T>*)> resolve_all = [&](Context<T>* ctx) {
    for (int i = 0; i < ctx->system_->num_input_ports(); ++i)
      ctx->input_sources_[i] = resolve_input(ctx, i);
    for (size_t p = 0; p < ctx->output_targets_.size(); ++p)
      ctx->output_targets_[p] = resolve_output(ctx, static_cast<int>(p));
    for (auto& sub : ctx->subcontexts_) resolve_all(sub.get());
  };
  resolve_all(root_ctx.get());
  root_ctx->owned_storage_ = std::move(storage);
  return root_ctx;
}

template <typename T>
void ContextBuilder<T>::CopyFixedInputs(const Context<T>& source,
                                        Context<T>* dest) {
  for (size_t i = 0; i < source.fixed_inputs_.size(); ++i) {
    const auto& s = source.fixed_inputs_[i];
    auto& d = dest->fixed_inputs_[i];
    d.has_value = s.has_value;
    d.vector = s.vector;
    d.abstract = s.abstract ? s.abstract->Clone() : nullptr;
  }
  for (size_t i = 0; i < source.subcontexts_.size(); ++i)
    CopyFixedInputs(*source.subcontexts_[i], dest->subcontexts_[i].get());
}

template class ContextBuilder<double>;
template class ContextBuilder<AutoDiffXd>;

}  // namespace tern::internal
