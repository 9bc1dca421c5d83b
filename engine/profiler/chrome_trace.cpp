// The profiler's events as Chrome's trace-event JSON ("X" complete events, "i" instants), which
// Perfetto and chrome://tracing open. CPU events go under process 0, one row per thread; GPU
// events under process 1, one row per device. Every field of an event is kept under "args".
#include <string>

#include "engine/profiler/profiler.h"
#include "registry/json_writer.h"

namespace glassbox::profiler {

namespace {

void write_sizes(JsonWriter& w, const DimVector& sizes) {
  w.begin_array();
  for (int64_t s : sizes) w.value(s);
  w.end_array();
}

void write_args(JsonWriter& w, const Event& e) {
  w.key("args").begin_object();
  w.field("id", static_cast<int64_t>(e.id));
  if (e.parent) w.field(e.kind >= Event::Kind::GpuKernel ? "launched_by" : "parent", static_cast<int64_t>(e.parent));
  if (e.kind == Event::Kind::Operator) {
    w.key("hops").begin_array();
    for (const Hop& h : e.hops) {
      w.begin_object();
      w.field("step", h.redispatch ? "redispatch" : "call");
      w.field("key", std::string(to_string(h.key)));
      w.field("dispatched_on", h.keys.to_string());
      if (!h.provenance.empty()) w.field("provenance", h.provenance);
      if (!h.registered_at.empty()) w.field("registered_at", h.registered_at);
      w.end_object();
    }
    w.end_array();
    w.field("tls_included", e.local_included.to_string());
    w.field("tls_excluded", e.local_excluded.to_string());
    if (!e.inputs.empty()) {
      w.key("input_shapes").begin_array();
      for (const TensorInfo& t : e.inputs) write_sizes(w, t.sizes);
      w.end_array();
      w.key("input_dtypes").begin_array();
      for (const TensorInfo& t : e.inputs) w.value(std::string(to_string(t.dtype)));
      w.end_array();
      w.key("input_key_sets").begin_array();
      for (const TensorInfo& t : e.inputs) w.value(t.keys.to_string());
      w.end_array();
    }
  }
  if (e.bytes_allocated) w.field("bytes_allocated", e.bytes_allocated);
  if (e.bytes_freed) w.field("bytes_freed", e.bytes_freed);
  if (!e.stack.empty()) w.field("stack", e.stack);
  if (e.device_index >= 0) w.field("device", e.device_index);
  if (!e.detail.empty()) w.field("detail", e.detail);
  w.end_object();
}

}  // namespace

std::string chrome_trace(const std::vector<Event>& events) {
  int64_t origin = 0;
  for (const Event& e : events) origin = origin == 0 ? e.start_ns : std::min(origin, e.start_ns);
  JsonWriter w(0);
  w.begin_object();
  w.key("traceEvents").begin_array();
  w.begin_object().field("name", "process_name").field("ph", "M").field("pid", 0).key("args").begin_object();
  w.field("name", "CPU").end_object().end_object();
  w.begin_object().field("name", "process_name").field("ph", "M").field("pid", 1).key("args").begin_object();
  w.field("name", "GPU").end_object().end_object();
  for (const Event& e : events) {
    const bool gpu = e.kind >= Event::Kind::GpuKernel;
    w.begin_object();
    w.field("name", e.name);
    w.field("cat", std::string(to_string(e.kind)));
    w.field("ph", e.kind == Event::Kind::Memory ? "i" : "X");
    if (e.kind == Event::Kind::Memory) w.field("s", "t");
    w.field("pid", gpu ? 1 : 0);
    w.field("tid", gpu ? static_cast<int64_t>(e.device_index) : static_cast<int64_t>(e.thread));
    w.field("ts", static_cast<double>(e.start_ns - origin) / 1000.0);
    if (e.kind != Event::Kind::Memory) w.field("dur", static_cast<double>(e.end_ns - e.start_ns) / 1000.0);
    write_args(w, e);
    w.end_object();
  }
  w.end_array();
  w.field("displayTimeUnit", "ms");
  w.end_object();
  return w.str();
}

}  // namespace glassbox::profiler
