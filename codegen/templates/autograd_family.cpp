${banner}
// Autograd for operator ${base}: the backward nodes its formulas define (engine/ops/derivatives.yaml)
// and its kernels for the Autograd key, which record a node and redispatch below autograd. The
// kernels are registered in autograd/Register.cpp.
#include "engine/autograd/generated_support.h"
#include "glassbox/ops/Functions.h"

namespace glassbox {
namespace {
// Formulas call the helpers of engine/autograd/formulas.h unqualified.
using namespace autograd;

${nodes}
}  // namespace

namespace autograd_kernels {

${kernels}
}  // namespace autograd_kernels

}  // namespace glassbox
