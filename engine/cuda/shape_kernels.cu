// cat, flip, roll, tril and triu on CUDA. cat copies each input into its slice of the output
// through copy_ (any dtypes, any strides), as the CPU kernel does; flip and roll move whole
// elements, each output element reading the input at an index remapped per dimension; tril and
// triu zero what lies outside the kept triangle. Shapes come from engine/ops/join_reorder_shape.h.
#include <algorithm>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cuda/elementwise.cuh"
#include "engine/ops/join_reorder_copy.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/cat.h"
#include "glassbox/ops/native/flip.h"
#include "glassbox/ops/native/roll.h"
#include "glassbox/ops/native/tril.h"
#include "glassbox/ops/native/triu.h"

namespace glassbox::native {

namespace {
using namespace glassbox::cuda;

constexpr int kMaxRemapDims = 16;

// Output index i of dim d reads input index flip ? size-1-i : i - shift (mod size).
struct Remap {
  int ndim;
  int64_t sizes[kMaxRemapDims];
  int64_t in_strides[kMaxRemapDims];  // elements
  int64_t shifts[kMaxRemapDims];      // in [0, size)
  bool flips[kMaxRemapDims];
};

template <class W>
__global__ void remap_kernel(const W* in, W* out, int64_t n, Remap r) {
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t rest = e, offset = 0;
    for (int d = r.ndim - 1; d >= 0; --d) {
      const int64_t size = r.sizes[d], i = rest % size;
      rest /= size;
      int64_t j = r.flips[d] ? size - 1 - i : i - r.shifts[d];
      if (j < 0) j += size;
      offset += j * r.in_strides[d];
    }
    out[e] = in[offset];
  }
}

unsigned grid_for(int64_t n) {
  return static_cast<unsigned>(std::clamp<int64_t>((n + kElementwiseThreads - 1) / kElementwiseThreads, 1, 65536));
}

// out (contiguous, src's shape) = src with each dim flipped or rotated as `r` says.
void remap_copy(const char* op, const Tensor& src, Tensor& out, Remap r) {
  const int64_t n = src.numel();
  if (n == 0) return;
  GB_CHECK(src.dim() <= kMaxRemapDims, op, ": the CUDA kernel takes at most ", kMaxRemapDims, " dims, got ", src.dim());
  r.ndim = static_cast<int>(src.dim());
  for (int d = 0; d < r.ndim; ++d) {
    r.sizes[d] = src.sizes()[d];
    r.in_strides[d] = src.strides()[d];
  }
  const int device = src.device().index;
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device).handle();
  const char* in = static_cast<const char*>(src.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  auto launch = [&]<class W>() {
    remap_kernel<W><<<grid_for(n), kElementwiseThreads, 0, stream>>>(reinterpret_cast<const W*>(in),
                                                                     reinterpret_cast<W*>(dst), n, r);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
  };
  switch (element_size(src.dtype())) {
    case 1: launch.template operator()<uint8_t>(); break;
    case 2: launch.template operator()<uint16_t>(); break;
    case 4: launch.template operator()<uint32_t>(); break;
    default: launch.template operator()<uint64_t>(); break;
  }
  mark_written(out);
}

// Zeroes, in a contiguous tensor, what lies outside the kept triangle of every matrix of its last
// two dims: tril keeps column j <= i + d of row i, triu keeps j >= i + d.
template <class W>
__global__ void triangle_kernel(W* t, int64_t n, int64_t rows, int64_t cols, int64_t d, bool lower) {
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t j = e % cols, i = (e / cols) % rows;
    if (lower ? j > i + d : j < i + d) t[e] = W(0);
  }
}

void zero_outside_triangle(Tensor& t, int64_t diagonal, bool lower) {
  const int64_t n = t.numel();
  if (n == 0) return;
  const int64_t rows = t.sizes()[t.dim() - 2], cols = t.sizes()[t.dim() - 1];
  // Diagonals past either corner behave like the corner one; clamping keeps i + d from overflowing.
  const int64_t d = std::clamp(diagonal, -rows, cols);
  const int device = t.device().index;
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device).handle();
  auto launch = [&]<class W>() {
    triangle_kernel<W>
        <<<grid_for(n), kElementwiseThreads, 0, stream>>>(static_cast<W*>(t.data_ptr()), n, rows, cols, d, lower);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
  };
  switch (element_size(t.dtype())) {
    case 1: launch.template operator()<uint8_t>(); break;
    case 2: launch.template operator()<uint16_t>(); break;
    case 4: launch.template operator()<uint32_t>(); break;
    default: launch.template operator()<uint64_t>(); break;
  }
  mark_written(t);
}

}  // namespace

Tensor cat_cuda(TensorList tensors, int64_t dim) {
  const CatResult r = cat_result("cat", tensors, dim);
  DeviceGuard guard(r.device.index);
  Tensor out = empty_tensor(r.shape, r.dtype, r.device);
  copy_into_cat_slices(tensors, r, out);
  return out;
}

Tensor& cat_out_cuda(TensorList tensors, int64_t dim, Tensor& out) {
  const CatResult r = cat_result("cat.out", tensors, dim);
  check_cat_out(r, out);
  copy_into_cat_slices(tensors, r, out);
  return out;
}

Tensor flip_cuda(const Tensor& self, IntArrayRef dims) {
  const DimVector flipped = flip_dims(self, dims);
  Remap r{};
  for (int64_t d : flipped)
    if (self.dim() > 0) r.flips[d] = true;
  Tensor out = empty_tensor(self.sizes(), self.dtype(), self.device());
  remap_copy("flip", self, out, r);
  return out;
}

Tensor roll_cuda(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  const RollPlan plan = roll_plan(self, shifts, dims);
  Tensor out = empty_tensor(self.sizes(), self.dtype(), self.device());
  Remap r{};
  if (plan.flattened) {
    // Rolling the flattened tensor: a 1-d view of a contiguous copy, rotated as one dimension.
    const int64_t flat[] = {self.numel()};
    const Tensor src = self.contiguous().view(flat);
    Tensor dst = out.view(flat);
    r.shifts[0] = plan.shifts[0];
    remap_copy("roll", src, dst, r);
    return out;
  }
  for (int64_t d = 0; d < self.dim(); ++d) r.shifts[d] = plan.shifts[d];
  remap_copy("roll", self, out, r);
  return out;
}

Tensor tril_cuda(const Tensor& self, int64_t diagonal) {
  return triangle("tril", self, diagonal, true, zero_outside_triangle);
}
Tensor triu_cuda(const Tensor& self, int64_t diagonal) {
  return triangle("triu", self, diagonal, false, zero_outside_triangle);
}
Tensor& tril_cuda_(Tensor& self, int64_t diagonal) {
  return triangle_("tril_", self, diagonal, true, zero_outside_triangle);
}
Tensor& triu_cuda_(Tensor& self, int64_t diagonal) {
  return triangle_("triu_", self, diagonal, false, zero_outside_triangle);
}

}  // namespace glassbox::native
