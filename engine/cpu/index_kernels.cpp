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

namespace glassbox::cpu {

namespace {
// raw wrapped into [0, size), or the op's IndexError.
int64_t checked(const char* op, int64_t raw, const IndexedAlong& d) {
  const int64_t v = raw < 0 ? raw + d.size : raw;
  if (v < 0 || v >= d.size) throw_index_out_of_range(op, raw, d.dim, d.size);
  return v;
}
template <class I>
int64_t index_at(const char* p) {
  I raw;
  std::memcpy(&raw, p, sizeof(I));
  return static_cast<int64_t>(raw);
}

// A Scalar as the value type a kernel of T computes in.
template <class T>
opmath_t<T> scalar_as(const Scalar& v) {
  if (v.is_floating_point()) return static_cast<opmath_t<T>>(v.to_double());
  if (v.is_bool()) return static_cast<opmath_t<T>>(v.to_bool());
  return static_cast<opmath_t<T>>(v.to_int());
}

// The first value of an index tensor out of range throws, before a kernel writes anything.
void check_range(const char* op, const Tensor& index, const IndexedAlong& d) {
  const Tensor idx = index.contiguous();
  visit_index_type(idx.dtype(), [&]<class I>() {
    const I* p = idx.data<I>();
    for (int64_t i = 0; i < idx.numel(); ++i) checked(op, static_cast<int64_t>(p[i]), d);
  });
}

// (out, src, index): out = src at index, moved as bytes (one instantiation per element size);
// indices are checked as they are read (only out, a fresh tensor, is written).
void gather(const char* op, TensorIterator& it, const Tensor&, const IndexedAlong& d) {
  visit_element_size(d.dtype, [&]<size_t B>() {
    visit_index_type(d.index_dtype, [&]<class I>() {
      it.for_each([op, &d](char** data, const int64_t* s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          const int64_t v = checked(op, index_at<I>(data[2] + i * s[2]), d);
          std::memcpy(data[0] + i * s[0], data[1] + i * s[1] + v * d.stride_bytes, B);
        }
      });
    });
  });
}

// (dst, src, index): dst at index = src, or += alpha * src. One thread when accumulating: two
// elements may land on one destination.
void scatter(const char* op, TensorIterator& it, const Tensor& index_values, const IndexedAlong& d, bool accumulate,
             const Scalar& alpha) {
  if (index_values.defined()) check_range(op, index_values, d);
  const auto wrapped = [&d](int64_t raw) { return raw < 0 ? raw + d.size : raw; };
  if (!accumulate) {
    visit_element_size(d.dtype, [&]<size_t B>() {
      visit_index_type(d.index_dtype, [&]<class I>() {
        it.for_each([&](char** data, const int64_t* s, int64_t n) {
          for (int64_t i = 0; i < n; ++i) {
            const int64_t v = wrapped(index_at<I>(data[2] + i * s[2]));
            std::memcpy(data[0] + i * s[0] + v * d.stride_bytes, data[1] + i * s[1], B);
          }
        });
      });
    });
    return;
  }
  visit_scalar_type(d.dtype, [&]<class T>() {
    const opmath_t<T> a = scalar_as<T>(alpha);
    visit_index_type(d.index_dtype, [&]<class I>() {
      it.for_each(
          [&](char** data, const int64_t* s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          char* p = data[0] + i * s[0] + wrapped(index_at<I>(data[2] + i * s[2])) * d.stride_bytes;
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
        offset += checked(op, index_at<int64_t>(data[1 + j] + i * s[1 + j]), dims[j]) * dims[j].stride_bytes;
      std::memcpy(data[0] + i * s[0], &offset, sizeof(offset));
    }
  });
}

void fill_masked(TensorIterator& it, const Scalar& value) {
  visit_scalar_type(it.operand(0).dtype(), [&]<class T>() {
    const T v = static_cast<T>(scalar_as<T>(value));
    it.for_each([v](char** data, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i)
        if (*reinterpret_cast<const bool*>(data[1] + i * s[1])) std::memcpy(data[0] + i * s[0], &v, sizeof(T));
    });
  });
}

Scalar item(const Tensor& t) {
  return visit_scalar_type(t.dtype(), [&]<class T>() -> Scalar {
    const opmath_t<T> v = load<T>(static_cast<const char*>(t.data_ptr()));
    if constexpr (std::is_same_v<T, bool>) return Scalar(v);
    else if constexpr (std::is_floating_point_v<opmath_t<T>>) return Scalar(static_cast<double>(v));
    else return Scalar(static_cast<int64_t>(v));
  });
}

Tensor one_hot(const Tensor& self, const Tensor& classes, int64_t num_classes) {
  const int64_t* v = classes.data<int64_t>();
  const int64_t n = classes.numel();
  if (num_classes == -1) num_classes = *std::max_element(v, v + n) + 1;
  Tensor out = empty_tensor(one_hot_shape(self, num_classes), ScalarType::Int64, self.device());
  int64_t* o = out.data<int64_t>();
  parallel_for(0, n, kDefaultGrain / std::max<int64_t>(num_classes, 1) + 1, [&](int64_t lo, int64_t hi) {
    std::fill(o + lo * num_classes, o + hi * num_classes, 0);
    for (int64_t i = lo; i < hi; ++i) {
      if (v[i] < 0 || v[i] >= num_classes) throw_one_hot_class_out_of_range(v[i], num_classes);
      o[i * num_classes + v[i]] = 1;
    }
  });
  return out;
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

const IndexBackend kIndexing{gather, scatter, index_offsets, fill_masked, item, one_hot, embedding_backward};
const IndexBackends::Registration kRegistered(DeviceType::CPU, kIndexing);
}  // namespace

}  // namespace glassbox::cpu
