#pragma once
// How glassbox's C++ argument types arrive from Python in the typed bindings:
//   Scalar        <- bool, int, float
//   IntArrayRef   <- a list/tuple of ints, or one int (as PyTorch: t.view(6) means [6])
//   TensorList    <- a list/tuple of tensors (Tensor?[]: None elements allowed)
//   Device        <- "cpu", "cuda:0", "meta"
//   python::IntArg      <- int (a schema `int`); python::DimListArg <- int or list of ints (`int[N]`)
// NumPy scalars count as the Python numbers they hold. An int past int64 raises what PyTorch
// raises: ValueError for an `int` or `int[N]` given as one int, TypeError inside a list or for a
// size, OverflowError for a Scalar.
// View types (ArrayRef) keep their elements in the caster, which lives for the whole call.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/device.h"
#include "engine/core/error.h"
#include "engine/core/scalar.h"
#include "engine/core/tensor.h"

namespace py = pybind11;

namespace glassbox {

inline bool is_numpy_bool(py::handle item) {
  const std::string_view type = Py_TYPE(item.ptr())->tp_name;
  return type == "numpy.bool" || type == "numpy.bool_";
}

// A NumPy scalar (np.float32(2), np.int64(3), np.bool_(True)); not an array.
inline bool is_numpy_scalar(py::handle item) {
  const std::string_view type = Py_TYPE(item.ptr())->tp_name;
  return type.starts_with("numpy.") && type != "numpy.ndarray";
}

// An int as a size or a dim: Python ints and NumPy's integer scalars (and 0-d integer arrays);
// not bools, and not enums such as gb.int64 (which would otherwise pass as their index).
inline bool is_python_int(py::handle item) {
  if (PyBool_Check(item.ptr())) return false;
  if (PyLong_Check(item.ptr())) return true;
  const std::string_view type = Py_TYPE(item.ptr())->tp_name;
  if (type == "numpy.ndarray") {  // a 0-d integer array, as PyTorch takes it; arrays with dims are lists
    if (py::getattr(item, "ndim").cast<int64_t>() != 0) return false;
    const auto kind = py::getattr(py::getattr(item, "dtype"), "kind").cast<std::string>();
    return kind == "i" || kind == "u";
  }
  return type.starts_with("numpy.") && !is_numpy_bool(item) && PyIndex_Check(item.ptr());
}

enum class IntOverflow { ValueError, TypeError, OverflowError, RuntimeError };

// The int64 value of an int that is_python_int accepts; past int64 raises `overflow`'s class.
inline int64_t int64_from_python(py::handle item, IntOverflow overflow, const char* what) {
  PyObject* index = PyNumber_Index(item.ptr());
  if (!index) throw py::error_already_set();
  int over = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index, &over);
  Py_DECREF(index);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (over) {
    const std::string message = std::string(what) + ": the integer is outside the int64 range [-2**63, 2**63 - 1]";
    if (overflow == IntOverflow::ValueError) throw py::value_error(message);
    if (overflow == IntOverflow::TypeError) throw py::type_error(message);
    if (overflow == IntOverflow::RuntimeError) throw glassbox::Error(message);
    PyErr_SetString(PyExc_OverflowError, message.c_str());
    throw py::error_already_set();
  }
  return v;
}

namespace python {
// The GIL released for the length of a call (Py_BEGIN/END_ALLOW_THREADS): pybind11's
// gil_scoped_release also looks up its internals on every use, which costs as much as a small
// kernel; they were set up when the module loaded, and gil_scoped_acquire finds this thread's state.
struct ReleaseGil {
  PyThreadState* state = PyEval_SaveThread();
  ReleaseGil() = default;
  ReleaseGil(const ReleaseGil&) = delete;
  ReleaseGil& operator=(const ReleaseGil&) = delete;
  ~ReleaseGil() { PyEval_RestoreThread(state); }
};

// A schema `int` in the typed bindings: ints and NumPy integers, never bools or floats.
struct IntArg {
  int64_t value = 0;
  operator int64_t() const { return value; }
};
// A schema `int[N]` (sum's dims): a list, or one int standing for [int], which past int64 is a
// ValueError as for `int` (a size, `int[]`, gives a TypeError there).
struct DimListArg : ArrayRef<int64_t> {
  DimListArg() = default;
  DimListArg(ArrayRef<int64_t> r) : ArrayRef<int64_t>(r) {}
};
}  // namespace python

}  // namespace glassbox

namespace pybind11::detail {

template <>
struct type_caster<glassbox::python::IntArg> {
  PYBIND11_TYPE_CASTER(glassbox::python::IntArg, const_name("int"));
  bool load(handle src, bool) {
    if (!glassbox::is_python_int(src)) return false;
    value.value = glassbox::int64_from_python(src, glassbox::IntOverflow::ValueError, "int argument");
    return true;
  }
  static handle cast(const glassbox::python::IntArg& v, return_value_policy, handle) {
    return PyLong_FromLongLong(v.value);
  }
};

template <>
struct type_caster<glassbox::Scalar> {
  PYBIND11_TYPE_CASTER(glassbox::Scalar, const_name("Number"));
  bool load(handle src, bool) {
    if (PyBool_Check(src.ptr())) {
      value = glassbox::Scalar(src.ptr() == Py_True);
      return true;
    }
    if (PyLong_Check(src.ptr())) {
      value = glassbox::Scalar(glassbox::int64_from_python(src, glassbox::IntOverflow::OverflowError, "Scalar"));
      return true;
    }
    if (PyFloat_Check(src.ptr())) {  // np.float64 too (a float subclass)
      value = glassbox::Scalar(PyFloat_AS_DOUBLE(src.ptr()));
      return true;
    }
    if (!glassbox::is_numpy_scalar(src)) return false;
    if (glassbox::is_numpy_bool(src)) {
      value = glassbox::Scalar(PyObject_IsTrue(src.ptr()) == 1);
      return true;
    }
    if (PyIndex_Check(src.ptr())) {  // np.int8 ... np.uint64
      value = glassbox::Scalar(glassbox::int64_from_python(src, glassbox::IntOverflow::OverflowError, "Scalar"));
      return true;
    }
    if (PyComplex_Check(src.ptr()) || std::string_view(Py_TYPE(src.ptr())->tp_name).starts_with("numpy.complex"))
      return false;
    const double d = PyFloat_AsDouble(src.ptr());  // np.float16, np.float32, np.longdouble
    if (d == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    value = glassbox::Scalar(d);
    return true;
  }
  static handle cast(const glassbox::Scalar& s, return_value_policy, handle) {
    if (s.is_bool()) return py::bool_(s.to_bool()).release();
    if (s.is_integral()) return PyLong_FromLongLong(s.to_int());
    return PyFloat_FromDouble(s.to_double());
  }
};

// kSingleIsDim: one int standing for the list overflows as a dim does (ValueError), not as a size.
template <class T, bool kSingleIsDim = false>
struct array_ref_caster {
  std::vector<T> storage;
  glassbox::ArrayRef<T> value;
  static constexpr auto name = const_name("List");

  bool load(handle src, bool convert) {
    storage.clear();
    if constexpr (std::is_same_v<T, int64_t>) {
      if (glassbox::is_python_int(src)) {
        storage.push_back(glassbox::int64_from_python(
            src, kSingleIsDim ? glassbox::IntOverflow::ValueError : glassbox::IntOverflow::TypeError,
            "int list argument"));
        value = storage;
        return true;
      }
    }
    if (!PyList_Check(src.ptr()) && !PyTuple_Check(src.ptr())) return false;
    auto seq = reinterpret_borrow<sequence>(src);
    storage.reserve(seq.size());
    for (handle item : seq) {
      if constexpr (std::is_same_v<T, int64_t>) {
        if (!glassbox::is_python_int(item)) return false;
        storage.push_back(glassbox::int64_from_python(item, glassbox::IntOverflow::TypeError, "int list element"));
        continue;
      } else {
        make_caster<T> element;
        if (!element.load(item, convert)) return false;
        storage.push_back(cast_op<T>(std::move(element)));
      }
    }
    value = storage;
    return true;
  }
  static handle cast(glassbox::ArrayRef<T> v, return_value_policy policy, handle parent) {
    list out(v.size());
    for (size_t i = 0; i < v.size(); ++i)
      out[i] = reinterpret_steal<object>(make_caster<T>::cast(v[i], policy, parent));
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
struct type_caster<glassbox::ArrayRef<std::optional<glassbox::Tensor>>>
    : array_ref_caster<std::optional<glassbox::Tensor>> {};

template <>
struct type_caster<glassbox::python::DimListArg> : array_ref_caster<int64_t, true> {
  template <class U>
  using cast_op_type = glassbox::python::DimListArg;
  operator glassbox::python::DimListArg() { return glassbox::python::DimListArg(value); }
};

// pybind's optional caster would keep a view into a caster it destroys: this one keeps its own.
template <class T, class Inner, class Value>
struct optional_array_ref_caster {
  Inner inner;
  std::optional<Value> value;
  static constexpr auto name = const_name("Optional[List]");
  bool load(handle src, bool convert) {
    if (src.is_none()) {
      value = std::nullopt;
      return true;
    }
    if (!inner.load(src, convert)) return false;
    value = Value(inner.value);
    return true;
  }
  static handle cast(const std::optional<Value>& v, return_value_policy policy, handle parent) {
    if (!v) return none().release();
    return array_ref_caster<T>::cast(*v, policy, parent);
  }
  template <class U>
  using cast_op_type = std::optional<Value>;
  operator std::optional<Value>() { return value; }
};

template <>
struct type_caster<std::optional<glassbox::python::DimListArg>>
    : optional_array_ref_caster<int64_t, array_ref_caster<int64_t, true>, glassbox::python::DimListArg> {};

template <class T>
struct type_caster<std::optional<glassbox::ArrayRef<T>>>
    : optional_array_ref_caster<T, array_ref_caster<T>, glassbox::ArrayRef<T>> {};

template <>
struct type_caster<glassbox::Device> {
  PYBIND11_TYPE_CASTER(glassbox::Device, const_name("Device"));
  bool load(handle src, bool) {
    if (!PyUnicode_Check(src.ptr())) return false;
    value = glassbox::Device::parse(src.cast<std::string>());
    return true;
  }
  static handle cast(const glassbox::Device& d, return_value_policy, handle) {
    return py::str(d.to_string()).release();
  }
};

}  // namespace pybind11::detail
