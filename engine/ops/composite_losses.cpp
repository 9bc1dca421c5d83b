// cross_entropy, written with other operators (CompositeImplicitAutograd): log_softmax over the
// class dim, then nll_loss. Autograd differentiates the two, so it needs no formula of its own.
#include "engine/core/error.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/cross_entropy.h"

namespace glassbox::native {

namespace {
// 1 for the samples whose target counts, 0 for those equal to ignore_index (nll_loss of ones
// gives -1 or 0), in self's dtype and device: a constant as far as gradients go.
Tensor counted_samples(const Tensor& self, const Tensor& target, int64_t ignore_index) {
  const Tensor ones = glassbox::ones(self.sizes(), self.dtype(), self.device());
  return glassbox::neg(glassbox::nll_loss(ones, target, std::nullopt, Reduction::None, ignore_index));
}
}  // namespace

// With label smoothing e the target distribution is (1 - e) on the target class plus e / C on
// every class: the loss is (1 - e) nll + (e / C) sum_c -w_c log p_c, reduced like nll_loss.
Tensor cross_entropy(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                     int64_t ignore_index, double label_smoothing) {
  GB_CHECK(self.defined() && target.defined(), "cross_entropy: an argument is an undefined tensor");
  if (is_floating_point(target.dtype()))
    throw Error("cross_entropy: expected a target of class indices (int64), got " +
                std::string(to_string(target.dtype())) + " of shape " + shape_to_string(target.sizes()) +
                "; class probabilities are not supported");
  if (self.dim() != 1 && self.dim() != 2)
    throw Error("cross_entropy: expected self of shape (N, C) or (C), got " + shape_to_string(self.sizes()));
  if (!(label_smoothing >= 0.0 && label_smoothing <= 1.0))
    throw Error("cross_entropy: label_smoothing must be in [0, 1], got " + std::to_string(label_smoothing));
  const int64_t class_dim = self.dim() - 1;
  const Tensor logp = glassbox::log_softmax(self, class_dim);
  const Tensor nll = glassbox::nll_loss(logp, target, weight, reduction, ignore_index);
  if (label_smoothing == 0.0) return nll;

  const bool weighted = weight && weight->defined();
  const int64_t dims[] = {class_dim};
  // Class weights are constants here, as in nll_loss (which has no derivative for them).
  const Tensor weighted_logp = weighted ? glassbox::mul(logp, weight->detach()) : logp;
  const Tensor counted = counted_samples(self, target, ignore_index);
  Tensor smooth = glassbox::mul(glassbox::neg(glassbox::sum(weighted_logp, IntArrayRef(dims))), counted);
  if (reduction == Reduction::Sum) {
    smooth = glassbox::sum(smooth);
  } else if (reduction == Reduction::Mean) {
    // The mean divides by the total weight of the counted samples, as nll_loss does.
    const Tensor ones = glassbox::ones(self.sizes(), self.dtype(), self.device());
    const Tensor total = weighted
                             ? glassbox::neg(glassbox::nll_loss(ones, target, weight, Reduction::Sum, ignore_index))
                             : glassbox::sum(counted);
    smooth = glassbox::div(glassbox::sum(smooth), total);
  }
  const double classes = static_cast<double>(self.sizes()[class_dim]);
  return glassbox::add(glassbox::mul(nll, Scalar(1.0 - label_smoothing)),
                       glassbox::mul(smooth, Scalar(label_smoothing / classes)));
}

}  // namespace glassbox::native
