// Factories (empty_strided, arange, linspace, eye), the Philox generator and the random
// operators, and to(device): values against plain loops and statistics, thread-count
// independence, the Meta device, and error texts.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/core/generator.h"
#include "engine/core/parallel.h"
#include "engine/core/philox.h"
#include "glassbox/ops/Functions.h"
#include "tests/cpp/ops/error_text.h"

using namespace glassbox;
using glassbox::testing::error_of;

namespace {
const Device kMeta = Device::parse("meta");

template <class T>
std::vector<T> values(const Tensor& t) {
  const Tensor c = t.is_contiguous() ? t : clone(t);
  return std::vector<T>(c.data<T>(), c.data<T>() + c.numel());
}
std::vector<double> as_doubles(const Tensor& t) { return values<double>(t.to(ScalarType::Float64)); }

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}
double variance(const std::vector<double>& v) {
  const double m = mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / static_cast<double>(v.size());
}

}  // namespace

TEST(EmptyStrided, GeometryMetaAndErrors) {
  const Tensor t = empty_strided({2, 3}, {1, 2});
  ASSERT_EQ(t.sizes(), DimVector({2, 3}));
  EXPECT_EQ(t.strides(), DimVector({1, 2}));
  EXPECT_EQ(t.dtype(), ScalarType::Float32);
  EXPECT_FALSE(t.is_contiguous());
  const Tensor m = empty_strided({4}, {2}, ScalarType::Int32, kMeta);
  EXPECT_EQ(m.device(), kMeta);
  EXPECT_EQ(m.strides(), DimVector({2}));
  EXPECT_EQ(m.data_ptr(), nullptr);
  EXPECT_EQ(error_of([] {
              empty_strided({2, 3}, {1});
            }),
            "empty_strided: size [2, 3] and stride [1] must have the same length");
  EXPECT_THROW(empty_strided({-1}, {1}), Error);
  EXPECT_THROW(empty_strided({2}, {-1}, std::nullopt, kMeta), Error);
}

TEST(Arange, ValuesDtypesAndOverloads) {
  const Tensor a = arange(5);
  ASSERT_EQ(a.sizes(), DimVector({5}));
  ASSERT_EQ(a.dtype(), ScalarType::Int64);
  EXPECT_EQ(values<int64_t>(a), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(values<int64_t>(arange(2, 11, ScalarType::Int64)), (std::vector<int64_t>{2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(values<int64_t>(arange_start_step(10, 0, -3)), (std::vector<int64_t>{10, 7, 4, 1}));
  const Tensor f = arange_start_step(1, 2.5, 0.5);
  ASSERT_EQ(f.dtype(), ScalarType::Float32);  // any float bound gives the default float dtype
  EXPECT_EQ(values<float>(f), (std::vector<float>{1.0f, 1.5f, 2.0f}));
  EXPECT_EQ(arange(0, 1, std::optional<ScalarType>(ScalarType::Float64)).dtype(), ScalarType::Float64);
  // The length is ceil((end - start) / step), robust to steps that do not divide the range.
  EXPECT_EQ(arange_start_step(0, 1, 0.1).numel(), 10);
  EXPECT_EQ(arange_start_step(0.0, 1.0, 0.3).numel(), 4);
  EXPECT_EQ(arange(0).numel(), 0);
  EXPECT_EQ(arange_start_step(5, 5, -1).numel(), 0);
  // Integer ranges are counted exactly, even across the whole int64 range.
  EXPECT_EQ(arange_start_step(INT64_MIN, INT64_MAX, int64_t{1} << 62, ScalarType::Int64, kMeta).numel(), 4);
  const std::vector<double> h = as_doubles(arange(0, 4, ScalarType::Float16));
  EXPECT_EQ(h, (std::vector<double>{0, 1, 2, 3}));
  EXPECT_EQ(values<int8_t>(arange_start_step(-3, 3, 2, ScalarType::Int8)), (std::vector<int8_t>{-3, -1, 1}));
}

TEST(Arange, OutMetaAndErrors) {
  Tensor out = empty({4}, ScalarType::Float64);
  arange_out(out, 0, 2, 0.5);
  EXPECT_EQ(values<double>(out), (std::vector<double>{0, 0.5, 1, 1.5}));
  Tensor strided = empty({8}, ScalarType::Int32);
  Tensor every_other = slice(strided, 0, 0, std::nullopt, 2);
  arange_out(every_other, 0, 4);
  EXPECT_EQ(values<int32_t>(every_other), (std::vector<int32_t>{0, 1, 2, 3}));
  const Tensor m = arange_start_step(0, 10, 3, std::nullopt, kMeta);
  EXPECT_EQ(m.device(), kMeta);
  EXPECT_EQ(m.sizes(), DimVector({4}));
  EXPECT_EQ(m.dtype(), ScalarType::Int64);
  EXPECT_EQ(error_of([] { arange_start_step(0, 5, 0); }), "arange: step must be nonzero (start=0, end=5, step=0)");
  EXPECT_EQ(error_of([] { arange_start_step(0, 5, -1); }),
            "arange: the sign of step leads away from end (start=0, end=5, step=-1)");
  EXPECT_EQ(error_of([] { arange_start_step(1.5, 0.0, 0.5, std::nullopt, kMeta); }),
            "arange: the sign of step leads away from end (start=1.5, end=0, step=0.5)");
  EXPECT_THROW(arange(0.0, INFINITY), Error);
  EXPECT_THROW(arange_start_step(0.0, 1e300, 1e-300), Error);  // more elements than int64 counts
  Tensor grown = empty({3});  // an out of another shape is resized, as in PyTorch (here its storage grows)
  arange_out(grown, 0, 4);
  EXPECT_EQ(grown.sizes(), DimVector({4}));
  EXPECT_EQ(values<float>(grown), (std::vector<float>{0, 1, 2, 3}));
  EXPECT_THROW(arange(3, ScalarType::Bool), Error);
}

TEST(Linspace, ValuesEndpointsAndErrors) {
  const Tensor l = linspace(0, 1, 5);
  ASSERT_EQ(l.dtype(), ScalarType::Float32);  // the default float dtype, even for integer bounds
  EXPECT_EQ(values<float>(l), (std::vector<float>{0.0f, 0.25f, 0.5f, 0.75f, 1.0f}));
  const std::vector<double> d = values<double>(linspace(-1.0, 7.3, 11, ScalarType::Float64));
  for (int i = 0; i < 11; ++i) EXPECT_NEAR(d[i], -1.0 + 8.3 * i / 10.0, 1e-12);
  EXPECT_EQ(d.front(), -1.0);
  EXPECT_EQ(d.back(), 7.3);  // both ends exact
  EXPECT_EQ(values<float>(linspace(3, 9, 1)), std::vector<float>{3.0f});
  EXPECT_EQ(linspace(0, 1, 0).numel(), 0);
  EXPECT_EQ(values<int64_t>(linspace(0, 10, 6, ScalarType::Int64)), (std::vector<int64_t>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(linspace(0, 1, 7, std::nullopt, kMeta).sizes(), DimVector({7}));
  EXPECT_EQ(error_of([] { linspace(0, 1, -2); }), "linspace: number of steps must be non-negative, got -2");
  Tensor resized = empty({2}, ScalarType::Float32, kMeta);  // an out of another shape is resized, as in PyTorch
  linspace_out(resized, 0, 1, 3);
  EXPECT_EQ(resized.sizes(), DimVector({3}));
}

TEST(Eye, SquareRectangularDtypesMeta) {
  const Tensor e = eye(3);
  ASSERT_EQ(e.sizes(), DimVector({3, 3}));
  ASSERT_EQ(e.dtype(), ScalarType::Float32);
  EXPECT_EQ(values<float>(e), (std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
  EXPECT_EQ(values<int32_t>(eye(2, 3, ScalarType::Int32)), (std::vector<int32_t>{1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(values<bool>(eye(3, 2, ScalarType::Bool)), (std::vector<bool>{true, false, false, true, false, false}));
  EXPECT_EQ(eye(0).numel(), 0);
  Tensor t = empty({3, 2}).t();  // a transposed out
  eye_out(t, 2, 3);
  EXPECT_EQ(values<float>(t), (std::vector<float>{1, 0, 0, 0, 1, 0}));
  const Tensor m = eye(4, 5, ScalarType::Float16, kMeta);
  EXPECT_EQ(m.sizes(), DimVector({4, 5}));
  EXPECT_EQ(m.dtype(), ScalarType::Float16);
  EXPECT_EQ(error_of([] { eye(-1); }), "eye: n must be greater or equal to 0, got -1");
  EXPECT_EQ(error_of([] { eye(2, -3, std::nullopt, kMeta); }), "eye: m must be greater or equal to 0, got -3");
}

TEST(Philox, KnownAnswerVectors) {
  // Random123's published vectors for philox4x32-10 (counter, key -> output).
  const PhiloxWords zero = philox4x32_10(PhiloxWords{{0, 0, 0, 0}}, 0, 0);
  EXPECT_EQ(zero.w[0], 0x6627e8d5u);
  EXPECT_EQ(zero.w[1], 0xe169c58du);
  EXPECT_EQ(zero.w[2], 0xbc57ac4cu);
  EXPECT_EQ(zero.w[3], 0x9b00dbd8u);
  const PhiloxWords ones = philox4x32_10(PhiloxWords{{~0u, ~0u, ~0u, ~0u}}, ~0u, ~0u);
  EXPECT_EQ(ones.w[0], 0x408f276du);
  EXPECT_EQ(ones.w[3], 0x6d5451fdu);
  const PhiloxWords pi =
      philox4x32_10(PhiloxWords{{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}}, 0xa4093822u, 0x299f31d0u);
  EXPECT_EQ(pi.w[0], 0xd16cfe09u);
  EXPECT_EQ(pi.w[1], 0x94fdccebu);
  EXPECT_EQ(pi.w[2], 0x5001e420u);
  EXPECT_EQ(pi.w[3], 0x24126ea1u);
  static_assert(philox4x32_10(PhiloxWords{{0, 0, 0, 0}}, 0, 0).w[0] == 0x6627e8d5u, "usable at compile time");
  EXPECT_EQ(unit_float(0xffffffffu), 1.0f - 0x1p-24f);
  EXPECT_EQ(unit_double(0, 0), 0.0);
}

TEST(Generator, SeedOffsetAndReproducibility) {
  manual_seed(42);
  EXPECT_EQ(default_generator().initial_seed(), 42u);
  EXPECT_EQ(default_generator().offset(), 0u);
  const std::vector<float> a = values<float>(rand({64}));
  EXPECT_EQ(default_generator().offset(), 1u);  // one per call
  const std::vector<float> b = values<float>(rand({64}));
  EXPECT_NE(a, b);
  manual_seed(42);
  EXPECT_EQ(values<float>(rand({64})), a);
  EXPECT_EQ(values<float>(rand({64})), b);
  manual_seed(43);
  EXPECT_NE(values<float>(rand({64})), a);
  const uint64_t s = default_generator().seed();
  EXPECT_EQ(default_generator().initial_seed(), s);
  // A meta call draws nothing and leaves the offset alone.
  const uint64_t before = default_generator().offset();
  const Tensor m = randn({3, 4}, ScalarType::Float64, kMeta);
  EXPECT_EQ(m.sizes(), DimVector({3, 4}));
  EXPECT_EQ(m.dtype(), ScalarType::Float64);
  EXPECT_EQ(default_generator().offset(), before);
}

TEST(Random, ResultsDoNotDependOnTheThreadCount) {
  const int saved = get_num_threads();
  const auto draw_all = [] {
    manual_seed(1234);
    std::vector<std::vector<double>> out;
    out.push_back(as_doubles(rand({300001})));
    out.push_back(as_doubles(randn({200003}, ScalarType::Float64)));
    out.push_back(as_doubles(randn({100001}, ScalarType::BFloat16)));
    out.push_back(as_doubles(randint(-50, 50, {250007})));
    Tensor b = empty({200001}, ScalarType::Float16);
    out.push_back(as_doubles(bernoulli_(b, 0.25)));
    Tensor u = empty({700, 400}, ScalarType::Float64).t();  // non-contiguous: filled in row-major order
    out.push_back(as_doubles(uniform_(u, -2.0, 5.0)));
    return out;
  };
  set_num_threads(1);
  const auto one = draw_all();
  set_num_threads(2);
  const auto two = draw_all();
  set_num_threads(saved);
  ASSERT_EQ(one.size(), two.size());
  for (size_t i = 0; i < one.size(); ++i) EXPECT_EQ(one[i], two[i]) << "draw " << i;
}

TEST(Random, UniformAndNormalMoments) {
  manual_seed(7);
  const std::vector<double> u = as_doubles(rand({200000}));
  EXPECT_NEAR(mean(u), 0.5, 0.005);
  EXPECT_NEAR(variance(u), 1.0 / 12, 0.002);
  EXPECT_GE(*std::min_element(u.begin(), u.end()), 0.0);
  EXPECT_LT(*std::max_element(u.begin(), u.end()), 1.0);
  for (ScalarType t : {ScalarType::Float16, ScalarType::BFloat16, ScalarType::Float64}) {
    const std::vector<double> r = as_doubles(rand({50000}, t));
    EXPECT_LT(*std::max_element(r.begin(), r.end()), 1.0) << to_string(t);
    EXPECT_NEAR(mean(r), 0.5, 0.01) << to_string(t);
  }
  Tensor w = empty({100000}, ScalarType::Float64);
  const std::vector<double> ranged = as_doubles(uniform_(w, -3.0, 5.0));
  EXPECT_GE(*std::min_element(ranged.begin(), ranged.end()), -3.0);
  EXPECT_LT(*std::max_element(ranged.begin(), ranged.end()), 5.0);
  EXPECT_NEAR(mean(ranged), 1.0, 0.05);
  for (ScalarType t : {ScalarType::Float32, ScalarType::Float64}) {
    const std::vector<double> n = as_doubles(randn({200000}, t));
    EXPECT_NEAR(mean(n), 0.0, 0.01) << to_string(t);
    EXPECT_NEAR(variance(n), 1.0, 0.02) << to_string(t);
    size_t within_one = 0;
    for (double x : n) within_one += std::abs(x) < 1.0;
    EXPECT_NEAR(static_cast<double>(within_one) / n.size(), 0.6827, 0.01) << to_string(t);
  }
  Tensor g = empty({100000});
  const std::vector<double> shifted = as_doubles(normal_(g, 3.0, 2.0));
  EXPECT_NEAR(mean(shifted), 3.0, 0.03);
  EXPECT_NEAR(std::sqrt(variance(shifted)), 2.0, 0.03);
}

TEST(Random, RandintRandomBernoulli) {
  manual_seed(11);
  const Tensor r = randint(10, {100000});
  ASSERT_EQ(r.dtype(), ScalarType::Int64);
  std::vector<int> counts(10, 0);
  for (int64_t v : values<int64_t>(r)) {
    ASSERT_TRUE(v >= 0 && v < 10) << v;
    ++counts[v];
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 500);
  const std::vector<int64_t> low = values<int64_t>(randint(-3, 2, {1000}));
  EXPECT_EQ(std::set<int64_t>(low.begin(), low.end()), (std::set<int64_t>{-3, -2, -1, 0, 1}));
  EXPECT_EQ(randint(0, 256, {4}, ScalarType::UInt8).dtype(), ScalarType::UInt8);
  const std::vector<double> fr = as_doubles(randint(5, {1000}, ScalarType::Float32));
  for (double v : fr) EXPECT_EQ(v, std::floor(v));
  Tensor b = empty({100000}, ScalarType::Int32);
  const std::vector<int32_t> bits = values<int32_t>(bernoulli_(b, 0.3));
  double ones = 0;
  for (int32_t v : bits) {
    ASSERT_TRUE(v == 0 || v == 1);
    ones += v;
  }
  EXPECT_NEAR(ones / bits.size(), 0.3, 0.01);
  Tensor all = empty({100}, ScalarType::Bool), none = empty({100});
  EXPECT_EQ(values<bool>(bernoulli_(all, 1.0)), std::vector<bool>(100, true));
  EXPECT_EQ(values<float>(bernoulli_(none, 0.0)), std::vector<float>(100, 0.0f));
  // bernoulli(p): each element with its own probability.
  Tensor p = empty({3, 20000}, ScalarType::Float64);
  fill_(p, Scalar(0.8));
  Tensor never = select(p, 0, 0), always = select(p, 0, 1);
  fill_(never, Scalar(0.0));
  fill_(always, Scalar(1.0));
  const std::vector<double> drawn = values<double>(bernoulli(p));
  const auto row_mean = [&](int row) {
    return mean(std::vector<double>(drawn.begin() + row * 20000, drawn.begin() + (row + 1) * 20000));
  };
  EXPECT_EQ(row_mean(0), 0.0);
  EXPECT_EQ(row_mean(1), 1.0);
  EXPECT_NEAR(row_mean(2), 0.8, 0.01);
}

TEST(Random, Dropout) {
  manual_seed(3);
  const Tensor x = full({50000}, Scalar(2.0));
  EXPECT_TRUE(dropout(x, 0.5, false).is_same(x));  // identity when not training
  EXPECT_TRUE(dropout(x, 0.0, true).is_same(x));
  const std::vector<float> d = values<float>(dropout(x, 0.25, true));
  double kept = 0;
  for (float v : d) {
    ASSERT_TRUE(v == 0.0f || std::abs(v - 2.0f / 0.75f) < 1e-6) << v;
    kept += v != 0.0f;
  }
  EXPECT_NEAR(kept / d.size(), 0.75, 0.01);
  EXPECT_NEAR(mean(as_doubles(dropout(x, 0.25, true))), 2.0, 0.05);  // the expectation is kept
  EXPECT_EQ(values<float>(dropout(x, 1.0, true)), std::vector<float>(50000, 0.0f));
  const Tensor m = dropout(empty({2, 3}, ScalarType::Float16, kMeta), 0.5, true);
  EXPECT_EQ(m.device(), kMeta);
  EXPECT_EQ(m.sizes(), DimVector({2, 3}));
  EXPECT_EQ(error_of([&] { dropout(x, 1.5, true); }), "dropout: the probability must be in [0, 1], but got p=1.5");
  EXPECT_EQ(error_of([] { dropout(ones({2}, ScalarType::Int64), 0.5, true); }),
            "dropout: expected a floating-point input, but got int64 of shape [2]");
}

TEST(Random, ErrorsNameTheOperator) {
  EXPECT_EQ(error_of([] { rand({2}, ScalarType::Int32); }), "rand: expected a floating-point dtype, but got int32");
  EXPECT_THROW(randn({2}, ScalarType::Bool), NotImplementedError);
  Tensor i = empty({3}, ScalarType::Int64);
  EXPECT_EQ(error_of([&] { uniform_(i); }), "uniform_: expected a floating-point dtype, but got int64");
  Tensor f = empty({3});
  EXPECT_EQ(error_of([&] { uniform_(f, 2.0, 1.0); }), "uniform_: expects from <= to, but got from=2 > to=1");
  EXPECT_EQ(error_of([&] { normal_(f, 0.0, -1.0); }), "normal_: expects a finite std >= 0, but got std=-1");
  EXPECT_EQ(error_of([&] { bernoulli_(f, -0.1); }), "bernoulli_: the probability must be in [0, 1], but got p=-0.1");
  EXPECT_EQ(error_of([] { randint(5, 5, {2}); }),
            "randint: expects from < to (an empty range cannot be sampled), but got from=5 and to=5");
  EXPECT_EQ(error_of([] { randint(0, 1000, {2}, ScalarType::Int8); }),
            "randint: the range [0, 1000) does not fit in int8 (its values must lie in [-128, 127])");
  Tensor m = empty({3}, ScalarType::Int64, kMeta);
  EXPECT_THROW(uniform_(m), NotImplementedError);  // the Meta kernel checks the same
  EXPECT_THROW(random_(m, 3, 1), Error);
  Tensor p = full({2}, Scalar(1.5));
  EXPECT_THROW(bernoulli(p), Error);
  EXPECT_THROW(bernoulli(ones({2}, ScalarType::Int64)), NotImplementedError);
}

TEST(ToDevice, CopiesConvertsAndRefuses) {
  const Tensor a = arange(0, 6, ScalarType::Float32).view({2, 3});
  const Device cpu = Device::parse("cpu");
  EXPECT_TRUE(a.to(cpu).is_same(a));
  const Tensor c = a.to(cpu, std::nullopt, false, true);
  EXPECT_FALSE(c.is_same(a));
  EXPECT_EQ(values<float>(c), values<float>(a));
  const Tensor d = a.t().to(cpu, ScalarType::Int32);
  EXPECT_EQ(values<int32_t>(d), (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
  const Tensor m = a.to(kMeta, ScalarType::Float16);
  EXPECT_EQ(m.device(), kMeta);
  EXPECT_EQ(m.dtype(), ScalarType::Float16);
  EXPECT_EQ(m.sizes(), DimVector({2, 3}));
  EXPECT_EQ(error_of([&] { m.to(cpu); }),
            "to: cannot copy out of a meta tensor (shape [2, 3], float16): it has no data; make the tensor on cpu "
            "instead");
  bool has_cuda_allocator = true;
  try {
    allocator_for(DeviceType::CUDA);
  } catch (const Error&) {
    has_cuda_allocator = false;
  }
  if (!has_cuda_allocator) {
    const std::string e = error_of([&] { a.to(Device::parse("cuda")); });
    EXPECT_EQ(
        e.rfind("to: cannot move a tensor of shape [2, 3] (float32) to cuda: no allocator for device type cuda", 0), 0u)
        << e;
  }
}
