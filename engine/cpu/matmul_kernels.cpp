// Matrix products on the CPU: mm, bmm, addmm, dot and their out= forms. Shapes and dtypes come
// from engine/ops/linalg_shape.h (the Meta kernels use the same functions); the arithmetic is
// cpu::gemm, which hands strided and transposed operands to cblas without copying them.
#include <algorithm>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/core/parallel.h"
#include "engine/cpu/blas.h"
#include "engine/ops/linalg_shape.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/addmm.h"
#include "glassbox/ops/native/bmm.h"
#include "glassbox/ops/native/dot.h"
#include "glassbox/ops/native/mm.h"

namespace glassbox::native {

namespace {

using cpu::MatrixView;

// Matrix `index` of a batch (dim 0 of a 3-D tensor), or the matrix itself for a 2-D tensor.
MatrixView matrix(const Tensor& t, int64_t index = 0) {
  const int64_t d = t.dim();
  char* base = static_cast<char*>(t.data_ptr());
  if (d == 3) base += index * t.strides()[0] * static_cast<int64_t>(element_size(t.dtype()));
  return {base, t.sizes()[d - 2], t.sizes()[d - 1], t.strides()[d - 2], t.strides()[d - 1]};
}

bool shares_storage(const Tensor& a, const Tensor& b) {
  return a.unsafe_impl()->storage().get() == b.unsafe_impl()->storage().get();
}

void bump(Tensor& t) {
  if (t.unsafe_impl()->storage()) t.unsafe_impl()->storage()->bump_version();
}

// out = self @ mat2 for matrices or batches of them; `out` is written in place.
void product(const Tensor& self, const Tensor& mat2, Tensor& out, double alpha = 1.0, double beta = 0.0) {
  const ScalarType dtype = self.dtype();
  if (self.dim() == 2) {
    cpu::gemm(dtype, matrix(self), matrix(mat2), matrix(out), alpha, beta);
    return;
  }
  const int64_t batch = self.sizes()[0];
  const int64_t work = self.sizes()[1] * mat2.sizes()[2] * std::max<int64_t>(self.sizes()[2], 1);
  // Small products, or as many as there are threads, go one per thread: a product of attention's
  // (64x32 @ 32x64) split over 16 threads costs more in hand-offs than it computes. OpenBLAS
  // parallelises each product itself instead.
  const bool per_thread =
      cpu::gemm_serial_in_parallel_region(dtype) && (work < (int64_t{1} << 18) || batch >= get_num_threads());
  if (!per_thread) {
    for (int64_t i = 0; i < batch; ++i) cpu::gemm(dtype, matrix(self, i), matrix(mat2, i), matrix(out, i), alpha, beta);
    return;
  }
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 18) / std::max<int64_t>(work, 1));
  parallel_for(0, batch, grain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) cpu::gemm(dtype, matrix(self, i), matrix(mat2, i), matrix(out, i), alpha, beta);
  });
}

// The out= forms compute into `out` unless it overlaps an input, then through a fresh tensor.
Tensor& product_out(const char* op, const Tensor& self, const Tensor& mat2, Tensor& out, const DimVector& shape) {
  check_out(op, out, shape, self.dtype(), self.device());
  if (shares_storage(out, self) || shares_storage(out, mat2)) {
    Tensor tmp = empty_tensor(shape, self.dtype(), self.device());
    product(self, mat2, tmp);
    glassbox::copy_(out, tmp);
    return out;
  }
  product(self, mat2, out);
  bump(out);
  return out;
}

// out = beta * self + alpha * mat1 @ mat2, self broadcast to out's shape.
Tensor& addmm_into(const Tensor& self, const Tensor& mat1, const Tensor& mat2, double beta, double alpha, Tensor& out) {
  if (beta != 0.0) {  // beta == 0 ignores self entirely (NaN and inf included)
    const bool is_self = shares_storage(out, self) && out.storage_offset() == self.storage_offset() &&
                         out.sizes() == self.sizes() && out.strides() == self.strides();
    if (!is_self) glassbox::copy_(out, self);
  }
  product(mat1, mat2, out, alpha, beta);
  bump(out);
  return out;
}

}  // namespace

Tensor mm_cpu(const Tensor& self, const Tensor& mat2) {
  Tensor out = empty_tensor(mm_shape("mm", self, mat2), self.dtype(), self.device());
  product(self, mat2, out);
  return out;
}
Tensor& mm_out_cpu(const Tensor& self, const Tensor& mat2, Tensor& out) {
  return product_out("mm.out", self, mat2, out, mm_shape("mm.out", self, mat2));
}

Tensor bmm_cpu(const Tensor& self, const Tensor& mat2) {
  Tensor out = empty_tensor(bmm_shape("bmm", self, mat2), self.dtype(), self.device());
  product(self, mat2, out);
  return out;
}
Tensor& bmm_out_cpu(const Tensor& self, const Tensor& mat2, Tensor& out) {
  return product_out("bmm.out", self, mat2, out, bmm_shape("bmm.out", self, mat2));
}

Tensor addmm_cpu(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  const DimVector shape = addmm_shape("addmm", self, mat1, mat2);
  const auto [b, a] = addmm_factors("addmm", beta, alpha, self.dtype());
  Tensor out = empty_tensor(shape, self.dtype(), self.device());
  return std::move(addmm_into(self, mat1, mat2, b, a, out));
}
Tensor& addmm_out_cpu(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                      const Scalar& alpha, Tensor& out) {
  const DimVector shape = addmm_shape("addmm.out", self, mat1, mat2);
  check_out("addmm.out", out, shape, self.dtype(), self.device());
  const auto [b, a] = addmm_factors("addmm.out", beta, alpha, self.dtype());
  if (shares_storage(out, mat1) || shares_storage(out, mat2)) {
    Tensor tmp = empty_tensor(shape, self.dtype(), self.device());
    addmm_into(self, mat1, mat2, b, a, tmp);
    glassbox::copy_(out, tmp);
    return out;
  }
  return addmm_into(self, mat1, mat2, b, a, out);
}

Tensor dot_cpu(const Tensor& self, const Tensor& tensor) {
  check_dot("dot", self, tensor);
  Tensor out = empty_tensor({}, self.dtype(), self.device());
  const int64_t n = self.numel();
  // A row vector times a column vector; strided vectors are read in place.
  const MatrixView row{self.data_ptr(), 1, n, n, self.strides()[0]};
  const MatrixView col{tensor.data_ptr(), n, 1, tensor.strides()[0], 1};
  cpu::gemm(self.dtype(), row, col, {out.data_ptr(), 1, 1, 1, 1});
  return out;
}

}  // namespace glassbox::native
