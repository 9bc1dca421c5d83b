#pragma once
// The dispatch trace: one line per call and redispatch, nested by depth, e.g.
//   [call] op=[glassbox::add.Tensor] key=[AutogradCPU]
//     [redispatch] op=[glassbox::add.Tensor] key=[CPU]
// On with GLASSBOX_DISPATCH_TRACE=1 or set_dispatch_trace(true) (printed to stderr), or captured
// per thread by a DispatchTraceCapture. When neither is on, a call pays one relaxed load.
#include <atomic>
#include <span>
#include <string>
#include <vector>

#include "engine/core/dispatch_key_set.h"
#include "registry/operator_name.h"

namespace glassbox {

struct DispatchTraceEvent {
  enum class Kind : uint8_t { Call, Redispatch };
  Kind kind;
  std::string op;  // "ns::name.overload"
  DispatchKey key;
  int depth;  // 0 for a call made outside any kernel

  // "[call] op=[ns::op.overload] key=[CPU]", indented two spaces per depth.
  std::string to_string() const;
};

class KernelFunction;
class Tensor;

// Watches every dispatch while installed (the profiler): enter() before the kernel runs, leave()
// after it returns or throws. `inputs` are the call's tensor arguments, valid during enter() only.
class DispatchObserver {
 public:
  virtual ~DispatchObserver() = default;
  virtual void enter(DispatchTraceEvent::Kind kind, const OperatorName& op, DispatchKeySet keys,
                     std::span<const Tensor* const> inputs) = 0;
  virtual void leave() = 0;
};
// One observer at a time; null removes it. Calls take the traced (slow) path while one is set.
void set_dispatch_observer(DispatchObserver* observer);

namespace detail {
extern std::atomic<bool> dispatch_trace_active;
// Set from a debugger (scripts/gdb: gb-break-dispatch) to route every call through
// DispatchTraceScope, where a breakpoint sees the operator, the key set and the kernel.
extern std::atomic<bool> dispatch_debugger_hook;
}  // namespace detail

inline bool dispatch_trace_active() { return detail::dispatch_trace_active.load(std::memory_order_relaxed); }

// Printing to stderr (what GLASSBOX_DISPATCH_TRACE=1 turns on at load).
void set_dispatch_trace(bool on);
bool dispatch_trace_enabled();

// Collects the events of calls made on this thread while it lives (nested captures see all).
class DispatchTraceCapture {
 public:
  DispatchTraceCapture();
  ~DispatchTraceCapture();
  DispatchTraceCapture(const DispatchTraceCapture&) = delete;
  DispatchTraceCapture& operator=(const DispatchTraceCapture&) = delete;

  const std::vector<DispatchTraceEvent>& events() const { return events_; }
  std::string to_string() const;  // the events as trace lines

 private:
  friend class DispatchTraceScope;
  std::vector<DispatchTraceEvent> events_;
  DispatchTraceCapture* outer_;
};

// Emits one event and deepens the nesting for the duration of the kernel call.
class DispatchTraceScope {
 public:
  // keys: what the call dispatched on (its highest key picked `kernel`).
  DispatchTraceScope(DispatchTraceEvent::Kind kind, const OperatorName& op, DispatchKeySet keys,
                     const KernelFunction& kernel, std::span<const Tensor* const> inputs = {});
  ~DispatchTraceScope();
  DispatchTraceScope(const DispatchTraceScope&) = delete;
  DispatchTraceScope& operator=(const DispatchTraceScope&) = delete;

 private:
  DispatchObserver* observer_;
};

}  // namespace glassbox
