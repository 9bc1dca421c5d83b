// The tiled integer gemm (engine/cuda/integer_gemm.h). Each 16x16 block computes a 16x16 tile of
// C, stepping through k in 16-wide slabs staged in shared memory; operands are read through their
// strides, so transposed and broadcast views need no copy. Grid dims past the hardware limits
// (65535 in y and z) are covered by striding over tile rows and batches.
#include <algorithm>
#include <type_traits>

#include "engine/core/error.h"
#include "engine/cuda/cuda_error.h"
#include "engine/cuda/cuda_types.cuh"
#include "engine/cuda/device_guard.h"
#include "engine/cuda/integer_gemm.h"
#include "engine/cuda/stream.h"

namespace glassbox::cuda {

namespace {
constexpr int kTile = 16;

// Wrap-around accumulation: unsigned arithmetic cast back to T equals T's own modular arithmetic.
template <class T>
using acc_t = std::conditional_t<(sizeof(T) <= 4), uint32_t, uint64_t>;

template <class T>
__device__ __forceinline__ acc_t<T> widen(T v) {
  return static_cast<acc_t<T>>(static_cast<int64_t>(v));
}

struct MatrixStrides {
  int64_t row, col, batch;
};

template <class T>
__global__ void integer_gemm_kernel(const T* a, MatrixStrides sa, const T* b, MatrixStrides sb, T* c, MatrixStrides sc,
                                    int64_t m, int64_t n, int64_t k, int64_t batch, acc_t<T> alpha, acc_t<T> beta) {
  using A = acc_t<T>;
  __shared__ A as[kTile][kTile + 1];
  __shared__ A bs[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t col = int64_t{blockIdx.x} * kTile + tx;
  const int64_t row_tiles = (m + kTile - 1) / kTile;
  for (int64_t z = blockIdx.z; z < batch; z += gridDim.z) {
    const T* az = a + z * sa.batch;
    const T* bz = b + z * sb.batch;
    T* cz = c + z * sc.batch;
    for (int64_t tile_row = blockIdx.y; tile_row < row_tiles; tile_row += gridDim.y) {
      const int64_t row = tile_row * kTile + ty;
      A acc = 0;
      for (int64_t p0 = 0; p0 < k; p0 += kTile) {
        // as[ty][tx] = a[row, p0 + tx]; bs[ty][tx] = b[p0 + ty, col] (zero outside the matrices).
        as[ty][tx] = row < m && p0 + tx < k ? widen(az[row * sa.row + (p0 + tx) * sa.col]) : A(0);
        bs[ty][tx] = p0 + ty < k && col < n ? widen(bz[(p0 + ty) * sb.row + col * sb.col]) : A(0);
        __syncthreads();
#pragma unroll
        for (int q = 0; q < kTile; ++q) acc += as[ty][q] * bs[q][tx];
        __syncthreads();
      }
      if (row < m && col < n) {
        T& dst = cz[row * sc.row + col * sc.col];
        A v = alpha * acc;
        if (beta != A(0)) v += beta * widen(dst);
        dst = static_cast<T>(v);
      }
    }
  }
}

MatrixStrides strides_of(const Tensor& t) {
  const int64_t d = t.dim();
  return {t.strides()[d - 2], t.strides()[d - 1], d == 3 ? t.strides()[0] : 0};
}
}  // namespace

void integer_gemm(const Tensor& a, const Tensor& b, Tensor& c, int64_t alpha, int64_t beta) {
  const int64_t d = c.dim();
  const int64_t m = c.sizes()[d - 2], n = c.sizes()[d - 1], k = a.sizes()[d - 1];
  const int64_t batch = d == 3 ? c.sizes()[0] : 1;
  if (m == 0 || n == 0 || batch == 0) return;
  const int64_t col_tiles = (n + kTile - 1) / kTile;
  GB_CHECK(col_tiles <= 0x7fffffff, "mm: a result with ", n, " columns is too wide for the CUDA integer kernel");
  const dim3 grid(static_cast<unsigned>(col_tiles),
                  static_cast<unsigned>(std::min<int64_t>((m + kTile - 1) / kTile, 65535)),
                  static_cast<unsigned>(std::min<int64_t>(batch, 65535)));
  const dim3 block(kTile, kTile);
  const int device = c.device().index;
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device).handle();
  GB_CHECK(is_integral(c.dtype(), /*include_bool=*/false), "internal: ", to_string(c.dtype()),
           " reached the CUDA integer gemm");
  visit_scalar_device_type(c.dtype(), [&]<class T>() {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      integer_gemm_kernel<T><<<grid, block, 0, stream>>>(static_cast<const T*>(a.data_ptr()), strides_of(a),
                                                         static_cast<const T*>(b.data_ptr()), strides_of(b),
                                                         static_cast<T*>(c.data_ptr()), strides_of(c), m, n, k, batch,
                                                         static_cast<acc_t<T>>(alpha), static_cast<acc_t<T>>(beta));
      GB_CUDA_KERNEL_LAUNCH_CHECK();
    }
  });
}

}  // namespace glassbox::cuda
