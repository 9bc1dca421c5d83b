#include "engine/cpu/blas.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <optional>
#include <type_traits>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/parallel.h"
#include "engine/cpu/loops.h"

#ifdef GLASSBOX_HAVE_ONEDNN_GEMM
#include <dnnl.h>
#include <omp.h>

#include "engine/cpu/openmp_threads.h"
#endif
#ifdef GLASSBOX_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace glassbox::cpu {

namespace {

// ---- the built-in gemm: C tiles of kMC x kNC, each one thread's, accumulated over panels of kKC
// in a buffer of the accumulation type; A and B panels are packed (converted) first so the inner
// loop reads contiguous memory and vectorises over columns.
constexpr int64_t kMC = 64, kKC = 256, kNC = 256;

// Integers accumulate unsigned (uint32_t up to 32 bits, else uint64_t): wrap-around arithmetic,
// which casts back to the narrow type exactly as the narrow type's own (modular) arithmetic would.
template <class T>
using acc_t = std::conditional_t<std::is_floating_point_v<opmath_t<T>>, opmath_t<T>,
                                 std::conditional_t<(sizeof(T) <= 4), uint32_t, uint64_t>>;

template <class T, class A>
A to_acc(T v) {
  if constexpr (std::is_integral_v<A>) return static_cast<A>(static_cast<int64_t>(v));
  else return static_cast<A>(v);
}

// dst[i * cn + j] = v(r0 + i, c0 + j)
template <class T, class A>
void pack(const MatrixView& v, int64_t r0, int64_t rn, int64_t c0, int64_t cn, A* dst) {
  const T* base = static_cast<const T*>(v.data);
  for (int64_t i = 0; i < rn; ++i) {
    const T* row = base + (r0 + i) * v.row_stride + c0 * v.col_stride;
    A* out = dst + i * cn;
    if (v.col_stride == 1) {
      for (int64_t j = 0; j < cn; ++j) out[j] = to_acc<T, A>(row[j]);
    } else {
      for (int64_t j = 0; j < cn; ++j) out[j] = to_acc<T, A>(row[j * v.col_stride]);
    }
  }
}

// acc[mc x nc] += ap[mc x kc] @ bp[kc x nc]; four rows at a time so each B row is loaded once per four.
template <class A>
[[gnu::always_inline]] inline void micro_body(const A* ap, const A* bp, A* acc, int64_t mc, int64_t kc, int64_t nc) {
  int64_t i = 0;
  for (; i + 4 <= mc; i += 4) {
    A* c0 = acc + i * nc;
    A* c1 = c0 + nc;
    A* c2 = c1 + nc;
    A* c3 = c2 + nc;
    for (int64_t p = 0; p < kc; ++p) {
      const A a0 = ap[i * kc + p], a1 = ap[(i + 1) * kc + p], a2 = ap[(i + 2) * kc + p], a3 = ap[(i + 3) * kc + p];
      const A* b = bp + p * nc;
      for (int64_t j = 0; j < nc; ++j) {
        const A bj = b[j];
        c0[j] += a0 * bj;
        c1[j] += a1 * bj;
        c2[j] += a2 * bj;
        c3[j] += a3 * bj;
      }
    }
  }
  for (; i < mc; ++i) {
    A* c0 = acc + i * nc;
    for (int64_t p = 0; p < kc; ++p) {
      const A a0 = ap[i * kc + p];
      const A* b = bp + p * nc;
      for (int64_t j = 0; j < nc; ++j) c0[j] += a0 * b[j];
    }
  }
}

template <class A>
void micro(const A* ap, const A* bp, A* acc, int64_t mc, int64_t kc, int64_t nc) {
  micro_body(ap, bp, acc, mc, kc, nc);
}
#ifdef GLASSBOX_X86_DISPATCH
template <class A>
__attribute__((target("avx2,fma"))) void micro_avx2(const A* ap, const A* bp, A* acc, int64_t mc, int64_t kc,
                                                    int64_t nc) {
  micro_body(ap, bp, acc, mc, kc, nc);
}
#endif

template <class T>
void gemm_blocked(const MatrixView& a, const MatrixView& b, const MatrixView& c, double alpha_d, double beta_d) {
  using A = acc_t<T>;
  const int64_t m = c.rows, n = c.cols, k = a.cols;
  if (m == 0 || n == 0) return;
  const A alpha = to_acc<double, A>(alpha_d), beta = to_acc<double, A>(beta_d);
  const int64_t mt = (m + kMC - 1) / kMC, nt = (n + kNC - 1) / kNC, tiles = mt * nt;
  // Small products stay on one thread: the hand-off would cost more than the arithmetic.
  const int64_t grain = m * n * std::max<int64_t>(k, 1) < (int64_t{1} << 18) ? tiles : 1;
  parallel_for(0, tiles, grain, [&](int64_t lo, int64_t hi) {
    std::vector<A> ap(kMC * kKC), bp(kKC * kNC), acc(kMC * kNC);
    for (int64_t tile = lo; tile < hi; ++tile) {
      const int64_t i0 = (tile / nt) * kMC, j0 = (tile % nt) * kNC;
      const int64_t mc = std::min(kMC, m - i0), nc = std::min(kNC, n - j0);
      std::fill(acc.begin(), acc.begin() + mc * nc, A(0));
      for (int64_t p0 = 0; p0 < k; p0 += kKC) {
        const int64_t kc = std::min(kKC, k - p0);
        pack<T, A>(a, i0, mc, p0, kc, ap.data());
        pack<T, A>(b, p0, kc, j0, nc, bp.data());
#ifdef GLASSBOX_X86_DISPATCH
        if (cpu_has_avx2()) {  // AVX2 and FMA
          micro_avx2(ap.data(), bp.data(), acc.data(), mc, kc, nc);
          continue;
        }
#endif
        micro(ap.data(), bp.data(), acc.data(), mc, kc, nc);
      }
      T* cbase = static_cast<T*>(c.data);
      for (int64_t i = 0; i < mc; ++i) {
        for (int64_t j = 0; j < nc; ++j) {
          T& dst = cbase[(i0 + i) * c.row_stride + (j0 + j) * c.col_stride];
          A v = alpha * acc[i * nc + j];
          if (beta != A(0)) v += beta * to_acc<T, A>(dst);
          dst = static_cast<T>(v);
        }
      }
    }
  });
}

#ifdef GLASSBOX_HAVE_OPENBLAS
// ---- cblas. OpenBLAS keeps its own thread pool: its size follows glassbox's thread count,
// checked on every call (set_num_threads and GLASSBOX_NUM_THREADS both reach it this way).
void sync_blas_threads() {
  static std::atomic<int> current{0};
  const int want = get_num_threads();
  if (current.load(std::memory_order_relaxed) != want) {
    openblas_set_num_threads(want);
    current.store(want, std::memory_order_relaxed);
  }
}

struct BlasOperand {
  CBLAS_TRANSPOSE trans;
  int64_t ld;
};

// How cblas (row-major) reads v in place: as itself with leading dimension row_stride, or as
// the transpose of a matrix with leading dimension col_stride. Size-1 dims may have any stride.
std::optional<BlasOperand> blas_layout(const MatrixView& v) {
  const int64_t r = v.rows, c = v.cols;
  std::optional<BlasOperand> out;
  if ((v.col_stride == 1 || c <= 1) && (r <= 1 || v.row_stride >= std::max<int64_t>(1, c)))
    out = BlasOperand{CblasNoTrans, r <= 1 ? std::max<int64_t>(1, c) : v.row_stride};
  else if ((v.row_stride == 1 || r <= 1) && (c <= 1 || v.col_stride >= std::max<int64_t>(1, r)))
    out = BlasOperand{CblasTrans, c <= 1 ? std::max<int64_t>(1, r) : v.col_stride};
  if (out && out->ld > INT_MAX) out.reset();
  return out;
}

// A contiguous copy of v (row-major) in `buffer`, for layouts cblas cannot read.
template <class T>
MatrixView contiguous_copy(const MatrixView& v, std::vector<T>& buffer) {
  buffer.resize(static_cast<size_t>(v.rows * v.cols));
  pack<T, T>(v, 0, v.rows, 0, v.cols, buffer.data());
  return {buffer.data(), v.rows, v.cols, v.cols, 1};
}

template <class T>
void gemm_cblas(MatrixView a, MatrixView b, const MatrixView& c, double alpha, double beta) {
  // cblas writes C row-major: a column-major C is computed as C^T = B^T A^T.
  if (c.cols > 1 && c.col_stride != 1 && (c.row_stride == 1 || c.rows <= 1)) {
    gemm_cblas<T>(b.t(), a.t(), c.t(), alpha, beta);
    return;
  }
  const std::optional<BlasOperand> lc = blas_layout(c);
  if (!lc || lc->trans != CblasNoTrans) {
    std::vector<T> tmp(static_cast<size_t>(c.rows * c.cols));
    const MatrixView tc{tmp.data(), c.rows, c.cols, c.cols, 1};
    if (beta != 0.0) pack<T, T>(c, 0, c.rows, 0, c.cols, tmp.data());
    gemm_cblas<T>(a, b, tc, alpha, beta);
    T* dst = static_cast<T*>(c.data);
    for (int64_t i = 0; i < c.rows; ++i)
      for (int64_t j = 0; j < c.cols; ++j) dst[i * c.row_stride + j * c.col_stride] = tmp[i * c.cols + j];
    return;
  }
  std::vector<T> abuf, bbuf;
  std::optional<BlasOperand> la = blas_layout(a), lb = blas_layout(b);
  if (!la) la = blas_layout(a = contiguous_copy(a, abuf));
  if (!lb) lb = blas_layout(b = contiguous_copy(b, bbuf));
  const int m = static_cast<int>(c.rows), n = static_cast<int>(c.cols), k = static_cast<int>(a.cols);
  if constexpr (std::is_same_v<T, float>) {
#ifdef GLASSBOX_HAVE_ONEDNN_GEMM
    // oneDNN's sgemm (row-major, as called here) where it was found: 1.1-2.1x OpenBLAS's on 2
    // threads for the shapes of a small transformer's products (512x512 @ 512x128: 309 us against
    // 649), and no slower at 2048^3. Its OpenMP threads follow glassbox's count (one after a fork).
    omp_set_num_threads(openmp_threads());
    const auto op = [](CBLAS_TRANSPOSE t) { return t == CblasNoTrans ? 'N' : 'T'; };
    const dnnl_status_t status = dnnl_sgemm(
        op(la->trans), op(lb->trans), m, n, k, static_cast<float>(alpha), static_cast<const float*>(a.data), la->ld,
        static_cast<const float*>(b.data), lb->ld, static_cast<float>(beta), static_cast<float*>(c.data), lc->ld);
    if (status != dnnl_success)
      throw Error(detail::str_cat("gemm: oneDNN's sgemm failed with status ", static_cast<int>(status), " (", m, "x", k,
                                  " @ ", k, "x", n, ")"));
#else
    sync_blas_threads();
    cblas_sgemm(CblasRowMajor, la->trans, lb->trans, m, n, k, static_cast<float>(alpha),
                static_cast<const float*>(a.data), static_cast<int>(la->ld), static_cast<const float*>(b.data),
                static_cast<int>(lb->ld), static_cast<float>(beta), static_cast<float*>(c.data),
                static_cast<int>(lc->ld));
#endif
  } else {
    sync_blas_threads();
    cblas_dgemm(CblasRowMajor, la->trans, lb->trans, m, n, k, alpha, static_cast<const double*>(a.data),
                static_cast<int>(la->ld), static_cast<const double*>(b.data), static_cast<int>(lb->ld), beta,
                static_cast<double*>(c.data), static_cast<int>(lc->ld));
  }
}
#endif

void check_shapes(const MatrixView& a, const MatrixView& b, const MatrixView& c) {
  if (a.cols != b.rows || a.rows != c.rows || b.cols != c.cols) {
    throw Error(detail::str_cat("gemm: operand shapes do not agree (", a.rows, "x", a.cols, " @ ", b.rows, "x", b.cols,
                                " into ", c.rows, "x", c.cols, ")"));
  }
}

}  // namespace

void gemm_fallback(ScalarType dtype, const MatrixView& a, const MatrixView& b, const MatrixView& c, double alpha,
                   double beta) {
  check_shapes(a, b, c);
  if (dtype == ScalarType::Bool) throw NotImplementedError("gemm: bool matrices are not supported");
  visit_scalar_type(dtype, [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>) gemm_blocked<T>(a, b, c, alpha, beta);
  });
}

void gemm(ScalarType dtype, const MatrixView& a, const MatrixView& b, const MatrixView& c, double alpha, double beta) {
#ifdef GLASSBOX_HAVE_OPENBLAS
  const bool fits = std::max({a.rows, a.cols, b.cols}) <= INT_MAX;
  if (fits && (dtype == ScalarType::Float32 || dtype == ScalarType::Float64)) {
    check_shapes(a, b, c);
    if (c.rows == 0 || c.cols == 0) return;
    if (a.cols == 0) {  // cblas is not asked to scale by beta alone: the fallback does it
      gemm_fallback(dtype, a, b, c, alpha, beta);
      return;
    }
    if (dtype == ScalarType::Float32) gemm_cblas<float>(a, b, c, alpha, beta);
    else gemm_cblas<double>(a, b, c, alpha, beta);
    return;
  }
#endif
  gemm_fallback(dtype, a, b, c, alpha, beta);
}

bool has_blas() {
#ifdef GLASSBOX_HAVE_OPENBLAS
  return true;
#else
  return false;
#endif
}

bool gemm_serial_in_parallel_region(ScalarType dtype) {
#ifdef GLASSBOX_HAVE_ONEDNN_GEMM
  // Built with oneDNN, parallel_for runs on OpenMP's team, and oneDNN runs serially inside a region.
  if (dtype == ScalarType::Float32) return true;
#endif
  return !has_blas() || (dtype != ScalarType::Float32 && dtype != ScalarType::Float64);
}

int blas_num_threads() {
#ifdef GLASSBOX_HAVE_OPENBLAS
  return openblas_get_num_threads();
#else
  return get_num_threads();
#endif
}

std::string blas_info() {
#ifdef GLASSBOX_HAVE_OPENBLAS
  return openblas_get_config();
#else
  return "built-in gemm (no OpenBLAS)";
#endif
}

}  // namespace glassbox::cpu
