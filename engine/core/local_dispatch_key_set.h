#pragma once
// Thread-local keys every call on this thread adds (included) or skips (excluded): how
// no_grad turns autograd off and how a tracing scope turns the Trace key on.
#include "engine/core/dispatch_key_set.h"

namespace glassbox {

struct LocalDispatchKeySet {
  DispatchKeySet included;
  DispatchKeySet excluded;
};

namespace detail {
// initial-exec: a call reads this with one instruction instead of a __tls_get_addr call.
extern constinit thread_local LocalDispatchKeySet tls_local_dispatch_key_set __attribute__((tls_model("initial-exec")));
}  // namespace detail

inline const LocalDispatchKeySet& local_dispatch_key_set() { return detail::tls_local_dispatch_key_set; }

// RAII: adds keys to this thread's included set for the scope.
class IncludeDispatchKeyGuard {
 public:
  explicit IncludeDispatchKeyGuard(DispatchKeySet keys);
  explicit IncludeDispatchKeyGuard(DispatchKey key) : IncludeDispatchKeyGuard(DispatchKeySet(key)) {}
  ~IncludeDispatchKeyGuard();
  IncludeDispatchKeyGuard(const IncludeDispatchKeyGuard&) = delete;
  IncludeDispatchKeyGuard& operator=(const IncludeDispatchKeyGuard&) = delete;

 private:
  DispatchKeySet saved_;
};

// RAII: adds keys to this thread's excluded set for the scope.
class ExcludeDispatchKeyGuard {
 public:
  explicit ExcludeDispatchKeyGuard(DispatchKeySet keys);
  explicit ExcludeDispatchKeyGuard(DispatchKey key) : ExcludeDispatchKeyGuard(DispatchKeySet(key)) {}
  ~ExcludeDispatchKeyGuard();
  ExcludeDispatchKeyGuard(const ExcludeDispatchKeyGuard&) = delete;
  ExcludeDispatchKeyGuard& operator=(const ExcludeDispatchKeyGuard&) = delete;

 private:
  DispatchKeySet saved_;
};

}  // namespace glassbox
