#pragma once
// Shared by the bind_*.cc files of the `tern._tern` extension module: the
// per-area binding functions and the helpers for NumPy views and Python-side
// lifetimes. See docs/python.md for the user-facing rules.
#include <pybind11/pybind11.h>

#include <Eigen/Core>
#include <string>

namespace tern::python {

namespace py = pybind11;

// One per area, each in its own .cc file (called in this order).
void BindMultibody(py::module_& m);
void BindFramework(py::module_& m);
void BindLeafSystem(py::module_& m);
void BindPrimitives(py::module_& m);
void BindAnalysis(py::module_& m);
void BindDiscretization(py::module_& m);
void BindPlant(py::module_& m);
void BindIo(py::module_& m);
void BindLcm(py::module_& m);  // when TERN_WITH_LCM

// A NumPy array viewing n doubles at `data` (writable unless `read_only`),
// with no copy. `base` keeps the memory alive (an object whose lifetime
// bounds the data's); with a null base the view is only valid while the C++
// call that made it runs (callback arguments).
py::array_t<double> VectorView(double* data, Eigen::Index n, py::handle base,
                               bool read_only = false);
// A (rows x cols) column-major view, as VectorView.
py::array_t<double> MatrixView(double* data, Eigen::Index rows,
                               Eigen::Index cols, py::handle base,
                               bool read_only = false);

// Checks an argument of a bound function: throws std::invalid_argument
// (ValueError) naming the function and the argument if `x` does not have
// `size` entries ("needs `what`") or an entry is not finite.
void CheckVector(const char* function, const char* argument,
                 const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Index size,
                 const std::string& what);

// Makes `nurse` hold a Python reference to `patient` in its __dict__ list
// `_tern_refs` (so the cyclic garbage collector sees it, unlike
// py::keep_alive): `patient` lives at least as long as `nurse`.
void KeepAlive(py::handle nurse, py::handle patient);

}  // namespace tern::python
