// sort (stable) and topk on CUDA. Every slice along the dim becomes a segment of CUB's stable
// segmented sort over the order keys the CPU sorts too (engine/ops/kernels/sort.h). topk is the
// first k of that order, as the CPU's partial sort gives.
#include <cub/device/device_segmented_sort.cuh>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cuda/elementwise.cuh"
#include "engine/ops/kernels/sort.h"
#include "glassbox/ops/Functions.h"

namespace glassbox::cuda {

namespace {
using namespace glassbox::cuda;

// keys and positions of rows [rows, len]; offsets[r] = r * len.
template <class T>
__global__ void make_keys_kernel(const T* x, sort_key_t<T>* keys, int64_t* positions, int64_t* offsets, int64_t rows,
                                 int64_t len, bool descending) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i <= rows) offsets[i] = i * len;
  if (i >= rows * len) return;
  keys[i] = sort_key<T>(to_opmath(x[i]), descending);
  positions[i] = i % len;
}

// The first k of each sorted row: values gathered from the input, indices as they are.
template <class T>
__global__ void take_first_kernel(const T* x, const int64_t* order, T* values, int64_t* indices, int64_t rows,
                                  int64_t len, int64_t k) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows * k) return;
  const int64_t row = i / k, j = i % k;
  const int64_t at = order[row * len + j];
  values[i] = x[row * len + at];
  indices[i] = at;
}

unsigned blocks_for(int64_t n) { return static_cast<unsigned>(std::max<int64_t>(1, (n + 255) / 256)); }

Tensor device_buffer(int64_t n, ScalarType dtype, Device device) {
  const int64_t sizes[] = {n};
  return empty_tensor(sizes, dtype, device);
}

}  // namespace

void sort_into(const Tensor& self, int64_t k, int64_t dim, bool descending, Tensor& values, Tensor& indices) {
  DeviceGuard guard(self.device().index);
  const Device device = self.device();
  // The slices as contiguous rows: the dim moved last.
  const bool last = self.dim() == 0 || dim == self.dim() - 1;
  DimVector perm, inverse;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (d != dim) perm.push_back(d);
  if (self.dim() > 0) perm.push_back(dim);
  for (int64_t d = 0; d < self.dim(); ++d) inverse.push_back(d < dim ? d : d == dim ? self.dim() - 1 : d - 1);
  const Tensor rows_data = last ? self.contiguous() : glassbox::permute(self, perm).contiguous();
  const int64_t len = self.dim() == 0 ? 1 : self.sizes()[dim];
  const int64_t rows = self.numel() / len, n = self.numel();
  const cudaStream_t stream = current_stream(device.index).handle();
  visit_scalar_device_type(self.dtype(), [&]<class T>() {
    using K = sort_key_t<T>;
    const ScalarType key_dtype = sizeof(K) == 8 ? ScalarType::Int64 : ScalarType::Int32;
    Tensor keys = device_buffer(n, key_dtype, device), sorted_keys = device_buffer(n, key_dtype, device);
    Tensor positions = device_buffer(n, ScalarType::Int64, device), order = device_buffer(n, ScalarType::Int64, device);
    Tensor offsets = device_buffer(rows + 1, ScalarType::Int64, device);
    const auto* x = rows_data.template data<T>();
    make_keys_kernel<T><<<blocks_for(std::max(n, rows + 1)), 256, 0, stream>>>(
        x, static_cast<K*>(keys.data_ptr()), positions.data<int64_t>(), offsets.data<int64_t>(), rows, len, descending);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
    const int64_t* begin = offsets.data<int64_t>();
    size_t temp_bytes = 0;
    GB_CUDA_CHECK(cub::DeviceSegmentedSort::StableSortPairs(
        nullptr, temp_bytes, static_cast<const K*>(keys.data_ptr()), static_cast<K*>(sorted_keys.data_ptr()),
        positions.data<int64_t>(), order.data<int64_t>(), n, rows, begin, begin + 1, stream));
    Tensor temp = device_buffer(static_cast<int64_t>(std::max<size_t>(temp_bytes, 1)), ScalarType::UInt8, device);
    GB_CUDA_CHECK(cub::DeviceSegmentedSort::StableSortPairs(
        temp.data_ptr(), temp_bytes, static_cast<const K*>(keys.data_ptr()), static_cast<K*>(sorted_keys.data_ptr()),
        positions.data<int64_t>(), order.data<int64_t>(), n, rows, begin, begin + 1, stream));
    // Results in row layout, then back to self's dim order.
    // With the dim last, values and indices have the row layout and are written directly.
    DimVector row_shape;
    for (int64_t d : perm) row_shape.push_back(d == dim ? k : self.sizes()[d]);
    Tensor v = last ? values : empty_tensor(row_shape, self.dtype(), device);
    Tensor ix = last ? indices : empty_tensor(row_shape, ScalarType::Int64, device);
    take_first_kernel<T><<<blocks_for(rows * k), 256, 0, stream>>>(x, order.data<int64_t>(), v.template data<T>(),
                                                                   ix.data<int64_t>(), rows, len, k);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
    if (!last) {
      copy_between(values, glassbox::permute(v, inverse));
      copy_between(indices, glassbox::permute(ix, inverse));
    }
  });
}
}  // namespace glassbox::cuda
