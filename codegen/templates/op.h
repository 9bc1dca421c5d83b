${banner}
#pragma once
// Operator ${base}: the typed handle of each overload (glassbox::ops) and the C++ functions that
// call them (glassbox). The kernels are declared in glassbox/ops/native/${base}.h.
#include "engine/core/dispatch_key_set.h"
#include "engine/core/tensor.h"
#include "glassbox/ops/Types.h"

namespace glassbox::ops {
${structs}
}  // namespace glassbox::ops
${functions}
