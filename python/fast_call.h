#pragma once
// Fast paths for the few bindings called per step of a simulation driven from
// Python (port lookup and evaluation and the Context's time and state inside
// a Python LeafSystem, Simulator.advance_to, forward_dynamics). pybind11's
// dispatcher costs about 150-200 ns per call on the machine bench/python
// runs on, more than the work of these calls:
// it fills argument vectors, looks types up by hashing their names and keeps
// a thread-local stack of temporaries. A fast path is a CPython METH_FASTCALL
// function installed over the pybind11 binding of the same name: it handles
// the common case (positional arguments of the exact expected types) and
// hands every other call to the pybind11 overloads it replaced, so
// conversions, keyword arguments, docstrings and error messages stay
// pybind11's (bench/python, docs/python.md "Speed").
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <Eigen/Core>
#include <stdexcept>
#include <string>
#include <typeinfo>

namespace tern::python {

namespace py = pybind11;

// A fast path's body: `self` (null for a module function) and the positional
// arguments. Returns a new reference; or nullptr with a Python error set; or
// kFallback to hand the call to the pybind11 binding. May throw: the
// exception is translated as pybind11 would.
using FastFn = PyObject* (*)(PyObject* self, PyObject* const* args,
                             Py_ssize_t nargs);

namespace internal {
inline char fallback_tag;
// Calls `f` and translates a C++ exception into a Python error.
PyObject* Guard(FastFn f, PyObject* self, PyObject* const* args,
                Py_ssize_t nargs);
// Calls the pybind11 binding, with `self` first when not null.
PyObject* CallFallback(PyObject* fallback, PyObject* self,
                       PyObject* const* args, Py_ssize_t nargsf,
                       PyObject* kwnames);
const py::detail::type_info* TypeInfo(const std::type_info& type);
}  // namespace internal

// Returned by a fast path: "not mine, ask pybind11".
inline PyObject* const kFallback =
    reinterpret_cast<PyObject*>(&internal::fallback_tag);

// Installs F over the binding `name` of class `cls` (a method) or module `m`
// (a function), which must be bound already and is kept as the fallback.
template <FastFn F>
class FastPath {
 public:
  static void InstallMethod(py::handle cls, const char* name) {
    Install(cls, name, true);
    py::object descr = py::reinterpret_steal<py::object>(
        PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), &def_));
    if (!descr) throw py::error_already_set();
    py::setattr(cls, name, descr);
  }
  static void InstallFunction(py::module_& m, const char* name) {
    Install(m, name, false);
    py::object f = py::reinterpret_steal<py::object>(
        PyCFunction_NewEx(&def_, nullptr, m.attr("__name__").ptr()));
    if (!f) throw py::error_already_set();
    py::setattr(m, name, f);
  }

 private:
  static void Install(py::handle owner, const char* name, bool method) {
    // Once per F: a second install would make F its own fallback.
    if (fallback_ != nullptr) {
      throw std::logic_error(std::string("FastPath: ") + name +
                             " installed twice");
    }
    // The binding lives as long as the module (never released: the module
    // of an extension is not unloaded).
    fallback_ = py::object(owner.attr(name)).release().ptr();
    is_method_ = method;
    doc_ = py::str(py::getattr(py::handle(fallback_), "__doc__", py::str("")));
    name_ = name;
    def_.ml_name = name_.c_str();
    def_.ml_meth =
        reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&Call));
    def_.ml_flags = METH_FASTCALL | METH_KEYWORDS;
    def_.ml_doc = doc_.c_str();
  }

  static PyObject* Call(PyObject* self, PyObject* const* args,
                        Py_ssize_t nargsf, PyObject* kwnames) {
    if (kwnames == nullptr || PyTuple_GET_SIZE(kwnames) == 0) {
      PyObject* r = internal::Guard(F, is_method_ ? self : nullptr, args,
                                    PyVectorcall_NARGS(nargsf));
      if (r != kFallback) return r;
    }
    return internal::CallFallback(fallback_, is_method_ ? self : nullptr, args,
                                  nargsf, kwnames);
  }

  static inline PyObject* fallback_ = nullptr;
  static inline bool is_method_ = false;
  static inline std::string doc_, name_;
  static inline PyMethodDef def_{};
};

// The C++ object of a pybind11 instance of T (or of a Python subclass of
// T's class), or null where pybind11's own conversion is needed (another
// type, an object whose __init__ did not run, multiple inheritance). Bound
// classes have single inheritance, so the pointer needs no adjustment (the
// rule pybind11's own loader follows for such classes).
template <class T>
T* Unwrap(PyObject* o) {
  static const py::detail::type_info* const ti = internal::TypeInfo(typeid(T));
  if (ti == nullptr || !ti->simple_type || !PyObject_TypeCheck(o, ti->type)) {
    return nullptr;
  }
  auto* inst = reinterpret_cast<py::detail::instance*>(o);
  if (!inst->simple_layout) return nullptr;
  return static_cast<T*>(inst->simple_value_holder[0]);
}

// A new float64 NumPy array (n,) holding a copy of n doubles at `data`
// (one allocation; nullptr with a Python error set on failure).
PyObject* NewVector(const double* data, Eigen::Index n);

// A NumPy array (n,) viewing n doubles at `data` (n > 0), kept alive by
// `base` (a new reference is taken), read-only unless `writable`: what
// VectorView makes, without pybind11's shape and stride vectors.
PyObject* NewVectorView(double* data, Eigen::Index n, PyObject* base,
                        bool writable);

// As NewVector, but reuses the array it returned last when nothing else
// references it any more (only this function's cache does: no other
// reference, no weak reference, no view of it, its shape, type and flags
// unchanged), which no Python code can observe: the array was
// unreachable. Saves the allocation and deallocation of a Python leaf's
// `self.get_input_port(0).eval(context)[0]`. GIL held.
PyObject* ReusedVector(const double* data, Eigen::Index n);

// A float64 NumPy array argument as it is, or null when it is something
// else (for pybind11's conversions).
inline py::detail::PyArray_Proxy* AsFloat64Array(PyObject* o) {
  const auto& api = py::detail::npy_api::get();
  if (!api.PyArray_Check_(o)) return nullptr;
  auto* a = py::detail::array_proxy(o);
  auto* d = py::detail::array_descriptor_proxy(a->descr);
  if (d->type_num != py::detail::npy_api::NPY_DOUBLE_ || d->byteorder == '>' ||
      (a->flags & py::detail::npy_api::NPY_ARRAY_ALIGNED_) == 0) {
    return nullptr;
  }
  return a;
}

}  // namespace tern::python
