#include "python/fast_call.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace tern::python {
namespace internal {

PyObject* Guard(FastFn f, PyObject* self, PyObject* const* args,
                Py_ssize_t nargs) {
  try {
    return f(self, args, nargs);
  } catch (...) {
    // As pybind11's dispatcher: the module's translators, then the global
    // ones (error_already_set restores the Python error).
    auto& local = py::detail::get_local_internals();
    if (py::detail::apply_exception_translators(
            local.registered_exception_translators)) {
      return nullptr;
    }
    auto& global = py::detail::get_internals();
    if (py::detail::apply_exception_translators(
            global.registered_exception_translators)) {
      return nullptr;
    }
    PyErr_SetString(PyExc_SystemError,
                    "Exception escaped from default exception translator!");
    return nullptr;
  }
}

PyObject* CallFallback(PyObject* fallback, PyObject* self,
                       PyObject* const* args, Py_ssize_t nargsf,
                       PyObject* kwnames) {
  if (self == nullptr) {
    return PyObject_Vectorcall(fallback, args, nargsf, kwnames);
  }
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  const Py_ssize_t nkw = kwnames == nullptr ? 0 : PyTuple_GET_SIZE(kwnames);
  std::vector<PyObject*> all(static_cast<size_t>(1 + nargs + nkw));
  all[0] = self;
  std::copy_n(args, nargs + nkw, all.begin() + 1);
  return PyObject_Vectorcall(fallback, all.data(),
                             static_cast<size_t>(nargs + 1), kwnames);
}

const py::detail::type_info* TypeInfo(const std::type_info& type) {
  return py::detail::get_type_info(type);
}

}  // namespace internal

PyObject* NewVector(const double* data, Eigen::Index n) {
  const auto& api = py::detail::npy_api::get();
  // NewFromDescr steals the reference DescrFromType returns.
  PyObject* descr =
      api.PyArray_DescrFromType_(py::detail::npy_api::NPY_DOUBLE_);
  if (descr == nullptr) return nullptr;
  Py_intptr_t dims[1] = {static_cast<Py_intptr_t>(n)};
  PyObject* a = api.PyArray_NewFromDescr_(api.PyArray_Type_, descr, 1, dims,
                                          nullptr, nullptr, 0, nullptr);
  if (a == nullptr) return nullptr;
  if (n > 0) {
    std::memcpy(py::detail::array_proxy(a)->data, data,
                sizeof(double) * static_cast<size_t>(n));
  }
  return a;
}

PyObject* NewVectorView(double* data, Eigen::Index n, PyObject* base,
                        bool writable) {
  const auto& api = py::detail::npy_api::get();
  PyObject* descr =
      api.PyArray_DescrFromType_(py::detail::npy_api::NPY_DOUBLE_);
  if (descr == nullptr) return nullptr;
  Py_intptr_t dims[1] = {static_cast<Py_intptr_t>(n)};
  int flags = py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_ |
              py::detail::npy_api::NPY_ARRAY_F_CONTIGUOUS_ |
              py::detail::npy_api::NPY_ARRAY_ALIGNED_;
  if (writable) flags |= py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  PyObject* a = api.PyArray_NewFromDescr_(api.PyArray_Type_, descr, 1, dims,
                                          nullptr, data, flags, nullptr);
  if (a == nullptr) return nullptr;
  // SetBaseObject steals the reference it is given.
  if (api.PyArray_SetBaseObject_(a, Py_NewRef(base)) != 0) {
    Py_DECREF(a);
    return nullptr;
  }
  return a;
}

PyObject* ReusedVector(const double* data, Eigen::Index n) {
  static PyObject* last = nullptr;  // owned; never released
  if (last != nullptr && Py_REFCNT(last) == 1) {
    const auto& api = py::detail::npy_api::get();
    auto* a = py::detail::array_proxy(last);
    auto* d = py::detail::array_descriptor_proxy(a->descr);
    constexpr int kFlags = py::detail::npy_api::NPY_ARRAY_OWNDATA_ |
                           py::detail::npy_api::NPY_ARRAY_WRITEABLE_ |
                           py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_;
    auto** weak = reinterpret_cast<PyObject**>(
        reinterpret_cast<char*>(last) + Py_TYPE(last)->tp_weaklistoffset);
    if (Py_TYPE(last) == api.PyArray_Type_ && a->nd == 1 &&
        a->dimensions[0] == n && (a->flags & kFlags) == kFlags &&
        a->base == nullptr && d->type_num == py::detail::npy_api::NPY_DOUBLE_ &&
        Py_TYPE(last)->tp_weaklistoffset > 0 && *weak == nullptr) {
      if (n > 0) {
        std::memcpy(a->data, data, sizeof(double) * static_cast<size_t>(n));
      }
      return Py_NewRef(last);
    }
  }
  PyObject* fresh = NewVector(data, n);
  if (fresh == nullptr) return nullptr;
  Py_XDECREF(last);
  last = Py_NewRef(fresh);
  return fresh;
}

}  // namespace tern::python
