#include "tern/systems/framework/diagram.h"

#include <fmt/format.h>

#include <stdexcept>

#include "tern/common/default_scalars.h"
#include "tern/systems/framework/leaf_system.h"

namespace tern {

template <typename T>
Diagram<T>::~Diagram() = default;

template <typename T>
void Diagram<T>::Initialize(
    std::vector<std::unique_ptr<System<T>>> children,
    std::vector<std::pair<PortLocator, PortLocator>> connections,
    std::vector<std::pair<std::string, std::vector<PortLocator>>> input_exports,
    std::vector<std::pair<std::string, PortLocator>> output_exports) {
  children_ = std::move(children);
  const int n = num_subsystems();
  upstream_.resize(n);
  exporting_input_.resize(n);
  for (int c = 0; c < n; ++c) {
    System<T>& child = *children_[c];
    child.parent_ = this;
    child.index_in_parent_ = c;
    upstream_[c].assign(child.num_input_ports(), PortLocator{});
    exporting_input_[c].assign(child.num_input_ports(), -1);
    for (const LeafSystem<T>* leaf : child.leaves_)
      this->leaves_.push_back(leaf);
    this->nq_ += child.nq_;
    this->nv_ += child.nv_;
    this->nz_ += child.nz_;
    this->num_groups_ += child.num_groups_;
    this->num_abstract_ += child.num_abstract_;
  }
  for (const auto& [out, in] : connections) upstream_[in.child][in.port] = out;
  for (int j = 0; j < static_cast<int>(input_exports.size()); ++j) {
    const auto& [name, locs] = input_exports[j];
    const InputPort<T>& first =
        children_[locs[0].child]->get_input_port(locs[0].port);
    this->AddInputPort(std::make_unique<InputPort<T>>(
        this, j, name, first.get_data_type(), first.size(),
        first.get_random_type(),
        first.model_value() ? first.model_value()->Clone() : nullptr));
    for (const auto& loc : locs) exporting_input_[loc.child][loc.port] = j;
  }
  for (int j = 0; j < static_cast<int>(output_exports.size()); ++j) {
    const auto& [name, loc] = output_exports[j];
    output_exports_.push_back(loc);
    this->AddOutputPort(std::make_unique<OutputPort<T>>(
        this, j, name, children_[loc.child]->get_output_port(loc.port),
        loc.child));
  }
  // Feedthrough from each diagram input to each diagram output: is the
  // exported output reachable from the exported inputs through children's
  // feedthrough and the internal connections?
  std::vector<std::vector<std::vector<PortLocator>>> downstream(n);
  for (int c = 0; c < n; ++c)
    downstream[c].resize(children_[c]->num_output_ports());
  for (const auto& [out, in] : connections)
    downstream[out.child][out.port].push_back(in);
  feedthrough_.assign(this->num_input_ports(),
                      std::vector<bool>(this->num_output_ports(), false));
  for (int j = 0; j < this->num_input_ports(); ++j) {
    std::vector<std::vector<bool>> seen(n);
    for (int c = 0; c < n; ++c)
      seen[c].assign(children_[c]->num_output_ports(), false);
    std::vector<PortLocator> inputs = input_exports[j].second;
    while (!inputs.empty()) {
      const PortLocator in = inputs.back();
      inputs.pop_back();
      const System<T>& child = *children_[in.child];
      for (int o = 0; o < child.num_output_ports(); ++o) {
        if (seen[in.child][o] || !child.HasDirectFeedthrough(in.port, o))
          continue;
        seen[in.child][o] = true;
        for (const auto& next : downstream[in.child][o]) inputs.push_back(next);
      }
    }
    for (int o = 0; o < this->num_output_ports(); ++o)
      feedthrough_[j][o] =
          seen[output_exports_[o].child][output_exports_[o].port];
  }
}

template <typename T>
bool Diagram<T>::HasDirectFeedthrough(int in, int out) const {
  this->get_input_port(in);
  this->get_output_port(out);
  return feedthrough_[in][out];
}

template <typename T>
const System<T>& Diagram<T>::GetSubsystemByName(const std::string& name) const {
  for (const auto& c : children_)
    if (c->get_name() == name) return *c;
  throw std::invalid_argument(fmt::format(
      "Diagram '{}' has no subsystem named '{}'", this->GetPathName(), name));
}

template <typename T>
int Diagram<T>::GetSubsystemIndex(const System<T>& system) const {
  if (system.get_parent() == this) return system.index_in_parent_;
  return -1;
}

template <typename T>
PortLocator Diagram<T>::GetUpstream(PortLocator input) const {
  return upstream_.at(input.child).at(input.port);
}

template <typename T>
int Diagram<T>::GetExportingInput(PortLocator input) const {
  return exporting_input_.at(input.child).at(input.port);
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(Diagram)

}  // namespace tern
