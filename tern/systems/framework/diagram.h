#pragma once
// Diagram: systems wired together, itself a System. Made by DiagramBuilder.
// When built it is flattened: its leaves, their state layout and where each
// input gets its value are computed once, so evaluation never searches.
#include <memory>
#include <string>
#include <vector>

#include "tern/systems/framework/system.h"

namespace tern {

template <typename T>
class DiagramBuilder;

// A port of a child system: child index within the diagram, port index.
struct PortLocator {
  int child{-1};
  int port{-1};
  bool operator==(const PortLocator&) const = default;
};

template <typename T>
class Diagram final : public System<T> {
 public:
  ~Diagram() override;

  int num_subsystems() const { return static_cast<int>(children_.size()); }
  const System<T>& get_subsystem(int i) const { return *children_.at(i); }
  const System<T>& GetSubsystemByName(const std::string& name) const;
  // Index of a direct child, or -1.
  int GetSubsystemIndex(const System<T>& system) const;

  bool HasDirectFeedthrough(int in, int out) const override;

  // Wiring, for context creation: the upstream of child input (c, i) if it
  // is connected inside this diagram, else {-1, -1}.
  PortLocator GetUpstream(PortLocator input) const;
  // The diagram input port that child input (c, i) is exported as, or -1.
  int GetExportingInput(PortLocator input) const;
  // The child output exported as this diagram's output port `out`.
  PortLocator GetExportedOutput(int out) const {
    return output_exports_.at(out);
  }

 private:
  friend class DiagramBuilder<T>;
  Diagram() = default;
  void Initialize(
      std::vector<std::unique_ptr<System<T>>> children,
      std::vector<std::pair<PortLocator, PortLocator>> connections,
      std::vector<std::pair<std::string, std::vector<PortLocator>>>
          input_exports,
      std::vector<std::pair<std::string, PortLocator>> output_exports);

  std::vector<std::unique_ptr<System<T>>> children_;
  // Per child, per input port: upstream locator (child, output) or {-1,-1}.
  std::vector<std::vector<PortLocator>> upstream_;
  // Per child, per input port: exporting diagram input or -1.
  std::vector<std::vector<int>> exporting_input_;
  std::vector<PortLocator> output_exports_;
  // feedthrough_[in][out]
  std::vector<std::vector<bool>> feedthrough_;
};

}  // namespace tern
