#include "registry/dispatch_trace.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "registry/debugger_hooks.h"
#include "registry/dispatch_trace_quiet.h"

namespace glassbox {

namespace detail {
std::atomic<bool> dispatch_trace_active{false};
std::atomic<bool> dispatch_debugger_hook{false};
}  // namespace detail

namespace {
std::atomic<bool> g_print_enabled{false};
std::atomic<int> g_active_captures{0};
std::atomic<DispatchObserver*> g_observer{nullptr};
thread_local int t_depth = 0;
thread_local DispatchTraceCapture* t_capture = nullptr;
thread_local int t_quiet = 0;  // live QuietDispatchTrace objects on this thread

void update_active() {
  detail::dispatch_trace_active.store(g_print_enabled.load() || g_active_captures.load() > 0 ||
                                          detail::dispatch_debugger_hook.load() || g_observer.load() != nullptr,
                                      std::memory_order_relaxed);
}

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

// GLASSBOX_DISPATCH_TRACE=1 (or any value but 0/empty) turns printing on when the library loads;
// GLASSBOX_DISPATCH_DEBUGGER=1 (set by the gdb helpers) turns on the debugger hook.
const bool g_env_checked = [] {
  if (env_flag("GLASSBOX_DISPATCH_DEBUGGER")) detail::dispatch_debugger_hook.store(true);
  if (env_flag("GLASSBOX_DISPATCH_TRACE")) set_dispatch_trace(true);
  update_active();
  return true;
}();
}  // namespace

std::string DispatchTraceEvent::to_string() const {
  std::string out(static_cast<size_t>(depth) * 2, ' ');
  out += kind == Kind::Call ? "[call] op=[" : "[redispatch] op=[";
  out += op;
  out += "] key=[";
  out += glassbox::to_string(key);
  out += "]";
  return out;
}

void set_dispatch_observer(DispatchObserver* observer) {
  g_observer.store(observer);
  update_active();
}

void set_dispatch_trace(bool on) {
  g_print_enabled.store(on);
  update_active();
}
bool dispatch_trace_enabled() { return g_print_enabled.load(); }

DispatchTraceCapture::DispatchTraceCapture() : outer_(t_capture) {
  t_capture = this;
  g_active_captures.fetch_add(1);
  update_active();
}
DispatchTraceCapture::~DispatchTraceCapture() {
  t_capture = outer_;
  g_active_captures.fetch_sub(1);
  update_active();
}
std::string DispatchTraceCapture::to_string() const {
  std::string out;
  for (const auto& e : events_) out += e.to_string() + "\n";
  return out;
}

QuietDispatchTrace::QuietDispatchTrace() { ++t_quiet; }
QuietDispatchTrace::~QuietDispatchTrace() { --t_quiet; }

DispatchTraceScope::DispatchTraceScope(DispatchTraceEvent::Kind kind, const OperatorName& op, DispatchKeySet keys,
                                       const KernelFunction& kernel, std::span<const Tensor* const> inputs)
    : observer_(g_observer.load(std::memory_order_acquire)) {
  if (detail::dispatch_debugger_hook.load(std::memory_order_relaxed)) detail::dispatch_event(&op, keys, &kernel);
  const bool print = g_print_enabled.load(std::memory_order_relaxed) && t_quiet == 0;
  if (print || t_capture) {
    DispatchTraceEvent e{kind, op.full(), keys.highest_priority_key(), t_depth};
    if (print) std::fprintf(stderr, "%s\n", e.to_string().c_str());
    for (DispatchTraceCapture* c = t_capture; c; c = c->outer_) c->events_.push_back(e);
  }
  ++t_depth;
  if (observer_) observer_->enter(kind, op, keys, inputs);
}
DispatchTraceScope::~DispatchTraceScope() {
  --t_depth;
  if (observer_) observer_->leave();
}

}  // namespace glassbox
