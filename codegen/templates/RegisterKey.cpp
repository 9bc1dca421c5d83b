${banner}
// The ${key} kernels of the operators, in ops.yaml order.
${includes}
#include "registry/library.h"

namespace glassbox {

GLASSBOX_LIBRARY_IMPL(glassbox, ${key}, m) {
${registrations}
}

}  // namespace glassbox
