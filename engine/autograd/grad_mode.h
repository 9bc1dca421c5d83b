#pragma once
// Grad mode: whether operations record the autograd graph on this thread. Turning it off
// excludes the Autograd dispatch keys, so calls go straight to the backend kernels (and cost
// nothing extra), as no_grad does in PyTorch.
#include "engine/core/local_dispatch_key_set.h"

namespace glassbox::autograd {

inline constexpr DispatchKeySet kAutogradKeys{DispatchKey::AutogradCPU, DispatchKey::AutogradCUDA};

inline bool is_grad_enabled() { return !(local_dispatch_key_set().excluded & kAutogradKeys).bits(); }
void set_grad_enabled(bool enabled);

// RAII: sets grad mode for the scope and restores the previous mode after it.
class GradModeGuard {
 public:
  explicit GradModeGuard(bool enabled) : previous_(is_grad_enabled()) { set_grad_enabled(enabled); }
  ~GradModeGuard() { set_grad_enabled(previous_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  bool previous_;
};

struct NoGradGuard : GradModeGuard {
  NoGradGuard() : GradModeGuard(false) {}
};
struct EnableGradGuard : GradModeGuard {
  EnableGradGuard() : GradModeGuard(true) {}
};

}  // namespace glassbox::autograd
