#include "python/csrc/python_kernels.h"

#include <memory>
#include <optional>

#include "engine/core/local_dispatch_key_set.h"
#include "python/csrc/ivalue_conversion.h"

namespace py = pybind11;

namespace glassbox::python {

namespace {

const FunctionSchema& schema_for_python(const OperatorHandle& op, const std::string& debug) {
  if (!op.has_schema())
    throw Error(op.name().full() + ": the Python kernel registered at " + debug +
                " needs the operator's schema to read its arguments, and the operator has no def");
  return op.schema();
}

// Puts a Python kernel's result on the stack, one value per schema return.
void push_results(const FunctionSchema& schema, const py::object& result, const std::string& debug, Stack* stack) {
  const std::string who = schema.name.full() + ": the Python kernel registered at " + debug;
  const auto& returns = schema.returns;
  auto push = [&](py::handle value, const Return& r, size_t i) {
    const std::string what = who + " returned, for result " + std::to_string(i + 1) + ",";
    try {
      stack->push_back(ivalue_from_python(value, r.type, what));
    } catch (const ArgumentMismatch& m) {
      throw TypeError(m.why + " (schema: " + schema.to_string() + ")");
    }
  };
  if (returns.empty()) {
    if (!result.is_none())
      throw TypeError(who + " returned a " + py::str(py::type::handle_of(result).attr("__name__")).cast<std::string>() +
                      " but the schema " + schema.to_string() + " returns nothing");
    return;
  }
  if (returns.size() == 1) return push(result, returns[0], 0);
  if (!py::isinstance<py::tuple>(result) && !py::isinstance<py::list>(result))
    throw TypeError(who + " must return a tuple of " + std::to_string(returns.size()) +
                    " values (schema: " + schema.to_string() + ")");
  py::sequence seq = py::reinterpret_borrow<py::sequence>(result);
  if (seq.size() != returns.size())
    throw TypeError(who + " returned " + std::to_string(seq.size()) + " values but the schema " + schema.to_string() +
                    " has " + std::to_string(returns.size()));
  for (size_t i = 0; i < returns.size(); ++i) push(seq[i], returns[i], i);
}

// The arguments on the stack as Python values: positional ones in a tuple, keyword-only ones in a dict.
std::pair<py::tuple, py::dict> pop_arguments(const FunctionSchema& schema, Stack* stack) {
  const size_t n = schema.arguments.size();
  if (stack->size() < n)
    throw ValueError(schema.name.full() + ": the stack holds " + std::to_string(stack->size()) +
                     " values but the schema has " + std::to_string(n) + " arguments");
  const size_t base = stack->size() - n;
  size_t positional = 0;
  for (const Argument& a : schema.arguments) positional += a.kwarg_only ? 0 : 1;
  py::tuple args(positional);
  py::dict kwargs;
  for (size_t i = 0, p = 0; i < n; ++i) {
    py::object v = ivalue_to_python((*stack)[base + i]);
    if (schema.arguments[i].kwarg_only) kwargs[py::str(schema.arguments[i].name)] = v;
    else args[p++] = v;
  }
  stack->resize(base);
  return {std::move(args), std::move(kwargs)};
}

}  // namespace

void PythonKernel::operator()(const OperatorHandle& op, DispatchKeySet, Stack* stack) const {
  py::gil_scoped_acquire gil;
  const FunctionSchema& schema = schema_for_python(op, debug);
  auto [args, kwargs] = pop_arguments(schema, stack);
  py::object result;
  {
    std::optional<ExcludeDispatchKeyGuard> below_python;  // registered at the Python key: run below it
    if (key == DispatchKey::Python) below_python.emplace(DispatchKey::Python);
    result = py::reinterpret_borrow<py::object>(fn)(*args, **kwargs);
  }
  push_results(schema, result, debug, stack);
}

void PythonFallback::operator()(const OperatorHandle& op, DispatchKeySet keys, Stack* stack) const {
  py::gil_scoped_acquire gil;
  const FunctionSchema& schema = schema_for_python(op, debug);
  const size_t base = stack->size() - std::min(stack->size(), schema.arguments.size());
  auto call =
      std::make_shared<BoxedCall>(op, keys, Stack(stack->begin() + static_cast<std::ptrdiff_t>(base), stack->end()));
  stack->resize(base);
  py::object result;
  try {
    std::optional<ExcludeDispatchKeyGuard> below_python;
    if (key == DispatchKey::Python) below_python.emplace(DispatchKey::Python);
    result = py::reinterpret_borrow<py::object>(fn)(py::cast(call));
  } catch (...) {
    call->invalidate();
    throw;
  }
  call->invalidate();
  push_results(schema, result, debug, stack);
}

std::string BoxedCall::op() const { return op_.name().full(); }
std::string BoxedCall::schema() const { return op_.has_schema() ? op_.schema().to_string() : ""; }
std::string BoxedCall::key() const { return std::string(to_string(keys_.highest_priority_key())); }

py::list BoxedCall::args() {
  py::list out;
  for (IValue& v : args_) out.append(ivalue_to_python(v));
  return out;
}

py::object BoxedCall::redispatch() {
  if (!valid_) throw Error("redispatch() of " + op() + " called after its fallback returned");
  Stack stack = args_;
  {
    py::gil_scoped_release nogil;
    op_.redispatch_boxed(keys_.below(keys_.highest_priority_key()), &stack);
  }
  if (stack.size() == 1) return ivalue_to_python(stack[0]);
  py::tuple out(stack.size());
  for (size_t i = 0; i < stack.size(); ++i) out[i] = ivalue_to_python(stack[i]);
  return out;
}

}  // namespace glassbox::python
