${banner}
// The definitions of the methods TensorMethods.inc declares: each calls its operator.
#include "engine/core/tensor.h"
${includes}

namespace glassbox {
${definitions}
}  // namespace glassbox
