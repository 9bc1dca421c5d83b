#pragma once
// The profiler: where a program's time and memory go, operator by operator, and why each call went
// where it did. While a session runs, every dispatch takes the dispatcher's traced path, which
// tells the profiler each call and redispatch (the key it picked, the key set it dispatched on, each
// tensor argument's key set, the thread's included/excluded keys); storages report their bytes;
// RecordFunction scopes add the user's own ranges; a GPU activity source (CUPTI, in glassbox_cuda)
// adds every kernel, memcpy and memset with its device time, correlated to the operator that
// launched it. Nothing of this costs anything while no session runs: the dispatcher pays the one
// relaxed load it pays for the dispatch trace.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/device.h"
#include "engine/core/dim_vector.h"
#include "engine/core/dispatch_key_set.h"
#include "engine/core/scalar_type.h"

namespace glassbox::profiler {

struct TensorInfo {
  DimVector sizes;
  ScalarType dtype = ScalarType::Float32;
  Device device;
  DispatchKeySet keys;  // the tensor's own key set
};

// One step of an operator call through the dispatch table: the call itself, then each redispatch.
struct Hop {
  bool redispatch = false;
  DispatchKeySet keys;  // what the step dispatched on (after the thread's keys and fallthroughs)
  DispatchKey key;      // the highest of them: the kernel that ran
  // From the registry when the session stops: why the slot holds that kernel, and where it was
  // registered ("kernel", "math kernel", "backend fallback", ...; "file:line").
  std::string provenance;
  std::string registered_at;
};

struct Event {
  // Memory: bytes allocated or freed outside any operator or scope (an instant, start == end).
  enum class Kind : uint8_t { Operator, Scope, Memory, GpuKernel, GpuMemcpy, GpuMemset };
  Kind kind = Kind::Operator;
  std::string name;  // "glassbox::add.Tensor", a scope's name, a GPU kernel's name
  uint64_t id = 0;
  uint64_t parent = 0;  // the enclosing operator or scope on the same thread (0: none); for GPU
                        // events, the operator that launched them
  uint64_t thread = 0;  // a small number per thread, in order of first event
  int depth = 0;
  int64_t start_ns = 0, end_ns = 0;  // on one clock (steady_clock), GPU events converted to it
  // Operators: the first hop's arguments and the thread's keys, and every hop.
  std::vector<TensorInfo> inputs;  // when record_shapes
  DispatchKeySet local_included, local_excluded;
  std::vector<Hop> hops;
  // Bytes of storage this event itself (not a nested one) allocated and freed, when profile_memory.
  int64_t bytes_allocated = 0, bytes_freed = 0;
  std::string stack;      // when with_stack: where the program made the call (set by the Python layer)
  int device_index = -1;  // GPU events
  std::string detail;     // GPU events: grid/block or bytes and kinds
};

struct Options {
  bool record_shapes = false;
  bool profile_memory = false;
  bool with_stack = false;
  bool gpu = false;  // ask the GPU activity source (an error if none is registered and usable)
};

// Starts a session (one at a time; an error if one runs) and stops it, returning its events in
// order of start time.
void start(const Options& options);
std::vector<Event> stop();
bool active();

// The user's own range, nested like an operator: gb.profiler.record_function("name"). Outside a
// session, or with an empty name, it records nothing.
class RecordFunction {
 public:
  explicit RecordFunction(std::string name);
  ~RecordFunction();
  RecordFunction(const RecordFunction&) = delete;
  RecordFunction& operator=(const RecordFunction&) = delete;

 private:
  bool open_;
};

// The Python layer gives the profiler the current Python stack of a top-level call (with_stack).
using StackProvider = std::string (*)();
void set_stack_provider(StackProvider provider);

// What a GPU activity source does for a session (glassbox_cuda registers the CUPTI one at load).
class GpuActivitySource {
 public:
  virtual ~GpuActivitySource() = default;
  // Empty when it can run here; otherwise why not (no GPU, CUPTI missing, ...).
  virtual std::string unavailable_reason() = 0;
  virtual void start() = 0;
  // The operator event now open on this thread: activity launched meanwhile belongs to it.
  virtual void push_operator(uint64_t id) = 0;
  virtual void pop_operator() = 0;
  // Flushes and returns the session's GPU events, times on the steady clock, parents set.
  virtual std::vector<Event> stop() = 0;
};
void register_gpu_activity_source(GpuActivitySource* source);
// Empty when a GPU source can run here; else why not.
std::string gpu_unavailable_reason();

// Chrome's trace-event JSON (Perfetto and chrome://tracing load it): one complete event ("X") per
// event, with its fields under "args", and thread names.
std::string chrome_trace(const std::vector<Event>& events);

std::string_view to_string(Event::Kind kind);

}  // namespace glassbox::profiler
