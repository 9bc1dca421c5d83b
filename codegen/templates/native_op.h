${banner}
#pragma once
// The kernels of operator ${base}, in glassbox::native, with the C++ signature of their
// operator. A kernel's .cpp includes this header and defines them.
#include "engine/core/tensor.h"
#include "glassbox/ops/Types.h"

namespace glassbox::native {
${declarations}
}  // namespace glassbox::native
