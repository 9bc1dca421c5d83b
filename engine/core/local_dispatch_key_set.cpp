#include "engine/core/local_dispatch_key_set.h"

namespace glassbox {

namespace detail {
constinit thread_local LocalDispatchKeySet tls_local_dispatch_key_set __attribute__((tls_model("initial-exec")));
}  // namespace detail

IncludeDispatchKeyGuard::IncludeDispatchKeyGuard(DispatchKeySet keys)
    : saved_(detail::tls_local_dispatch_key_set.included) {
  detail::tls_local_dispatch_key_set.included = saved_ | keys;
}
IncludeDispatchKeyGuard::~IncludeDispatchKeyGuard() { detail::tls_local_dispatch_key_set.included = saved_; }

ExcludeDispatchKeyGuard::ExcludeDispatchKeyGuard(DispatchKeySet keys)
    : saved_(detail::tls_local_dispatch_key_set.excluded) {
  detail::tls_local_dispatch_key_set.excluded = saved_ | keys;
}
ExcludeDispatchKeyGuard::~ExcludeDispatchKeyGuard() { detail::tls_local_dispatch_key_set.excluded = saved_; }

}  // namespace glassbox
