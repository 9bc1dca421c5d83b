// The indexing family's CPU computes (the front end is engine/ops/indexing.cpp). The operand the
// kernel reads or writes through an index is a "restrided" view (engine/ops/index_layout.h: the
// indexed dim given stride 0, so every operand walks one shape), and TensorIterator runs a loop over
// (destination, source, index) that adds index * dim_stride bytes to that operand's address.
#include <cstring>
#include <limits>
#include <vector>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/core/parallel.h"
#include "engine/cpu/loops.h"
#include "engine/ops/indexing.h"
#include "engine/ops/kernels/index.h"

namespace glassbox::cpu {

namespace {
// raw wrapped into [0, size), or the op's IndexError.
int64_t checked(const char* op, int64_t raw, const IndexedAlong& d) {
  const int64_t v = raw < 0 ? raw + d.size : raw;
  if (v < 0 || v >= d.size) throw_index_out_of_range(op, raw, d.dim, d.size);
  return v;
}
// Runs f(p) for every element of the iterator's loop, p[k] the address of operand k's element.
template <int N, class F>
void for_each_element(TensorIterator& it, const F& f, int64_t grain = kDefaultGrain) {
  it.for_each(
      [&f](char** data, const int64_t* s, int64_t n) {
    char* p[N];
    for (int64_t i = 0; i < n; ++i) {
      for (int k = 0; k < N; ++k) p[k] = data[k] + i * s[k];
      f(p);
    }
      },
      grain);
}

// The first value of an index tensor out of range throws, before a kernel writes anything.
void check_range(const char* op, const Tensor& index, const IndexedAlong& d) {
  const Tensor idx = index.contiguous();
  visit_index_type(idx.dtype(), [&]<class I>() {
    const I* p = idx.data<I>();
    for (int64_t i = 0; i < idx.numel(); ++i) checked(op, static_cast<int64_t>(p[i]), d);
  });
}

void gather(const char* op, TensorIterator& it, const Tensor& index_values, const IndexedAlong& d) {
  if (index_values.defined()) check_range(op, index_values, d);
  visit_element_size(d.dtype, [&]<size_t B>() {
    visit_index_type(d.index_dtype, [&]<class I>() {
      for_each_element<3>(it, GatherElement<B, I>{{d.stride_bytes, d.size}});
    });
  });
}

// (dst, src, index): dst at index = src, or += alpha * src. One thread when accumulating: two
// elements may land on one destination.
void scatter(const char* op, TensorIterator& it, const Tensor& index_values, const IndexedAlong& d, bool accumulate,
             const Scalar& alpha) {
  if (index_values.defined()) check_range(op, index_values, d);
  const IndexStep step{d.stride_bytes, d.size};
  if (!accumulate) {
    visit_element_size(d.dtype, [&]<size_t B>() {
      visit_index_type(d.index_dtype, [&]<class I>() { for_each_element<3>(it, ScatterElement<B, I>{step}); });
    });
    return;
  }
  visit_scalar_type(d.dtype, [&]<class T>() {
    const opmath_t<T> a = scalar_in<opmath_t<T>>(alpha);
    visit_index_type(d.index_dtype, [&]<class I>() {
      it.for_each(
          [&](char** data, const int64_t* s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          char* p = data[0] + i * s[0] + step.offset(load_element<I>(data[2] + i * s[2]));
          if constexpr (std::is_same_v<T, bool>) store<T>(p, load<T>(p) || (a && load<T>(data[1] + i * s[1])));
          else store<T>(p, load<T>(p) + a * load<T>(data[1] + i * s[1]));
        }
          },
          std::numeric_limits<int64_t>::max());
    });
  });
}

// For each position of the broadcast index shape, the sum of index * stride over the indexed dims.
void index_offsets(const char* op, const Tensor& self, const AdvancedIndexing& a, Tensor& offsets) {
  std::vector<IndexedAlong> dims;
  std::vector<Tensor> idx;
  for (size_t j = 0; j < a.indices.size(); ++j) {
    idx.push_back(a.indices[j].dtype() == ScalarType::Int64 ? a.indices[j] : a.indices[j].to(ScalarType::Int64));
    const int64_t d = a.indexed_dims[j];
    dims.push_back({self.strides()[d] * static_cast<int64_t>(element_size(self.dtype())), self.sizes()[d], d,
                    self.dtype(), ScalarType::Int64});
  }
  TensorIteratorConfig config(op);
  config.add_output(&offsets).keep_dtypes();
  for (const Tensor& t : idx) config.add_input(t);
  TensorIterator it = config.build();
  it.for_each([op, &dims](char** data, const int64_t* s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      int64_t offset = 0;
      for (size_t j = 0; j < dims.size(); ++j)
        offset += checked(op, load_element<int64_t>(data[1 + j] + i * s[1 + j]), dims[j]) * dims[j].stride_bytes;
      std::memcpy(data[0] + i * s[0], &offset, sizeof(offset));
    }
  });
}

void fill_masked(TensorIterator& it, const Scalar& value) {
  visit_scalar_type(it.operand(0).dtype(), [&]<class T>() {
    const T v = static_cast<T>(scalar_in<opmath_t<T>>(value));
    using W = element_word_t<sizeof(T)>;
    W bits;
    std::memcpy(&bits, &v, sizeof(T));
    if (it.num_operands() == 3) for_each_element<3>(it, SelectWhereElement<W>{bits});
    else for_each_element<2>(it, FillWhereElement<W>{bits});
  });
}

void embedding_backward(const Tensor& grad, const Tensor& ids, int64_t padding_idx, bool scale_grad_by_freq,
                        Tensor& out) {
  const int64_t* id = ids.data<int64_t>();
  const int64_t n = ids.numel(), num_weights = out.sizes()[0], width = out.sizes()[1];
  std::vector<int64_t> counts(scale_grad_by_freq ? num_weights : 0);
  for (int64_t i = 0; i < n; ++i) {
    if (id[i] < 0 || id[i] >= num_weights) throw_index_out_of_range("embedding_dense_backward", id[i], 0, num_weights);
    if (scale_grad_by_freq) ++counts[id[i]];
  }
  visit_scalar_type(grad.dtype(), [&]<class T>() {
    using C = opmath_t<T>;
    if constexpr (std::is_floating_point_v<C>) {  // grad_output's dtype was checked: the others never run
      std::vector<C> sum(static_cast<size_t>(num_weights * width), C(0));  // half types accumulate in float
      const T* g = grad.data<T>();
      // Threads split the embedding dim: rows that repeat an index never race.
      const int64_t grain = std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(n, 1));
      parallel_for(0, width, grain, [&](int64_t lo, int64_t hi) {
        for (int64_t i = 0; i < n; ++i) {
          if (id[i] == padding_idx) continue;
          const C scale = scale_grad_by_freq ? C(1) / static_cast<C>(counts[id[i]]) : C(1);
          C* row = sum.data() + id[i] * width;
          for (int64_t c = lo; c < hi; ++c) row[c] += static_cast<C>(g[i * width + c]) * scale;
        }
      });
      T* o = out.data<T>();
      for (size_t k = 0; k < sum.size(); ++k) o[k] = static_cast<T>(sum[k]);
    }
  });
}

const IndexBackend kIndexing{gather, scatter, index_offsets, fill_masked, embedding_backward};
const IndexBackends::Registration kRegistered(DeviceType::CPU, kIndexing);
}  // namespace

}  // namespace glassbox::cpu
