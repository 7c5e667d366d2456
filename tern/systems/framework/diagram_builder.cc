#include "tern/systems/framework/diagram_builder.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <stdexcept>
#include <typeinfo>

#include "tern/common/default_scalars.h"

namespace tern {

namespace {
// "Gain" from "tern::Gain<double>".
std::string ShortTypeName(const std::type_info& info) {
  std::string name = NiceTypeName(info);
  const auto lt = name.find('<');
  if (lt != std::string::npos) name = name.substr(0, lt);
  const auto colon = name.rfind("::");
  if (colon != std::string::npos) name = name.substr(colon + 2);
  return name;
}
}  // namespace

template <typename T>
DiagramBuilder<T>::~DiagramBuilder() = default;

template <typename T>
void DiagramBuilder<T>::AddSystemImpl(std::unique_ptr<System<T>> system) {
  if (!system)
    throw std::invalid_argument("DiagramBuilder::AddSystem: null system");
  if (system->get_parent() != nullptr) {
    throw std::invalid_argument(fmt::format(
        "DiagramBuilder::AddSystem: system '{}' already belongs to a diagram",
        system->GetPathName()));
  }
  if (system->get_name().empty()) {
    system->set_name(
        fmt::format("{}_{}", ShortTypeName(typeid(*system)), systems_.size()));
  }
  systems_.push_back(std::move(system));
}

template <typename T>
int DiagramBuilder<T>::IndexOf(const System<T>& system,
                               const char* what) const {
  for (size_t i = 0; i < systems_.size(); ++i)
    if (systems_[i].get() == &system) return static_cast<int>(i);
  throw std::invalid_argument(fmt::format(
      "DiagramBuilder: {}: system '{}' was not added to this builder", what,
      system.GetPathName()));
}

template <typename T>
void DiagramBuilder<T>::CheckNotAlreadyWired(const InputPort<T>& input) const {
  const PortLocator loc{IndexOf(input.get_system(), "input"),
                        input.get_index()};
  for (const auto& [out, in] : connections_) {
    if (in == loc) {
      throw std::invalid_argument(fmt::format(
          "DiagramBuilder: {} is already connected to {}",
          input.GetFullDescription(),
          systems_[out.child]->get_output_port(out.port).GetFullDescription()));
    }
  }
  for (const auto& [name, locs] : input_exports_) {
    for (const auto& l : locs) {
      if (l == loc) {
        throw std::invalid_argument(fmt::format(
            "DiagramBuilder: {} is already exported as diagram input '{}'",
            input.GetFullDescription(), name));
      }
    }
  }
}

template <typename T>
void DiagramBuilder<T>::Connect(const OutputPort<T>& output,
                                const InputPort<T>& input) {
  const int src = IndexOf(output.get_system(), "Connect (output)");
  const int dst = IndexOf(input.get_system(), "Connect (input)");
  if (output.get_data_type() != input.get_data_type()) {
    throw std::invalid_argument(fmt::format(
        "DiagramBuilder::Connect: {} is {} but {} is {}",
        output.GetFullDescription(),
        output.get_data_type() == PortDataType::kVector ? "a vector"
                                                        : "abstract",
        input.GetFullDescription(),
        input.get_data_type() == PortDataType::kVector ? "a vector"
                                                       : "abstract"));
  }
  if (output.get_data_type() == PortDataType::kVector &&
      output.size() != input.size()) {
    throw std::invalid_argument(fmt::format(
        "DiagramBuilder::Connect: size mismatch: {} has size {} but {} has "
        "size {}",
        output.GetFullDescription(), output.size(), input.GetFullDescription(),
        input.size()));
  }
  if (output.get_data_type() == PortDataType::kAbstract &&
      output.model_value()->type_info() != input.model_value()->type_info()) {
    throw std::invalid_argument(fmt::format(
        "DiagramBuilder::Connect: type mismatch: {} carries {} but {} takes {}",
        output.GetFullDescription(), output.model_value()->type_name(),
        input.GetFullDescription(), input.model_value()->type_name()));
  }
  CheckNotAlreadyWired(input);
  connections_.push_back({{src, output.get_index()}, {dst, input.get_index()}});
}

template <typename T>
void DiagramBuilder<T>::Connect(const System<T>& source,
                                const System<T>& dest) {
  Connect(source.get_output_port(), dest.get_input_port());
}

template <typename T>
int DiagramBuilder<T>::ExportInput(const InputPort<T>& input,
                                   const std::string& name) {
  const int child = IndexOf(input.get_system(), "ExportInput");
  CheckNotAlreadyWired(input);
  const std::string port_name =
      name.empty() ? input.get_system().get_name() + "_" + input.get_name()
                   : name;
  const PortLocator loc{child, input.get_index()};
  for (int j = 0; j < static_cast<int>(input_exports_.size()); ++j) {
    auto& [existing, locs] = input_exports_[j];
    if (existing != port_name) continue;
    const auto& first = systems_[locs[0].child]->get_input_port(locs[0].port);
    if (first.get_data_type() != input.get_data_type() ||
        first.size() != input.size()) {
      throw std::invalid_argument(fmt::format(
          "DiagramBuilder::ExportInput: diagram input '{}' already exports {} "
          "(size {}), which does not match {} (size {})",
          port_name, first.GetFullDescription(), first.size(),
          input.GetFullDescription(), input.size()));
    }
    locs.push_back(loc);
    return j;
  }
  input_exports_.push_back({port_name, {loc}});
  return static_cast<int>(input_exports_.size()) - 1;
}

template <typename T>
int DiagramBuilder<T>::ExportOutput(const OutputPort<T>& output,
                                    const std::string& name) {
  const int child = IndexOf(output.get_system(), "ExportOutput");
  const std::string port_name =
      name.empty() ? output.get_system().get_name() + "_" + output.get_name()
                   : name;
  for (const auto& [existing, loc] : output_exports_) {
    if (existing == port_name) {
      throw std::invalid_argument(fmt::format(
          "DiagramBuilder::ExportOutput: the diagram already has an output "
          "named '{}'",
          port_name));
    }
  }
  output_exports_.push_back({port_name, {child, output.get_index()}});
  return static_cast<int>(output_exports_.size()) - 1;
}

template <typename T>
std::vector<System<T>*> DiagramBuilder<T>::GetSystems() const {
  std::vector<System<T>*> out;
  for (const auto& s : systems_) out.push_back(s.get());
  return out;
}

template <typename T>
bool DiagramBuilder<T>::IsConnectedOrExported(const InputPort<T>& input) const {
  const PortLocator loc{IndexOf(input.get_system(), "IsConnectedOrExported"),
                        input.get_index()};
  for (const auto& [out, in] : connections_)
    if (in == loc) return true;
  for (const auto& [name, locs] : input_exports_)
    for (const auto& l : locs)
      if (l == loc) return true;
  return false;
}

template <typename T>
void DiagramBuilder<T>::ThrowIfAlgebraicLoop() const {
  // Nodes are child output ports; an edge (c, o) -> (c2, o2) exists when
  // (c, o) feeds input (c2, i) and c2 has feedthrough from i to o2.
  const int n = static_cast<int>(systems_.size());
  std::vector<std::vector<std::vector<std::pair<int, PortLocator>>>> edges(n);
  for (int c = 0; c < n; ++c) edges[c].resize(systems_[c]->num_output_ports());
  for (const auto& [out, in] : connections_) {
    const System<T>& s = *systems_[in.child];
    for (int o = 0; o < s.num_output_ports(); ++o)
      if (s.HasDirectFeedthrough(in.port, o))
        edges[out.child][out.port].push_back({in.port, {in.child, o}});
  }
  // Iterative DFS with colors; on a back edge, report the cycle.
  std::vector<std::vector<int>> color(n);
  for (int c = 0; c < n; ++c)
    color[c].assign(systems_[c]->num_output_ports(), 0);
  struct Frame {
    PortLocator node;
    size_t next_edge;
    int via_input;  // input port of node's system through which we came
  };
  for (int c0 = 0; c0 < n; ++c0) {
    for (int o0 = 0; o0 < systems_[c0]->num_output_ports(); ++o0) {
      if (color[c0][o0] != 0) continue;
      std::vector<Frame> stack{{{c0, o0}, 0, -1}};
      color[c0][o0] = 1;
      while (!stack.empty()) {
        Frame& f = stack.back();
        const auto& out_edges = edges[f.node.child][f.node.port];
        if (f.next_edge == out_edges.size()) {
          color[f.node.child][f.node.port] = 2;
          stack.pop_back();
          continue;
        }
        const auto [via, next] = out_edges[f.next_edge++];
        if (color[next.child][next.port] == 1) {
          // Cycle: from `next` along the stack back to `next`.
          size_t start = 0;
          while (!(stack[start].node == next)) ++start;
          std::string cycle;
          auto out_name = [&](PortLocator p) {
            return systems_[p.child]->get_name() + "." +
                   systems_[p.child]->get_output_port(p.port).get_name();
          };
          auto in_name = [&](int child, int port) {
            return systems_[child]->get_name() + "." +
                   systems_[child]->get_input_port(port).get_name();
          };
          for (size_t k = start; k < stack.size(); ++k) {
            cycle += out_name(stack[k].node) + " -> ";
            const int in_port =
                (k + 1 < stack.size()) ? stack[k + 1].via_input : via;
            const int in_child =
                (k + 1 < stack.size()) ? stack[k + 1].node.child : next.child;
            cycle += in_name(in_child, in_port) + " -> ";
          }
          cycle += out_name(next);
          throw std::invalid_argument(fmt::format(
              "DiagramBuilder::Build: algebraic loop (a cycle through direct "
              "feedthrough): {}. Break it with a state (e.g. a ZeroOrderHold "
              "or "
              "an Integrator) or declare the outputs' prerequisites without "
              "ticket::kInputs if they do not depend on inputs",
              cycle));
        }
        if (color[next.child][next.port] == 0) {
          color[next.child][next.port] = 1;
          stack.push_back({next, 0, via});
        }
      }
    }
  }
}

template <typename T>
std::unique_ptr<Diagram<T>> DiagramBuilder<T>::Build() {
  std::map<std::string, int> names;
  for (const auto& s : systems_) {
    if (++names[s->get_name()] == 2) {
      throw std::invalid_argument(fmt::format(
          "DiagramBuilder::Build: two systems are named '{}'; names must be "
          "unique within a diagram",
          s->get_name()));
    }
  }
  ThrowIfAlgebraicLoop();
  std::unique_ptr<Diagram<T>> diagram(new Diagram<T>());
  diagram->set_name("diagram");
  diagram->Initialize(std::move(systems_), std::move(connections_),
                      std::move(input_exports_), std::move(output_exports_));
  systems_.clear();
  connections_.clear();
  input_exports_.clear();
  output_exports_.clear();
  return diagram;
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(DiagramBuilder)

}  // namespace tern
