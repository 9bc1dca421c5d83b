// Why a call matched no overload of a generated binding, in one line (python/csrc/refused_call.h).
// The overloads' schemas are read with the registry's parser; the arguments are laid against each
// one as Python would bind them, and the most specific complaint wins: an unknown keyword, then a
// wrong type in a form whose arity fits, then a missing argument, then the arity itself.
#include "python/csrc/refused_call.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/tensor.h"
#include "python/csrc/type_casters.h"
#include "registry/function_schema.h"

namespace glassbox::python {
namespace {

std::string type_name(py::handle h) { return py::str(py::type::of(h).attr("__name__")); }

bool is_tensor(py::handle v) { return py::isinstance<Tensor>(v); }
bool is_number(py::handle v) { return is_python_int(v) || PyFloat_Check(v.ptr()) || is_numpy_scalar(v); }
bool is_sequence(py::handle v) { return PyList_Check(v.ptr()) || PyTuple_Check(v.ptr()); }

// What an argument of type `t` takes, in the words of the message.
std::string expected(const SchemaType& t) {
  std::string what;
  switch (t.base) {
    case BaseType::Tensor: what = "Tensor"; break;
    case BaseType::Int:
    case BaseType::SymInt: what = "int"; break;
    case BaseType::Float: what = "float"; break;
    case BaseType::Bool: what = "bool"; break;
    case BaseType::Str: what = "str"; break;
    case BaseType::Scalar: what = "Number"; break;
    case BaseType::ScalarType: what = "glassbox.dtype"; break;
    case BaseType::Device: what = "device (str)"; break;
    default: what = std::string(to_string(t.base)); break;
  }
  if (t.is_list) what = "a sequence of " + what + (t.base == BaseType::Tensor ? "s" : "s");
  if (t.is_list && (t.base == BaseType::Int || t.base == BaseType::SymInt)) what = "int or a sequence of ints";
  return t.optional ? what + " or None" : what;
}

bool fits_element(BaseType base, py::handle v) {
  switch (base) {
    case BaseType::Tensor: return is_tensor(v);
    case BaseType::Int:
    case BaseType::SymInt: return is_python_int(v);
    case BaseType::Float: return is_number(v);
    case BaseType::Bool: return PyBool_Check(v.ptr()) || is_numpy_bool(v);
    case BaseType::Str: return PyUnicode_Check(v.ptr());
    case BaseType::Scalar: return is_number(v) || PyBool_Check(v.ptr()) || is_tensor(v);
    case BaseType::ScalarType: return type_name(v) == "dtype";
    case BaseType::Device: return PyUnicode_Check(v.ptr()) || type_name(v) == "device";
    default: return true;
  }
}

// Whether `v` may fill an argument of type `t` (a plausibility test: a value may still be refused).
bool fits(const SchemaType& t, py::handle v) {
  if (v.is_none()) return t.optional || (t.is_list && t.element_optional);
  if (!t.is_list) return fits_element(t.base, v);
  if ((t.base == BaseType::Int || t.base == BaseType::SymInt) && is_python_int(v)) return true;
  if (!is_sequence(v)) return false;
  for (const py::handle item : v)
    if (!(item.is_none() && t.element_optional) && !fits_element(t.base, item)) return false;
  return true;
}

struct Complaint {
  int rank;  // higher: more specific
  std::string text;
};

// The first thing wrong with binding the arguments to `schema`, or nothing.
std::optional<Complaint> check(const std::string& name, const FunctionSchema& schema, bool method,
                               const std::vector<py::handle>& positional, const py::kwargs& kwargs) {
  std::vector<const Argument*> params;
  for (const Argument& a : schema.arguments)
    if (!(method && a.name == "self")) params.push_back(&a);
  std::vector<const Argument*> positional_params;
  for (const Argument* a : params)
    if (!a->kwarg_only) positional_params.push_back(a);
  if (positional.size() > positional_params.size()) {
    return Complaint{0, name + "() takes " + std::to_string(positional_params.size()) + " positional argument" +
                            (positional_params.size() == 1 ? "" : "s") + " but " + std::to_string(positional.size()) +
                            (positional.size() == 1 ? " was" : " were") + " given"};
  }
  std::vector<py::handle> given(params.size());
  for (size_t i = 0; i < positional.size(); ++i)
    given[std::find(params.begin(), params.end(), positional_params[i]) - params.begin()] = positional[i];
  for (const auto& [key, value] : kwargs) {
    const std::string k = py::str(key);
    const auto it = std::find_if(params.begin(), params.end(), [&](const Argument* a) { return a->name == k; });
    if (it == params.end()) return Complaint{1, name + "() got an unexpected keyword argument '" + k + "'"};
    if (given[it - params.begin()]) return Complaint{1, name + "() got multiple values for argument '" + k + "'"};
    given[it - params.begin()] = value;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const Argument& a = *params[i];
    if (!given[i]) {
      if (!a.default_value && !a.type.optional)
        return Complaint{2, name + "() missing required argument '" + a.name + "'"};
      continue;
    }
    if (!fits(a.type, given[i])) {
      const auto pos = std::find(positional_params.begin(), positional_params.end(), &a) - positional_params.begin();
      const std::string where =
          static_cast<size_t>(pos) < positional.size() ? " (position " + std::to_string(pos + 1) + ")" : "";
      return Complaint{3, name + "(): argument '" + a.name + "'" + where + " must be " + expected(a.type) + ", not " +
                              type_name(given[i])};
    }
  }
  return std::nullopt;
}

}  // namespace

const py::object& missing() {
  static const py::object* sentinel = new py::object(py::module_::import("builtins").attr("object")());
  return *sentinel;
}

void refuse_method_call(const char* name, std::initializer_list<const char*> schemas, const Tensor& /*self*/,
                        const py::object& first, const py::args& rest, const py::kwargs& kwargs) {
  py::list positional;
  if (!first.is(missing())) positional.append(first);
  for (const py::handle h : rest) positional.append(h);
  refuse_call(name, true, schemas, py::none(), py::args(py::tuple(positional)), kwargs);
}

void refuse_call(const char* name, bool method, std::initializer_list<const char*> schemas, const py::object& first,
                 const py::args& rest, const py::kwargs& kwargs) {
  std::vector<py::handle> positional;
  if (!method) positional.push_back(first);
  for (const py::handle h : rest) positional.push_back(h);
  std::vector<FunctionSchema> parsed;
  for (const char* s : schemas) parsed.push_back(parse_schema(s));
  // A keyword no form has is the clearest complaint of all.
  for (const auto& [key, value] : kwargs) {
    const std::string k = py::str(key);
    const bool known = std::any_of(parsed.begin(), parsed.end(), [&](const FunctionSchema& s) {
      return std::any_of(s.arguments.begin(), s.arguments.end(), [&](const Argument& a) { return a.name == k; });
    });
    if (!known) throw py::type_error(std::string(name) + "() got an unexpected keyword argument '" + k + "'");
  }
  std::optional<Complaint> best;
  for (const FunctionSchema& s : parsed) {
    std::optional<Complaint> c = check(name, s, method, positional, kwargs);
    if (c && (!best || c->rank > best->rank)) best = std::move(c);
    if (!c) {  // every argument looks right for this form: some value was refused in conversion
      best = Complaint{4, std::string(name) + "(): no form of it takes these arguments; it takes " +
                              s.to_string().substr(s.to_string().find('('))};
      break;
    }
  }
  throw py::type_error(best ? best->text : std::string(name) + "(): no form of it takes these arguments");
}

}  // namespace glassbox::python
