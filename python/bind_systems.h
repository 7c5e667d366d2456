#pragma once
// Ownership transfer from Python objects to C++ owners (DiagramBuilder,
// Simulator), shared by the systems bindings.
#include <memory>

#include "python/bind_common.h"
#include "tern/systems/framework/context.h"
#include "tern/systems/framework/system.h"

namespace tern::python {

// Releases the C++ system from its Python object's holder (the object stays
// usable as a reference) and returns it. Throws std::invalid_argument naming
// `who` and the system if something already owns it.
std::unique_ptr<System<double>> TakeSystem(py::handle system, const char* who);
// The same for a root Context.
std::unique_ptr<Context<double>> TakeContext(py::handle context,
                                             const char* who);

// The Python object of input (or output) port `index` of `system` (a
// Python System object): one object per port, cached in the system's
// __dict__ (where it has one), so a Python leaf's
// `self.get_input_port(0)` costs a dict lookup, not a new wrapper. The port
// object keeps its system alive through its own __dict__, which the
// garbage collector sees. Every binding that returns a port uses these.
// Throws std::out_of_range (RuntimeError) naming the system for a bad index.
py::object InputPortObject(py::handle system, int index);
py::object OutputPortObject(py::handle system, int index);
// The same, for a port given by reference (its system's object is `system`).
py::object PortObject(py::handle system, const InputPort<double>& port);
py::object PortObject(py::handle system, const OutputPort<double>& port);

// Whether `system` is, or is a diagram holding, a LeafSystem written in
// Python (whose every call takes the GIL).
bool HasPythonLeaf(const System<double>& system);

}  // namespace tern::python
