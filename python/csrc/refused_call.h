#pragma once
// The last overload of every generated binding: reached only when no typed overload took the
// arguments, it raises one TypeError naming what is wrong ("sum() got an unexpected keyword
// argument 'foo'", "zeros(): argument 'dtype' must be glassbox.dtype, not str"), where pybind11
// would list every overload's signature.
#include <pybind11/pybind11.h>

#include <initializer_list>

#include "engine/core/tensor.h"

namespace py = pybind11;

namespace glassbox::python {

// A positional argument that any object fills, but only in pybind11's second pass over the
// overloads (the one that allows conversions): in the first pass this overload never matches, so
// every typed overload has had both of its chances before it. Hidden, as pybind11's own types
// (py::object among them) are: a visible struct holding one would draw GCC's -Wattributes.
struct [[gnu::visibility("hidden")]] AnyArg {
  py::object value;
};

// Raises the TypeError for a call of `name` (a function, or a method when `method`) whose
// overloads have these schemas, with these arguments (`first` is the first positional one).
[[noreturn]] void refuse_call(const char* name, bool method, std::initializer_list<const char*> schemas,
                              const py::object& first, const py::args& rest, const py::kwargs& kwargs);

// The default of a method's refusal's one named argument: "not given".
const py::object& missing();

// refuse_call for a method called on `self`; `first` is missing() when the call had no positional
// argument after self.
[[noreturn]] void refuse_method_call(const char* name, std::initializer_list<const char*> schemas, const Tensor& self,
                                     const py::object& first, const py::args& rest, const py::kwargs& kwargs);

}  // namespace glassbox::python

namespace pybind11::detail {
template <>
struct type_caster<glassbox::python::AnyArg> {
  PYBIND11_TYPE_CASTER(glassbox::python::AnyArg, const_name("object"));
  bool load(handle src, bool convert) {
    if (!convert) return false;
    value.value = reinterpret_borrow<object>(src);
    return true;
  }
  static handle cast(const glassbox::python::AnyArg& v, return_value_policy, handle) { return v.value.inc_ref(); }
};
}  // namespace pybind11::detail
