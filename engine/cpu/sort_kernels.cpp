// sort (stable) and topk along one dim. Each slice along the dim is gathered with its indices,
// ordered, and written back; slices are split across threads. NaN sorts above every number
// (last ascending, first descending), as in PyTorch.
#include <algorithm>
#include <numeric>
#include <vector>

#include "engine/core/error.h"
#include "engine/cpu/reduce_ops.h"
#include "engine/ops/reduction_shape.h"
#include "glassbox/ops/native/sort.h"
#include "glassbox/ops/native/topk.h"

namespace glassbox::native {

namespace {
template <class C>
bool greater_nan_high(C a, C b) {
  if (a != a) return b == b;  // NaN above numbers; two NaNs are equal
  return a > b;
}

// For every slice x[o, :, i]: the first k of its values in order (all of them when k == n).
template <class T>
void sorted_slices(const cpu::ReduceGeometry& g, int64_t k, bool descending, T* values, int64_t* indices) {
  using C = cpu::compute_t<T>;
  const T* x = g.data.template data<T>();
  const int64_t n = g.reduced, I = g.inner;
  parallel_for(0, g.outer * I, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(n, 1)), [&](int64_t lo, int64_t hi) {
    std::vector<C> v(static_cast<size_t>(n));
    std::vector<int64_t> order(static_cast<size_t>(n));
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t o = t / I, i = t % I;
      const T* src = x + o * n * I + i;
      for (int64_t r = 0; r < n; ++r) v[r] = static_cast<C>(src[r * I]);
      std::iota(order.begin(), order.end(), int64_t{0});
      // Ties fall back to the index, which makes the order stable (and topk deterministic).
      auto before = [&](int64_t a, int64_t b) {
        if (descending ? greater_nan_high(v[a], v[b]) : greater_nan_high(v[b], v[a])) return true;
        if (descending ? greater_nan_high(v[b], v[a]) : greater_nan_high(v[a], v[b])) return false;
        return a < b;
      };
      if (k < n) std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      else std::sort(order.begin(), order.end(), before);
      const int64_t out_base = o * k * I + i;
      for (int64_t r = 0; r < k; ++r) {
        values[out_base + r * I] = src[order[r] * I];
        indices[out_base + r * I] = order[r];
      }
    }
  });
}

std::tuple<Tensor, Tensor> sort_impl(const Tensor& self, int64_t k, int64_t dim, bool descending, DimVector shape) {
  Tensor values = empty_tensor(shape, self.dtype(), self.device());
  Tensor indices = empty_tensor(shape, ScalarType::Int64, self.device());
  if (values.numel() == 0) return {values, indices};
  const cpu::ReduceGeometry g = cpu::dim_geometry(self, self.dim() == 0 ? 0 : dim);
  visit_scalar_type(self.dtype(), [&]<class T>() { sorted_slices<T>(g, k, descending, values.data<T>(), indices.data<int64_t>()); });
  return {values, indices};
}
}  // namespace

std::tuple<Tensor, Tensor> sort_cpu(const Tensor& self, int64_t dim, bool descending) {
  const int64_t d = wrap_dim("sort", dim, self);
  return sort_impl(self, self.dim() == 0 ? 1 : self.sizes()[d], d, descending, self.sizes());
}

// sorted=False still returns them sorted: any order is allowed, and this one is reproducible.
std::tuple<Tensor, Tensor> topk_cpu(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  (void)sorted;
  const DimVector shape = topk_shape(self, k, dim);
  // A 0-d tensor is its own top-k for k = 0 and k = 1 alike (PyTorch's answer): its one element.
  return sort_impl(self, self.dim() == 0 ? 1 : k, wrap_dim("topk", dim, self), largest, shape);
}

}  // namespace glassbox::native
