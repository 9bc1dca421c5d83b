${banner}
// The Autograd-key kernels of autograd/<operator>.cpp, registered in one block in ops.yaml order:
// like Register<Key>.cpp, one place holds every registration of the key (a source scan parses one
// file, not one per operator), and it changes only when the set of kernels does.
#include "glassbox/ops/Functions.h"
#include "registry/library.h"

namespace glassbox {

namespace autograd_kernels {
${declarations}
}  // namespace autograd_kernels

GLASSBOX_LIBRARY_IMPL(glassbox, Autograd, m) {
${registrations}
}

}  // namespace glassbox
