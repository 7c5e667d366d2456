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

// Whether `system` is, or is a diagram holding, a LeafSystem written in
// Python (whose every call takes the GIL).
bool HasPythonLeaf(const System<double>& system);

}  // namespace tern::python
