${banner}
// The typed handles of operator ${base}: each finds its operator once, on first use, and calls
// (or redispatches) through the dispatcher.
#include "glassbox/ops/${base}.h"
#include "registry/dispatcher.h"

namespace glassbox::ops {
${definitions}
}  // namespace glassbox::ops
