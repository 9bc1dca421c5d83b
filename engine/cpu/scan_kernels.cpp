// cumsum on the CPU: a running sum along one dim, rows split across threads. Integers and bool
// sum in int64 (the result's dtype); float16/bfloat16 accumulate in float32.
#include "engine/core/error.h"
#include "engine/cpu/reduce_ops.h"
#include "engine/ops/reduction_shape.h"
#include "glassbox/ops/native/cumsum.h"

namespace glassbox::native {

namespace {
template <class T, class R>
void cumsum_loop(const cpu::ReduceGeometry& g, R* out) {
  using A = cpu::sum_acc_t<T>;
  const T* x = g.data.template data<T>();
  const int64_t n = g.reduced, I = g.inner;
  constexpr int64_t kTile = 256;
  const int64_t tiles = (I + kTile - 1) / kTile;
  parallel_for(0, g.outer * tiles, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(n * std::min(I, kTile), 1)),
               [&](int64_t lo, int64_t hi) {
                 A acc[kTile];
                 for (int64_t t = lo; t < hi; ++t) {
                   const int64_t o = t / tiles, c0 = (t % tiles) * kTile, w = std::min(kTile, I - c0);
                   for (int64_t j = 0; j < w; ++j) acc[j] = A(0);
                   for (int64_t r = 0; r < n; ++r) {
                     const int64_t at = (o * n + r) * I + c0;
                     for (int64_t j = 0; j < w; ++j) {
                       acc[j] += cpu::load_as<T, A>(x + at + j);
                       out[at + j] = convert_value<R>(acc[j]);
                     }
                   }
                 }
               });
}

Tensor cumsum_impl(const char* op, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  const int64_t d = wrap_dim(op, dim, self);
  const ScalarType out_dtype = cumsum_dtype(self, dtype);
  const Tensor in = cpu::converted(self, is_floating_point(out_dtype)      ? out_dtype
                                         : is_floating_point(self.dtype()) ? ScalarType::Int64
                                                                           : self.dtype());
  // Integers run in int64 and convert at the end when another integer dtype is asked for.
  const ScalarType run_dtype = is_floating_point(out_dtype) ? out_dtype : ScalarType::Int64;
  Tensor result = empty_tensor(self.sizes(), run_dtype, self.device());
  if (result.numel() == 0) return cpu::converted(result, out_dtype);
  const cpu::ReduceGeometry g = cpu::dim_geometry(in, self.dim() == 0 ? 0 : d);
  visit_scalar_type(in.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<cpu::compute_t<T>>) cumsum_loop<T, T>(g, result.data<T>());
    else cumsum_loop<T, int64_t>(g, result.data<int64_t>());
  });
  result = cpu::converted(result, out_dtype);
  return result;
}
}  // namespace

Tensor cumsum_cpu(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return cumsum_impl("cumsum", self, dim, dtype);
}
Tensor& cumsum_out_cpu(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, Tensor& out) {
  const Tensor result = cumsum_impl("cumsum.out", self, dim, dtype);
  check_out("cumsum.out", out, result.sizes(), result.dtype(), self.device());
  glassbox::copy_(out, result, false);
  return out;
}

}  // namespace glassbox::native
