// gb.ops.<ns>.<op>(...): any registered operator, called through the boxed path. Python values
// are converted by the schema's argument types; among overloads the first one whose schema
// accepts the arguments is called.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>

#include "registry/dispatcher.h"

namespace py = pybind11;
using namespace glassbox;

namespace {
struct Mismatch {
  std::string why;
};

IValue scalar_from(py::handle h, const std::string& what) {
  if (py::isinstance<py::bool_>(h)) return IValue(h.cast<bool>());
  if (py::isinstance<py::int_>(h)) return IValue(h.cast<int64_t>());
  if (py::isinstance<py::float_>(h)) return IValue(h.cast<double>());
  throw Mismatch{what + " expected a number but got " + std::string(py::str(py::type::handle_of(h).attr("__name__")))};
}

IValue element(py::handle h, BaseType base, const std::string& what) {
  const std::string got = py::str(py::type::handle_of(h).attr("__name__"));
  switch (base) {
    case BaseType::Tensor:
      if (py::isinstance<Tensor>(h)) return IValue(h.cast<Tensor>());
      break;
    case BaseType::Int:
    case BaseType::SymInt:
      if (py::isinstance<py::int_>(h) && !py::isinstance<py::bool_>(h)) return IValue(h.cast<int64_t>());
      break;
    case BaseType::Float:
      if ((py::isinstance<py::int_>(h) && !py::isinstance<py::bool_>(h)) || py::isinstance<py::float_>(h))
        return IValue(h.cast<double>());
      break;
    case BaseType::Bool:
      if (py::isinstance<py::bool_>(h)) return IValue(h.cast<bool>());
      break;
    case BaseType::Str:
      if (py::isinstance<py::str>(h)) return IValue(h.cast<std::string>());
      break;
    case BaseType::Scalar:
      return scalar_from(h, what);
    case BaseType::ScalarType:
      if (py::isinstance<ScalarType>(h)) return IValue(h.cast<ScalarType>());
      break;
    case BaseType::Device:
      if (py::isinstance<py::str>(h)) return IValue(Device::parse(h.cast<std::string>()));
      break;
    default:
      break;
  }
  throw Mismatch{what + " expected " + std::string(to_string(base)) + " but got " + got};
}

IValue convert(py::handle h, const Argument& a) {
  const std::string what = "argument '" + a.name + "'";
  if (h.is_none()) {
    if (a.type.optional) return IValue();
    throw Mismatch{what + " may not be None"};
  }
  if (!a.type.is_list) return element(h, a.type.base, what);
  if (!py::isinstance<py::list>(h) && !py::isinstance<py::tuple>(h)) {
    if (a.type.base == BaseType::Int || a.type.base == BaseType::SymInt) {  // size=3 means [3]
      return IValue(std::vector<int64_t>{element(h, BaseType::Int, what).to_int()});
    }
    throw Mismatch{what + " expected a list"};
  }
  py::sequence seq = py::reinterpret_borrow<py::sequence>(h);
  if (a.type.element_optional && a.type.base == BaseType::Tensor) {  // Tensor?[]: None elements allowed
    std::vector<std::optional<Tensor>> v;
    for (py::handle e : seq) {
      if (e.is_none()) v.emplace_back();
      else v.emplace_back(element(e, BaseType::Tensor, what).to_tensor());
    }
    return IValue(std::move(v));
  }
  switch (a.type.base) {
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
  throw Mismatch{"argument '" + a.name + "' has a default (" + d.text + ") Python cannot supply yet"};
}

Stack bind(const FunctionSchema& s, const py::tuple& args, const py::dict& kwargs) {
  size_t positional = 0;
  for (const Argument& a : s.arguments) positional += a.kwarg_only ? 0 : 1;
  if (args.size() > positional)
    throw Mismatch{"takes " + std::to_string(positional) + " positional arguments but " + std::to_string(args.size()) + " were given"};
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
      throw Mismatch{"missing argument '" + a.name + "'"};
    }
  }
  if (used_kwargs != kwargs.size()) {
    for (auto item : kwargs) {
      const std::string k = py::str(item.first);
      bool known = false;
      for (const Argument& a : s.arguments) known |= a.name == k;
      if (!known) throw Mismatch{"unexpected keyword argument '" + k + "'"};
    }
  }
  return stack;
}

py::object to_python(IValue& v) {
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

py::object call(const std::string& qualified, const py::tuple& args, const py::dict& kwargs) {
  const std::vector<OperatorHandle> candidates = overloads(qualified);
  if (candidates.empty()) throw py::attribute_error("no operator named " + qualified + " is registered");
  std::string tried;
  for (const OperatorHandle& op : candidates) {
    Stack stack;
    try {
      stack = bind(op.schema(), args, kwargs);
    } catch (const Mismatch& m) {
      tried += "\n  " + op.schema().to_string() + ": " + m.why;
      continue;
    } catch (const Error& e) {
      tried += "\n  " + op.schema().to_string() + ": " + e.what();
      continue;
    }
    op.call_boxed(&stack);
    if (stack.size() == 1) return to_python(stack[0]);
    py::tuple out(stack.size());
    for (size_t i = 0; i < stack.size(); ++i) out[i] = to_python(stack[i]);
    return out;
  }
  throw py::type_error(qualified + "(): no overload accepts these arguments;" + tried);
}
}  // namespace

void bind_op_calls(py::module_& m) {
  py::module_ ops = m.def_submodule("_ops", "calling registered operators from Python");
  ops.def("call", &call, py::arg("name"), py::arg("args"), py::arg("kwargs"));
  ops.def("overload_names", [](const std::string& qualified) {
    std::vector<std::string> names;
    for (const OperatorHandle& op : overloads(qualified)) names.push_back(op.name().overload);
    return names;
  });
}
