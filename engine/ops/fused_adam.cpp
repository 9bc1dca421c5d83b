// _fused_adam_: one Adam (or AdamW) step of a list of parameters, one kernel per parameter instead
// of the seven of the unfused form, for CPU, CUDA and Meta. Every check and the step's constants are
// here; the device's AdamBackend (engine/ops/kernels/adam.h) computes, Meta has none.
#include <cmath>
#include <vector>

#include "engine/core/error.h"
#include "engine/ops/kernels/adam.h"
#include "glassbox/ops/native/_fused_adam.h"

namespace glassbox::native {
namespace {

void check_like(const char* what, int64_t k, const Tensor& t, const Tensor& param) {
  GB_CHECK(t.defined(), "_fused_adam_: ", what, "[", k, "] is undefined");
  GB_CHECK(t.sizes() == param.sizes(), "_fused_adam_: ", what, "[", k, "] has shape ", shape_to_string(t.sizes()),
           " but the parameter has ", shape_to_string(param.sizes()));
  GB_CHECK(t.dtype() == param.dtype(), "_fused_adam_: ", what, "[", k, "] is ", to_string(t.dtype()),
           " but the parameter is ", to_string(param.dtype()));
  GB_CHECK(t.device() == param.device(), "_fused_adam_: ", what, "[", k, "] is on ", t.device().to_string(),
           " but the parameter is on ", param.device().to_string());
}

void bump_version(const Tensor& t) {
  if (t.unsafe_impl()->storage()) t.unsafe_impl()->storage()->bump_version();
}

}  // namespace

void fused_adam_generic(TensorList self, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                        IntArrayRef steps, double lr, double beta1, double beta2, double weight_decay, double eps,
                        bool decoupled_weight_decay) {
  const auto n = static_cast<int64_t>(self.size());
  GB_CHECK(static_cast<int64_t>(grads.size()) == n && static_cast<int64_t>(exp_avgs.size()) == n &&
               static_cast<int64_t>(exp_avg_sqs.size()) == n && static_cast<int64_t>(steps.size()) == n,
           "_fused_adam_: expected lists of one length, got ", n, " parameters, ", grads.size(), " grads, ",
           exp_avgs.size(), " exp_avgs, ", exp_avg_sqs.size(), " exp_avg_sqs and ", steps.size(), " steps");
  GB_CHECK(beta1 >= 0 && beta1 < 1 && beta2 >= 0 && beta2 < 1, "_fused_adam_: betas must be in [0, 1), got (", beta1,
           ", ", beta2, ")");
  std::vector<kernels::AdamOperands> operands;
  operands.reserve(self.size());
  for (int64_t k = 0; k < n; ++k) {
    const Tensor& p = self[k];
    GB_CHECK(p.defined(), "_fused_adam_: parameter [", k, "] is undefined");
    GB_CHECK(is_floating_point(p.dtype()), "_fused_adam_: parameter [", k, "] is ", to_string(p.dtype()),
             "; Adam updates floating-point tensors only");
    check_like("grads", k, grads[k], p);
    check_like("exp_avgs", k, exp_avgs[k], p);
    check_like("exp_avg_sqs", k, exp_avg_sqs[k], p);
    GB_CHECK(p.device() == self[0].device(), "_fused_adam_: parameter [", k, "] is on ", p.device().to_string(),
             " but parameter [0] is on ", self[0].device().to_string());
    GB_CHECK(p.is_contiguous() && exp_avgs[k].is_contiguous() && exp_avg_sqs[k].is_contiguous(),
             "_fused_adam_: parameter [", k, "] and its state must be contiguous");
    GB_CHECK(steps[k] >= 1, "_fused_adam_: steps[", k, "] is ", steps[k], "; a step count starts at 1");
    kernels::AdamConstants c;
    c.beta1 = beta1, c.beta2 = beta2, c.eps = eps, c.weight_decay = weight_decay;
    c.step_size = lr / (1 - std::pow(beta1, static_cast<double>(steps[k])));
    c.bias2_sqrt = std::sqrt(1 - std::pow(beta2, static_cast<double>(steps[k])));
    c.decay = 1 - lr * weight_decay;
    c.decoupled = decoupled_weight_decay;
    operands.push_back({p, grads[k].contiguous(), exp_avgs[k], exp_avg_sqs[k], c});
  }
  if (n == 0) return;
  if (const kernels::AdamBackend* backend = kernels::AdamBackends::of(self[0].device()))
    backend->step(operands.data(), n);
  for (int64_t k = 0; k < n; ++k) bump_version(self[k]), bump_version(exp_avgs[k]), bump_version(exp_avg_sqs[k]);
}

}  // namespace glassbox::native
