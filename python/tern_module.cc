// The extension module `tern._tern`: exception mapping and the areas' bindings.
// Python imports it through the package `tern` (python/tern/__init__.py).
#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <stdexcept>

#include "python/bind_common.h"
#include "tern/multibody/parsing/urdf_parser.h"

namespace tern::python {

py::array_t<double> VectorView(double* data, Eigen::Index n, py::handle base,
                               bool read_only) {
  return MatrixView(data, n, -1, base, read_only);
}

py::array_t<double> MatrixView(double* data, Eigen::Index rows,
                               Eigen::Index cols, py::handle base,
                               bool read_only) {
  // A capsule that owns nothing stands for "no owner": NumPy then neither
  // copies nor frees.
  py::object owner = base ? py::reinterpret_borrow<py::object>(base)
                          : py::object(py::capsule(data, [](void*) {}));
  py::array_t<double> a =
      cols < 0 ? py::array_t<double>({static_cast<py::ssize_t>(rows)},
                                     {static_cast<py::ssize_t>(sizeof(double))},
                                     data, owner)
               : py::array_t<double>(
                     {static_cast<py::ssize_t>(rows),
                      static_cast<py::ssize_t>(cols)},
                     {static_cast<py::ssize_t>(sizeof(double)),
                      static_cast<py::ssize_t>(sizeof(double) * rows)},
                     data, owner);
  if (read_only) {
    py::detail::array_proxy(a.ptr())->flags &=
        ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  }
  return a;
}

void CheckVector(const char* function, const char* argument,
                 const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Index size,
                 const std::string& what) {
  if (x.size() != size) {
    throw std::invalid_argument(
        fmt::format("{}: {} has size {} but needs {} ({})", function, argument,
                    x.size(), size, what));
  }
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) {
      throw std::invalid_argument(
          fmt::format("{}: {}[{}] is {}", function, argument, i, x[i]));
    }
  }
}

void KeepAlive(py::handle nurse, py::handle patient) {
  if (!nurse || !patient || nurse.is_none() || patient.is_none()) return;
  py::object refs = py::getattr(nurse, "_tern_refs", py::none());
  if (refs.is_none()) {
    refs = py::list();
    py::setattr(nurse, "_tern_refs", refs);
  }
  refs.cast<py::list>().append(patient);
}

}  // namespace tern::python

PYBIND11_MODULE(_tern, m) {
  namespace py = pybind11;
  using namespace tern::python;
  m.doc() =
      "Tern: hybrid systems and rigid-body robotics (C++ extension module; "
      "import the package `tern`).";
  // Tern's errors: std::invalid_argument (and its subclasses) becomes
  // ValueError, every other C++ exception RuntimeError, with the same
  // message. pybind11 maps most of them so already; these cover the
  // std::logic_error family it would map to IndexError or ValueError.
  // (Python exceptions raised in callbacks keep their type.)
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const std::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const std::out_of_range& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (const std::length_error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (const std::domain_error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
  BindMultibody(m);
  BindFramework(m);
  BindLeafSystem(m);
  BindPrimitives(m);
  BindAnalysis(m);
  BindDiscretization(m);
  BindPlant(m);
  BindIo(m);
#ifdef TERN_PYTHON_WITH_LCM
  BindLcm(m);
#endif
}
