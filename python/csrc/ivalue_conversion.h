#pragma once
// Python values <-> IValues, by schema type: what the boxed calls of gb.ops.<ns>.<op> send in and
// what Python kernels (gb.library) receive and return.
#include <pybind11/pybind11.h>

#include <string>

#include "registry/function_schema.h"
#include "registry/ivalue.h"

namespace glassbox::python {

// A Python value that does not fit a schema type; `why` names the argument and both types.
struct ArgumentMismatch {
  std::string why;
};

// Converts h to an IValue of schema type `type`; `what` ("argument 'x'") starts the message of
// the ArgumentMismatch thrown when it does not fit.
IValue ivalue_from_python(pybind11::handle h, const SchemaType& type, const std::string& what);

pybind11::object ivalue_to_python(IValue& v);

}  // namespace glassbox::python
