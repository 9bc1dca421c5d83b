// gb.profiler from C++: sessions, their events, record_function scopes, the Chrome trace, and the
// Python stack of each top-level call (with_stack).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/profiler/profiler.h"

namespace py = pybind11;
using namespace glassbox;

namespace {

// "file:line in function" per frame, outermost first, leaving out glassbox's own Python files.
std::string python_stack() {
  if (!Py_IsInitialized()) return {};
  py::gil_scoped_acquire gil;
  try {
    py::object frames = py::module_::import("traceback").attr("extract_stack")();
    std::string out;
    for (py::handle f : frames) {
      const std::string file = py::str(f.attr("filename"));
      if (file.find("/glassbox/") != std::string::npos || file.starts_with("<frozen")) continue;
      if (!out.empty()) out += "\n";
      out += file + ":" + std::string(py::str(f.attr("lineno"))) + " in " + std::string(py::str(f.attr("name")));
    }
    return out;
  } catch (const py::error_already_set&) {
    return {};
  }
}

py::dict tensor_info(const profiler::TensorInfo& t) {
  py::dict d;
  d["shape"] = std::vector<int64_t>(t.sizes.begin(), t.sizes.end());
  d["dtype"] = std::string(to_string(t.dtype));
  d["device"] = t.device.to_string();
  d["keys"] = t.keys.to_string();
  return d;
}

py::dict hop_info(const profiler::Hop& h) {
  py::dict d;
  d["step"] = h.redispatch ? "redispatch" : "call";
  d["key"] = std::string(to_string(h.key));
  d["dispatched_on"] = h.keys.to_string();
  d["provenance"] = h.provenance;
  d["registered_at"] = h.registered_at;
  return d;
}

class RecordScope {
 public:
  explicit RecordScope(std::string name) : name_(std::move(name)) {}
  void enter() { scope_ = std::make_unique<profiler::RecordFunction>(name_); }
  void exit() { scope_.reset(); }

 private:
  std::string name_;
  std::unique_ptr<profiler::RecordFunction> scope_;
};

}  // namespace

void bind_profiler(py::module_& m) {
  py::module_ p = m.def_submodule("_profiler", "the profiler's sessions and events (see glassbox.profiler)");
  profiler::set_stack_provider(&python_stack);

  py::class_<profiler::Event>(p, "Event")
      .def_property_readonly("kind", [](const profiler::Event& e) { return std::string(profiler::to_string(e.kind)); })
      .def_readonly("name", &profiler::Event::name)
      .def_readonly("id", &profiler::Event::id)
      .def_readonly("parent", &profiler::Event::parent)
      .def_readonly("thread", &profiler::Event::thread)
      .def_readonly("depth", &profiler::Event::depth)
      .def_readonly("start_ns", &profiler::Event::start_ns)
      .def_readonly("end_ns", &profiler::Event::end_ns)
      .def_property_readonly(
          "inputs",
          [](const profiler::Event& e) {
    py::list out;
    for (const auto& t : e.inputs) out.append(tensor_info(t));
    return out;
          })
      .def_property_readonly(
          "hops",
          [](const profiler::Event& e) {
    py::list out;
    for (const auto& h : e.hops) out.append(hop_info(h));
    return out;
          })
      .def_property_readonly("tls_included", [](const profiler::Event& e) { return e.local_included.to_string(); })
      .def_property_readonly("tls_excluded", [](const profiler::Event& e) { return e.local_excluded.to_string(); })
      .def_readonly("bytes_allocated", &profiler::Event::bytes_allocated)
      .def_readonly("bytes_freed", &profiler::Event::bytes_freed)
      .def_readonly("stack", &profiler::Event::stack)
      .def_readonly("device_index", &profiler::Event::device_index)
      .def_readonly("detail", &profiler::Event::detail);

  p.def(
      "start",
      [](bool record_shapes, bool profile_memory, bool with_stack, bool cuda) {
    profiler::start(profiler::Options{record_shapes, profile_memory, with_stack, cuda});
      },
      py::arg("record_shapes") = false, py::arg("profile_memory") = false, py::arg("with_stack") = false,
      py::arg("cuda") = false);
  p.def("stop", &profiler::stop, "ends the session; its events in order of start time");
  p.def("active", &profiler::active);
  p.def("cuda_unavailable_reason", &profiler::gpu_unavailable_reason,
        "empty when CUDA activity can be recorded here; else why not");
  p.def("chrome_trace", &profiler::chrome_trace, py::arg("events"));

  py::class_<RecordScope>(p, "RecordScope")
      .def(py::init<std::string>(), py::arg("name"))
      .def("enter", &RecordScope::enter)
      .def("exit", &RecordScope::exit);
}
