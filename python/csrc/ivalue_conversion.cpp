#include "python/csrc/ivalue_conversion.h"

#include <pybind11/stl.h>

#include "python/csrc/type_casters.h"

namespace py = pybind11;

namespace glassbox::python {

namespace {
IValue scalar_from(py::handle h, const std::string& what) {
  // The typed bindings' Scalar: bools, ints, floats and NumPy scalars; OverflowError past int64.
  py::detail::make_caster<Scalar> caster;
  if (caster.load(h, true)) {
    const Scalar s = py::detail::cast_op<Scalar>(caster);
    if (s.is_bool()) return IValue(s.to_bool());
    if (s.is_integral()) return IValue(s.to_int());
    return IValue(s.to_double());
  }
  throw ArgumentMismatch{what + " expected a number but got " +
                         std::string(py::str(py::type::handle_of(h).attr("__name__")))};
}

// Ints past int64 raise RuntimeError here, as torch.ops does (the typed bindings follow Python's classes).
IValue element(py::handle h, BaseType base, const std::string& what) {
  const std::string got = py::str(py::type::handle_of(h).attr("__name__"));
  switch (base) {
    case BaseType::Tensor:
      if (py::isinstance<Tensor>(h)) return IValue(h.cast<Tensor>());
      break;
    case BaseType::Int:
    case BaseType::SymInt:
      if (is_python_int(h)) return IValue(int64_from_python(h, IntOverflow::RuntimeError, what.c_str()));
      if (py::isinstance<py::bool_>(h)) return IValue(int64_t{h.ptr() == Py_True});  // bool is an int, as for torch.ops
      break;
    case BaseType::Float:
      if ((py::isinstance<py::int_>(h) && !py::isinstance<py::bool_>(h)) || py::isinstance<py::float_>(h))
        return IValue(h.cast<double>());
      if (is_numpy_scalar(h) && !is_numpy_bool(h)) {
        const double d = PyFloat_AsDouble(h.ptr());
        if (d == -1.0 && PyErr_Occurred()) throw py::error_already_set();
        return IValue(d);
      }
      break;
    case BaseType::Bool:
      if (py::isinstance<py::bool_>(h)) return IValue(h.cast<bool>());
      if (is_python_int(h)) return IValue(PyObject_IsTrue(h.ptr()) == 1);  // torch.ops takes 0 and 1 for a bool too
      if (is_numpy_bool(h)) return IValue(PyObject_IsTrue(h.ptr()) == 1);
      break;
    case BaseType::Str:
      if (py::isinstance<py::str>(h)) return IValue(h.cast<std::string>());
      break;
    case BaseType::Scalar: return scalar_from(h, what);
    case BaseType::ScalarType:
      if (py::isinstance<ScalarType>(h)) return IValue(h.cast<ScalarType>());
      break;
    case BaseType::Device:
      if (py::isinstance<py::str>(h)) return IValue(Device::parse(h.cast<std::string>()));
      break;
    default: break;
  }
  throw ArgumentMismatch{what + " expected " + std::string(to_string(base)) + " but got " + got};
}

}  // namespace

IValue ivalue_from_python(py::handle h, const SchemaType& type, const std::string& what) {
  if (h.is_none()) {
    if (type.optional) return IValue();
    throw ArgumentMismatch{what + " may not be None"};
  }
  if (!type.is_list) return element(h, type.base, what);
  if (!py::isinstance<py::list>(h) && !py::isinstance<py::tuple>(h)) {
    if (type.base == BaseType::Int || type.base == BaseType::SymInt) {  // size=3 means [3]
      return IValue(std::vector<int64_t>{element(h, BaseType::Int, what).to_int()});
    }
    throw ArgumentMismatch{what + " expected a list"};
  }
  py::sequence seq = py::reinterpret_borrow<py::sequence>(h);
  if (type.element_optional && type.base == BaseType::Tensor) {  // Tensor?[]: None elements allowed
    std::vector<std::optional<Tensor>> v;
    for (py::handle e : seq) {
      if (e.is_none()) v.emplace_back();
      else v.emplace_back(element(e, BaseType::Tensor, what).to_tensor());
    }
    return IValue(std::move(v));
  }
  switch (type.base) {
    case BaseType::Tensor: {
      std::vector<Tensor> v;
      for (py::handle e : seq) v.push_back(element(e, BaseType::Tensor, what).to_tensor());
      return IValue(std::move(v));
    }
    case BaseType::Float: {
      std::vector<double> v;
      for (py::handle e : seq) v.push_back(element(e, BaseType::Float, what).to_double());
      return IValue(std::move(v));
    }
    default: {
      std::vector<int64_t> v;
      for (py::handle e : seq) v.push_back(element(e, BaseType::Int, what).to_int());
      return IValue(std::move(v));
    }
  }
}

py::object ivalue_to_python(IValue& v) {
  switch (v.tag()) {
    case IValue::Tag::None: return py::none();
    case IValue::Tag::Tensor: return py::cast(v.to_tensor());
    case IValue::Tag::Int: return py::int_(v.to_int());
    case IValue::Tag::Double: return py::float_(v.to_double());
    case IValue::Tag::Bool: return py::bool_(v.to_bool());
    case IValue::Tag::String: return py::str(v.to_string_ref());
    case IValue::Tag::IntList: return py::cast(v.to_int_list());
    case IValue::Tag::DoubleList: return py::cast(v.to_double_list());
    case IValue::Tag::TensorList: return py::cast(v.to_tensor_list());
    case IValue::Tag::Device: return py::str(v.to_device().to_string());
    case IValue::Tag::ScalarType: return py::cast(v.to_scalar_type());
    case IValue::Tag::OptionalTensorList: {
      py::list out;
      for (const std::optional<Tensor>& t : v.to_optional_tensor_list()) out.append(t ? py::cast(*t) : py::none());
      return out;
    }
  }
  return py::none();
}

}  // namespace glassbox::python
