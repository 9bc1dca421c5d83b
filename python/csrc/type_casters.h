#pragma once
// How glassbox's C++ argument types arrive from Python in the typed bindings:
//   Scalar        <- bool, int, float
//   IntArrayRef   <- a list/tuple of ints, or one int (as PyTorch: t.view(6) means [6])
//   TensorList    <- a list/tuple of tensors (Tensor?[]: None elements allowed)
//   Device        <- "cpu", "cuda:0", "meta"
// View types (ArrayRef) keep their elements in the caster, which lives for the whole call.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string_view>
#include <vector>

#include "engine/core/device.h"
#include "engine/core/scalar.h"
#include "engine/core/tensor.h"

namespace py = pybind11;

namespace pybind11::detail {

template <>
struct type_caster<glassbox::Scalar> {
  PYBIND11_TYPE_CASTER(glassbox::Scalar, const_name("Number"));
  bool load(handle src, bool) {
    if (PyBool_Check(src.ptr())) {
      value = glassbox::Scalar(src.ptr() == Py_True);
      return true;
    }
    if (PyLong_Check(src.ptr())) {
      int overflow = 0;
      const long long v = PyLong_AsLongLongAndOverflow(src.ptr(), &overflow);
      if (overflow) return false;
      value = glassbox::Scalar(static_cast<int64_t>(v));
      return true;
    }
    if (PyFloat_Check(src.ptr())) {
      value = glassbox::Scalar(PyFloat_AS_DOUBLE(src.ptr()));
      return true;
    }
    return false;
  }
  static handle cast(const glassbox::Scalar& s, return_value_policy, handle) {
    if (s.is_bool()) return py::bool_(s.to_bool()).release();
    if (s.is_integral()) return PyLong_FromLongLong(s.to_int());
    return PyFloat_FromDouble(s.to_double());
  }
};

template <class T>
struct array_ref_caster {
  std::vector<T> storage;
  glassbox::ArrayRef<T> value;
  static constexpr auto name = const_name("List");

  bool load(handle src, bool convert) {
    storage.clear();
    if constexpr (std::is_same_v<T, int64_t>) {
      if (PyLong_Check(src.ptr()) && !PyBool_Check(src.ptr())) {
        storage.push_back(PyLong_AsLongLong(src.ptr()));
        value = storage;
        return true;
      }
    }
    if (!PyList_Check(src.ptr()) && !PyTuple_Check(src.ptr())) return false;
    auto seq = reinterpret_borrow<sequence>(src);
    storage.reserve(seq.size());
    for (handle item : seq) {
      make_caster<T> element;
      if constexpr (std::is_same_v<T, int64_t>) {
        if (PyBool_Check(item.ptr()) || PyFloat_Check(item.ptr())) return false;
      }
      if (!element.load(item, convert)) return false;
      storage.push_back(cast_op<T>(std::move(element)));
    }
    value = storage;
    return true;
  }
  static handle cast(glassbox::ArrayRef<T> v, return_value_policy policy, handle parent) {
    list out(v.size());
    for (size_t i = 0; i < v.size(); ++i) out[i] = reinterpret_steal<object>(make_caster<T>::cast(v[i], policy, parent));
    return out.release();
  }
  template <class U>
  using cast_op_type = glassbox::ArrayRef<T>;
  operator glassbox::ArrayRef<T>() { return value; }
};

template <>
struct type_caster<glassbox::ArrayRef<int64_t>> : array_ref_caster<int64_t> {};
template <>
struct type_caster<glassbox::ArrayRef<glassbox::Tensor>> : array_ref_caster<glassbox::Tensor> {};
// Tensor?[] (index.Tensor's indices): a list whose elements are tensors or None.
template <>
struct type_caster<glassbox::ArrayRef<std::optional<glassbox::Tensor>>> : array_ref_caster<std::optional<glassbox::Tensor>> {};

// pybind's optional caster would keep a view into a caster it destroys: this one keeps its own.
template <class T>
struct type_caster<std::optional<glassbox::ArrayRef<T>>> {
  array_ref_caster<T> inner;
  std::optional<glassbox::ArrayRef<T>> value;
  static constexpr auto name = const_name("Optional[List]");
  bool load(handle src, bool convert) {
    if (src.is_none()) {
      value = std::nullopt;
      return true;
    }
    if (!inner.load(src, convert)) return false;
    value = inner.value;
    return true;
  }
  static handle cast(const std::optional<glassbox::ArrayRef<T>>& v, return_value_policy policy, handle parent) {
    if (!v) return none().release();
    return array_ref_caster<T>::cast(*v, policy, parent);
  }
  template <class U>
  using cast_op_type = std::optional<glassbox::ArrayRef<T>>;
  operator std::optional<glassbox::ArrayRef<T>>() { return value; }
};

template <>
struct type_caster<glassbox::Device> {
  PYBIND11_TYPE_CASTER(glassbox::Device, const_name("Device"));
  bool load(handle src, bool) {
    if (!PyUnicode_Check(src.ptr())) return false;
    value = glassbox::Device::parse(src.cast<std::string>());
    return true;
  }
  static handle cast(const glassbox::Device& d, return_value_policy, handle) { return py::str(d.to_string()).release(); }
};

}  // namespace pybind11::detail

namespace glassbox {

// An int as a size or a dim: Python ints and NumPy's integer scalars; not bools, and not enums
// such as gb.int64 (which would otherwise pass as their index).
inline bool is_python_int(py::handle item) {
  if (PyBool_Check(item.ptr())) return false;
  if (PyLong_CheckExact(item.ptr())) return true;
  const std::string_view type = Py_TYPE(item.ptr())->tp_name;
  return type.starts_with("numpy.") && PyIndex_Check(item.ptr());
}

}  // namespace glassbox
