#include "engine/profiler/profiler.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>

#include "engine/core/error.h"
#include "engine/core/local_dispatch_key_set.h"
#include "engine/core/memory_observer.h"
#include "engine/core/tensor.h"
#include "registry/dispatch_trace.h"
#include "registry/dispatcher.h"

namespace glassbox::profiler {

namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One thread's events in one session. Its own lock: stop() reads it while the thread may still run.
struct ThreadBuffer {
  std::mutex mutex;
  uint64_t thread = 0;
  std::vector<Event> events;
  std::vector<OperatorName> op_names;  // per event (operators), for the registry lookup at stop
  std::vector<size_t> open;            // open operator and scope events, innermost last
  // One entry per DispatchTraceScope entered: the event it opened, or kHop for a hop appended.
  std::vector<size_t> scopes;
};
constexpr size_t kHop = static_cast<size_t>(-1);

struct Session {
  Options options;
  uint64_t generation = 0;
  GpuActivitySource* gpu = nullptr;
  std::mutex mutex;
  std::vector<std::shared_ptr<ThreadBuffer>> buffers;
};

std::mutex g_start_stop;
std::shared_ptr<Session> g_session;       // owned here while running
std::atomic<Session*> g_active{nullptr};  // what the hooks read
std::atomic<uint64_t> g_generation{0};
std::atomic<uint64_t> g_next_id{1};
std::atomic<uint64_t> g_next_thread{1};
std::atomic<StackProvider> g_stack_provider{nullptr};
std::atomic<GpuActivitySource*> g_gpu_source{nullptr};

struct ThreadState {
  uint64_t generation = 0;
  std::shared_ptr<ThreadBuffer> buffer;
  uint64_t number = 0;
};
thread_local ThreadState t_state;

ThreadBuffer& buffer_of(Session& s) {
  if (t_state.generation != s.generation) {
    if (t_state.number == 0) t_state.number = g_next_thread.fetch_add(1);
    auto buffer = std::make_shared<ThreadBuffer>();
    buffer->thread = t_state.number;
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      s.buffers.push_back(buffer);
    }
    t_state.buffer = std::move(buffer);
    t_state.generation = s.generation;
  }
  return *t_state.buffer;
}

// Opens an operator or scope event on this thread (buffer locked by the caller).
Event& open_event(ThreadBuffer& b, Event::Kind kind, std::string name) {
  Event e;
  e.kind = kind;
  e.name = std::move(name);
  e.id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  e.parent = b.open.empty() ? 0 : b.events[b.open.back()].id;
  e.thread = b.thread;
  e.depth = static_cast<int>(b.open.size());
  b.open.push_back(b.events.size());
  b.events.push_back(std::move(e));
  b.op_names.emplace_back();
  return b.events.back();
}

void close_event(Session& s, ThreadBuffer& b, size_t index) {
  b.events[index].end_ns = now_ns();
  if (!b.open.empty() && b.open.back() == index) b.open.pop_back();
  if (s.gpu && b.events[index].kind == Event::Kind::Operator) s.gpu->pop_operator();
}

class Observer final : public DispatchObserver {
 public:
  void enter(DispatchTraceEvent::Kind kind, const OperatorName& op, DispatchKeySet keys,
             std::span<const Tensor* const> inputs) override {
    Session* s = g_active.load(std::memory_order_acquire);
    if (!s) return;
    ThreadBuffer& b = buffer_of(*s);
    std::string stack;
    const bool top_level = b.open.empty();
    if (s->options.with_stack && top_level && kind == DispatchTraceEvent::Kind::Call)
      if (StackProvider provider = g_stack_provider.load()) stack = provider();
    std::lock_guard<std::mutex> lock(b.mutex);
    const Hop hop{kind == DispatchTraceEvent::Kind::Redispatch, keys, keys.highest_priority_key(), {}, {}};
    // A redispatch continues the call it came from: one more hop of the same operator event.
    if (hop.redispatch && !b.open.empty()) {
      Event& top = b.events[b.open.back()];
      if (top.kind == Event::Kind::Operator && b.op_names[b.open.back()] == op) {
        top.hops.push_back(hop);
        b.scopes.push_back(kHop);
        return;
      }
    }
    Event& e = open_event(b, Event::Kind::Operator, op.full());
    b.op_names.back() = op;
    e.hops.push_back(hop);
    const LocalDispatchKeySet& local = local_dispatch_key_set();
    e.local_included = local.included;
    e.local_excluded = local.excluded;
    if (s->options.record_shapes) {
      e.inputs.reserve(inputs.size());
      for (const Tensor* t : inputs)
        if (t && t->defined()) e.inputs.push_back(TensorInfo{t->sizes(), t->dtype(), t->device(), t->key_set()});
    }
    e.stack = std::move(stack);
    b.scopes.push_back(b.events.size() - 1);
    if (s->gpu) s->gpu->push_operator(e.id);
    e.start_ns = now_ns();  // last, so the bookkeeping above is not the operator's time
  }

  void leave() override {
    Session* s = g_active.load(std::memory_order_acquire);
    if (!s || t_state.generation != s->generation) return;
    ThreadBuffer& b = *t_state.buffer;
    std::lock_guard<std::mutex> lock(b.mutex);
    if (b.scopes.empty()) return;  // entered before the session started
    const size_t index = b.scopes.back();
    b.scopes.pop_back();
    if (index != kHop) close_event(*s, b, index);
  }
};
Observer g_observer;

void on_memory(int64_t delta, Device device) {
  Session* s = g_active.load(std::memory_order_acquire);
  if (!s || !s->options.profile_memory) return;
  ThreadBuffer& b = buffer_of(*s);
  std::lock_guard<std::mutex> lock(b.mutex);
  if (b.open.empty()) {  // outside any event: an instant of its own
    Event e;
    e.kind = Event::Kind::Memory;
    e.name = "[memory]";
    e.id = g_next_id.fetch_add(1, std::memory_order_relaxed);
    e.thread = b.thread;
    e.start_ns = e.end_ns = now_ns();
    e.device_index = device.index;
    (delta > 0 ? e.bytes_allocated : e.bytes_freed) = delta > 0 ? delta : -delta;
    b.events.push_back(std::move(e));
    b.op_names.emplace_back();
    return;
  }
  Event& e = b.events[b.open.back()];
  if (delta > 0) e.bytes_allocated += delta;
  else e.bytes_freed -= delta;
}

// Why each hop's slot holds its kernel, and where it was registered, from the registry.
void describe_hops(std::vector<Event>& events, const std::vector<OperatorName>& names) {
  std::map<std::string, OperatorInfo> infos;
  for (size_t i = 0; i < events.size(); ++i) {
    Event& e = events[i];
    if (e.kind != Event::Kind::Operator || e.hops.empty()) continue;
    auto it = infos.find(e.name);
    if (it == infos.end()) {
      std::optional<OperatorHandle> op = Dispatcher::singleton().find_op(names[i]);
      it = infos.emplace(e.name, op ? Dispatcher::singleton().info(*op) : OperatorInfo{}).first;
    }
    for (Hop& hop : e.hops) {
      for (const SlotInfo& slot : it->second.table) {
        if (slot.key != hop.key) continue;
        hop.provenance = std::string(to_string(slot.provenance));
        hop.registered_at = slot.debug;
      }
    }
  }
}

}  // namespace

void start(const Options& options) {
  std::lock_guard<std::mutex> lock(g_start_stop);
  if (g_session) throw Error("profiler: a profiling session is already running; stop it first");
  auto s = std::make_shared<Session>();
  s->options = options;
  s->generation = g_generation.fetch_add(1) + 1;
  if (options.gpu) {
    const std::string why = gpu_unavailable_reason();
    if (!why.empty()) throw Error("profiler: CUDA activity cannot be recorded: " + why);
    s->gpu = g_gpu_source.load();
    s->gpu->start();
  }
  g_session = s;
  g_active.store(s.get(), std::memory_order_release);
  set_dispatch_observer(&g_observer);
  if (options.profile_memory) set_memory_observer(&on_memory);
}

std::vector<Event> stop() {
  std::shared_ptr<Session> s;
  {
    std::lock_guard<std::mutex> lock(g_start_stop);
    if (!g_session) throw Error("profiler: no profiling session is running");
    s = std::move(g_session);
    g_active.store(nullptr, std::memory_order_release);
    set_dispatch_observer(nullptr);
    set_memory_observer(nullptr);
  }
  const int64_t end = now_ns();
  std::vector<Event> events;
  std::vector<OperatorName> names;
  {
    std::lock_guard<std::mutex> lock(s->mutex);
    for (const auto& b : s->buffers) {
      std::lock_guard<std::mutex> buffer_lock(b->mutex);
      for (size_t index : b->open) b->events[index].end_ns = end;  // still open: cut at the stop
      events.insert(events.end(), std::make_move_iterator(b->events.begin()), std::make_move_iterator(b->events.end()));
      names.insert(names.end(), b->op_names.begin(), b->op_names.end());
    }
  }
  describe_hops(events, names);
  if (s->gpu) {
    std::vector<Event> gpu = s->gpu->stop();
    for (Event& e : gpu) e.id = g_next_id.fetch_add(1, std::memory_order_relaxed);
    events.insert(events.end(), std::make_move_iterator(gpu.begin()), std::make_move_iterator(gpu.end()));
  }
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.depth < b.depth;
  });
  return events;
}

bool active() { return g_active.load(std::memory_order_acquire) != nullptr; }

RecordFunction::RecordFunction(std::string name) : open_(false) {
  Session* s = g_active.load(std::memory_order_acquire);
  if (!s || name.empty()) return;
  ThreadBuffer& b = buffer_of(*s);
  std::lock_guard<std::mutex> lock(b.mutex);
  Event& e = open_event(b, Event::Kind::Scope, std::move(name));
  b.scopes.push_back(b.events.size() - 1);
  e.start_ns = now_ns();
  open_ = true;
}

RecordFunction::~RecordFunction() {
  if (open_) g_observer.leave();
}

void set_stack_provider(StackProvider provider) { g_stack_provider.store(provider); }

void register_gpu_activity_source(GpuActivitySource* source) { g_gpu_source.store(source); }

std::string gpu_unavailable_reason() {
  GpuActivitySource* source = g_gpu_source.load();
  if (!source) return "this build has no CUDA activity source (glassbox_cuda with CUPTI is not loaded)";
  return source->unavailable_reason();
}

std::string_view to_string(Event::Kind kind) {
  switch (kind) {
    case Event::Kind::Operator: return "operator";
    case Event::Kind::Scope: return "user_annotation";
    case Event::Kind::Memory: return "memory";
    case Event::Kind::GpuKernel: return "kernel";
    case Event::Kind::GpuMemcpy: return "gpu_memcpy";
    case Event::Kind::GpuMemset: return "gpu_memset";
  }
  return "?";
}

}  // namespace glassbox::profiler
