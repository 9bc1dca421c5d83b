// gb.library from C++: a Library made from Python registers through the same Dispatcher calls as
// a GLASSBOX_LIBRARY block, with the Python caller's file:line as the place of each registration.
// A Python kernel is a boxed kernel: it takes the GIL, hands the stack to the Python function as
// Python values and puts what it returns back on the stack, converted by the schema.
//
// Dispatch keys: a Python kernel serves the key it is registered under (the one named, else the
// library's, else CompositeImplicitAutograd, as impl() in a C++ DEF block), so it takes part in
// dispatch exactly as a C++ kernel would. The Python key is not used implicitly: it is the
// highest-priority key, and a kernel there runs only while a caller includes the key on its thread
// (a mode that sees every call before autograd), which registering there by name allows. Such a
// kernel or fallback runs with the Python key excluded, so the calls it makes (and its
// redispatch) go on below it: a mode sees each call made outside it once.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "python/csrc/ivalue_conversion.h"
#include "registry/dispatcher.h"
#include "registry/library.h"
#include "registry/local_dispatch_key_set.h"

namespace py = pybind11;
using namespace glassbox;
using glassbox::python::ArgumentMismatch;

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
      stack->push_back(glassbox::python::ivalue_from_python(value, r.type, what));
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
    throw TypeError(who + " must return a tuple of " + std::to_string(returns.size()) + " values (schema: " +
                    schema.to_string() + ")");
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
    throw ValueError(schema.name.full() + ": the stack holds " + std::to_string(stack->size()) + " values but the schema has " +
                     std::to_string(n) + " arguments");
  const size_t base = stack->size() - n;
  size_t positional = 0;
  for (const Argument& a : schema.arguments) positional += a.kwarg_only ? 0 : 1;
  py::tuple args(positional);
  py::dict kwargs;
  for (size_t i = 0, p = 0; i < n; ++i) {
    py::object v = glassbox::python::ivalue_to_python((*stack)[base + i]);
    if (schema.arguments[i].kwarg_only) kwargs[py::str(schema.arguments[i].name)] = v;
    else args[p++] = v;
  }
  stack->resize(base);
  return {std::move(args), std::move(kwargs)};
}

// The Library object keeps `fn` alive for as long as the registration exists, so the kernel holds
// a borrowed pointer and never touches Python refcounts under the registry's lock.
struct PythonKernel {
  PyObject* fn;
  DispatchKey key;
  std::string debug;

  void operator()(const OperatorHandle& op, DispatchKeySet, Stack* stack) const {
    py::gil_scoped_acquire gil;
    const FunctionSchema& schema = schema_for_python(op, debug);
    auto [args, kwargs] = pop_arguments(schema, stack);
    py::object result;
    {
      std::optional<ExcludeDispatchKeyGuard> below_python;
      if (key == DispatchKey::Python) below_python.emplace(DispatchKey::Python);
      result = py::reinterpret_borrow<py::object>(fn)(*args, **kwargs);
    }
    push_results(schema, result, debug, stack);
  }
};

// What a Python fallback sees of one call: the operator, the key it reached, its arguments, and a
// way to go on to the keys below. Valid only while the fallback runs.
class BoxedCall {
 public:
  BoxedCall(const OperatorHandle& op, DispatchKeySet keys, Stack args, std::string debug)
      : op_(op), keys_(keys), args_(std::move(args)), debug_(std::move(debug)) {}

  std::string op() const { return op_.name().full(); }
  std::string schema() const { return op_.has_schema() ? op_.schema().to_string() : ""; }
  std::string key() const { return std::string(to_string(keys_.highest_priority_key())); }
  py::list args() {
    py::list out;
    for (IValue& v : args_) out.append(glassbox::python::ivalue_to_python(v));
    return out;
  }
  // The same call on the keys below this one; returns its result as gb.ops would.
  py::object redispatch() {
    if (!valid_) throw Error("redispatch() of " + op() + " called after its fallback returned");
    Stack stack = args_;
    op_.redispatch_boxed(keys_.below(keys_.highest_priority_key()), &stack);
    if (stack.size() == 1) return glassbox::python::ivalue_to_python(stack[0]);
    py::tuple out(stack.size());
    for (size_t i = 0; i < stack.size(); ++i) out[i] = glassbox::python::ivalue_to_python(stack[i]);
    return out;
  }
  void invalidate() { valid_ = false; }

 private:
  OperatorHandle op_;
  DispatchKeySet keys_;
  Stack args_;
  std::string debug_;
  bool valid_ = true;
};

struct PythonFallback {
  PyObject* fn;
  DispatchKey key;
  std::string debug;

  void operator()(const OperatorHandle& op, DispatchKeySet keys, Stack* stack) const {
    py::gil_scoped_acquire gil;
    const FunctionSchema& schema = schema_for_python(op, debug);
    const size_t base = stack->size() - std::min(stack->size(), schema.arguments.size());
    auto call = std::make_shared<BoxedCall>(op, keys, Stack(stack->begin() + static_cast<std::ptrdiff_t>(base), stack->end()), debug);
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
};

std::optional<DispatchKey> key_from(const std::optional<std::string>& name) {
  if (!name) return std::nullopt;
  return dispatch_key_from_string(*name);
}

// `with gb.library.include_key(K):` adds K to this thread's included keys, so every call on the
// thread reaches K's kernels (how the Python key's kernels and fallbacks are reached at all).
class KeyInclusion {
 public:
  explicit KeyInclusion(const std::string& key) : key_(dispatch_key_from_string(key)) {
    if (!is_runtime_key(key_)) throw ValueError("include_key: " + key + " is an alias key; include a runtime key");
  }
  void enter() {
    if (guard_) throw Error("include_key(" + std::string(to_string(key_)) + ") is already active");
    guard_ = std::make_unique<IncludeDispatchKeyGuard>(key_);
  }
  void exit() { guard_.reset(); }

 private:
  DispatchKey key_;
  std::unique_ptr<IncludeDispatchKeyGuard> guard_;
};

class PyLibrary {
 public:
  PyLibrary(const std::string& kind, std::string ns, const std::optional<std::string>& key, std::string debug)
      : ns_(std::move(ns)), key_(key_from(key)), debug_(std::move(debug)) {
    if (kind != "DEF" && kind != "FRAGMENT" && kind != "IMPL")
      throw ValueError("Library(" + ns_ + ", " + kind + ") at " + debug_ + ": kind must be \"DEF\", \"FRAGMENT\" or \"IMPL\"");
    kind_ = kind;
    if (kind_ == "IMPL" && !key_)
      throw ValueError("Library(" + ns_ + ", \"IMPL\") at " + debug_ + " needs a dispatch key, e.g. key=\"CPU\"");
    if (kind_ != "IMPL" && ns_ == "_")
      throw ValueError("Library(\"_\", \"" + kind_ + "\") at " + debug_ + ": the wildcard namespace '_' is only for IMPL libraries");
    registrations_.push_back(Dispatcher::singleton().register_library(kind_, ns_, key_, debug_));
  }
  PyLibrary(const PyLibrary&) = delete;
  PyLibrary& operator=(const PyLibrary&) = delete;
  // Deregisters before the Python functions the kernels point at are released.
  ~PyLibrary() { close(); }

  std::string define(const std::string& schema_text, const std::vector<std::string>& tags, const std::string& at) {
    check_open(at);
    if (kind_ == "IMPL")
      throw Error("define(\"" + schema_text + "\") at " + at + " is not allowed in the " + name() + " at " + debug_ +
                  ": IMPL libraries only register kernels; define operators in a DEF or FRAGMENT library");
    FunctionSchema schema;
    try {
      schema = parse_schema(schema_text);
    } catch (const SchemaParseError& e) {
      throw SchemaParseError(std::string(e.reason()) + " (in define at " + at + ")", e.schema(), e.column());
    }
    schema.name = qualify(schema.name.full(), at);
    const std::string full = schema.name.full();
    registrations_.push_back(Dispatcher::singleton().register_def(std::move(schema), at, tags));
    return full;
  }

  std::string impl(const std::string& op, py::object fn, const std::optional<std::string>& key, const std::string& at) {
    check_open(at);
    if (ns_ == "_") throw Error("impl(\"" + op + "\") at " + at + " needs a real namespace, not '_' (" + debug_ + ")");
    const std::optional<DispatchKey> named = key_from(key);
    if (named && key_ && *named != *key_)
      throw Error("impl(\"" + op + "\", " + std::string(to_string(*named)) + ") at " + at + " names a key other than the " +
                  name() + "'s (" + debug_ + ")");
    const DispatchKey k = named ? *named : key_ ? *key_ : DispatchKey::CompositeImplicitAutograd;
    const OperatorName qualified = qualify(op, at);
    KernelFunction kernel;
    if (fn.is_none()) {
      kernel = KernelFunction::fallthrough();
    } else {
      if (!PyCallable_Check(fn.ptr())) throw TypeError("impl(\"" + op + "\") at " + at + ": the kernel is not callable");
      kernel = KernelFunction::from_boxed_callable(PythonKernel{fn.ptr(), k, at});
      functions_.append(fn);
    }
    registrations_.push_back(Dispatcher::singleton().register_impl(qualified, k, std::move(kernel), std::nullopt, at));
    return qualified.full();
  }

  // fn None: a fallthrough fallback (the library's key is skipped for every operator).
  void fallback(py::object fn, const std::string& at) {
    check_open(at);
    if (kind_ != "IMPL")
      throw Error("fallback() at " + at + " is only allowed in an IMPL library; the " + name() + " at " + debug_ +
                  " has no dispatch key");
    KernelFunction kernel;
    if (fn.is_none()) {
      kernel = KernelFunction::fallthrough();
    } else {
      if (!PyCallable_Check(fn.ptr())) throw TypeError("fallback() at " + at + ": the fallback is not callable");
      kernel = KernelFunction::from_boxed_callable(PythonFallback{fn.ptr(), *key_, at});
      functions_.append(fn);
    }
    registrations_.push_back(Dispatcher::singleton().register_fallback(*key_, std::move(kernel), at));
  }

  // Deregisters everything, newest first, so the registry returns to what it was.
  void close() {
    while (!registrations_.empty()) {
      RegistrationHandle h = std::move(registrations_.back());
      registrations_.pop_back();
      h.reset();
    }
    closed_ = true;
    functions_ = py::list();
  }

  bool closed() const { return closed_; }
  const std::string& ns() const { return ns_; }
  const std::string& kind() const { return kind_; }
  std::optional<std::string> key() const {
    if (!key_) return std::nullopt;
    return std::string(to_string(*key_));
  }
  const std::string& debug() const { return debug_; }
  // "Library(myops, IMPL, CPU)"
  std::string name() const {
    return "Library(" + ns_ + ", " + kind_ + (key_ ? ", " + std::string(to_string(*key_)) : std::string()) + ")";
  }

 private:
  void check_open(const std::string& at) const {
    if (closed_) throw Error("the " + name() + " made at " + debug_ + " is closed; registration at " + at + " refused");
  }
  OperatorName qualify(const std::string& op, const std::string& at) const {
    OperatorName n = parse_schema_name(op);
    if (n.ns.empty()) n.ns = ns_;
    if (n.ns != ns_)
      throw Error("operator " + n.full() + " at " + at + " is outside the namespace of the " + name() + " at " + debug_);
    return n;
  }

  std::string kind_;
  std::string ns_;
  std::optional<DispatchKey> key_;
  std::string debug_;
  std::vector<RegistrationHandle> registrations_;
  py::list functions_;  // the Python kernels and fallbacks registered, kept alive here
  bool closed_ = false;
};

}  // namespace

void bind_library(py::module_& m) {
  py::module_ lib = m.def_submodule("_library", "registering operators and kernels from Python");
  py::class_<BoxedCall, std::shared_ptr<BoxedCall>>(lib, "BoxedCall")
      .def_property_readonly("op", &BoxedCall::op)
      .def_property_readonly("schema", &BoxedCall::schema)
      .def_property_readonly("key", &BoxedCall::key)
      .def_property_readonly("args", &BoxedCall::args)
      .def("redispatch", &BoxedCall::redispatch)
      .def("__repr__", [](const BoxedCall& c) { return "<BoxedCall " + c.op() + " at key " + c.key() + ">"; });
  py::class_<PyLibrary>(lib, "Library")
      .def(py::init<const std::string&, std::string, const std::optional<std::string>&, std::string>(), py::arg("kind"),
           py::arg("ns"), py::arg("key"), py::arg("debug"))
      .def("define", &PyLibrary::define, py::arg("schema"), py::arg("tags"), py::arg("debug"))
      .def("impl", &PyLibrary::impl, py::arg("op"), py::arg("fn"), py::arg("key"), py::arg("debug"))
      .def("fallback", &PyLibrary::fallback, py::arg("fn"), py::arg("debug"))
      .def("close", &PyLibrary::close)
      .def_property_readonly("closed", &PyLibrary::closed)
      .def_property_readonly("ns", &PyLibrary::ns)
      .def_property_readonly("kind", &PyLibrary::kind)
      .def_property_readonly("key", &PyLibrary::key)
      .def_property_readonly("debug", &PyLibrary::debug)
      .def_property_readonly("name", &PyLibrary::name);
  py::class_<KeyInclusion>(lib, "KeyInclusion")
      .def(py::init<const std::string&>(), py::arg("key"))
      .def("__enter__", [](KeyInclusion& k) { k.enter(); })
      .def("__exit__", [](KeyInclusion& k, py::args) { k.exit(); });
  lib.def("schema_arguments", [](const std::string& op) -> py::tuple {
    // (name, kwarg_only) of each argument, and where the def is: for checking a Python kernel's signature.
    std::optional<OperatorHandle> h = Dispatcher::singleton().find_op(OperatorName::parse(op));
    py::list args;
    if (!h || !h->has_schema()) return py::make_tuple(py::none(), args, "");
    for (const Argument& a : h->schema().arguments) args.append(py::make_tuple(a.name, a.kwarg_only));
    return py::make_tuple(h->schema().to_string(), args, h->entry().schema_debug());
  }, py::arg("op"));
}
