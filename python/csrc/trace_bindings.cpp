// gb.trace() from C++: a DispatchTraceCapture started and stopped from Python. Captures belong to
// the thread that started them and nest; they must stop in the reverse order they started (a
// DispatchTraceCapture links to the one it interrupts), which this file checks.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <thread>
#include <tuple>
#include <vector>

#include "registry/dispatch_trace.h"
#include "registry/dispatch_trace_quiet.h"
#include "registry/dispatcher.h"

namespace py = pybind11;
using namespace glassbox;

namespace {

class TraceCapture;
thread_local std::vector<const TraceCapture*> t_started;  // innermost last

class TraceCapture {
 public:
  TraceCapture() = default;
  TraceCapture(const TraceCapture&) = delete;
  TraceCapture& operator=(const TraceCapture&) = delete;
  // Dropped while still capturing: stop if it is the innermost capture of this thread; otherwise
  // leave the C++ capture in place, since ending it out of order would unlink the inner ones.
  ~TraceCapture() {
    if (!capture_) return;
    const bool same_thread = std::this_thread::get_id() == thread_;
    if (same_thread && !t_started.empty() && t_started.back() == this) {
      t_started.pop_back();
      capture_.reset();
    } else {
      (void)capture_.release();
    }
    if (same_thread) quiet_.reset();  // a per-thread count: safe to end in any order
    else (void)quiet_.release();
  }
  void start() {
    if (capture_) throw Error("this gb.trace() is already capturing");
    if (stopped_) throw Error("a gb.trace() captures once; make a new one");
    thread_ = std::this_thread::get_id();
    quiet_ = std::make_unique<QuietDispatchTrace>();
    capture_ = std::make_unique<DispatchTraceCapture>();
    t_started.push_back(this);
  }
  void stop() {
    if (!capture_) throw Error("this gb.trace() is not capturing");
    if (std::this_thread::get_id() != thread_)
      throw Error("a gb.trace() must end on the thread that started it (captures are per thread)");
    if (t_started.empty() || t_started.back() != this)
      throw Error("gb.trace() blocks must end in the reverse order they started (an inner one is still open)");
    t_started.pop_back();
    events_ = capture_->events();
    capture_.reset();
    quiet_.reset();
    stopped_ = true;
  }
  bool active() const { return static_cast<bool>(capture_); }
  const std::vector<DispatchTraceEvent>& events() const { return capture_ ? capture_->events() : events_; }

 private:
  std::unique_ptr<QuietDispatchTrace> quiet_;  // the thread prints nothing while capturing
  std::unique_ptr<DispatchTraceCapture> capture_;
  std::vector<DispatchTraceEvent> events_;
  std::thread::id thread_;
  bool stopped_ = false;
};

// (provenance, key registered under, file:line) of the kernel in op's table slot for key now.
py::tuple slot_of(const std::string& op, const std::string& key) {
  std::optional<OperatorHandle> h = Dispatcher::singleton().find_op(OperatorName::parse(op));
  const DispatchKey k = dispatch_key_from_string(key);
  if (h) {
    for (const SlotInfo& s : Dispatcher::singleton().info(*h).table) {
      if (s.key == k)
        return py::make_tuple(std::string(to_string(s.provenance)), std::string(to_string(s.source_key)), s.debug);
    }
  }
  return py::make_tuple("missing", "Undefined", "");
}

}  // namespace

void bind_trace(py::module_& m) {
  py::module_ t = m.def_submodule("_trace", "capturing the dispatch trace of a block");
  py::class_<TraceCapture>(t, "Capture")
      .def(py::init<>())
      .def("start", &TraceCapture::start)
      .def("stop", &TraceCapture::stop)
      .def_property_readonly("active", &TraceCapture::active)
      .def(
          "events",
          [](const TraceCapture& c) {
    // (kind, op, key, depth) per event, in call order.
    py::list out;
    for (const DispatchTraceEvent& e : c.events())
      out.append(py::make_tuple(e.kind == DispatchTraceEvent::Kind::Call ? "call" : "redispatch", e.op,
                                std::string(to_string(e.key)), e.depth));
    return out;
          })
      .def("text", [](const TraceCapture& c) {
        std::string out;
        for (const DispatchTraceEvent& e : c.events()) out += e.to_string() + "\n";
        return out;
      });
  t.def("slot", &slot_of, py::arg("op"), py::arg("key"));
}
