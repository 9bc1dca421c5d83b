// gb.ops.<ns>.<op>(...): any registered operator, called through the boxed path. Python values
// are converted by the schema's argument types; among overloads the first one whose schema
// accepts the arguments is called.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>

#include "python/csrc/ivalue_conversion.h"
#include "registry/dispatcher.h"

namespace py = pybind11;
using namespace glassbox;
using glassbox::python::ArgumentMismatch;
using glassbox::python::ivalue_from_python;
using glassbox::python::ivalue_to_python;

namespace {
// Calls that took this boxed path: tests read it to tell the typed bindings from the boxed ones.
uint64_t g_boxed_calls = 0;

IValue convert(py::handle h, const Argument& a) { return ivalue_from_python(h, a.type, "argument '" + a.name + "'"); }

IValue default_value(const Argument& a) {
  const DefaultValue& d = *a.default_value;
  using K = DefaultValue::Kind;
  switch (d.kind) {
    case K::None: return IValue();
    case K::Bool: return IValue(d.text == "True");
    case K::Int:
      // `int[2] stride=1` means [1, 1].
      if (a.type.is_list && a.type.base != BaseType::Float)
        return IValue(std::vector<int64_t>(static_cast<size_t>(a.type.fixed_size.value_or(1)), std::stoll(d.text)));
      return a.type.base == BaseType::Float ? IValue(std::stod(d.text)) : IValue(int64_t{std::stoll(d.text)});
    case K::Float: return IValue(d.text == "inf" ? INFINITY : d.text == "-inf" ? -INFINITY : std::stod(d.text));
    case K::String: return IValue(d.text.substr(1, d.text.size() - 2));
    case K::Identifier:
      if (d.text == "Mean") return IValue(int64_t{1});
      if (d.text == "Sum") return IValue(int64_t{2});
      break;
    case K::List: {
      std::vector<int64_t> ints;
      std::string body = d.text.substr(1, d.text.size() - 2);
      for (size_t start = 0; start < body.size();) {
        size_t comma = body.find(',', start);
        ints.push_back(std::stoll(body.substr(start, comma - start)));
        start = comma == std::string::npos ? body.size() : comma + 1;
      }
      return IValue(std::move(ints));
    }
  }
  throw ArgumentMismatch{"argument '" + a.name + "' has a default (" + d.text + ") Python cannot supply yet"};
}

Stack bind(const FunctionSchema& s, const py::tuple& args, const py::dict& kwargs) {
  size_t positional = 0;
  for (const Argument& a : s.arguments) positional += a.kwarg_only ? 0 : 1;
  if (args.size() > positional)
    throw ArgumentMismatch{"takes " + std::to_string(positional) + " positional arguments but " +
                           std::to_string(args.size()) + " were given"};
  Stack stack;
  size_t used_kwargs = 0;
  for (size_t i = 0; i < s.arguments.size(); ++i) {
    const Argument& a = s.arguments[i];
    if (i < args.size()) {
      stack.push_back(convert(args[i], a));
    } else if (kwargs.contains(a.name)) {
      stack.push_back(convert(kwargs[py::str(a.name)], a));
      ++used_kwargs;
    } else if (a.default_value) {
      stack.push_back(default_value(a));
    } else {
      throw ArgumentMismatch{"missing argument '" + a.name + "'"};
    }
  }
  if (used_kwargs != kwargs.size()) {
    for (auto item : kwargs) {
      const std::string k = py::str(item.first);
      bool known = false;
      for (const Argument& a : s.arguments) known |= a.name == k;
      if (!known) throw ArgumentMismatch{"unexpected keyword argument '" + k + "'"};
    }
  }
  return stack;
}

// The operator's overloads, the default (unnamed) one first.
std::vector<OperatorHandle> overloads(const std::string& qualified) {
  const OperatorName want = OperatorName::parse(qualified);
  std::vector<OperatorHandle> out;
  for (const OperatorHandle& op : Dispatcher::singleton().operators()) {
    if (op.has_schema() && op.name().ns == want.ns && op.name().name == want.name &&
        (want.overload.empty() || op.name().overload == want.overload))
      out.push_back(op);
  }
  std::stable_partition(out.begin(), out.end(), [](const OperatorHandle& op) { return op.name().overload.empty(); });
  return out;
}

// overload_names: the overloads to try, in order, when the caller knows them (gb.ops keeps them
// per packet); each is one table lookup, where finding them takes a scan of the registry.
py::object call(const std::string& qualified, const py::tuple& args, const py::dict& kwargs,
                const std::optional<std::vector<std::string>>& overload_names) {
  std::vector<OperatorHandle> candidates;
  const OperatorName want = OperatorName::parse(qualified);
  if (!want.overload.empty() || overload_names) {
    const std::vector<std::string> names = want.overload.empty() ? *overload_names : std::vector{want.overload};
    for (const std::string& overload : names) {
      auto op = Dispatcher::singleton().find_op(OperatorName{want.ns, want.name, overload});
      if (op && op->has_schema()) candidates.push_back(*op);
    }
  } else {
    candidates = overloads(qualified);
  }
  if (candidates.empty()) throw py::attribute_error("no operator named " + qualified + " is registered");
  std::string tried;
  for (const OperatorHandle& op : candidates) {
    Stack stack;
    try {
      stack = bind(op.schema(), args, kwargs);
    } catch (const ArgumentMismatch& m) {
      tried += "\n  " + op.schema().to_string() + ": " + m.why;
      continue;
    } catch (const Error& e) {
      tried += "\n  " + op.schema().to_string() + ": " + e.what();
      continue;
    }
    ++g_boxed_calls;
    {
      py::gil_scoped_release nogil;  // kernels that run Python (gb.library) take it back
      op.call_boxed(&stack);
    }
    if (stack.size() == 1) return ivalue_to_python(stack[0]);
    py::tuple out(stack.size());
    for (size_t i = 0; i < stack.size(); ++i) out[i] = ivalue_to_python(stack[i]);
    return out;
  }
  // A RuntimeError, as torch.ops raises for arguments that match no schema (the Python functions and
  // methods, whose signatures are Python's, raise TypeError instead).
  throw Error(qualified + "(): no overload accepts these arguments;" + tried);
}
}  // namespace

void bind_op_calls(py::module_& m) {
  py::module_ ops = m.def_submodule("_ops", "calling registered operators from Python");
  ops.def("call", &call, py::arg("name"), py::arg("args"), py::arg("kwargs"), py::arg("overloads") = py::none());
  ops.def("overload_names", [](const std::string& qualified) {
    std::vector<std::string> names;
    for (const OperatorHandle& op : overloads(qualified)) names.push_back(op.name().overload);
    return names;
  });
  ops.def(
      "boxed_call_count", [] { return g_boxed_calls; }, "How many calls took the boxed path so far.");
}
