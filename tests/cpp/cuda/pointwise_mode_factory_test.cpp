// pow and clamp with tensor operands, div with a rounding mode, the arange/linspace/eye out=
// overloads and bernoulli(probabilities) on CUDA against the CPU: every dtype they take, broadcast,
// transposed and empty operands, in-place and out= forms, gradients, and the CPU's errors.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "engine/core/generator.h"
#include "tests/cpp/cuda/cuda_test_util.h"
#include "tests/cpp/ops/error_text.h"

using namespace glassbox;
using namespace glassbox::cuda_testing;
using glassbox::testing::error_of;

namespace {
struct Pair {
  Tensor cpu, cuda;
};
// The same values on both devices; `transpose` views a [n, m] tensor of a [m, n] one.
Pair make(std::vector<int64_t> shape, ScalarType t, bool transpose = false) {
  if (transpose && shape.size() >= 2) {
    std::swap(shape[0], shape[1]);
    const Tensor base = random_cpu(shape, t);
    return {base.transpose(0, 1), on_cuda(base).transpose(0, 1)};
  }
  const Tensor base = random_cpu(shape, t);
  return {base, on_cuda(base)};
}
Pair both(const Tensor& cpu) { return {cpu, on_cuda(cpu)}; }

Tensor tensor_from(const std::vector<double>& v) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, ScalarType::Float64);
  std::copy(v.begin(), v.end(), t.data<double>());
  return t;
}

// Integers in [1, 10) of either sign (positive only for uint8): divisors that are never 0.
Tensor nonzero_ints(IntArrayRef shape, ScalarType t) {
  const Tensor magnitude = randint(1, 10, shape, t);
  if (t == ScalarType::UInt8) return magnitude;
  return mul(magnitude, sub(mul(randint(0, 2, shape, t), Scalar(int64_t{2})), Scalar(int64_t{1})));
}

struct Shapes {
  std::string name;
  std::vector<int64_t> a, b;
  bool transpose = false;
};
const std::vector<Shapes> kShapes = {
    {"same", {37, 5}, {37, 5}},
    {"broadcast", {4, 1, 6}, {3, 1}},
    {"transposed", {9, 13}, {9, 13}, true},
    {"empty", {0, 3}, {3}},
    {"0-d", {}, {}},
};

std::vector<ScalarType> numeric_types() {
  std::vector<ScalarType> v = kFloatTypes;
  v.insert(v.end(), kIntTypes.begin(), kIntTypes.end());
  return v;
}
}  // namespace

TEST(CudaPow, TensorExponentMatchesTheCpu) {
  GB_REQUIRE_GPU();
  for (ScalarType t : numeric_types()) {
    for (const Shapes& s : kShapes) {
      Pair base = make(s.a, t, s.transpose), exponent = make(s.b, t);
      if (is_floating_point(t)) {
        base = both(abs(base.cpu));  // fractional powers of negative numbers are NaN on both: keep them finite
        exponent = both(div(exponent.cpu, Scalar(2.0)));
      } else {
        exponent = both(randint(0, 5, s.b, t));  // small powers
      }
      const Tensor c = pow(base.cpu, exponent.cpu);
      EXPECT_TRUE(matches(pow(base.cuda, exponent.cuda), c, is_floating_point(t) ? 2 * tolerance(t).rtol : 0))
          << to_string(t) << " " << s.name;
      Tensor out = empty(c.sizes(), t, kCuda);
      pow_out(out, base.cuda, exponent.cuda);
      EXPECT_TRUE(matches(out, c, is_floating_point(t) ? 2 * tolerance(t).rtol : 0)) << "out= " << to_string(t);
      if (c.sizes() == base.cpu.sizes()) {
        Tensor in_place = base.cuda.clone();
        in_place.pow_(exponent.cuda);
        EXPECT_TRUE(matches(in_place, c, is_floating_point(t) ? 2 * tolerance(t).rtol : 0)) << "pow_ " << to_string(t);
      }
    }
  }
  // Integers: negative exponents (0 but for bases 1 and -1) and wrapping overflow, as on the CPU.
  const Tensor b = sub(randint(0, 7, {200}, ScalarType::Int32), Scalar(int64_t{3}));
  const Tensor e = sub(randint(0, 40, {200}, ScalarType::Int32), Scalar(int64_t{5}));
  EXPECT_TRUE(matches(pow(on_cuda(b), on_cuda(e)), pow(b, e), 0));
  // A Python-number exponent takes the exact shortcuts for 2 and -1.
  const Pair x = make({1000}, ScalarType::Float32);
  for (double v : {2.0, -1.0, 0.5}) EXPECT_TRUE(matches(pow(x.cuda, Scalar(v)), pow(x.cpu, Scalar(v)))) << v;
  // Bool is refused with the CPU's message.
  const Pair flags = make({3}, ScalarType::Bool);
  EXPECT_EQ(error_of([&] { pow(flags.cuda, flags.cuda); }), error_of([&] { pow(flags.cpu, flags.cpu); }));
}

TEST(CudaClamp, TensorBoundsMatchTheCpu) {
  GB_REQUIRE_GPU();
  for (ScalarType t : numeric_types()) {
    for (const Shapes& s : kShapes) {
      const Pair x = make(s.a, t, s.transpose), lo = make(s.b, t), hi = make(s.b, t);
      EXPECT_TRUE(matches(clamp_Tensor(x.cuda, lo.cuda, hi.cuda), clamp_Tensor(x.cpu, lo.cpu, hi.cpu)))
          << to_string(t) << " " << s.name;
      EXPECT_TRUE(matches(clamp_Tensor(x.cuda, lo.cuda, std::nullopt), clamp_Tensor(x.cpu, lo.cpu, std::nullopt)));
      EXPECT_TRUE(matches(clamp_Tensor(x.cuda, std::nullopt, hi.cuda), clamp_Tensor(x.cpu, std::nullopt, hi.cpu)));
      const Tensor c = clamp_Tensor(x.cpu, lo.cpu, hi.cpu);
      Tensor out = empty(c.sizes(), t, kCuda);
      clamp_Tensor_out(out, x.cuda, lo.cuda, hi.cuda);
      EXPECT_TRUE(matches(out, c)) << "out= " << to_string(t);
      if (c.sizes() == x.cpu.sizes()) {
        Tensor in_place = x.cuda.clone();
        clamp__Tensor(in_place, lo.cuda, hi.cuda);
        EXPECT_TRUE(matches(in_place, c)) << "clamp_ " << to_string(t);
      }
    }
  }
  // NaN passes through; bounds promote with self (int self, float bounds gives float).
  const Tensor nan_x = full({4}, Scalar(std::nan("")), ScalarType::Float32);
  const Pair bound = make({4}, ScalarType::Float32);
  EXPECT_TRUE(
      matches(clamp_Tensor(on_cuda(nan_x), bound.cuda, std::nullopt), clamp_Tensor(nan_x, bound.cpu, std::nullopt)));
  const Pair ints = make({6}, ScalarType::Int64), floats = make({6}, ScalarType::Float32);
  EXPECT_TRUE(
      matches(clamp_Tensor(ints.cuda, floats.cuda, std::nullopt), clamp_Tensor(ints.cpu, floats.cpu, std::nullopt)));
  EXPECT_EQ(error_of([&] { clamp_Tensor(ints.cuda, std::nullopt, std::nullopt); }),
            error_of([&] { clamp_Tensor(ints.cpu, std::nullopt, std::nullopt); }));
}

TEST(CudaDivRounding, TruncAndFloorMatchTheCpu) {
  GB_REQUIRE_GPU();
  for (ScalarType t : numeric_types()) {
    for (const Shapes& s : kShapes) {
      Pair x = make(s.a, t, s.transpose), y = make(s.b, t);
      if (!is_floating_point(t)) {
        // Signed types get negative operands; divisors are never 0.
        if (t != ScalarType::UInt8) x = both(sub(x.cpu, Scalar(int64_t{10})));
        y = both(nonzero_ints(s.b, t));
      }
      for (const char* mode : {"trunc", "floor"}) {
        const Tensor c = div(x.cpu, y.cpu, mode);
        EXPECT_TRUE(matches(div(x.cuda, y.cuda, mode), c)) << to_string(t) << " " << s.name << " " << mode;
        Tensor out = empty(c.sizes(), c.dtype(), kCuda);
        div_out(out, x.cuda, y.cuda, mode);
        EXPECT_TRUE(matches(out, c)) << "out= " << to_string(t) << " " << mode;
        if (c.sizes() == x.cpu.sizes()) {
          Tensor in_place = x.cuda.clone();
          in_place.div_(y.cuda, mode);
          EXPECT_TRUE(matches(in_place, c)) << "div_ " << to_string(t) << " " << mode;
        }
      }
      EXPECT_TRUE(matches(div(x.cuda, y.cuda, std::nullopt), div(x.cpu, y.cpu, std::nullopt))) << "true division";
    }
  }
  // Floats: signed zeros, division by zero, fractional quotients of either sign.
  const Tensor fx = tensor_from({7.5, -7.5, 0.0, -0.0, 1.0, -1.0, 5.0, 3.0}),
               fy = tensor_from({-2.0, 2.0, -3.0, 3.0, 0.0, 0.0, 0.5, -0.7});
  for (const char* mode : {"trunc", "floor"})
    EXPECT_TRUE(matches(div(on_cuda(fx), on_cuda(fy), mode), div(fx, fy, mode))) << mode;
  // Integer division by zero throws the CPU's error; an unknown mode too.
  const Tensor ix = full({5}, Scalar(int64_t{3}), ScalarType::Int32), iy = zeros({5}, ScalarType::Int32);
  for (const char* mode : {"trunc", "floor"}) {
    const std::string e = error_of([&] { div(on_cuda(ix), on_cuda(iy), mode); });
    EXPECT_NE(e.find("integer division by zero"), std::string::npos) << e;
    EXPECT_EQ(e, error_of([&] { div(ix, iy, mode); }));
  }
  EXPECT_EQ(error_of([&] { div(on_cuda(fx), on_cuda(fy), "round"); }), error_of([&] { div(fx, fy, "round"); }));
}

TEST(CudaPointwiseMode, GradientsMatchTheCpu) {
  GB_REQUIRE_GPU();
  const Tensor x0 = add(abs(random_cpu({6, 5}, ScalarType::Float64)), Scalar(0.1));
  const Tensor y0 = random_cpu({5}, ScalarType::Float64), lo0 = random_cpu({6, 1}, ScalarType::Float64);
  auto run = [&](Device d) {
    Tensor x = x0.to(d).detach(), y = y0.to(d).detach(), lo = lo0.to(d).detach();
    for (Tensor* t : {&x, &y, &lo}) t->requires_grad_(true);
    const Tensor loss = add(add(pow(x, y).sum(), clamp_Tensor(x, lo, std::nullopt).sum()), div(x, y, "floor").sum());
    loss.backward();
    return std::vector<Tensor>{x.grad(), y.grad(), lo.grad()};
  };
  const std::vector<Tensor> c = run(kCpu), g = run(kCuda);
  for (size_t i = 0; i < c.size(); ++i) EXPECT_TRUE(matches(g[i], c[i], 1e-10, 1e-12)) << "grad " << i;
}

TEST(CudaRangeFactories, OutOverloadsMatchTheCpu) {
  GB_REQUIRE_GPU();
  for (ScalarType t : numeric_types()) {
    for (auto [start, end, step] :
         {std::tuple<double, double, double>{0, 10, 1}, {3, -4, -2}, {0.5, 7.25, 0.75}, {0, 0, 1}}) {
      const bool integral = start == static_cast<int64_t>(start) && step == static_cast<int64_t>(step);
      const Scalar s = integral ? Scalar(static_cast<int64_t>(start)) : Scalar(start);
      const Scalar e = integral ? Scalar(static_cast<int64_t>(end)) : Scalar(end);
      const Scalar st = integral ? Scalar(static_cast<int64_t>(step)) : Scalar(step);
      const Tensor cpu = arange_start_step(s, e, st, t);
      Tensor gpu = empty(cpu.sizes(), t, kCuda);
      arange_out(gpu, s, e, st);
      EXPECT_TRUE(matches(gpu, cpu, 0)) << "arange " << to_string(t) << " " << start << " " << end << " " << step;
    }
    for (int64_t steps : {0, 1, 2, 7, 1000}) {
      const double from = is_floating_point(t) ? -3.0 : 2.0;  // no negative doubles into unsigned
      const Tensor cpu = linspace(Scalar(from), Scalar(11.0), steps, t);
      Tensor gpu = empty({steps}, t, kCuda);
      linspace_out(gpu, Scalar(from), Scalar(11.0), steps);
      EXPECT_TRUE(matches(gpu, cpu, 0)) << "linspace " << to_string(t) << " " << steps;
    }
  }
  for (ScalarType t : all_types()) {
    for (auto [n, m] : {std::pair<int64_t, int64_t>{4, 4}, {3, 7}, {6, 2}, {0, 3}}) {
      Tensor gpu = empty({n, m}, t, kCuda);
      eye_out(gpu, n, m);
      EXPECT_TRUE(matches(gpu, eye(n, m, t), 0)) << "eye " << to_string(t) << " " << n << "x" << m;
    }
  }
  // Strided outputs: every other element of a longer tensor, and a transposed matrix.
  Tensor longer = full({20}, Scalar(-1.0), ScalarType::Float32, kCuda),
         longer_cpu = full({20}, Scalar(-1.0), ScalarType::Float32);
  Tensor every_other = longer.slice(0, 0, 20, 2), every_other_cpu = longer_cpu.slice(0, 0, 20, 2);
  arange_out(every_other, Scalar(int64_t{0}), Scalar(int64_t{10}));
  arange_out(every_other_cpu, Scalar(int64_t{0}), Scalar(int64_t{10}));
  EXPECT_TRUE(matches(longer, longer_cpu, 0));
  Tensor wide = empty({5, 3}, ScalarType::Float64, kCuda).t();
  eye_out(wide, 3, 5);
  EXPECT_TRUE(matches(wide, eye(3, 5, ScalarType::Float64), 0));
  // Errors as on the CPU: wrong out shape, bool out.
  Tensor small = empty({2}, ScalarType::Float32, kCuda), small_cpu = empty({2}, ScalarType::Float32);
  EXPECT_EQ(error_of([&] { arange_out(small, Scalar(int64_t{0}), Scalar(int64_t{5})); }),
            error_of([&] { arange_out(small_cpu, Scalar(int64_t{0}), Scalar(int64_t{5})); }));
  Tensor flags = empty({3}, ScalarType::Bool, kCuda), flags_cpu = empty({3}, ScalarType::Bool);
  EXPECT_EQ(error_of([&] { linspace_out(flags, Scalar(0.0), Scalar(1.0), 3); }),
            error_of([&] { linspace_out(flags_cpu, Scalar(0.0), Scalar(1.0), 3); }));
}

TEST(CudaBernoulli, SameSeedSameDrawsAsTheCpu) {
  GB_REQUIRE_GPU();
  for (ScalarType t : kFloatTypes) {
    for (bool transpose : {false, true}) {
      const Pair p = both(rand({transpose ? 33 : 1001, 7}, t));
      const Tensor cpu_p = transpose ? p.cpu.t() : p.cpu, gpu_p = transpose ? p.cuda.t() : p.cuda;
      manual_seed(2024);
      const Tensor c = bernoulli(cpu_p);
      manual_seed(2024);
      const Tensor g = bernoulli(gpu_p);
      EXPECT_TRUE(matches(g, c, 0)) << to_string(t) << (transpose ? " transposed" : "");
    }
  }
  // Probabilities 0 and 1 are exact; an empty input draws nothing.
  const Pair edges = both(tensor_from({0.0, 1.0, 0.0, 1.0}));
  manual_seed(1);
  EXPECT_TRUE(matches(bernoulli(edges.cuda), edges.cpu, 0));
  const Tensor none = bernoulli(empty({0, 2}, ScalarType::Float32, kCuda));
  EXPECT_EQ(none.dim(), 2);
  EXPECT_EQ(none.numel(), 0);
  // A probability outside [0, 1] names its element and value, as on the CPU.
  const Pair bad = both(tensor_from({0.5, 0.25, 1.5, -1.0}));
  const std::string e = error_of([&] { bernoulli(bad.cuda); });
  EXPECT_NE(e.find("element 2"), std::string::npos) << e;
  EXPECT_EQ(e, error_of([&] { bernoulli(bad.cpu); }));
  const Pair ints = make({3}, ScalarType::Int64);
  EXPECT_EQ(error_of([&] { bernoulli(ints.cuda); }), error_of([&] { bernoulli(ints.cpu); }));
}
