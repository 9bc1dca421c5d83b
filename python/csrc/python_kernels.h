#pragma once
// Python functions as boxed kernels. A Python kernel takes the GIL, hands the stack to the Python
// function as Python values (positional arguments positionally, keyword-only ones by keyword) and
// puts what it returns back on the stack, converted by the schema's returns. A Python fallback
// gets one BoxedCall per call instead. Registered at the Python key, both run with that key
// excluded, so the calls they make (and a fallback's redispatch) go on below it.
//
// Neither holds a reference to its function: the gb.library Library that registered it keeps the
// function alive for as long as the registration exists, so nothing here touches Python
// refcounts under the registry's lock.
#include <pybind11/pybind11.h>

#include <string>

#include "registry/dispatcher.h"

namespace glassbox::python {

struct PythonKernel {
  PyObject* fn;
  DispatchKey key;    // the key it is registered under
  std::string debug;  // where ("file:line")

  void operator()(const OperatorHandle& op, DispatchKeySet keys, Stack* stack) const;
};

struct PythonFallback {
  PyObject* fn;
  DispatchKey key;
  std::string debug;

  void operator()(const OperatorHandle& op, DispatchKeySet keys, Stack* stack) const;
};

// What a Python fallback sees of one call: the operator, the key it reached, its arguments, and a
// way to go on to the keys below. Valid only while the fallback runs.
class BoxedCall {
 public:
  BoxedCall(const OperatorHandle& op, DispatchKeySet keys, Stack args) : op_(op), keys_(keys), args_(std::move(args)) {}

  std::string op() const;
  std::string schema() const;
  std::string key() const;
  pybind11::list args();
  // The same call on the keys below this one; its result as gb.ops returns it.
  pybind11::object redispatch();
  void invalidate() { valid_ = false; }

 private:
  OperatorHandle op_;
  DispatchKeySet keys_;
  Stack args_;
  bool valid_ = true;
};

}  // namespace glassbox::python
