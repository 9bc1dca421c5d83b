${banner}
// Autograd for operator ${base}: the backward nodes its formulas define (engine/ops/derivatives.yaml)
// and its kernels for the Autograd key, which record a node and redispatch below autograd.
#include "engine/autograd/generated_support.h"
#include "glassbox/ops/Functions.h"
#include "registry/library.h"

namespace glassbox {
namespace {
// Formulas call the helpers of engine/autograd/formulas.h unqualified.
using namespace autograd;

${nodes}
${kernels}
}  // namespace

GLASSBOX_LIBRARY_IMPL(glassbox, Autograd, m) {
${registrations}
}

}  // namespace glassbox
