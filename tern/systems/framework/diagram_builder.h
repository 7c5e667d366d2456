#pragma once
// DiagramBuilder: collects systems and connections, checks them, and builds
// a Diagram. Errors name the systems and ports at fault: a size or type
// mismatch, an input connected twice, an algebraic loop (the cycle is
// listed), duplicate system names, ports of systems not in this builder.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tern/systems/framework/diagram.h"

namespace tern {

template <typename T>
class DiagramBuilder {
 public:
  DiagramBuilder() = default;
  DiagramBuilder(const DiagramBuilder&) = delete;
  DiagramBuilder& operator=(const DiagramBuilder&) = delete;
  ~DiagramBuilder();

  // Takes ownership; returns the system for wiring.
  template <class S>
  S* AddSystem(std::unique_ptr<S> system) {
    S* raw = system.get();
    AddSystemImpl(std::unique_ptr<System<T>>(std::move(system)));
    return raw;
  }
  template <class S, typename... Args>
  S* AddSystem(Args&&... args) {
    return AddSystem(std::make_unique<S>(std::forward<Args>(args)...));
  }
  template <class S, typename... Args>
  S* AddNamedSystem(const std::string& name, Args&&... args) {
    auto system = std::make_unique<S>(std::forward<Args>(args)...);
    system->set_name(name);
    return AddSystem(std::move(system));
  }

  void Connect(const OutputPort<T>& output, const InputPort<T>& input);
  // Connects the only output of `source` to the only input of `dest`.
  void Connect(const System<T>& source, const System<T>& dest);
  // Makes `input` an input of the diagram; exporting a second port under an
  // existing name fans that diagram input out to both. Returns its index.
  int ExportInput(const InputPort<T>& input, const std::string& name = "");
  int ExportOutput(const OutputPort<T>& output, const std::string& name = "");

  std::vector<System<T>*> GetSystems() const;
  bool IsConnectedOrExported(const InputPort<T>& input) const;

  // Checks everything and builds. The builder is empty afterwards.
  std::unique_ptr<Diagram<T>> Build();

 private:
  void AddSystemImpl(std::unique_ptr<System<T>> system);
  int IndexOf(const System<T>& system, const char* what) const;
  void CheckNotAlreadyWired(const InputPort<T>& input) const;
  void ThrowIfAlgebraicLoop() const;

  std::vector<std::unique_ptr<System<T>>> systems_;
  std::vector<std::pair<PortLocator, PortLocator>> connections_;  // out, in
  std::vector<std::pair<std::string, std::vector<PortLocator>>> input_exports_;
  std::vector<std::pair<std::string, PortLocator>> output_exports_;
};

}  // namespace tern
