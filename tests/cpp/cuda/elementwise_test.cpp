// Element-wise CUDA kernels against the CPU: arithmetic, unary math and activations, their
// gradients, comparisons, logical ops and where, over every dtype they take, with contiguous
// (vectorised and misaligned), broadcast, non-contiguous, empty and 0-d operands, Python numbers,
// in-place and out= forms; and the error of an operator that has no CUDA kernel.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "registry/dispatcher.h"
#include "registry/library.h"
#include "tests/cpp/cuda/cuda_test_util.h"
#include "tests/cpp/ops/error_text.h"

using namespace glassbox;
using namespace glassbox::cuda_testing;
using glassbox::testing::error_of;

namespace {
using Binary = std::function<Tensor(const Tensor&, const Tensor&)>;
using Unary = std::function<Tensor(const Tensor&)>;

// Operand pairs that exercise each path of the launcher: (a shape, b shape, how to view them).
struct Case {
  std::string name;
  std::vector<int64_t> a, b;
  bool transpose_a = false;  // a is made [.., n, m] and transposed: non-contiguous
  bool offset = false;       // both start one element into their storage: misaligned
};
const std::vector<Case> kCases = {
    {"vector of 4099", {4099}, {4099}},
    {"one element", {1}, {1}},
    {"0-d", {}, {}},
    {"broadcast", {4, 1, 5}, {3, 1}},
    {"row broadcast", {300, 17}, {17}},
    {"transposed", {33, 20}, {33, 20}, true},
    {"misaligned", {1001}, {1001}, false, true},
    {"empty", {0, 4}, {4}},
    {"deep", {2, 3, 2, 3, 2, 3, 2, 3}, {3, 1, 3, 1, 3, 1, 3}},  // more dims than one launch takes
};

// The same values on both devices, viewed the same way: the views are taken on each device
// (moving a view to another device makes it contiguous).
struct Pair {
  Tensor cpu, cuda;
};
Pair make(const std::vector<int64_t>& shape, ScalarType t, bool transpose, bool offset) {
  if (offset) {
    std::vector<int64_t> longer = shape;
    longer[0] += 1;
    const Tensor base = random_cpu(longer, t);
    return {slice(base, 0, 1), slice(on_cuda(base), 0, 1)};
  }
  if (!transpose || shape.size() < 2) {
    const Tensor base = random_cpu(shape, t);
    return {base, on_cuda(base)};
  }
  std::vector<int64_t> swapped = shape;
  std::swap(swapped[0], swapped[1]);
  const Tensor base = random_cpu(swapped, t);
  return {base.t(), on_cuda(base).t()};
}

void check_binary(const std::string& op, const Binary& f, const std::vector<ScalarType>& types) {
  for (ScalarType t : types) {
    for (const Case& c : kCases) {
      const Pair a = make(c.a, t, c.transpose_a, c.offset), b = make(c.b, t, false, c.offset);
      EXPECT_TRUE(matches(f(a.cuda, b.cuda), f(a.cpu, b.cpu))) << op << " " << to_string(t) << " " << c.name;
    }
  }
}

void check_unary(const std::string& op, const Unary& f, const std::vector<ScalarType>& types) {
  for (ScalarType t : types) {
    for (const Case& c : kCases) {
      const Pair a = make(c.a, t, c.transpose_a, c.offset);
      EXPECT_TRUE(matches(f(a.cuda), f(a.cpu))) << op << " " << to_string(t) << " " << c.name;
    }
  }
}

std::vector<ScalarType> numeric_types() {
  std::vector<ScalarType> v = kFloatTypes;
  v.insert(v.end(), kIntTypes.begin(), kIntTypes.end());
  return v;
}
}  // namespace

TEST(CudaElementwise, Arithmetic) {
  GB_REQUIRE_GPU();
  check_binary(
      "add", [](const Tensor& a, const Tensor& b) { return add(a, b); }, all_types());
  check_binary(
      "add alpha", [](const Tensor& a, const Tensor& b) { return add(a, b, Scalar(3)); }, numeric_types());
  check_binary(
      "sub", [](const Tensor& a, const Tensor& b) { return sub(a, b); }, numeric_types());
  check_binary(
      "sub alpha", [](const Tensor& a, const Tensor& b) { return sub(a, b, Scalar(2)); }, numeric_types());
  check_binary(
      "mul", [](const Tensor& a, const Tensor& b) { return mul(a, b); }, all_types());
  check_binary(
      "div", [](const Tensor& a, const Tensor& b) { return div(a, b); }, all_types());
  check_binary(
      "maximum", [](const Tensor& a, const Tensor& b) { return maximum(a, b); }, all_types());
  check_binary(
      "minimum", [](const Tensor& a, const Tensor& b) { return minimum(a, b); }, all_types());
  check_binary(
      "float alpha", [](const Tensor& a, const Tensor& b) { return add(a, b, Scalar(-0.5)); }, kFloatTypes);
}

TEST(CudaElementwise, PythonNumbersMixedDtypesInPlaceAndOut) {
  GB_REQUIRE_GPU();
  for (ScalarType t : numeric_types()) {
    const Tensor a = random_cpu({257, 3}, t);
    const Tensor d = on_cuda(a);
    EXPECT_TRUE(matches(add(d, Scalar(2)), add(a, Scalar(2)))) << to_string(t);
    EXPECT_TRUE(matches(mul(d, Scalar(1.5)), mul(a, Scalar(1.5)))) << to_string(t);  // promotes integers
    EXPECT_TRUE(matches(div(d, Scalar(4)), div(a, Scalar(4)))) << to_string(t);
    EXPECT_TRUE(matches(sub(d, Scalar(1)), sub(a, Scalar(1)))) << to_string(t);
  }
  // Promotion across operands converts on the device first.
  const Tensor i = random_cpu({64, 5}, ScalarType::Int32), f = random_cpu({5}, ScalarType::Float16);
  EXPECT_TRUE(matches(add(on_cuda(i), on_cuda(f)), add(i, f)));
  EXPECT_TRUE(matches(mul(on_cuda(f), on_cuda(lt(f, Scalar(0)))), mul(f, lt(f, Scalar(0)))));
  // In place, on a non-contiguous view, and out= of another dtype.
  Tensor x = random_cpu({6, 7}, ScalarType::Float32);
  Tensor dx = on_cuda(x);
  Tensor view_cpu = x.t(), view_cuda = dx.t();
  const Tensor y = random_cpu({7, 1}, ScalarType::Float32);
  view_cpu.add_(y, Scalar(2));
  view_cuda.add_(on_cuda(y), Scalar(2));
  EXPECT_TRUE(matches(dx, x));
  Tensor out_cpu = empty({6, 7}, ScalarType::Float64), out_cuda = empty({6, 7}, ScalarType::Float64, kCuda);
  add_out(out_cpu, x, x);
  add_out(out_cuda, dx, dx);
  EXPECT_TRUE(matches(out_cuda, out_cpu));
  // Front-end errors read the same as on the CPU.
  EXPECT_EQ(error_of([&] { add(dx, on_cuda(random_cpu({5}, ScalarType::Float32))); }),
            error_of([&] { add(x, random_cpu({5}, ScalarType::Float32)); }));
  const std::string e = error_of([&] { add(dx, x); });
  EXPECT_EQ(e, "add: expected all tensors on one device, got cuda:0 and cpu");
}

TEST(CudaElementwise, UnaryMathAndActivations) {
  GB_REQUIRE_GPU();
  const std::vector<std::pair<std::string, Unary>> float_ops = {
      {"sqrt", [](const Tensor& a) { return sqrt(a); }},
      {"rsqrt", [](const Tensor& a) { return rsqrt(a); }},
      {"exp", [](const Tensor& a) { return exp(a); }},
      {"log", [](const Tensor& a) { return log(a); }},
      {"log1p", [](const Tensor& a) { return log1p(a); }},
      {"expm1", [](const Tensor& a) { return expm1(a); }},
      {"sin", [](const Tensor& a) { return sin(a); }},
      {"cos", [](const Tensor& a) { return cos(a); }},
      {"tanh", [](const Tensor& a) { return tanh(a); }},
      {"sigmoid", [](const Tensor& a) { return sigmoid(a); }},
      {"silu", [](const Tensor& a) { return silu(a); }},
      {"gelu", [](const Tensor& a) { return gelu(a); }},
      {"gelu tanh", [](const Tensor& a) { return gelu(a, "tanh"); }},
  };
  for (const auto& [name, f] : float_ops) check_unary(name, f, kFloatTypes);
  // Integers go to float math in the default float dtype.
  check_unary(
      "exp of ints", [](const Tensor& a) { return exp(a); }, kIntTypes);
  check_unary(
      "neg", [](const Tensor& a) { return neg(a); }, numeric_types());
  check_unary(
      "abs", [](const Tensor& a) { return abs(a); }, numeric_types());
  check_unary(
      "relu", [](const Tensor& a) { return relu(a); }, numeric_types());
  check_unary(
      "sign", [](const Tensor& a) { return sign(a); }, all_types());
  check_unary(
      "logical_not", [](const Tensor& a) { return logical_not(a); }, all_types());
  // In place and out=.
  Tensor x = random_cpu({100}, ScalarType::Float32);
  Tensor dx = on_cuda(x);
  exp_(x);
  exp_(dx);
  EXPECT_TRUE(matches(dx, x));
  Tensor o = empty({100}, ScalarType::Float64, kCuda), oc = empty({100}, ScalarType::Float64);
  // Computed in float32 (the input's dtype), then widened: float32's tolerance.
  EXPECT_TRUE(matches(tanh_out(o, dx), tanh_out(oc, x), 1e-5, 1e-6));
  EXPECT_EQ(error_of([&] { neg(on_cuda(ones({2}, ScalarType::Bool))); }),
            error_of([&] { neg(ones({2}, ScalarType::Bool)); }));
}

TEST(CudaElementwise, ActivationGradients) {
  GB_REQUIRE_GPU();
  check_binary(
      "sigmoid_backward", [](const Tensor& g, const Tensor& y) { return sigmoid_backward(g, y); }, kFloatTypes);
  check_binary(
      "tanh_backward", [](const Tensor& g, const Tensor& y) { return tanh_backward(g, y); }, kFloatTypes);
  check_binary(
      "silu_backward", [](const Tensor& g, const Tensor& x) { return silu_backward(g, x); }, kFloatTypes);
  check_binary(
      "gelu_backward", [](const Tensor& g, const Tensor& x) { return gelu_backward(g, x, "tanh"); }, kFloatTypes);
  check_binary(
      "threshold_backward", [](const Tensor& g, const Tensor& x) { return threshold_backward(g, x, Scalar(0.25)); },
      numeric_types());
}

TEST(CudaElementwise, ComparisonsLogicalOpsAndWhere) {
  GB_REQUIRE_GPU();
  const std::vector<std::pair<std::string, Binary>> ops = {
      {"eq", [](const Tensor& a, const Tensor& b) { return eq(a, b); }},
      {"ne", [](const Tensor& a, const Tensor& b) { return ne(a, b); }},
      {"lt", [](const Tensor& a, const Tensor& b) { return lt(a, b); }},
      {"le", [](const Tensor& a, const Tensor& b) { return le(a, b); }},
      {"gt", [](const Tensor& a, const Tensor& b) { return gt(a, b); }},
      {"ge", [](const Tensor& a, const Tensor& b) { return ge(a, b); }},
      {"logical_and", [](const Tensor& a, const Tensor& b) { return logical_and(a, b); }},
      {"logical_or", [](const Tensor& a, const Tensor& b) { return logical_or(a, b); }},
      {"logical_xor", [](const Tensor& a, const Tensor& b) { return logical_xor(a, b); }},
  };
  for (const auto& [name, f] : ops) check_binary(name, f, all_types());
  // Integers compare equal often enough for eq to mean something.
  const Tensor i = random_cpu({1000}, ScalarType::Int16);
  EXPECT_TRUE(matches(eq(on_cuda(i), on_cuda(flip(i, {0}))), eq(i, flip(i, {0}))));
  for (ScalarType t : all_types()) {
    const Tensor c = random_cpu({4, 1, 6}, ScalarType::Bool), a = random_cpu({5, 6}, t), b = random_cpu({6}, t);
    EXPECT_TRUE(matches(where(on_cuda(c), on_cuda(a), on_cuda(b)), where(c, a, b))) << to_string(t);
    EXPECT_TRUE(matches(where(on_cuda(c), on_cuda(a), Scalar(0.0)), where(c, a, Scalar(0.0)))) << to_string(t);
  }
  Tensor out = empty({4, 5, 6}, ScalarType::Float64, kCuda), out_cpu = empty({4, 5, 6}, ScalarType::Float64);
  const Tensor c = random_cpu({4, 1, 6}, ScalarType::Bool), a = random_cpu({5, 6}, ScalarType::Float32);
  where_out(out, on_cuda(c), on_cuda(a), on_cuda(a.neg()));
  where_out(out_cpu, c, a, a.neg());
  EXPECT_TRUE(matches(out, out_cpu));
}

TEST(CudaElementwise, FillAndLargeTensors) {
  GB_REQUIRE_GPU();
  for (ScalarType t : all_types()) {
    Tensor d = empty({1 << 20 | 3}, t, kCuda);
    d.fill_(Scalar(1));
    Tensor c = empty({1 << 20 | 3}, t);
    c.fill_(Scalar(1));
    EXPECT_TRUE(matches(d, c)) << to_string(t);
  }
  Tensor strided = zeros({8, 9}, std::nullopt, kCuda);
  slice(strided, 1, 0, 9, 2).fill_(Scalar(-2.5));
  Tensor expected = zeros({8, 9});
  slice(expected, 1, 0, 9, 2).fill_(Scalar(-2.5));
  EXPECT_TRUE(matches(strided, expected));
  const Tensor big = random_cpu({3, 1 << 20}, ScalarType::Float32);
  EXPECT_TRUE(matches(mul(add(on_cuda(big), Scalar(1)), on_cuda(big)), mul(add(big, Scalar(1)), big)));
}

// An operator with a CPU kernel only: every glassbox operator may gain a CUDA kernel, this one won't.
GLASSBOX_LIBRARY(t_cuda_missing, m) { m.def("cpu_only(Tensor x) -> Tensor"); }
GLASSBOX_LIBRARY_IMPL(t_cuda_missing, CPU, m) {
  m.impl("cpu_only", [](const Tensor& x) { return x; });
}

TEST(CudaElementwise, OperatorsWithoutACudaKernelFailByName) {
  GB_REQUIRE_GPU();
  const Tensor d = ones({3}, std::nullopt, kCuda);
  const auto op =
      Dispatcher::singleton().find_schema_or_throw("t_cuda_missing::cpu_only").typed<Tensor(const Tensor&)>();
  const std::string e = error_of([&] { op.call(d); });
  EXPECT_TRUE(e.starts_with("no kernel for t_cuda_missing::cpu_only for dispatch key CUDA; registered: CPU")) << e;
}
