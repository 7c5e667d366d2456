// The robot plant, actuators, sensors and geometry queries (filled in by
// area as they land on main; see docs/python.md for what is bound).
#include <pybind11/pybind11.h>

#include "python/bind_common.h"

namespace tern::python {

void BindPlant(py::module_& /*m*/) {}

}  // namespace tern::python
