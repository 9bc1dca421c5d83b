#include "engine/ops/index_layout.h"

#include <algorithm>

namespace glassbox {

Tensor zero_stride_along(const Tensor& t, std::span<const int64_t> shape, int64_t dim) {
  DimVector strides = t.strides();
  strides[dim] = 0;
  return restrided(t, shape, strides, t.storage_offset());
}

Tensor index_along(const Tensor& index1d, std::span<const int64_t> shape, int64_t dim) {
  DimVector strides(shape.size(), 0);
  strides[dim] = index1d.strides()[0];
  return restrided(index1d, shape, strides, index1d.storage_offset());
}

Tensor leading_block(const Tensor& src1, const Tensor& index1) {
  return restrided(src1, index1.sizes(), src1.strides(), src1.storage_offset());
}

IndexResultOperands index_result_operands(const Tensor& self, const AdvancedIndexing& a, const Tensor& offsets) {
  const size_t n = a.result_shape.size(), m = a.index_shape.size();
  DimVector self_strides(n, 0), offset_strides(n, 0);
  const DimVector contiguous = contiguous_strides(a.index_shape);
  for (size_t j = 0; j < m; ++j) offset_strides[a.result_dim + j] = contiguous[j];
  size_t pos = 0;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (std::find(a.indexed_dims.begin(), a.indexed_dims.end(), d) != a.indexed_dims.end()) continue;
    if (pos == static_cast<size_t>(a.result_dim)) pos += m;
    self_strides[pos++] = self.strides()[d];
  }
  return {restrided(self, a.result_shape, self_strides, self.storage_offset()),
          restrided(offsets, a.result_shape, offset_strides, 0)};
}

}  // namespace glassbox
