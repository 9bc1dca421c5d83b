// Indexing operators (index, index_put_, gather, scatter, scatter_add, index_select, index_add_,
// masked_fill, masked_select, one_hot, embedding and its backward) against hand-computed values,
// their Meta kernels, their error texts, and the C++ indexing API of engine/ops/tensor_index.h.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/parallel.h"
#include "engine/ops/tensor_index.h"
#include "glassbox/ops/Functions.h"
#include "tests/cpp/ops/error_text.h"

using namespace glassbox;
using glassbox::testing::error_of;
using namespace glassbox::indexing;

namespace {
using V = std::vector<double>;
using S = std::vector<int64_t>;

// A contiguous tensor of `dtype` holding `values` (row-major).
Tensor make(S sizes, V values, ScalarType dtype = ScalarType::Float32) {
  Tensor t = empty(sizes, dtype);
  EXPECT_EQ(t.numel(), static_cast<int64_t>(values.size()));
  visit_scalar_type(dtype, [&]<class T>() {
    for (size_t i = 0; i < values.size(); ++i) t.data<T>()[i] = static_cast<T>(values[i]);
  });
  return t;
}
Tensor iota(S sizes, ScalarType dtype = ScalarType::Float32) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  V v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>(i);
  return make(sizes, v, dtype);
}
Tensor ints(S sizes, V values, ScalarType dtype = ScalarType::Int64) { return make(sizes, values, dtype); }
Tensor mask(S sizes, V values) { return make(sizes, values, ScalarType::Bool); }

// All elements in logical order, read through the strides, as doubles.
V values(const Tensor& t) {
  V out;
  visit_scalar_type(t.dtype(), [&]<class T>() {
    S idx(t.dim(), 0);
    for (int64_t n = 0; n < t.numel(); ++n) {
      int64_t off = 0;
      for (int64_t d = 0; d < t.dim(); ++d) off += idx[d] * t.strides()[d];
      if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
        out.push_back(static_cast<double>(static_cast<float>(t.data<T>()[off])));
      else out.push_back(static_cast<double>(t.data<T>()[off]));
      for (int64_t d = t.dim() - 1; d >= 0 && ++idx[d] == t.sizes()[d]; --d) idx[d] = 0;
    }
  });
  return out;
}
#define EXPECT_ERROR(expr, Type, text)                                          \
  do {                                                                          \
    EXPECT_THROW(expr, Type);                                                   \
    const std::string message = error_of([&] { expr; });                        \
    EXPECT_NE(message.find(text), std::string::npos) << "message: " << message; \
  } while (0)
#define EXPECT_TENSOR(t, sizes_, values_)      \
  do {                                         \
    EXPECT_EQ((t).sizes(), DimVector(sizes_)); \
    EXPECT_EQ(values(t), V(values_));          \
  } while (0)
const Device kMeta = Device(DeviceType::Meta);
bool shares_storage(const Tensor& a, const Tensor& b) {
  return a.unsafe_impl()->storage().get() == b.unsafe_impl()->storage().get();
}
}  // namespace

TEST(Index, IntegerTensorsBroadcastAndPlaceTheirDims) {
  const Tensor x = iota({3, 4, 5});
  // one index tensor: its shape replaces dim 0
  EXPECT_TENSOR(index(x, {ints({2}, {2, -3})}).select(1, 0), S({2, 5}), V({40, 41, 42, 43, 44, 0, 1, 2, 3, 4}));
  // two adjacent index tensors broadcast ([2,1] with [3]) and stay where they are
  const Tensor rows = ints({2, 1}, {0, 2}), cols = ints({3}, {1, 2, 3}, ScalarType::Int32);
  const std::optional<Tensor> none;
  const Tensor adj = index(x, {none, rows, cols});
  EXPECT_EQ(adj.sizes(), DimVector({3, 2, 3}));
  EXPECT_EQ(values(adj)[0 * 6 + 1 * 3 + 2], 0 * 20 + 2 * 5 + 3);
  // separated by a None (dim 1 left alone): the broadcast dims go first
  const Tensor sep = index(x, {rows, none, cols});
  EXPECT_EQ(sep.sizes(), DimVector({2, 3, 4}));
  EXPECT_EQ(values(sep)[1 * 12 + 2 * 4 + 1], 2 * 20 + 1 * 5 + 3);
  // 0-d index and empty index
  EXPECT_TENSOR(index(iota({4}), {ints({}, {3})}), S({}), V({3}));
  EXPECT_EQ(index(x, {ints({0}, {})}).sizes(), DimVector({0, 4, 5}));
}

TEST(Index, BoolMasksPickTrueElementsInOrder) {
  const Tensor x = iota({2, 3});
  EXPECT_TENSOR(index(x, {mask({2, 3}, {1, 0, 1, 0, 0, 1})}), S({3}), V({0, 2, 5}));
  EXPECT_TENSOR(index(x, {std::optional<Tensor>(), mask({3}, {0, 1, 1})}), S({2, 2}), V({1, 2, 4, 5}));
  EXPECT_TENSOR(index(x, {mask({2, 3}, {0, 0, 0, 0, 0, 0})}), S({0}), V({}));
  EXPECT_TENSOR(index(x, {make({2}, {1, 0}, ScalarType::UInt8)}), S({1, 3}), V({0, 1, 2}));
}

TEST(Index, ErrorsNameTheOpIndexDimAndSize) {
  const Tensor x = iota({3, 4});
  EXPECT_ERROR(index(x, {std::optional<Tensor>(), ints({2}, {1, 4})}), IndexError,
               "index: index 4 is out of bounds for dimension 1 with size 4");
  EXPECT_ERROR(index(x, {ints({1}, {-4})}), IndexError, "index -4 is out of bounds for dimension 0 with size 3");
  EXPECT_ERROR(index(x, {ints({1}, {0}), ints({1}, {0}), ints({1}, {0})}), IndexError, "too many indices");
  EXPECT_ERROR(index(x, {make({1}, {0})}), IndexError, "must be int64, int32, bool or uint8");
  EXPECT_ERROR(index(x, {ints({2}, {0, 1}), ints({3}, {0, 1, 2})}), IndexError, "could not be broadcast");
  EXPECT_ERROR(index(x, {mask({4}, {1, 0, 1, 0})}), IndexError, "shape of the mask [4] at index 0");
}

TEST(IndexPut, AssignAccumulateMasksAndBroadcastValues) {
  Tensor x = zeros({3, 2});
  index_put_(x, {ints({2}, {2, 0})}, make({2}, {7, 8}));  // values [2] broadcast over rows [2, 2]
  EXPECT_TENSOR(x, S({3, 2}), V({7, 8, 0, 0, 7, 8}));
  Tensor acc = zeros({4});
  index_put_(acc, {ints({5}, {1, 1, 3, 1, -1})}, make({5}, {1, 2, 3, 4, 5}), true);  // duplicates add up
  EXPECT_TENSOR(acc, S({4}), V({0, 7, 0, 8}));
  Tensor m = iota({2, 2});
  index_put_(m, {mask({2, 2}, {1, 0, 0, 1})}, make({}, {-1}));
  EXPECT_TENSOR(m, S({2, 2}), V({-1, 1, 2, -1}));
  const Tensor base = iota({3});
  const Tensor out = index_put(base, {ints({1}, {1})}, make({1}, {9}));
  EXPECT_TENSOR(out, S({3}), V({0, 9, 2}));
  EXPECT_TENSOR(base, S({3}), V({0, 1, 2}));  // out of place
  Tensor h = zeros({2}, ScalarType::Float16);
  index_put_(h, {ints({3}, {0, 0, 1})}, make({3}, {0.5, 0.25, 2}, ScalarType::Float16), true);
  EXPECT_TENSOR(h, S({2}), V({0.75, 2}));
}

TEST(IndexPut, ErrorsWriteNothing) {
  Tensor x = iota({3});
  EXPECT_ERROR(index_put_(x, {ints({2}, {0, 3})}, make({2}, {9, 9})), IndexError,
               "index_put_: index 3 is out of bounds for dimension 0 with size 3");
  EXPECT_TENSOR(x, S({3}), V({0, 1, 2}));
  EXPECT_ERROR(index_put_(x, {ints({2}, {0, 1})}, make({3}, {1, 2, 3})), Error,
               "values of shape [3] cannot be broadcast to the indexing result of shape [2]");
  EXPECT_ERROR(index_put_(x, {ints({1}, {0})}, make({1}, {1}, ScalarType::Float64), false), Error,
               "expected values of self's dtype float32");
}

TEST(GatherScatter, AlongEachDim) {
  const Tensor x = iota({2, 3});
  EXPECT_TENSOR(gather(x, 1, ints({2, 2}, {2, 0, -1, 1})), S({2, 2}), V({2, 0, 5, 4}));
  EXPECT_TENSOR(gather(x, 0, ints({1, 3}, {1, 0, 1})), S({1, 3}), V({3, 1, 5}));
  EXPECT_TENSOR(gather(make({}, {4}), 0, ints({}, {0})), S({}), V({4}));
  const Tensor idx = ints({1, 3}, {1, 0, 1});
  EXPECT_TENSOR(scatter(zeros({2, 3}), 0, idx, iota({2, 3})), S({2, 3}), V({0, 1, 0, 0, 0, 2}));
  EXPECT_TENSOR(scatter(zeros({2, 3}), 0, idx, Scalar(5)), S({2, 3}), V({0, 5, 0, 5, 0, 5}));
  Tensor s = zeros({2, 3});
  s.scatter_(1, ints({2, 1}, {2, 0}), make({2, 1}, {8, 9}));
  EXPECT_TENSOR(s, S({2, 3}), V({0, 0, 8, 9, 0, 0}));
  const Tensor dup = ints({1, 4}, {0, 0, 2, 0});
  EXPECT_TENSOR(scatter_add(zeros({1, 3}), 1, dup, make({1, 4}, {1, 2, 3, 4})), S({1, 3}), V({7, 0, 3}));
  Tensor sa = ones({1, 3}, ScalarType::Int32);
  sa.scatter_add_(1, dup, make({1, 4}, {1, 2, 3, 4}, ScalarType::Int32));
  EXPECT_TENSOR(sa, S({1, 3}), V({8, 1, 4}));
  EXPECT_ERROR(gather(x, 1, ints({1, 1}, {3})), IndexError,
               "gather: index 3 is out of bounds for dimension 1 with size 3");
  EXPECT_ERROR(gather(x, 1, ints({2}, {0, 0})), Error, "index must have as many dimensions as self");
  EXPECT_ERROR(gather(x, 1, ints({3, 1}, {0, 0, 0})), Error, "is larger than self [2, 3] float32 at dimension 0");
  EXPECT_ERROR(gather(x, 1, ints({2, 1}, {0, 0}, ScalarType::Int32)), Error, "expected index of dtype int64");
  EXPECT_ERROR(gather(x, 2, ints({2, 1}, {0, 0})), IndexError, "dimension out of range");
  Tensor unchanged = zeros({2, 3});
  EXPECT_ERROR(unchanged.scatter_(0, ints({1, 2}, {0, 2}), iota({1, 2})), IndexError, "scatter_: index 2");
  EXPECT_EQ(values(unchanged), V(6, 0.0));
  EXPECT_ERROR(scatter(zeros({2, 3}), 0, idx, iota({1, 2})), Error, "is larger than src");
  EXPECT_ERROR(scatter(zeros({2, 3}), 0, idx, iota({2, 3}, ScalarType::Float64)), Error, "src of self's dtype");
}

TEST(IndexSelectAdd, RowsAndColumns) {
  const Tensor x = iota({3, 2});
  EXPECT_TENSOR(index_select(x, 0, ints({3}, {2, 0, 2})), S({3, 2}), V({4, 5, 0, 1, 4, 5}));
  EXPECT_TENSOR(index_select(x, 1, ints({1}, {1}, ScalarType::Int32)), S({3, 1}), V({1, 3, 5}));
  EXPECT_TENSOR(index_select(make({}, {6}), 0, ints({1}, {0})), S({}), V({6}));
  EXPECT_TENSOR(index_select(x.t(), 1, ints({2}, {-1, 0})), S({2, 2}), V({4, 0, 5, 1}));  // non-contiguous self
  Tensor acc = zeros({3, 2});
  acc.index_add_(0, ints({3}, {2, 2, 0}), iota({3, 2}), Scalar(2));
  EXPECT_TENSOR(acc, S({3, 2}), V({8, 10, 0, 0, 4, 8}));
  EXPECT_TENSOR(index_add(zeros({2}), 0, ints({2}, {1, 1}), make({2}, {1, 2})), S({2}), V({0, 3}));
  EXPECT_ERROR(index_select(x, 0, ints({1}, {3})), IndexError,
               "index_select: index 3 is out of bounds for dimension 0");
  EXPECT_ERROR(index_select(x, 0, ints({1, 1}, {0})), Error, "index must be 0-d or 1-d");
  EXPECT_ERROR(acc.index_add_(0, ints({2}, {0, 5}), iota({2, 2})), IndexError, "index_add_: index 5");
  EXPECT_ERROR(acc.index_add_(0, ints({2}, {0, 1}), iota({2, 3})), Error, "must have self's shape");
  Tensor iacc = zeros({2}, ScalarType::Int64);
  EXPECT_ERROR(iacc.index_add_(0, ints({1}, {0}), ints({1}, {1}), Scalar(0.5)), Error, "alpha must be an integer");
}

TEST(MaskedOps, FillSelectAndErrors) {
  const Tensor x = iota({2, 3});
  const Tensor row_mask = mask({3}, {1, 0, 1});
  EXPECT_TENSOR(masked_fill(x, row_mask, Scalar(-1)), S({2, 3}), V({-1, 1, -1, -1, 4, -1}));
  EXPECT_TENSOR(masked_fill(x, row_mask, make({}, {7})), S({2, 3}), V({7, 1, 7, 7, 4, 7}));
  EXPECT_TENSOR(masked_fill(make({3}, {1, 2, 3}), mask({2, 1}, {1, 0}), Scalar(0)), S({2, 3}), V({0, 0, 0, 1, 2, 3}));
  Tensor y = iota({3}, ScalarType::Int64);
  y.masked_fill_(mask({3}, {0, 1, 0}), Scalar(2.9));
  EXPECT_TENSOR(y, S({3}), V({0, 2, 2}));
  EXPECT_TENSOR(masked_select(x, row_mask), S({4}), V({0, 2, 3, 5}));
  EXPECT_TENSOR(masked_select(make({}, {5}), mask({}, {1})), S({1}), V({5}));
  EXPECT_ERROR(masked_fill(x, ints({3}, {1, 0, 1}), Scalar(0)), Error, "masked_fill: expected a bool mask");
  EXPECT_ERROR(masked_fill(x, row_mask, make({1}, {1})), Error, "only a 0-d value tensor");
  EXPECT_ERROR(make({3}, {1, 2, 3}).masked_fill_(mask({2, 3}, V(6, 1)), Scalar(0)), Error,
               "masked_fill_: mask [2, 3] bool does not broadcast to self's shape [3]");
}

TEST(OneHotEmbedding, ValuesAndErrors) {
  EXPECT_TENSOR(one_hot(ints({3}, {2, 0, 1})), S({3, 3}), V({0, 0, 1, 1, 0, 0, 0, 1, 0}));
  const Tensor oh = one_hot(ints({2, 1}, {1, 0}, ScalarType::Int32), 4);
  EXPECT_EQ(oh.dtype(), ScalarType::Int64);
  EXPECT_TENSOR(oh, S({2, 1, 4}), V({0, 1, 0, 0, 1, 0, 0, 0}));
  EXPECT_ERROR(one_hot(ints({2}, {0, 3}), 3), Error, "one_hot: class value 3 is out of range for num_classes 3");
  EXPECT_ERROR(one_hot(ints({1}, {-1})), Error, "class value -1");
  EXPECT_ERROR(one_hot(ints({0}, {})), Error, "cannot infer num_classes from an empty tensor");
  EXPECT_ERROR(one_hot(make({1}, {0})), Error, "expected an integer tensor");

  const Tensor w = iota({4, 2});
  EXPECT_TENSOR(embedding(w, ints({2, 2}, {3, 0, 1, 3})), S({2, 2, 2}), V({6, 7, 0, 1, 2, 3, 6, 7}));
  EXPECT_ERROR(embedding(w, ints({1}, {4})), IndexError, "index_select: index 4 is out of bounds");
  EXPECT_ERROR(embedding(iota({4}), ints({1}, {0})), Error, "weight must be 2-d");
  EXPECT_ERROR(embedding(w, make({1}, {0})), Error, "expected indices of dtype int64 or int32");
}

// d/dW of sum(embedding(W, idx) * G) by central differences, against embedding_dense_backward.
TEST(OneHotEmbedding, DenseBackwardMatchesFiniteDifferences) {
  const Tensor idx = ints({2, 3}, {1, 3, 1, 0, 1, 2});
  const Tensor g = make({2, 3, 2}, {0.5, -1, 2, 0.25, 1, 3, -2, 0.5, 1.5, -0.75, 4, 1}, ScalarType::Float64);
  Tensor w = make({4, 2}, {0.1, 0.2, -0.3, 0.4, 0.5, -0.6, 0.7, 0.8}, ScalarType::Float64);
  auto loss = [&] {
    double sum = 0;
    for (double v : values(mul(embedding(w, idx), g))) sum += v;
    return sum;
  };
  const V grad = values(embedding_dense_backward(g, idx, 4, -1, false));
  ASSERT_EQ(grad.size(), 8u);
  const double eps = 1e-6;
  for (int64_t k = 0; k < 8; ++k) {
    double& wk = w.data<double>()[k];
    const double keep = wk;
    wk = keep + eps;
    const double up = loss();
    wk = keep - eps;
    const double down = loss();
    wk = keep;
    EXPECT_NEAR(grad[k], (up - down) / (2 * eps), 1e-6) << "weight element " << k;
  }
  // padding_idx rows get no gradient; scale_grad_by_freq divides by how often a row is used
  const V padded = values(embedding_dense_backward(g, idx, 4, 1, false));
  EXPECT_EQ(padded[2], 0.0);
  EXPECT_EQ(padded[3], 0.0);
  EXPECT_EQ(padded[6], grad[6]);
  const V scaled = values(embedding_dense_backward(g, idx, 4, -1, true));
  EXPECT_NEAR(scaled[2], grad[2] / 3, 1e-12);  // row 1 is used three times
  EXPECT_NEAR(scaled[0], grad[0], 1e-12);
  EXPECT_ERROR(embedding_dense_backward(g, ints({2, 3}, {0, 0, 0, 0, 0, 4}), 4, -1, false), IndexError,
               "embedding_dense_backward: index 4 is out of bounds for dimension 0 with size 4");
  EXPECT_ERROR(embedding_dense_backward(g, ints({3}, {0, 0, 0}), 4, -1, false), Error, "indices' shape");
  EXPECT_ERROR(embedding_dense_backward(iota({2, 3, 2}, ScalarType::Int64), idx, 4, -1, false), Error,
               "floating-point grad_output");
}

TEST(Meta, ShapesWithoutData) {
  const Tensor x = empty({3, 4, 5}, ScalarType::Float16, kMeta), i = empty({2, 6}, ScalarType::Int64, kMeta);
  const std::optional<Tensor> none;
  const Tensor r = index(x, {none, i, i});
  EXPECT_EQ(r.device(), kMeta);
  EXPECT_EQ(r.dtype(), ScalarType::Float16);
  EXPECT_EQ(r.sizes(), DimVector({3, 2, 6}));
  EXPECT_EQ(index(x, {i, none, i}).sizes(), DimVector({2, 6, 4}));
  EXPECT_ERROR(index(x, {empty({3}, ScalarType::Bool, kMeta)}), Error, "meta device cannot infer");
  EXPECT_EQ(gather(x, 2, empty({3, 4, 9}, ScalarType::Int64, kMeta)).sizes(), DimVector({3, 4, 9}));
  EXPECT_EQ(index_select(x, 1, empty({7}, ScalarType::Int32, kMeta)).sizes(), DimVector({3, 7, 5}));
  EXPECT_EQ(scatter_add(x, 0, empty({1, 4, 5}, ScalarType::Int64, kMeta), x).sizes(), DimVector({3, 4, 5}));
  EXPECT_EQ(masked_fill(x, empty({4, 1}, ScalarType::Bool, kMeta), Scalar(1)).sizes(), DimVector({3, 4, 5}));
  EXPECT_EQ(one_hot(i, 10).sizes(), DimVector({2, 6, 10}));
  EXPECT_ERROR(one_hot(i), Error, "num_classes must be given");
  EXPECT_EQ(embedding(empty({10, 3}, ScalarType::Float32, kMeta), i).sizes(), DimVector({2, 6, 3}));
  EXPECT_EQ(embedding_dense_backward(empty({2, 6, 3}, ScalarType::Float32, kMeta), i, 10, -1, false).sizes(),
            DimVector({10, 3}));
  Tensor y = empty({3, 4, 5}, ScalarType::Float16, kMeta);
  EXPECT_ERROR(index_put_(y, {i}, empty({7}, ScalarType::Float16, kMeta)), Error, "cannot be broadcast");
  EXPECT_ERROR(gather(x, 0, empty({3, 5, 5}, ScalarType::Int64, kMeta)), Error, "larger than self");
  // a CPU tensor indexed by a meta tensor: the Meta kernel runs and refuses the mix
  EXPECT_ERROR(index(iota({3}), {empty({1}, ScalarType::Int64, kMeta)}), Error,
               "expected indices on self's device cpu, got indices on meta");
}

TEST(TensorIndexApi, BasicIndicesAreViews) {
  Tensor x = iota({3, 4});
  const Tensor row = index(x, {1});
  EXPECT_TENSOR(row, S({4}), V({4, 5, 6, 7}));
  EXPECT_TRUE(shares_storage(row, x));
  EXPECT_TENSOR(index(x, {Slice(), Slice(1, None, 2)}), S({3, 2}), V({1, 3, 5, 7, 9, 11}));
  EXPECT_TENSOR(index(x, {Slice(-2), -1}), S({2}), V({7, 11}));
  EXPECT_EQ(index(x, {None, Ellipsis, None}).sizes(), DimVector({1, 3, 4, 1}));
  EXPECT_EQ(index(x, {Ellipsis, 0}).sizes(), DimVector({3}));
  EXPECT_EQ(index(x, {true}).sizes(), DimVector({1, 3, 4}));
  EXPECT_EQ(index(x, {false}).sizes(), DimVector({0, 3, 4}));
  const Tensor all = index(x, {Ellipsis});
  EXPECT_TRUE(shares_storage(all, x));
  EXPECT_FALSE(all.is_same(x));
  index_put_(x, {Slice(), 1}, Scalar(-5.0));  // writes through the view
  EXPECT_TENSOR(index(x, {Slice(), 1}), S({3}), V({-5, -5, -5}));
  index_put_(x, {0}, make({1, 4}, {1, 2, 3, 4}));  // value's leading 1 is dropped
  EXPECT_TENSOR(index(x, {0}), S({4}), V({1, 2, 3, 4}));
  EXPECT_ERROR(index(x, {3}), IndexError, "index: index 3 is out of bounds for dimension 0 with size 3");
  EXPECT_ERROR(index(x, {0, 0, 0}), IndexError, "too many indices for tensor of dimension 2");
  EXPECT_ERROR(index(x, {Ellipsis, Ellipsis}), IndexError, "single ellipsis");
  EXPECT_ERROR(index(x, {Slice(None, None, -1)}), Error, "step must be positive");
}

TEST(TensorIndexApi, AdvancedIndicesReadAndWrite) {
  Tensor x = iota({2, 3, 4});
  EXPECT_TENSOR(index(x, {Slice(), ints({2}, {2, 0}), 1}), S({2, 2}), V({9, 1, 21, 13}));
  // an integer applies first (as a view): t[0, :, idx] keeps idx's dim last, as PyTorch does
  EXPECT_EQ(index(x, {0, Slice(), ints({2}, {0, 1})}).sizes(), DimVector({3, 2}));
  EXPECT_EQ(index(x, {ints({2}, {0, 1}), Slice(), ints({2}, {0, 1})}).sizes(), DimVector({2, 3}));
  EXPECT_EQ(index(x, {Ellipsis, mask({4}, {1, 0, 0, 1})}).sizes(), DimVector({2, 3, 2}));
  EXPECT_EQ(index(x, {make({}, {1}, ScalarType::Bool)}).sizes(), DimVector({1, 2, 3, 4}));
  Tensor y = zeros({3, 3});
  index_put_(y, {mask({3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1})}, Scalar(1));
  EXPECT_TENSOR(y, S({3, 3}), V({1, 0, 0, 0, 1, 0, 0, 0, 1}));
  index_put_(y, {Slice(1), ints({2}, {0, 2})}, make({2}, {5, 6}, ScalarType::Int64));  // converted to float32
  EXPECT_TENSOR(y, S({3, 3}), V({1, 0, 0, 5, 1, 6, 5, 0, 6}));
  // the generated operator still takes an explicit Tensor?[] list
  const std::vector<std::optional<Tensor>> list = {std::nullopt, ints({1}, {1})};
  EXPECT_TENSOR(index(y, list), S({3, 1}), V({0, 1, 0}));
}

TEST(Indexing, LargeGathersAcrossThreads) {
  set_num_threads(2);
  const int64_t n = 200000;
  const Tensor src = iota({n / 4, 4});
  Tensor idx = empty({n / 4, 4}, ScalarType::Int64);
  for (int64_t i = 0; i < n; ++i) idx.data<int64_t>()[i] = (i * 7919) % (n / 4);
  const V got = values(gather(src, 0, idx));
  for (int64_t i = 0; i < n; i += 1009) EXPECT_EQ(got[i], static_cast<double>(((i * 7919) % (n / 4)) * 4 + i % 4));
  const V picked = values(index(src, {idx.select(1, 0)}));
  EXPECT_EQ(picked[4 * 1234 + 3], static_cast<double>(((1234 * 4 * 7919) % (n / 4)) * 4 + 3));
}
