// Fallbacks every glassbox process starts with.
#include "registry/library.h"

// Autograd keys are transparent for operators without an autograd kernel: a call on a tensor
// that carries AutogradCPU goes straight on to its CPU kernel.
GLASSBOX_LIBRARY_IMPL(_, AutogradCPU, m) { m.fallback(glassbox::fallthrough_kernel()); }
GLASSBOX_LIBRARY_IMPL(_, AutogradCUDA, m) { m.fallback(glassbox::fallthrough_kernel()); }
