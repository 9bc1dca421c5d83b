// View operators: geometry (shape, strides, offset), shared storage (writes through a view reach
// the base), errors, reshape's view-or-copy choice, broadcasting through expand, and Meta tensors.
// Values are checked by walking strides by hand against the base's flat data.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "glassbox/ops/Functions.h"
#include "tests/cpp/ops/error_text.h"

using namespace glassbox;
using glassbox::testing::error_of;

namespace {
Tensor iota(std::vector<int64_t> sizes, ScalarType dtype = ScalarType::Float32) {
  Tensor t = empty(sizes, dtype);
  visit_scalar_type(dtype, [&]<class T>() {
    for (int64_t i = 0; i < t.numel(); ++i) t.data<T>()[i] = static_cast<T>(i);
  });
  return t;
}
// The element at a multi-index, found through the tensor's own strides.
float at(const Tensor& t, std::vector<int64_t> idx) {
  int64_t off = 0;
  for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * t.strides()[d];
  return t.data<float>()[off];
}
// All elements in logical (row-major) order, read through the strides.
std::vector<float> logical(const Tensor& t) {
  std::vector<float> out;
  std::vector<int64_t> idx(t.dim(), 0);
  for (int64_t n = 0; n < t.numel(); ++n) {
    out.push_back(at(t, idx));
    for (int64_t d = t.dim() - 1; d >= 0; --d) {
      if (++idx[d] < t.sizes()[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}
bool shares_storage(const Tensor& a, const Tensor& b) {
  return a.unsafe_impl()->storage().get() == b.unsafe_impl()->storage().get();
}
#define EXPECT_GEOMETRY(t, sizes_, strides_, offset_) \
  do {                                                \
    EXPECT_EQ((t).sizes(), DimVector(sizes_));        \
    EXPECT_EQ((t).strides(), DimVector(strides_));    \
    EXPECT_EQ((t).storage_offset(), (offset_));       \
  } while (0)
using V = std::vector<int64_t>;
}  // namespace

TEST(ViewOps, ViewInfersSizeAndSharesStorage) {
  Tensor a = iota({2, 3, 4});
  const uint64_t version = a.unsafe_impl()->storage()->version();
  const Tensor v = a.view({4, -1});
  EXPECT_GEOMETRY(v, V({4, 6}), V({6, 1}), 0);
  EXPECT_EQ(v.dtype(), ScalarType::Float32);
  EXPECT_EQ(v.key_set(), a.key_set());
  EXPECT_TRUE(shares_storage(v, a));
  EXPECT_FALSE(v.is_same(a));
  EXPECT_EQ(a.unsafe_impl()->storage()->version(), version);  // making a view writes nothing
  v.data<float>()[1 * 6 + 5] = 100.f;
  EXPECT_EQ(at(a, {0, 2, 3}), 100.f);  // flat element 11
  EXPECT_GEOMETRY(a.view({24}), V({24}), V({1}), 0);
  EXPECT_GEOMETRY(a.view({1, 2, 1, 12}), V({1, 2, 1, 12}), V({24, 12, 12, 1}), 0);
  // A bare view({}) would pick view(ScalarType) (a value-initialised dtype), as with PyTorch's C++ API.
  EXPECT_GEOMETRY(iota({1}).view(IntArrayRef{}), V({}), V({}), 0);
  EXPECT_GEOMETRY(iota({0, 3}).view({3, 0, 2}), V({3, 0, 2}), V({2, 2, 1}), 0);
  EXPECT_NE(error_of([] { iota({0, 3}).view({3, 0, -1}); }).find("can be any value"), std::string::npos);
  const Tensor i = iota({6}, ScalarType::Int64).view({2, 3});
  EXPECT_EQ(i.dtype(), ScalarType::Int64);
  EXPECT_EQ(i.data<int64_t>()[4], 4);
}

TEST(ViewOps, ViewOfNonContiguousTensorsFollowsTheGroupRule) {
  const Tensor a = iota({2, 3, 4});
  const Tensor t = a.transpose(0, 1);  // (3, 2, 4), strides (4, 12, 1): dims 1 and 2 stay one group
  EXPECT_GEOMETRY(t.view({3, 2, 2, 2}), V({3, 2, 2, 2}), V({4, 12, 2, 1}), 0);
  EXPECT_GEOMETRY(t.view({3, 1, 2, 4}), V({3, 1, 2, 4}), V({4, 24, 12, 1}), 0);
  const std::string err = error_of([&] { t.view({24}); });
  EXPECT_NE(err.find("view"), std::string::npos) << err;
  EXPECT_NE(err.find("[24]"), std::string::npos) << err;
  EXPECT_NE(err.find("shape [3, 2, 4]"), std::string::npos) << err;
  EXPECT_NE(err.find("strides [4, 12, 1]"), std::string::npos) << err;
  EXPECT_NE(err.find("reshape"), std::string::npos) << err;
  EXPECT_THROW(t.view({6, 4}), Error);
  // A sliced tensor keeps its offset and merges only what is still contiguous.
  const Tensor s = a.slice(2, 1, 3);  // (2, 3, 2), strides (12, 4, 1), offset 1
  EXPECT_GEOMETRY(s.view({6, 2}), V({6, 2}), V({4, 1}), 1);
  EXPECT_GEOMETRY(s.view({2, 3, 2, 1}), V({2, 3, 2, 1}), V({12, 4, 1, 1}), 1);
  EXPECT_EQ(logical(s.view({6, 2})), logical(s));
  EXPECT_THROW(s.view({12}), Error);
}

TEST(ViewOps, ViewErrorsNameShapes) {
  const Tensor a = iota({2, 3});
  EXPECT_NE(error_of([&] {
              a.view({4, -1});
            }).find("shape '[4, -1]' is invalid for input of size 6"),
            std::string::npos);
  EXPECT_NE(error_of([&] { a.view({-1, -1}); }).find("only one dimension can be inferred"), std::string::npos);
  EXPECT_NE(error_of([&] { a.view({5}); }).find("invalid for input of size 6"), std::string::npos);
  EXPECT_THROW(a.view({-2, -3}), Error);
  const Tensor e = iota({3, 1}).expand({3, 4});
  EXPECT_GEOMETRY(e.view({3, 2, 2}), V({3, 2, 2}), V({1, 0, 0}), 0);
  EXPECT_THROW(e.view({12}), Error);
}

TEST(ReshapeOps, ViewWhenPossibleElseCopy) {
  const Tensor a = iota({2, 3, 4});
  const Tensor r = reshape(a, {4, 6});
  EXPECT_TRUE(shares_storage(r, a));
  EXPECT_GEOMETRY(r, V({4, 6}), V({6, 1}), 0);
  const Tensor t = a.transpose(1, 2);  // (2, 4, 3)
  const Tensor c = t.reshape({-1});
  EXPECT_FALSE(shares_storage(c, a));
  EXPECT_TRUE(c.is_contiguous());
  ASSERT_EQ(c.sizes(), DimVector({24}));
  std::vector<float> expected;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k) expected.push_back(static_cast<float>(i * 12 + k * 4 + j));
  EXPECT_EQ(logical(c), expected);
  EXPECT_TRUE(shares_storage(t.reshape({2, 2, 2, 3}), a));  // splitting a dim is always a view
  EXPECT_THROW(a.reshape({5, 5}), Error);
}

TEST(ViewTranspose, SwapsSizesAndStrides) {
  Tensor a = iota({2, 3, 4});
  const Tensor t = transpose(a, 0, -1);
  EXPECT_GEOMETRY(t, V({4, 3, 2}), V({1, 4, 12}), 0);
  EXPECT_FALSE(t.is_contiguous());
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k) EXPECT_EQ(at(t, {i, j, k}), static_cast<float>(k * 12 + j * 4 + i));
  t.data<float>()[1 * 1 + 2 * 4 + 1 * 12] = -5.f;  // t[1][2][1] is a[1][2][1]
  EXPECT_EQ(at(a, {1, 2, 1}), -5.f);
  EXPECT_EQ(error_of([&] {
              a.view({6, 4}).transpose(0, 3);
            }),
            "transpose: dimension out of range (expected to be in range of [-2, 1], but got 3)");
  EXPECT_GEOMETRY(iota({}).transpose(0, -1), V({}), V({}), 0);

  const Tensor m = iota({3, 5});
  EXPECT_GEOMETRY(m.t(), V({5, 3}), V({1, 5}), 0);
  EXPECT_GEOMETRY(glassbox::t(iota({4})), V({4}), V({1}), 0);
  EXPECT_NE(error_of([&] { a.t(); }).find("<= 2 dimensions"), std::string::npos);
}

TEST(ViewPermute, ReordersDims) {
  const Tensor a = iota({2, 3, 4});
  const Tensor p = permute(a, {2, 0, 1});
  EXPECT_GEOMETRY(p, V({4, 2, 3}), V({1, 12, 4}), 0);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 3; ++k) EXPECT_EQ(at(p, {i, j, k}), static_cast<float>(j * 12 + k * 4 + i));
  EXPECT_GEOMETRY(a.permute({-1, -2, -3}), V({4, 3, 2}), V({1, 4, 12}), 0);
  EXPECT_NE(error_of([&] { a.permute({0, 0, 1}); }).find("duplicate dims"), std::string::npos);
  EXPECT_NE(error_of([&] { a.permute({0, 1}); }).find("number of dims"), std::string::npos);
  EXPECT_EQ(error_of([&] {
              a.permute({0, 1, 3});
            }),
            "permute: dimension out of range (expected to be in range of [-3, 2], but got 3)");
}

TEST(ViewExpand, StrideZeroAndBroadcastingAdd) {
  const Tensor col = iota({3, 1});
  const Tensor e = col.expand({2, 3, 4});
  EXPECT_GEOMETRY(e, V({2, 3, 4}), V({0, 1, 0}), 0);
  EXPECT_TRUE(shares_storage(e, col));
  EXPECT_GEOMETRY(col.expand({-1, 5}), V({3, 5}), V({1, 0}), 0);
  EXPECT_GEOMETRY(col.expand({1, 3, 1}), V({1, 3, 1}), V({3, 1, 1}), 0);  // a size-1 new dim keeps a real stride
  EXPECT_NE(
      error_of([&] {
        col.expand({3, 2}).expand({3, 4});
      }).find("the expanded size of the tensor (4) must match the existing size (2) at non-singleton dimension 1"),
      std::string::npos);
  EXPECT_NE(error_of([&] { col.expand({-1, 3, 1}); }).find("leading, non-existing dimension 0"), std::string::npos);
  EXPECT_NE(error_of([&] { col.expand({3}); }).find("must be greater or equal"), std::string::npos);

  // An expanded operand gives the same sums as plain broadcasting, checked against loops.
  const Tensor row = iota({4});
  const Tensor s = add(col.expand({3, 4}), row.expand({3, 4}));
  ASSERT_EQ(s.sizes(), DimVector({3, 4}));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(at(s, {i, j}), static_cast<float>(i + j));
  const Tensor m = mul(e, iota({2, 1, 4}));
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) EXPECT_EQ(at(m, {b, i, j}), static_cast<float>(i * (b * 4 + j)));
}

TEST(ViewSqueeze, SqueezeAndUnsqueeze) {
  const Tensor a = iota({1, 3, 1, 2});
  EXPECT_GEOMETRY(squeeze(a), V({3, 2}), V({2, 1}), 0);
  EXPECT_GEOMETRY(a.squeeze(2), V({1, 3, 2}), V({6, 2, 1}), 0);
  EXPECT_GEOMETRY(a.squeeze(-3), V({1, 3, 1, 2}), V({6, 2, 2, 1}), 0);  // not size 1: unchanged
  EXPECT_GEOMETRY(iota({}).squeeze(0), V({}), V({}), 0);
  EXPECT_THROW(a.squeeze(4), IndexError);
  const Tensor b = iota({3, 2});
  EXPECT_GEOMETRY(unsqueeze(b, 0), V({1, 3, 2}), V({6, 2, 1}), 0);
  EXPECT_GEOMETRY(b.unsqueeze(1), V({3, 1, 2}), V({2, 2, 1}), 0);
  EXPECT_GEOMETRY(b.unsqueeze(-1), V({3, 2, 1}), V({2, 1, 1}), 0);
  EXPECT_GEOMETRY(iota({}).unsqueeze(0), V({1}), V({1}), 0);
  EXPECT_EQ(error_of([&] { b.unsqueeze(3); }),
            "unsqueeze: dimension out of range (expected to be in range of [-3, 2], but got 3)");
  EXPECT_TRUE(shares_storage(b.unsqueeze(0).squeeze(), b));
}

TEST(ViewSlice, StepsBoundsAndNegativeIndices) {
  const Tensor a = iota({10});
  const Tensor s = a.slice(0, 1, 8, 3);
  EXPECT_GEOMETRY(s, V({3}), V({3}), 1);
  EXPECT_EQ(logical(s), (std::vector<float>{1, 4, 7}));
  auto python_slice = [](int64_t n, int64_t lo, int64_t hi, int64_t step) {
    // range(n)[lo:hi:step] by a loop over every index
    std::vector<float> out;
    if (lo < 0) lo += n;
    if (hi < 0) hi += n;
    lo = std::max<int64_t>(lo, 0);
    for (int64_t i = 0; i < n; ++i)
      if (i >= lo && i < hi && (i - lo) % step == 0) out.push_back(static_cast<float>(i));
    return out;
  };
  for (int64_t lo : {-12, -3, 0, 2, 9, 15})
    for (int64_t hi : {-11, -2, 0, 5, 10, 40})
      for (int64_t step : {1, 2, 4})
        EXPECT_EQ(logical(slice(a, 0, lo, hi, step)), python_slice(10, lo, hi, step)) << lo << ":" << hi << ":" << step;
  EXPECT_EQ(logical(a.slice()), python_slice(10, 0, 10, 1));
  EXPECT_EQ(logical(a.slice(0, std::nullopt, 4)), python_slice(10, 0, 4, 1));
  EXPECT_EQ(a.slice(0, 7, 3).numel(), 0);
  EXPECT_EQ(logical(a.slice(0, 2, std::nullopt, std::numeric_limits<int64_t>::max())), (std::vector<float>{2}));
  EXPECT_EQ(logical(a.slice(0, -std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::max())),
            python_slice(10, 0, 10, 1));

  Tensor m = iota({4, 6});
  const Tensor c = m.slice(1, 1, std::nullopt, 2);  // columns 1, 3, 5
  EXPECT_GEOMETRY(c, V({4, 3}), V({6, 2}), 1);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(at(c, {i, j}), static_cast<float>(i * 6 + 1 + 2 * j));
  c.data<float>()[2 * 6 + 1 * 2] = 99.f;  // c[2][1] is m[2][3]
  EXPECT_EQ(at(m, {2, 3}), 99.f);
  EXPECT_GEOMETRY(c.slice(0, 1, 3), V({2, 3}), V({6, 2}), 7);
  EXPECT_NE(error_of([&] { a.slice(0, 0, 5, 0); }).find("step must be positive"), std::string::npos);
  EXPECT_NE(error_of([&] { a.slice(0, 0, 5, -1); }).find("step must be positive"), std::string::npos);
  EXPECT_EQ(error_of([&] { m.slice(2); }),
            "slice: dimension out of range (expected to be in range of [-2, 1], but got 2)");
  EXPECT_THROW(iota({}).slice(0), Error);
}

TEST(ViewSelect, SelectAndNarrow) {
  const Tensor a = iota({3, 4, 5});
  const Tensor s = select(a, 1, 2);
  EXPECT_GEOMETRY(s, V({3, 5}), V({20, 1}), 10);
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 5; ++k) EXPECT_EQ(at(s, {i, k}), static_cast<float>(i * 20 + 2 * 5 + k));
  EXPECT_GEOMETRY(a.select(-1, -1), V({3, 4}), V({20, 5}), 4);
  EXPECT_GEOMETRY(a.select(0, 2).select(0, 3).select(0, 4), V({}), V({}), 59);
  EXPECT_NE(error_of([&] { a.select(1, 4); }).find("index 4 out of range for tensor of size [3, 4, 5] at dimension 1"),
            std::string::npos);
  EXPECT_THROW(a.select(1, -5), IndexError);
  EXPECT_THROW(iota({}).select(0, 0), Error);

  const Tensor n = narrow(a, 2, 1, 3);
  EXPECT_GEOMETRY(n, V({3, 4, 3}), V({20, 5, 1}), 1);
  EXPECT_EQ(logical(n), logical(a.slice(2, 1, 4)));
  EXPECT_GEOMETRY(a.narrow(0, -1, 1), V({1, 4, 5}), V({20, 5, 1}), 40);
  EXPECT_NE(error_of([&] { a.narrow(1, 2, 3); }).find("start (2) + length (3) exceeds dimension size (4)"),
            std::string::npos);
}

TEST(ViewUnfold, SlidingWindows) {
  const Tensor a = iota({7});
  const Tensor u = a.unfold(0, 3, 2);
  EXPECT_GEOMETRY(u, V({3, 3}), V({2, 1}), 0);
  for (int w = 0; w < 3; ++w)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(at(u, {w, j}), static_cast<float>(w * 2 + j));
  const Tensor m = iota({2, 5});
  const Tensor v = m.unfold(1, 2, 1);  // windows of 2 along the rows
  EXPECT_GEOMETRY(v, V({2, 4, 2}), V({5, 1, 1}), 0);
  for (int i = 0; i < 2; ++i)
    for (int w = 0; w < 4; ++w)
      for (int j = 0; j < 2; ++j) EXPECT_EQ(at(v, {i, w, j}), static_cast<float>(i * 5 + w + j));
  EXPECT_GEOMETRY(m.unfold(0, 2, 3), V({1, 5, 2}), V({15, 1, 5}), 0);
  EXPECT_GEOMETRY(iota({}).unfold(0, 1, 1), V({1}), V({1}), 0);
  EXPECT_NE(error_of([&] { m.unfold(1, 6, 1); }).find("maximum size for tensor at dimension 1 is 5 but size is 6"),
            std::string::npos);
  EXPECT_NE(error_of([&] { m.unfold(1, 2, 0); }).find("step is 0 but must be > 0"), std::string::npos);
}

TEST(ViewAsStrided, ArbitraryGeometryInsideTheStorage) {
  const Tensor a = iota({12});
  const Tensor s = as_strided(a, {3, 3}, {3, 1}, 1);
  EXPECT_GEOMETRY(s, V({3, 3}), V({3, 1}), 1);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(at(s, {i, j}), static_cast<float>(1 + 3 * i + j));
  EXPECT_GEOMETRY(a.slice(0, 2).as_strided({2}, {5}), V({2}), V({5}), 2);  // offset defaults to self's
  EXPECT_GEOMETRY(a.as_strided({4, 4}, {1, 1}), V({4, 4}), V({1, 1}), 0);  // overlapping is allowed
  EXPECT_THROW(a.as_strided({4, 4}, {4, 1}), Error);                       // reaches element 15 of 12
  EXPECT_THROW(a.as_strided({2}, {1, 1}), Error);
  EXPECT_THROW(a.as_strided({2}, {-1}), Error);
  // Offsets past int64 must not wrap around into the storage.
  const int64_t huge = int64_t{1} << 62;
  EXPECT_NE(error_of([&] {
              a.as_strided({2, 3}, {huge, huge});
            }).find("reaches past the largest int64 offset"),
            std::string::npos);
  EXPECT_THROW(a.as_strided({3}, {huge}, huge), Error);
}

TEST(ViewContiguous, ContiguousAndFlatten) {
  const Tensor a = iota({2, 3, 4});
  EXPECT_TRUE(a.contiguous().is_same(a));
  const Tensor t = a.permute({2, 0, 1});
  const Tensor c = t.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_FALSE(shares_storage(c, a));
  EXPECT_GEOMETRY(c, V({4, 2, 3}), V({6, 3, 1}), 0);
  EXPECT_EQ(logical(c), logical(t));

  EXPECT_GEOMETRY(flatten(a), V({24}), V({1}), 0);
  EXPECT_GEOMETRY(a.flatten(1), V({2, 12}), V({12, 1}), 0);
  EXPECT_GEOMETRY(a.flatten(0, 1), V({6, 4}), V({4, 1}), 0);
  EXPECT_GEOMETRY(iota({}).flatten(), V({1}), V({1}), 0);
  const Tensor f = t.flatten(1, 2);  // dims (2, 3) with strides (12, 4) merge into a view
  EXPECT_TRUE(shares_storage(f, a));
  EXPECT_GEOMETRY(f, V({4, 6}), V({1, 4}), 0);
  const Tensor g = t.flatten();  // needs a copy
  EXPECT_FALSE(shares_storage(g, a));
  EXPECT_EQ(logical(g), logical(t));
  EXPECT_NE(error_of([&] { a.flatten(2, 1); }).find("start_dim cannot come after end_dim"), std::string::npos);
}

TEST(ViewOps, MetaTensorsGetGeometryWithoutData) {
  const Tensor m = empty({2, 3, 4}, ScalarType::Float16, Device(DeviceType::Meta));
  const Tensor v = m.view({6, 4}).t().unsqueeze(0).expand({5, 4, 6});
  EXPECT_EQ(v.device().type, DeviceType::Meta);
  EXPECT_EQ(v.dtype(), ScalarType::Float16);
  EXPECT_EQ(v.key_set(), m.key_set());
  // A storage with a size (views are bounds-checked against it, as on the CPU) and no memory.
  EXPECT_EQ(v.unsafe_impl()->storage()->data(), nullptr);
  EXPECT_EQ(v.unsafe_impl()->storage()->nbytes(), 2u * 3 * 4 * 2);
  EXPECT_GEOMETRY(v, V({5, 4, 6}), V({0, 1, 4}), 0);
  EXPECT_GEOMETRY(m.slice(2, 1, 4, 2).select(0, 1), V({3, 2}), V({4, 2}), 13);
  EXPECT_GEOMETRY(m.permute({1, 2, 0}).reshape({12, 2}), V({12, 2}), V({1, 12}), 0);
  EXPECT_GEOMETRY(m.transpose(0, 2).reshape({-1}), V({24}), V({1}), 0);  // a copy, on meta too
  EXPECT_EQ(m.transpose(0, 2).reshape({-1}).device().type, DeviceType::Meta);
  EXPECT_GEOMETRY(m.unfold(2, 2, 2), V({2, 3, 2, 2}), V({12, 4, 2, 1}), 0);
  EXPECT_THROW(m.view({5, -1}), Error);
}
