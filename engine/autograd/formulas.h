#pragma once
// Helpers the backward formulas of engine/ops/derivatives.yaml call (as `name(...)`), and the one
// place where a gradient is brought back to its input's shape and dtype.
#include "engine/autograd/node.h"
#include "engine/core/scalar.h"
#include "engine/core/tensor.h"

namespace glassbox::autograd {

// grad summed over the dimensions broadcasting added or expanded, so it has shape `sizes`.
Tensor sum_to(const Tensor& grad, IntArrayRef sizes);
// A gradient for an input with metadata `input`: broadcast dims reduced, dtype and device restored.
Tensor to_input(const Tensor& grad, const InputMetadata& input);
// grad * s, skipping the multiplication when s is 1.
Tensor maybe_multiply(const Tensor& grad, const Scalar& s);

// Zeros shaped like grad (the gradient of an input whose value was overwritten).
Tensor zeros_like_grad(const Tensor& grad);
// The gradient of permute(dims): grad permuted back by the inverse permutation.
Tensor permute_backward(const Tensor& grad, IntArrayRef dims);
// Gradients of the views slice/select: grad placed into zeros of the input's shape.
Tensor slice_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step);
Tensor select_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, int64_t index);

// The gradient of a sum over dims (all dims when dims is empty or absent): grad with the reduced
// dims put back (when keepdim was false) and expanded to the input's shape.
Tensor sum_backward(const Tensor& grad, IntArrayRef input_sizes, std::optional<IntArrayRef> dims, bool keepdim);
// The number of elements a reduction over dims combined (mean's divisor).
int64_t reduced_count(IntArrayRef input_sizes, std::optional<IntArrayRef> dims);

// Gradients of the indexing ops: grad put back where the forward read from (adding repeats).
Tensor index_backward(const Tensor& grad, IntArrayRef input_sizes, OptionalTensorList indices);
Tensor index_select_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, const Tensor& index);
Tensor gather_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, const Tensor& index);
// scatter's src gradient: grad read at the index, zero for src elements the index never reaches.
Tensor scatter_src_backward(const Tensor& grad, int64_t dim, const Tensor& index, IntArrayRef src_sizes);
// The sum of grad where mask is set (the gradient of masked_fill's 0-d value).
Tensor masked_sum(const Tensor& grad, const Tensor& mask);

// cat's gradient: grad cut back into the inputs' pieces along dim (skipped 1-d empty inputs get
// empty gradients).
std::vector<Tensor> cat_backward(const Tensor& grad, const std::vector<DimVector>& sizes, int64_t dim);
// roll's gradient: grad rolled back by the negated shifts.
Tensor roll_backward(const Tensor& grad, IntArrayRef shifts, IntArrayRef dims);

// pow's gradients: exponent * self^(exponent - 1) (0 where the exponent is 0), and
// result * log(self) (0 where self is 0 and the exponent is not negative).
Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent);
Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result);
// clamp's gradients: grad where self was inside [min, max]; to min/max where they were chosen.
Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Tensor>& min,
                      const std::optional<Tensor>& max);
Tensor clamp_backward_min(const Tensor& grad, const Tensor& self, const std::optional<Tensor>& min);
Tensor clamp_backward_max(const Tensor& grad, const Tensor& self, const std::optional<Tensor>& max);
// maximum/minimum: grad where a wins over b, half of it where they tie.
Tensor select_larger(const Tensor& grad, const Tensor& a, const Tensor& b);

// prod's gradient, exact with zeros: the product of the other elements.
Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result, std::optional<int64_t> dim,
                     bool keepdim);
// amax/amin/max/min over dims: grad shared evenly among the elements equal to the result.
Tensor extreme_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dims, bool keepdim);
// max.dim/min.dim/topk/sort: grad put back at the selected indices.
Tensor value_selecting_backward(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef input_sizes,
                                bool keepdim);
// var's gradient: grad * 2 (self - mean) / (N - correction).
Tensor var_backward(const Tensor& grad, const Tensor& self, std::optional<IntArrayRef> dims,
                    const std::optional<Scalar>& correction, bool keepdim);
Tensor logsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dims, bool keepdim);
Tensor l1_loss_backward(const Tensor& grad, const Tensor& self, const Tensor& target, int64_t reduction);

// unfold's gradient: each window element's gradient added back at the input position it was read
// from (windows overlap when step < size).
Tensor unfold_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, int64_t size, int64_t step);
// as_strided's gradient, worked out in storage: the output's gradient added at the storage
// positions its elements read, then read back at the input's positions (divided among input
// elements that share one position, as an expanded input's do).
Tensor as_strided_backward(const Tensor& grad, IntArrayRef input_sizes, IntArrayRef input_strides,
                           int64_t input_storage_offset, IntArrayRef size, IntArrayRef stride,
                           std::optional<int64_t> storage_offset);

// Second derivatives: the gradients of the activation, softmax and loss backward operators with
// respect to their non-gradient input (the gradient input is linear and reuses the operator).
Tensor sigmoid_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& output);
Tensor tanh_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& output);
Tensor silu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self);
Tensor gelu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                            std::string_view approximate);
Tensor softmax_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& output, int64_t dim);
// log_softmax's backward is go - exp(output) * sum(go): its gradient for go and for output.
Tensor log_softmax_double_backward_grad_output(const Tensor& grad, const Tensor& output, int64_t dim);
Tensor log_softmax_double_backward_output(const Tensor& grad, const Tensor& grad_output, const Tensor& output,
                                          int64_t dim);
// mse_loss's backward is go * 2 (self - target) / N: its gradient for go and for self.
Tensor mse_loss_double_backward_grad_output(const Tensor& grad, const Tensor& self, const Tensor& target,
                                            int64_t reduction);
Tensor mse_loss_double_backward_self(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                                     int64_t reduction);

}  // namespace glassbox::autograd
