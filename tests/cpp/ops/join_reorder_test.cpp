// cat, stack, split, split_with_sizes, chunk, flip, roll, tril and triu: values against index
// arithmetic, views sharing storage, promotion, empty and non-contiguous inputs, the Meta device,
// threads, and error texts.
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "engine/core/parallel.h"
#include "glassbox/ops/Functions.h"
#include "tests/cpp/ops/error_text.h"

using namespace glassbox;
using glassbox::testing::error_of;

namespace {
const Device kMeta = Device::parse("meta");

Tensor iota(std::vector<int64_t> sizes, ScalarType dtype = ScalarType::Float32) {
  Tensor t = empty(sizes, ScalarType::Int64);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<int64_t>()[i] = i;
  return t.to(dtype);
}
template <class T>
std::vector<T> values(const Tensor& t) {
  const Tensor c = t.is_contiguous() ? t : clone(t);
  return std::vector<T>(c.data<T>(), c.data<T>() + c.numel());
}
std::vector<int64_t> ints(const Tensor& t) { return values<int64_t>(t.to(ScalarType::Int64)); }
}  // namespace

TEST(Cat, AlongEachDimWithPromotion) {
  const Tensor a = iota({2, 3}, ScalarType::Int32), b = iota({1, 3}, ScalarType::Float32);
  const Tensor c = cat({a, b});
  ASSERT_EQ(c.sizes(), DimVector({3, 3}));
  ASSERT_EQ(c.dtype(), ScalarType::Float32);  // promoted across the inputs
  EXPECT_EQ(values<float>(c), (std::vector<float>{0, 1, 2, 3, 4, 5, 0, 1, 2}));
  const Tensor d = cat({a, iota({2, 2}, ScalarType::Int32)}, -1);
  ASSERT_EQ(d.sizes(), DimVector({2, 5}));
  ASSERT_EQ(d.dtype(), ScalarType::Int32);
  EXPECT_EQ(ints(d), (std::vector<int64_t>{0, 1, 2, 0, 1, 3, 4, 5, 2, 3}));
  // A transposed (non-contiguous) input and bool with int8.
  EXPECT_EQ(ints(cat({iota({3, 2}).t(), iota({2, 1})}, 1)), (std::vector<int64_t>{0, 2, 4, 0, 1, 3, 5, 1}));
  EXPECT_EQ(cat({ones({2}, ScalarType::Bool), iota({1}, ScalarType::Int8)}).dtype(), ScalarType::Int8);
}

TEST(Cat, EmptyTensorsOutAndMeta) {
  // A 1-d empty tensor is skipped whatever the other shapes; other empties must match.
  const Tensor c = cat({empty({0}), iota({2, 2}), empty({0, 2})});
  EXPECT_EQ(c.sizes(), DimVector({2, 2}));
  EXPECT_EQ(cat({empty({0}), empty({0})}).sizes(), DimVector({0}));
  EXPECT_EQ(cat({empty({2, 0}), empty({2, 3})}, 1).sizes(), DimVector({2, 3}));
  Tensor out = empty({4}, ScalarType::Float64);
  cat_out(out, {iota({1}, ScalarType::Int64), iota({3}, ScalarType::Float32)});
  EXPECT_EQ(values<double>(out), (std::vector<double>{0, 0, 1, 2}));
  Tensor narrow_out = empty({4}, ScalarType::Int32);
  EXPECT_EQ(error_of([&] {
              cat_out(narrow_out, {iota({2}), iota({2})});
            }),
            "cat.out: the result type float32 cannot be cast to out's dtype int32");
  Tensor resized = empty({5});  // an out of another shape is resized, as in PyTorch
  cat_out(resized, {iota({2}), iota({2})});
  EXPECT_EQ(resized.sizes(), DimVector({4}));
  EXPECT_EQ(values<float>(resized), (std::vector<float>{0, 1, 0, 1}));
  const Tensor m = cat({empty({2, 3}, ScalarType::Float16, kMeta), empty({2, 1}, ScalarType::Float32, kMeta)}, 1);
  EXPECT_EQ(m.device(), kMeta);
  EXPECT_EQ(m.sizes(), DimVector({2, 4}));
  EXPECT_EQ(m.dtype(), ScalarType::Float32);
}

TEST(Cat, Errors) {
  // An empty list carries no tensor to dispatch on: the dispatcher refuses it, naming the operator.
  EXPECT_EQ(error_of([] {
              cat(std::vector<Tensor>{});
            }).rfind("cannot dispatch glassbox::cat: the call has no dispatch key", 0),
            0u);
  EXPECT_EQ(error_of([] {
              cat({iota({2}), iota({})});
            }),
            "cat: zero-dimensional tensor (at position 1) cannot be concatenated");
  EXPECT_EQ(
      error_of([] {
        cat({iota({2, 3}), iota({3})});
      }),
      "cat: tensors must have the same number of dimensions, but got [2, 3] (float32) and [3] (float32) at position 1");
  EXPECT_EQ(error_of([] {
              cat({iota({2, 3}), iota({2, 4})});
            }),
            "cat: sizes of tensors must match except in dimension 0: expected size 3 but got size 4 in dimension 1 "
            "for tensor [2, 4] (float32) at position 1");
  EXPECT_EQ(error_of([] {
              cat({iota({2}), empty({2}, ScalarType::Float32, kMeta)});
            }),
            "cat: expected all tensors on the same device, but got cpu at position 0 and meta at position 1");
  EXPECT_THROW(cat({iota({2, 3})}, 2), IndexError);
}

TEST(Stack, NewDimensionAndErrors) {
  const Tensor a = iota({2, 3}), b = iota({2, 3}).t().contiguous().t();  // same values, other strides
  const Tensor s0 = stack({a, b});
  ASSERT_EQ(s0.sizes(), DimVector({2, 2, 3}));
  EXPECT_EQ(ints(s0), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5}));
  const Tensor s2 = stack({a, iota({2, 3}, ScalarType::Int64)}, -1);
  ASSERT_EQ(s2.sizes(), DimVector({2, 3, 2}));
  EXPECT_EQ(s2.dtype(), ScalarType::Float32);
  EXPECT_EQ(ints(s2), (std::vector<int64_t>{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}));
  EXPECT_EQ(stack({iota({}), iota({})}).sizes(), DimVector({2}));
  EXPECT_EQ(stack({empty({0}), empty({0})}).sizes(), DimVector({2, 0}));
  EXPECT_EQ(stack({empty({3}, ScalarType::Float32, kMeta)}, 1).sizes(), DimVector({3, 1}));
  EXPECT_EQ(
      error_of([] {
        stack({iota({2, 3}), iota({3, 2})});
      }),
      "stack: expects every tensor to have the same shape, but got [2, 3] at position 0 and [3, 2] at position 1");
  EXPECT_EQ(error_of([] { stack(std::vector<Tensor>{}); }).rfind("cannot dispatch glassbox::stack", 0), 0u);
}

TEST(Split, ViewsOfEachSize) {
  const Tensor a = iota({5, 2});
  const std::vector<Tensor> parts = split(a, 2);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].sizes(), DimVector({2, 2}));
  EXPECT_EQ(parts[2].sizes(), DimVector({1, 2}));
  EXPECT_EQ(parts[1].data_ptr(), a.data<float>() + 4);  // a view: same storage
  EXPECT_EQ(values<float>(parts[2]), (std::vector<float>{8, 9}));
  const std::vector<Tensor> cols = a.split(1, 1);
  ASSERT_EQ(cols.size(), 2u);
  EXPECT_EQ(values<float>(cols[1]), (std::vector<float>{1, 3, 5, 7, 9}));
  EXPECT_EQ(split(empty({0, 3}), 2).size(), 1u);
  EXPECT_EQ(split(empty({0, 3}), 0).size(), 1u);
  const std::vector<Tensor> sized = split_with_sizes(a, {1, 0, 4});
  ASSERT_EQ(sized.size(), 3u);
  EXPECT_EQ(sized[1].sizes(), DimVector({0, 2}));
  EXPECT_EQ(values<float>(sized[2]), (std::vector<float>{2, 3, 4, 5, 6, 7, 8, 9}));
  const std::vector<Tensor> m = split(empty({7, 4}, ScalarType::Int8, kMeta), 3, -1);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[1].sizes(), DimVector({7, 1}));
  EXPECT_EQ(m[1].device(), kMeta);
}

TEST(Split, ChunkAndErrors) {
  const Tensor a = iota({7});
  std::vector<Tensor> c = chunk(a, 3);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].numel(), 3);
  EXPECT_EQ(c[2].numel(), 1);
  EXPECT_EQ(chunk(iota({6}), 4).size(), 3u);  // pieces of ceil(6 / 4) = 2
  EXPECT_EQ(chunk(empty({0}), 3).size(), 3u);
  EXPECT_EQ(iota({2, 6}).chunk(2, 1)[1].sizes(), DimVector({2, 3}));
  EXPECT_EQ(error_of([&] { split(a, 0); }),
            "split: split_size must be positive (0 only for an empty dimension), but got 0 for dimension 0 of size 7 "
            "in shape [7]");
  EXPECT_EQ(error_of([] { split(iota({}), 1); }), "split: cannot split a 0-dim tensor (float32)");
  EXPECT_EQ(error_of([&] {
              split_with_sizes(a, {3, 3});
            }),
            "split_with_sizes: split_sizes [3, 3] sum to 6 but dimension 0 of the input [7] has size 7");
  EXPECT_THROW(split_with_sizes(a, {8, -1}), Error);
  EXPECT_EQ(error_of([&] { chunk(a, 0); }), "chunk: the number of chunks must be greater than 0, but got 0");
  EXPECT_THROW(chunk(a, 1, 1), IndexError);
}

TEST(Flip, DimsDtypesNonContiguous) {
  const Tensor a = iota({2, 3});
  EXPECT_EQ(ints(flip(a, {0})), (std::vector<int64_t>{3, 4, 5, 0, 1, 2}));
  EXPECT_EQ(ints(flip(a, {-1})), (std::vector<int64_t>{2, 1, 0, 5, 4, 3}));
  EXPECT_EQ(ints(a.flip({0, 1})), (std::vector<int64_t>{5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(ints(flip(a, {})), ints(a));
  EXPECT_EQ(ints(flip(a.t(), {1})), (std::vector<int64_t>{3, 0, 4, 1, 5, 2}));
  EXPECT_EQ(values<bool>(flip(iota({3}, ScalarType::Bool), {0})), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(ints(flip(iota({4}, ScalarType::Float16), {0})), (std::vector<int64_t>{3, 2, 1, 0}));
  EXPECT_EQ(ints(flip(iota({}, ScalarType::Float64), {0})), std::vector<int64_t>{0});
  EXPECT_EQ(flip(empty({0, 3}), {1}).sizes(), DimVector({0, 3}));
  EXPECT_EQ(flip(empty({2, 5}, ScalarType::Int16, kMeta), {1}).dtype(), ScalarType::Int16);
  EXPECT_EQ(error_of([&] {
              flip(a, {1, -1});
            }),
            "flip: dim 1 appears more than once in dims [1, -1] (input [2, 3] (float32))");
  EXPECT_THROW(flip(a, {2}), IndexError);
}

TEST(Roll, DimsFlattenedAndErrors) {
  const Tensor a = iota({2, 3});
  EXPECT_EQ(ints(roll(a, {1}, {1})), (std::vector<int64_t>{2, 0, 1, 5, 3, 4}));
  EXPECT_EQ(ints(roll(a, {-1}, {1})), (std::vector<int64_t>{1, 2, 0, 4, 5, 3}));
  EXPECT_EQ(ints(roll(a, {1, 4}, {0, 1})), (std::vector<int64_t>{5, 3, 4, 2, 0, 1}));
  EXPECT_EQ(ints(roll(a, {1, 1}, {1, 1})), ints(roll(a, {2}, {1})));       // a repeated dim accumulates
  EXPECT_EQ(ints(a.roll({2})), (std::vector<int64_t>{4, 5, 0, 1, 2, 3}));  // no dims: flattened
  EXPECT_EQ(ints(roll(a.t(), {1})), (std::vector<int64_t>{5, 0, 3, 1, 4, 2}));
  EXPECT_EQ(ints(roll(iota({}), {3})), std::vector<int64_t>{0});
  EXPECT_EQ(roll(empty({0, 2}), {1}, {0}).sizes(), DimVector({0, 2}));
  EXPECT_EQ(roll(empty({4}, ScalarType::Float32, kMeta), {1}).device(), kMeta);
  EXPECT_EQ(error_of([&] {
              roll(a, {1, 2});
            }),
            "roll: without dims, shifts must hold exactly one value, but got [1, 2] (input [2, 3] (float32))");
  EXPECT_EQ(
      error_of([&] {
        roll(a, {1}, {0, 1});
      }),
      "roll: shifts and dims must have the same length, but got shifts [1] and dims [0, 1] (input [2, 3] (float32))");
}

TEST(Triangle, TrilTriuDiagonalsBatchesInPlace) {
  const Tensor a = add(iota({3, 4}), Scalar(1));
  EXPECT_EQ(ints(tril(a)), (std::vector<int64_t>{1, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0}));
  EXPECT_EQ(ints(triu(a)), (std::vector<int64_t>{1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 11, 12}));
  EXPECT_EQ(ints(tril(a, 1)), (std::vector<int64_t>{1, 2, 0, 0, 5, 6, 7, 0, 9, 10, 11, 12}));
  EXPECT_EQ(ints(triu(a, -1)), (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 0, 10, 11, 12}));
  EXPECT_EQ(ints(tril(a, INT64_MAX)), ints(a));
  EXPECT_EQ(ints(triu(a, INT64_MIN)), ints(a));
  EXPECT_EQ(ints(tril(a, -5)), std::vector<int64_t>(12, 0));
  const Tensor batch = tril(add(iota({2, 2, 2}, ScalarType::Int8), Scalar(1)));
  EXPECT_EQ(ints(batch), (std::vector<int64_t>{1, 0, 3, 4, 5, 0, 7, 8}));
  EXPECT_EQ(ints(a.t().triu()), (std::vector<int64_t>{1, 5, 9, 0, 6, 10, 0, 0, 11, 0, 0, 0}));
  Tensor b = add(iota({2, 2}), Scalar(1));
  Tensor& r = b.tril_();
  EXPECT_EQ(&r, &b);
  EXPECT_EQ(ints(b), (std::vector<int64_t>{1, 0, 3, 4}));
  Tensor c = add(iota({3, 3}), Scalar(1));
  Tensor ct = c.t();  // in place through a non-contiguous view
  ct.triu_(1);
  EXPECT_EQ(ints(c), (std::vector<int64_t>{0, 0, 0, 4, 0, 0, 7, 8, 0}));
  EXPECT_EQ(tril(empty({0, 3})).sizes(), DimVector({0, 3}));
  EXPECT_EQ(triu(empty({2, 3, 3}, ScalarType::Bool, kMeta)).sizes(), DimVector({2, 3, 3}));
  EXPECT_EQ(error_of([] { tril(iota({3})); }),
            "tril: the input must have at least 2 dimensions, but got [3] (float32)");
  Tensor m = empty({4}, ScalarType::Float32, kMeta);
  EXPECT_EQ(error_of([&] { m.triu_(); }), "triu_: the input must have at least 2 dimensions, but got [4] (float32)");
}

TEST(Reorder, LargeTensorsAcrossThreads) {
  const int saved = get_num_threads();
  set_num_threads(2);
  const Tensor a = iota({300, 1000});
  const std::vector<float> f = values<float>(flip(a, {0, 1})), r = values<float>(roll(a, {7, -3}, {0, 1}));
  const std::vector<float> lo = values<float>(tril(a, 5)), c = values<float>(cat({a, a}, 1));
  set_num_threads(saved);
  for (int64_t i = 0; i < 300; i += 7) {
    for (int64_t j = 0; j < 1000; j += 13) {
      EXPECT_EQ(f[i * 1000 + j], static_cast<float>((299 - i) * 1000 + (999 - j)));
      EXPECT_EQ(r[i * 1000 + j], static_cast<float>(((i - 7 + 300) % 300) * 1000 + (j + 3) % 1000));
      EXPECT_EQ(lo[i * 1000 + j], j <= i + 5 ? static_cast<float>(i * 1000 + j) : 0.0f);
      EXPECT_EQ(c[i * 2000 + 1000 + j], static_cast<float>(i * 1000 + j));
    }
  }
}
