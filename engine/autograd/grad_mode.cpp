#include "engine/autograd/grad_mode.h"

namespace glassbox::autograd {

void set_grad_enabled(bool enabled) {
  LocalDispatchKeySet& local = glassbox::detail::tls_local_dispatch_key_set;
  local.excluded = enabled ? local.excluded - kAutogradKeys : local.excluded | kAutogradKeys;
}

}  // namespace glassbox::autograd
