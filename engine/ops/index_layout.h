#pragma once
// The views the indexing kernels of every backend lay over their operands, so that TensorIterator
// walks one shape: "restrided" views of a tensor's storage (the indexed dim given stride 0, the
// kernel adding index * stride itself). The dtype visitors those kernels instantiate by are in
// engine/ops/kernels/element_word.h.
#include <cstdint>
#include <span>

#include "engine/core/empty.h"
#include "engine/ops/index_shape.h"
#include "engine/ops/kernels/element_word.h"

namespace glassbox {

// A view of t's storage with other geometry (zero strides allowed): for the loops only.
inline Tensor restrided(const Tensor& t, std::span<const int64_t> sizes, std::span<const int64_t> strides,
                        int64_t storage_offset) {
  const TensorImpl& base = *t.unsafe_impl();
  auto impl = intrusive_ptr<TensorImpl>::make(base.storage(), base.key_set(), base.dtype(), base.device(), sizes);
  impl->set_geometry(sizes, strides, storage_offset);
  return Tensor(std::move(impl));
}

// A 0-d tensor seen as one dimension of size 1 (gather and scatter treat 0-d tensors so).
inline Tensor at_least_1d(const Tensor& t) {
  if (t.dim() > 0) return t;
  const int64_t one[] = {1};
  return restrided(t, one, one, t.storage_offset());
}

// t laid over `shape` with stride 0 along dim: the loop adds index * stride there itself.
Tensor zero_stride_along(const Tensor& t, std::span<const int64_t> shape, int64_t dim);

// A 1-d index laid over `shape`: it varies along dim only (index_select, index_add_).
Tensor index_along(const Tensor& index1d, std::span<const int64_t> shape, int64_t dim);

// src's leading block of index's shape (scatter reads only that much of src).
Tensor leading_block(const Tensor& src1, const Tensor& index1);

// index / index_put_: self and the per-position byte offsets the index tensors pick, laid over the
// result's shape. self keeps its strides on the dims no index addresses (stride 0 on the index
// dims), the offsets vary along the index dims only.
struct IndexResultOperands {
  Tensor self;
  Tensor offsets;
};
IndexResultOperands index_result_operands(const Tensor& self, const AdvancedIndexing& a, const Tensor& offsets);

}  // namespace glassbox
