// Matrix products on CUDA through cuBLAS: mm, bmm, addmm, dot and their out= forms. Shapes and
// dtypes come from engine/ops/linalg_shape.h (as for the CPU kernels). cuBLAS is column-major: a
// row-major C = A @ B is computed as C^T = B^T A^T, and any operand with a unit stride in one of
// its two matrix dims is read in place (transposed views included); others are copied first.
// float32 uses TF32 tensor cores only when matmul_allow_tf32() says so; float16 and bfloat16
// go through cublasGemmEx with float accumulation; integers through glassbox's own kernel
// (engine/cuda/integer_gemm.h). One handle per thread and device, set to the current stream
// before every call. addmm with a 1-D bias adds it in cuBLASLt's epilogue (engine/cuda/blas_lt.h).
#include <cublas_v2.h>

#include <array>
#include <atomic>
#include <limits>
#include <optional>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cuda/blas_lt.h"
#include "engine/cuda/cuda_error.h"
#include "engine/cuda/device_guard.h"
#include "engine/cuda/integer_gemm.h"
#include "engine/cuda/library_handle.h"
#include "engine/cuda/matmul_settings.h"
#include "engine/cuda/stream.h"
#include "engine/ops/linalg_shape.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/NativeFunctions.h"

namespace glassbox::cuda {

namespace {
std::atomic<bool> g_allow_tf32{false};

cublasHandle_t blas_handle(int device) {
  return thread_library_handle<cublasHandle_t>(device, "cuBLAS",
                                               [](cublasHandle_t* h) { GB_CUBLAS_CHECK(cublasCreate(h)); });
}
}  // namespace

bool matmul_allow_tf32() { return g_allow_tf32.load(std::memory_order_relaxed); }
void set_matmul_allow_tf32(bool allow) { g_allow_tf32.store(allow, std::memory_order_relaxed); }

}  // namespace glassbox::cuda

namespace glassbox::native {

namespace {
using namespace glassbox::cuda;

// A matrix (or batch of them) as cuBLAS reads it: op(column-major memory) == the matrix transposed.
struct BlasOperand {
  const void* data;
  cublasOperation_t op;
  int64_t ld;
  int64_t batch_stride;
  Tensor keep;  // a contiguous copy, when one was needed
};

// X [.., r, c] with strides (sr, sc): row-major (sc == 1) memory read column-major is X^T as it
// is; column-major (sr == 1) memory is X, so cuBLAS transposes it. Size-1 dims take any stride.
std::optional<BlasOperand> in_place_operand(const Tensor& t) {
  const int64_t d = t.dim();
  const int64_t r = t.sizes()[d - 2], c = t.sizes()[d - 1], sr = t.strides()[d - 2], sc = t.strides()[d - 1];
  const int64_t batch_stride = d == 3 ? t.strides()[0] : 0;
  if ((sc == 1 || c == 1) && (r == 1 || sr >= std::max<int64_t>(1, c)))
    return BlasOperand{t.data_ptr(), CUBLAS_OP_N, r == 1 ? std::max<int64_t>(1, c) : sr, batch_stride, Tensor()};
  if ((sr == 1 || r == 1) && (c == 1 || sc >= std::max<int64_t>(1, r)))
    return BlasOperand{t.data_ptr(), CUBLAS_OP_T, c == 1 ? std::max<int64_t>(1, r) : sc, batch_stride, Tensor()};
  return std::nullopt;
}
BlasOperand operand(const Tensor& t) {
  if (auto o = in_place_operand(t)) return *o;
  Tensor copy = t.contiguous();
  BlasOperand o = *in_place_operand(copy);
  o.keep = copy;
  return o;
}

int as_int(int64_t v, const char* what) {
  if (v > std::numeric_limits<int>::max())
    throw Error(std::string("cuBLAS: ") + what + " of " + std::to_string(v) + " is too large (at most 2^31 - 1)");
  return static_cast<int>(v);
}

// c = alpha * a @ b + beta * c for matrices [m, k] @ [k, n] or batches of them. c's last dim has
// stride 1 and its rows do not overlap.
void gemm(const Tensor& a, const Tensor& b, Tensor& c, double alpha, double beta) {
  const int64_t d = c.dim();
  const int64_t m = c.sizes()[d - 2], n = c.sizes()[d - 1], k = a.sizes()[d - 1];
  const int64_t batch = d == 3 ? c.sizes()[0] : 1;
  if (m == 0 || n == 0 || batch == 0) return;
  if (!is_floating_point(c.dtype())) {  // alpha and beta are integers here (addmm_factors)
    integer_gemm(a, b, c, static_cast<int64_t>(alpha), static_cast<int64_t>(beta));
    return;
  }
  if (k == 0) {  // an empty sum: beta * c
    if (beta == 0.0) glassbox::fill_(c, Scalar(0.0));
    else c.mul_(Scalar(beta));
    return;
  }
  const int device = c.device().index;
  DeviceGuard guard(device);
  const BlasOperand A = operand(a), B = operand(b);
  const int64_t ldc = m == 1 ? std::max<int64_t>(1, n) : c.strides()[d - 2];
  cublasHandle_t handle = blas_handle(device);
  GB_CUBLAS_CHECK(cublasSetStream(handle, current_stream(device).handle()));
  cudaDataType_t type = CUDA_R_32F;
  cublasComputeType_t compute = matmul_allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  switch (c.dtype()) {
    case ScalarType::Float64: type = CUDA_R_64F, compute = CUBLAS_COMPUTE_64F; break;
    case ScalarType::Float16: type = CUDA_R_16F, compute = CUBLAS_COMPUTE_32F; break;
    case ScalarType::BFloat16: type = CUDA_R_16BF, compute = CUBLAS_COMPUTE_32F; break;
    default: break;
  }
  const float alpha_f = static_cast<float>(alpha), beta_f = static_cast<float>(beta);
  const void* pa = type == CUDA_R_64F ? static_cast<const void*>(&alpha) : &alpha_f;
  const void* pb = type == CUDA_R_64F ? static_cast<const void*>(&beta) : &beta_f;
  // Column-major C^T [n, m] = B^T [n, k] . A^T [k, m].
  const int N = as_int(n, "a matrix dim"), M = as_int(m, "a matrix dim"), K = as_int(k, "a matrix dim");
  if (batch == 1) {
    GB_CUBLAS_CHECK(cublasGemmEx(handle, B.op, A.op, N, M, K, pa, B.data, type, as_int(B.ld, "a leading dim"), A.data,
                                 type, as_int(A.ld, "a leading dim"), pb, c.data_ptr(), type,
                                 as_int(ldc, "a leading dim"), compute, CUBLAS_GEMM_DEFAULT));
  } else {
    GB_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        handle, B.op, A.op, N, M, K, pa, B.data, type, as_int(B.ld, "a leading dim"), B.batch_stride, A.data, type,
        as_int(A.ld, "a leading dim"), A.batch_stride, pb, c.data_ptr(), type, as_int(ldc, "a leading dim"),
        c.strides()[0], as_int(batch, "a batch"), compute, CUBLAS_GEMM_DEFAULT));
  }
}

// Whether cuBLAS can write c in place: unit stride along rows, rows not overlapping.
bool writable_in_place(const Tensor& c) {
  const int64_t d = c.dim();
  const int64_t n = c.sizes()[d - 1], m = c.sizes()[d - 2];
  const bool rows_ok = (c.strides()[d - 1] == 1 || n == 1) && (m == 1 || c.strides()[d - 2] >= std::max<int64_t>(1, n));
  return rows_ok && (d == 2 || c.sizes()[0] == 1 || c.strides()[0] >= m * std::max<int64_t>(1, n));
}

bool shares_storage(const Tensor& a, const Tensor& b) {
  return a.unsafe_impl()->storage().get() == b.unsafe_impl()->storage().get();
}

// out = beta * self (broadcast) + alpha * mat1 @ mat2, through a temporary when out cannot be
// written in place or overlaps an operand.
Tensor& product_into(const Tensor* self, const Tensor& mat1, const Tensor& mat2, double beta, double alpha,
                     Tensor& out) {
  DeviceGuard guard(out.device().index);
  const bool direct = writable_in_place(out) && !shares_storage(out, mat1) && !shares_storage(out, mat2);
  Tensor target = direct ? out : empty_tensor(out.sizes(), out.dtype(), out.device());
  if (self && beta != 0.0) {  // beta == 0 ignores self entirely (NaN and inf included)
    if (!(target.is_same(*self))) glassbox::copy_(target, *self, false);
  } else {
    beta = 0.0;
  }
  gemm(mat1, mat2, target, alpha, beta);
  if (!target.is_same(out)) glassbox::copy_(out, target, false);
  else if (out.unsafe_impl()->storage()) out.unsafe_impl()->storage()->bump_version();
  return out;
}

// out (new, contiguous) = bias + mat1 @ mat2 in one cuBLASLt call, the bias added by the product's
// epilogue instead of being copied into out first: for beta = alpha = 1, a contiguous 1-D bias and
// floating operands that cuBLAS reads in place. False, with nothing done, otherwise.
bool addmm_with_bias_epilogue(const Tensor& bias, const Tensor& mat1, const Tensor& mat2, double beta, double alpha,
                              Tensor& out) {
  const ScalarType t = out.dtype();
  if (beta != 1.0 || alpha != 1.0 || bias.dim() != 1 || bias.dtype() != t || out.numel() == 0) return false;
  if (t != ScalarType::Float32 && t != ScalarType::Float16 && t != ScalarType::BFloat16) return false;
  const int64_t m = out.sizes()[0], n = out.sizes()[1], k = mat1.sizes()[1];
  if (k == 0 || bias.sizes()[0] != n || (bias.strides()[0] != 1 && n != 1)) return false;
  const auto A = in_place_operand(mat1), B = in_place_operand(mat2);
  if (!A || !B) return false;
  const cudaDataType_t type = t == ScalarType::Float16    ? CUDA_R_16F
                              : t == ScalarType::BFloat16 ? CUDA_R_16BF
                                                          : CUDA_R_32F;
  const cublasComputeType_t compute =
      t == ScalarType::Float32 && matmul_allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  // Column-major out^T [n, m] = B^T [n, k] . A^T [k, m] + bias (n long) in every column.
  return lt_gemm_bias(out.device().index, type, compute, n, m, k, {B->data, B->op, B->ld}, {A->data, A->op, A->ld},
                      bias.data_ptr(), out.data_ptr(), std::max<int64_t>(1, n));
}
}  // namespace

Tensor mm_cuda(const Tensor& self, const Tensor& mat2) {
  Tensor out = empty_tensor(mm_shape("mm", self, mat2), self.dtype(), self.device());
  return std::move(product_into(nullptr, self, mat2, 0.0, 1.0, out));
}
Tensor& mm_out_cuda(const Tensor& self, const Tensor& mat2, Tensor& out) {
  const DimVector shape = mm_shape("mm.out", self, mat2);
  check_out("mm.out", out, shape, self.dtype(), self.device());
  return product_into(nullptr, self, mat2, 0.0, 1.0, out);
}

Tensor bmm_cuda(const Tensor& self, const Tensor& mat2) {
  Tensor out = empty_tensor(bmm_shape("bmm", self, mat2), self.dtype(), self.device());
  return std::move(product_into(nullptr, self, mat2, 0.0, 1.0, out));
}
Tensor& bmm_out_cuda(const Tensor& self, const Tensor& mat2, Tensor& out) {
  const DimVector shape = bmm_shape("bmm.out", self, mat2);
  check_out("bmm.out", out, shape, self.dtype(), self.device());
  return product_into(nullptr, self, mat2, 0.0, 1.0, out);
}

Tensor addmm_cuda(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  const DimVector shape = addmm_shape("addmm", self, mat1, mat2);
  const auto [b, a] = addmm_factors("addmm", beta, alpha, self.dtype());
  Tensor out = empty_tensor(shape, self.dtype(), self.device());
  if (addmm_with_bias_epilogue(self, mat1, mat2, b, a, out)) return out;
  return std::move(product_into(&self, mat1, mat2, b, a, out));
}
Tensor& addmm_out_cuda(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                       const Scalar& alpha, Tensor& out) {
  const DimVector shape = addmm_shape("addmm.out", self, mat1, mat2);
  check_out("addmm.out", out, shape, self.dtype(), self.device());
  const auto [b, a] = addmm_factors("addmm.out", beta, alpha, self.dtype());
  return product_into(&self, mat1, mat2, b, a, out);
}

Tensor dot_cuda(const Tensor& self, const Tensor& tensor) {
  check_dot("dot", self, tensor);
  Tensor out = empty_tensor({}, self.dtype(), self.device());
  // A row vector times a column vector; strided vectors are read in place.
  Tensor c = out.view({1, 1});
  product_into(nullptr, self.unsqueeze(0), tensor.unsqueeze(1), 0.0, 1.0, c);
  return out;
}

}  // namespace glassbox::native
