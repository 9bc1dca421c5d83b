#include "registry/kernel_function.h"

namespace glassbox {

KernelFunction KernelFunction::from_boxed(BoxedKernel f) {
  KernelFunction k;
  k.fn_ = reinterpret_cast<detail::AnyFn>(f);
  k.boxed_ = [](const KernelFunction& self, const OperatorHandle& op, DispatchKeySet keys, Stack* stack) {
    reinterpret_cast<BoxedKernel>(self.fn_)(op, keys, stack);
  };
  return k;
}

KernelFunction KernelFunction::fallthrough() {
  KernelFunction k;
  k.boxed_ = &detail::fallthrough_boxed;
  return k;
}

}  // namespace glassbox
