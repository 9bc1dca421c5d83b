// sort (stable) and topk along one dim. Each slice along the dim is gathered as order keys
// (engine/ops/kernels/sort.h, as on CUDA) with its indices, ordered, and written back; slices are
// split across threads.
#include <algorithm>
#include <numeric>
#include <vector>

#include "engine/core/error.h"
#include "engine/cpu/reduce_ops.h"
#include "engine/ops/kernels/sort.h"

namespace glassbox::cpu {

namespace {
// For every slice x[o, :, i]: the first k of its values in order (all of them when k == n).
template <class T>
void sorted_slices(const ReduceGeometry& g, int64_t k, bool descending, T* values, int64_t* indices) {
  using C = opmath_t<T>;
  using K = sort_key_t<T>;
  const T* x = g.data.template data<T>();
  const int64_t n = g.reduced, I = g.inner;
  parallel_for(0, g.outer * I, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(n, 1)),
               [&](int64_t lo, int64_t hi) {
    std::vector<K> key(static_cast<size_t>(n));
    std::vector<int64_t> order(static_cast<size_t>(n));
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t o = t / I, i = t % I;
      const T* src = x + o * n * I + i;
      for (int64_t r = 0; r < n; ++r) key[r] = sort_key<T>(static_cast<C>(src[r * I]), descending);
      std::iota(order.begin(), order.end(), int64_t{0});
      // Equal keys fall back to the index, which makes the order stable (and topk deterministic).
      auto before = [&](int64_t a, int64_t b) { return key[a] < key[b] || (key[a] == key[b] && a < b); };
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

}  // namespace

void sort_into(const Tensor& self, int64_t k, int64_t dim, bool descending, Tensor& values, Tensor& indices) {
  const ReduceGeometry g = dim_geometry(self, dim);
  visit_scalar_type(self.dtype(),
                    [&]<class T>() { sorted_slices<T>(g, k, descending, values.data<T>(), indices.data<int64_t>()); });
}

}  // namespace glassbox::cpu
