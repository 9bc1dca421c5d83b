// Printing: each expected string is what PyTorch's repr prints for the same data (with
// `torch.` in dtype names spelled `glassbox.`).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "engine/ops/tensor_printing.h"
#include "glassbox/ops/Functions.h"

using namespace glassbox;

namespace {
template <class T>
Tensor make(std::vector<int64_t> sizes, std::vector<double> values, ScalarType dtype = CppTypeToScalarType<T>::value) {
  Tensor t = empty(sizes, dtype);
  for (size_t i = 0; i < values.size(); ++i) t.data<T>()[i] = static_cast<T>(static_cast<float>(values[i]));
  if constexpr (std::is_same_v<T, double>)
    for (size_t i = 0; i < values.size(); ++i) t.data<T>()[i] = values[i];
  return t;
}
Tensor arange_f(int64_t n) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<double>(i));
  return make<float>({n}, v);
}
const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();
}  // namespace

TEST(PrintTensor, FloatMatrixAndVectors) {
  EXPECT_EQ(to_string(make<float>({2, 2}, {1, 2, 3, 4})), "tensor([[1., 2.],\n        [3., 4.]])");
  EXPECT_EQ(to_string(make<float>({2}, {1.5, 2.25})), "tensor([1.5000, 2.2500])");
  EXPECT_EQ(to_string(make<float>({2}, {-1.5, 2.0})), "tensor([-1.5000,  2.0000])");
  EXPECT_EQ(to_string(make<float>({2}, {0.12345, 10.5})), "tensor([ 0.1235, 10.5000])");
  EXPECT_EQ(to_string(make<float>({2}, {0.0, 0.5})), "tensor([0.0000, 0.5000])");
  EXPECT_EQ(to_string(make<float>({3}, {0, 0, 0})), "tensor([0., 0., 0.])");
  EXPECT_EQ(to_string(make<float>({2}, {1, 1000})), "tensor([   1., 1000.])");
}

TEST(PrintTensor, ScientificNotation) {
  EXPECT_EQ(to_string(make<float>({2}, {1e-5, 1.0})), "tensor([1.0000e-05, 1.0000e+00])");
  EXPECT_EQ(to_string(make<float>({2}, {-1e-5, 1.0})), "tensor([-1.0000e-05,  1.0000e+00])");
  EXPECT_EQ(to_string(make<float>({2}, {1, 10000})), "tensor([1.0000e+00, 1.0000e+04])");
  EXPECT_EQ(to_string(make<float>({2}, {1e9, 2})), "tensor([1.0000e+09, 2.0000e+00])");
  EXPECT_EQ(to_string(make<float>({2}, {0.0001, 0.5})), "tensor([1.0000e-04, 5.0000e-01])");
}

TEST(PrintTensor, IntegersBoolsAndDtypeSuffixes) {
  EXPECT_EQ(to_string(make<int64_t>({3}, {1, 2, 3})), "tensor([1, 2, 3])");
  EXPECT_EQ(to_string(make<int64_t>({3}, {-1, 10, 100})), "tensor([ -1,  10, 100])");
  EXPECT_EQ(to_string(make<int32_t>({2}, {1, 2})), "tensor([1, 2], dtype=glassbox.int32)");
  EXPECT_EQ(to_string(make<uint8_t>({2}, {0, 255})), "tensor([  0, 255], dtype=glassbox.uint8)");
  EXPECT_EQ(to_string(make<bool>({2}, {1, 0})), "tensor([ True, False])");
  EXPECT_EQ(to_string(make<double>({1}, {1.5})), "tensor([1.5000], dtype=glassbox.float64)");
  EXPECT_EQ(to_string(make<Half>({1}, {0.1})), "tensor([0.1000], dtype=glassbox.float16)");
  EXPECT_EQ(to_string(make<BFloat16>({2}, {1.0, 2.5})), "tensor([1.0000, 2.5000], dtype=glassbox.bfloat16)");
}

TEST(PrintTensor, ScalarsAndNonFinite) {
  EXPECT_EQ(to_string(make<float>({}, {3.5})), "tensor(3.5000)");
  EXPECT_EQ(to_string(make<float>({}, {3})), "tensor(3.)");
  EXPECT_EQ(to_string(make<int64_t>({}, {7})), "tensor(7)");
  EXPECT_EQ(to_string(make<bool>({}, {1})), "tensor(True)");
  EXPECT_EQ(to_string(make<float>({}, {kNan})), "tensor(nan)");
  EXPECT_EQ(to_string(make<float>({3}, {kNan, 1.0, kInf})), "tensor([nan, 1., inf])");
  EXPECT_EQ(to_string(make<float>({3}, {-kInf, 0.5, 2.0})), "tensor([  -inf, 0.5000, 2.0000])");
}

TEST(PrintTensor, EmptyAndMeta) {
  EXPECT_EQ(to_string(empty({0})), "tensor([])");
  EXPECT_EQ(to_string(empty({0, 3})), "tensor([], size=(0, 3))");
  EXPECT_EQ(to_string(empty({0}, ScalarType::Int64)), "tensor([], dtype=glassbox.int64)");
  EXPECT_EQ(to_string(empty({2, 3}, std::nullopt, Device(DeviceType::Meta))),
            "tensor(..., device='meta', size=(2, 3))");
  EXPECT_EQ(to_string(empty({4}, ScalarType::Int64, Device(DeviceType::Meta))),
            "tensor(..., device='meta', size=(4,), dtype=glassbox.int64)");
}

TEST(PrintTensor, NestedAndNonContiguous) {
  EXPECT_EQ(to_string(arange_f(8).view({2, 2, 2})),
            "tensor([[[0., 1.],\n         [2., 3.]],\n\n        [[4., 5.],\n         [6., 7.]]])");
  EXPECT_EQ(to_string(make<int64_t>({2, 2}, {1, 2, 3, 4}).t()), "tensor([[1, 3],\n        [2, 4]])");
  EXPECT_EQ(to_string(arange_f(10).slice(0, 1, std::nullopt, 3)), "tensor([1., 4., 7.])");
  EXPECT_EQ(to_string(make<float>({1}, {2}).expand({2, 3})), "tensor([[2., 2., 2.],\n        [2., 2., 2.]])");
}

TEST(PrintTensor, LineWrapping) {
  EXPECT_EQ(to_string(arange_f(30)),
            "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n"
            "        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,\n"
            "        28., 29.])");
  // A suffix that would pass the line width goes on its own line.
  std::vector<double> v;
  for (int i = 0; i < 14; ++i) v.push_back(i);
  EXPECT_EQ(to_string(make<double>({14}, v)),
            "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.],\n"
            "       dtype=glassbox.float64)");
}

TEST(PrintTensor, SummariesPastAThousandElements) {
  EXPECT_EQ(to_string(arange_f(1001)), "tensor([   0.,    1.,    2.,  ...,  998.,  999., 1000.])");
  std::vector<double> v;
  for (int i = 0; i < 2000; ++i) v.push_back(i);
  EXPECT_EQ(to_string(make<int64_t>({40, 50}, v)),
            "tensor([[   0,    1,    2,  ...,   47,   48,   49],\n"
            "        [  50,   51,   52,  ...,   97,   98,   99],\n"
            "        [ 100,  101,  102,  ...,  147,  148,  149],\n"
            "        ...,\n"
            "        [1850, 1851, 1852,  ..., 1897, 1898, 1899],\n"
            "        [1900, 1901, 1902,  ..., 1947, 1948, 1949],\n"
            "        [1950, 1951, 1952,  ..., 1997, 1998, 1999]])");
  // Only the shown elements decide the format: the hidden middle (huge values) does not.
  Tensor big = arange_f(1001);
  big.data<float>()[500] = 1e20f;
  EXPECT_EQ(to_string(big), "tensor([   0.,    1.,    2.,  ...,  998.,  999., 1000.])");
}

TEST(PrintTensor, StreamOperator) {
  std::ostringstream out;
  out << make<int64_t>({2}, {4, 5});
  EXPECT_EQ(out.str(), "tensor([4, 5])");
}
