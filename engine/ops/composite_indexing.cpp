// Indexing operators written with other operators, so they run on every backend (Meta included):
// embedding (rows of weight, CompositeExplicitAutograd: its gradient is embedding_dense_backward)
// and masked_select (index with a broadcast mask, CompositeImplicitAutograd).
#include "engine/core/error.h"
#include "engine/ops/index_shape.h"
#include "engine/ops/tensor_iterator.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/embedding.h"
#include "glassbox/ops/native/masked_select.h"

namespace glassbox::native {

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool /*scale_grad_by_freq*/,
                 bool sparse) {
  if (weight.dim() != 2) {
    throw Error(detail::str_cat("embedding: weight must be 2-d (num_embeddings, embedding_dim), got weight ",
                                shape_to_string(weight.sizes()), ' ', to_string(weight.dtype())));
  }
  check_index_tensor("embedding", "indices", weight, indices);
  if (padding_idx >= weight.sizes()[0]) {
    throw Error(detail::str_cat("embedding: padding_idx (", padding_idx, ") must be less than num_embeddings (",
                                weight.sizes()[0], ")"));
  }
  if (sparse) throw Error("embedding: sparse gradients are not supported; pass sparse=False");
  DimVector shape = indices.sizes();
  shape.push_back(weight.sizes()[1]);
  const int64_t flat[] = {-1};
  return glassbox::index_select(weight, 0, glassbox::reshape(indices, flat)).view(shape);
}

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  if (mask.dtype() != ScalarType::Bool) {
    throw Error(detail::str_cat("masked_select: expected a bool mask, got mask ", shape_to_string(mask.sizes()), ' ',
                                to_string(mask.dtype())));
  }
  DimVector shape = broadcast_shapes(self.sizes(), mask.sizes(), "masked_select");
  if (shape.empty()) shape.push_back(1);  // a mask needs at least one dim to index with
  const std::optional<Tensor> m = mask.expand(shape);
  return glassbox::index(self.expand(shape), OptionalTensorList(&m, 1));
}

}  // namespace glassbox::native
