// gb.library from C++: a Library made from Python registers through the same Dispatcher calls as
// a GLASSBOX_LIBRARY block, with the Python caller's file:line as the place of each registration.
// Its kernels are Python functions wrapped as boxed kernels (python_kernels.h).
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

#include "engine/core/local_dispatch_key_set.h"
#include "python/csrc/python_kernels.h"
#include "registry/dispatcher.h"
#include "registry/library.h"

namespace py = pybind11;
using namespace glassbox;
using glassbox::python::BoxedCall;
using glassbox::python::PythonFallback;
using glassbox::python::PythonKernel;

namespace {

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
      throw ValueError("Library(" + ns_ + ", " + kind + ") at " + debug_ +
                       ": kind must be \"DEF\", \"FRAGMENT\" or \"IMPL\"");
    kind_ = kind;
    if (kind_ == "IMPL" && !key_)
      throw ValueError("Library(" + ns_ + ", \"IMPL\") at " + debug_ + " needs a dispatch key, e.g. key=\"CPU\"");
    if (kind_ != "IMPL" && ns_ == "_")
      throw ValueError("Library(\"_\", \"" + kind_ + "\") at " + debug_ +
                       ": the wildcard namespace '_' is only for IMPL libraries");
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
      throw Error("impl(\"" + op + "\", " + std::string(to_string(*named)) + ") at " + at +
                  " names a key other than the " + name() + "'s (" + debug_ + ")");
    const DispatchKey k = named ? *named : key_ ? *key_ : DispatchKey::CompositeImplicitAutograd;
    const OperatorName qualified = qualify(op, at);
    KernelFunction kernel;
    if (fn.is_none()) {
      kernel = KernelFunction::fallthrough();
    } else {
      if (!PyCallable_Check(fn.ptr()))
        throw TypeError("impl(\"" + op + "\") at " + at + ": the kernel is not callable");
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
      throw Error("operator " + n.full() + " at " + at + " is outside the namespace of the " + name() + " at " +
                  debug_);
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
  lib.def(
      "schema_arguments",
      [](const std::string& op) -> py::tuple {
        // (name, kwarg_only) of each argument, and where the def is: for checking a Python kernel's signature.
        std::optional<OperatorHandle> h = Dispatcher::singleton().find_op(OperatorName::parse(op));
        py::list args;
        if (!h || !h->has_schema()) return py::make_tuple(py::none(), args, "");
        for (const Argument& a : h->schema().arguments) args.append(py::make_tuple(a.name, a.kwarg_only));
        return py::make_tuple(h->schema().to_string(), args, h->entry().schema_debug());
      },
      py::arg("op"));
}
