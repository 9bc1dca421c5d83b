// The element-wise iterator: broadcasting, promotion, allocation, coalescing, strided operands.
#include "engine/ops/tensor_iterator.h"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/error.h"

#include "engine/core/empty.h"
#include "engine/cpu/loops.h"
#include "engine/ops/copy.h"

using namespace glassbox;

namespace {
Tensor arange_f32(std::vector<int64_t> sizes) {
  Tensor t = empty_tensor(sizes, ScalarType::Float32, Device(DeviceType::CPU));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>(i);
  return t;
}
Tensor typed(std::vector<int64_t> sizes, ScalarType dtype) {
  return empty_tensor(sizes, dtype, Device(DeviceType::CPU));
}
Tensor add(const Tensor& a, const Tensor& b) {
  Tensor out;
  TensorIterator it = TensorIteratorConfig("add").add_output(&out).add_input(a).add_input(b).build();
  visit_scalar_type(it.compute_dtype(),
                    [&]<class T>() { cpu::binary_loop<T, T>(it, [](auto x, auto y) { return x + y; }); });
  return out;
}
// A transposed view of a 2-d tensor, sharing its storage.
Tensor transposed(const Tensor& t) {
  Tensor v(intrusive_ptr<TensorImpl>::make(t.unsafe_impl()->storage(), t.key_set(), t.dtype(), t.device(),
                                           std::vector<int64_t>{}));
  v.unsafe_impl()->set_geometry(std::vector<int64_t>{t.sizes()[1], t.sizes()[0]},
                                std::vector<int64_t>{t.strides()[1], t.strides()[0]}, t.storage_offset());
  return v;
}
}  // namespace

TEST(BroadcastShapes, NumpyRules) {
  EXPECT_EQ(broadcast_shapes(std::vector<int64_t>{3, 1}, std::vector<int64_t>{4}, "add"), DimVector({3, 4}));
  EXPECT_EQ(broadcast_shapes(std::vector<int64_t>{}, std::vector<int64_t>{2, 0}, "add"), DimVector({2, 0}));
  EXPECT_EQ(broadcast_shapes(std::vector<int64_t>{5, 1, 7}, std::vector<int64_t>{6, 1}, "add"), DimVector({5, 6, 7}));
  try {
    broadcast_shapes(std::vector<int64_t>{2, 3}, std::vector<int64_t>{4}, "mul");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "mul: shapes [2, 3] and [4] cannot be broadcast together (dimension 1: 3 vs 4)");
  }
}

TEST(ResultType, PromotionWithWeakScalars) {
  auto rt = [](std::vector<Tensor> ts) {
    std::vector<const Tensor*> p;
    for (auto& t : ts) p.push_back(&t);
    return result_type(p);
  };
  using S = ScalarType;
  EXPECT_EQ(rt({typed({2}, S::Int64), wrap_scalar(Scalar(2.5))}), S::Float32);    // int tensor + float: default float
  EXPECT_EQ(rt({typed({2}, S::Float16), wrap_scalar(Scalar(2.0))}), S::Float16);  // same category: stays
  EXPECT_EQ(rt({typed({2}, S::Int32), wrap_scalar(Scalar(int64_t{7}))}), S::Int32);
  EXPECT_EQ(rt({typed({2}, S::UInt8), wrap_scalar(Scalar(true))}), S::UInt8);
  EXPECT_EQ(rt({typed({2}, S::Bool), wrap_scalar(Scalar(int64_t{3}))}), S::Int64);
  EXPECT_EQ(rt({typed({2}, S::Int64), typed({}, S::Float64)}), S::Float64);    // 0-d of a higher category
  EXPECT_EQ(rt({typed({2}, S::Float32), typed({}, S::Float64)}), S::Float32);  // 0-d of the same category
  EXPECT_EQ(rt({typed({2}, S::Int8), typed({2}, S::UInt8)}), S::Int16);
  EXPECT_EQ(rt({typed({2}, S::Float16), typed({2}, S::BFloat16)}), S::Float32);
  EXPECT_EQ(promote_types(S::Bool, S::Bool), S::Bool);
  EXPECT_EQ(promote_types(S::Int64, S::Float16), S::Float16);
  for (int a = 0; a < kNumScalarTypes; ++a)
    for (int b = 0; b < kNumScalarTypes; ++b)
      EXPECT_EQ(promote_types(S(a), S(b)), promote_types(S(b), S(a))) << a << " " << b;
}

TEST(TensorIterator, BroadcastAddAllocatesTheOutput) {
  const Tensor a = arange_f32({3, 1}), b = arange_f32({4});
  const Tensor c = add(a, b);
  ASSERT_EQ(c.sizes(), DimVector({3, 4}));
  ASSERT_EQ(c.dtype(), ScalarType::Float32);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(c.data<float>()[i * 4 + j], i + j);
}

TEST(TensorIterator, CoalescesContiguousDimensions) {
  const Tensor a = arange_f32({4, 5, 6}), b = arange_f32({4, 5, 6});
  Tensor out;
  TensorIterator it = TensorIteratorConfig("add").add_output(&out).add_input(a).add_input(b).build();
  EXPECT_EQ(it.shape(), DimVector({120}));
  EXPECT_EQ(it.strides(1), DimVector({4}));
  // A broadcast operand keeps its own dimension.
  const Tensor row = arange_f32({6});
  Tensor out2;
  TensorIterator it2 = TensorIteratorConfig("add").add_output(&out2).add_input(a).add_input(row).build();
  EXPECT_EQ(it2.shape(), DimVector({6, 20}));
  EXPECT_EQ(it2.strides(2), DimVector({4, 0}));
}

TEST(TensorIterator, StridedInputsAndPromotion) {
  const Tensor a = arange_f32({3, 4});
  const Tensor at = transposed(a);  // [4, 3], not contiguous
  ASSERT_FALSE(at.is_contiguous());
  Tensor ints = typed({4, 3}, ScalarType::Int64);
  for (int64_t i = 0; i < 12; ++i) ints.data<int64_t>()[i] = 100 * i;
  const Tensor c = add(at, ints);
  ASSERT_EQ(c.dtype(), ScalarType::Float32);
  ASSERT_EQ(c.sizes(), DimVector({4, 3}));
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(c.data<float>()[i * 3 + j], (j * 4 + i) + 100 * (i * 3 + j));
  // Int tensor + wrapped double: float32.
  const Tensor d = add(ints, wrap_scalar(Scalar(0.5)));
  EXPECT_EQ(d.dtype(), ScalarType::Float32);
  EXPECT_EQ(d.data<float>()[1], 100.5f);
}

TEST(TensorIterator, OutputsOfAnotherDtypeAreWrittenBack) {
  const Tensor a = arange_f32({5});
  Tensor out = typed({5}, ScalarType::Float64);
  TensorIterator it = TensorIteratorConfig("add").add_output(&out).add_input(a).add_input(a).build();
  visit_scalar_type(it.compute_dtype(),
                    [&]<class T>() { cpu::binary_loop<T, T>(it, [](auto x, auto y) { return x + y; }); });
  EXPECT_EQ(out.data<double>()[4], 8.0);
  Tensor wrong = typed({4}, ScalarType::Float32);
  EXPECT_THROW(TensorIteratorConfig("add").add_output(&wrong).add_input(a).build(), Error);
}

TEST(TensorIterator, LargeParallelRunMatchesSerial) {
  set_num_threads(2);
  const Tensor a = arange_f32({300, 1001});
  const Tensor b = arange_f32({1001});
  const Tensor c = add(transposed(transposed(a)), b);
  for (int64_t i = 0; i < 300; i += 37)
    for (int64_t j = 0; j < 1001; j += 91) EXPECT_EQ(c.data<float>()[i * 1001 + j], i * 1001 + j + j);
}

TEST(Copy, ConvertsBetweenEveryPairOfDtypes) {
  for (int from = 0; from < kNumScalarTypes; ++from) {
    for (int to = 0; to < kNumScalarTypes; ++to) {
      Tensor src = typed({3}, ScalarType(from));
      visit_scalar_type(ScalarType(from), [&]<class T>() {
        for (int i = 0; i < 3; ++i) src.data<T>()[i] = convert_value<T>(static_cast<float>(i));
      });
      Tensor dst = typed({2, 3}, ScalarType(to));
      copy_(dst, src);
      visit_scalar_type(ScalarType(to), [&]<class T>() {
        for (int i = 0; i < 6; ++i)
          EXPECT_EQ(static_cast<float>(dst.data<T>()[i]),
                    (ScalarType(to) == ScalarType::Bool || ScalarType(from) == ScalarType::Bool) ? (i % 3 != 0) : i % 3)
              << to_string(ScalarType(from)) << " -> " << to_string(ScalarType(to));
      });
    }
  }
}

TEST(Half, RoundTripsAndRounds) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f, 5.960464477539063e-08f, 0.1f})
    EXPECT_NEAR(static_cast<float>(Half(f)), f, std::abs(f) * 1e-3f + 6e-8f) << f;
  EXPECT_TRUE(std::isinf(static_cast<float>(Half(70000.0f))));
  EXPECT_TRUE(std::isnan(static_cast<float>(Half(std::nanf("")))));
  EXPECT_EQ(Half(1.0f).bits, 0x3c00);
  EXPECT_EQ(Half(2049.0f).bits, Half(2048.0f).bits);  // ties round to even
  EXPECT_EQ(BFloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(static_cast<float>(BFloat16(3.140625f)), 3.140625f);
}
