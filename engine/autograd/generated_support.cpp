#include "engine/autograd/generated_support.h"

#include "engine/core/error.h"
#include "glassbox/ops/Functions.h"

namespace glassbox::autograd {

void throw_out_not_differentiable(const char* op) {
  throw Error(std::string(op) +
              "(): functions with out=... arguments don't support automatic differentiation, but one of the "
              "arguments requires grad.");
}

Tensor clone_below_autograd(const Tensor& self) {
  BelowAutogradGuard below;
  return glassbox::clone(self);
}

}  // namespace glassbox::autograd
