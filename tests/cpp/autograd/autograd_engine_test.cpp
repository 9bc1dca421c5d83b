// The autograd engine on the operators every build has (arithmetic, views, copies): graph
// recording, node names, gradient values, accumulation, retain_graph, hooks, grad mode, in-place
// checks, autograd::grad and double backward.
#include <gtest/gtest.h>

#include "engine/autograd/engine.h"
#include "engine/autograd/grad_mode.h"
#include "engine/autograd/node.h"
#include "engine/core/error.h"
#include "glassbox/ops/Functions.h"

using namespace glassbox;

namespace {
Tensor values_tensor(std::vector<float> v, std::vector<int64_t> sizes) {
  Tensor t = empty(sizes, ScalarType::Float32);
  std::copy(v.begin(), v.end(), t.data<float>());
  return t;
}
std::vector<float> values(const Tensor& t) {
  const Tensor c = t.is_contiguous() ? t : clone(t);
  return std::vector<float>(c.data<float>(), c.data<float>() + c.numel());
}
Tensor leaf(std::vector<float> v, std::vector<int64_t> sizes) {
  Tensor t = values_tensor(std::move(v), std::move(sizes));
  t.requires_grad_();
  return t;
}
}  // namespace

TEST(AutogradGraph, RecordsNodesNamedAfterOperators) {
  Tensor x = leaf({1, 2, 3}, {3});
  Tensor y = mul(x, x);
  ASSERT_TRUE(y.requires_grad());
  ASSERT_TRUE(y.grad_fn());
  EXPECT_EQ(y.grad_fn()->name(), "MulBackward0");
  EXPECT_FALSE(y.is_leaf());
  EXPECT_TRUE(x.is_leaf());
  EXPECT_EQ(y.grad_fn()->next_edges().size(), 2u);
  EXPECT_EQ(y.grad_fn()->next_edges()[0].function->name(), "AccumulateGrad");
  EXPECT_EQ(add(y, x).grad_fn()->name(), "AddBackward0");
  EXPECT_EQ(neg(y).grad_fn()->name(), "NegBackward0");
  EXPECT_EQ(y.t().grad_fn()->name(), "TBackward0");
  // Inputs that do not require grad record nothing.
  Tensor c = values_tensor({1, 2, 3}, {3});
  EXPECT_FALSE(mul(c, c).requires_grad());
  EXPECT_EQ(mul(c, c).grad_fn(), nullptr);
}

TEST(AutogradBackward, ProductRuleAndAccumulation) {
  Tensor x = leaf({1, 2, 3}, {3});
  Tensor y = mul(x, x);  // dy/dx = 2x
  y.backward(ones({3}), true);
  EXPECT_EQ(values(x.grad()), (std::vector<float>{2, 4, 6}));
  y.backward(ones({3}));  // accumulates
  EXPECT_EQ(values(x.grad()), (std::vector<float>{4, 8, 12}));
}

TEST(AutogradBackward, BroadcastGradientsReduceToInputShape) {
  Tensor a = leaf({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = leaf({10, 20, 30}, {3});
  Tensor s = mul(a, b);
  s.backward(ones({2, 3}));
  ASSERT_EQ(b.grad().sizes(), DimVector({3}));
  EXPECT_EQ(values(b.grad()), (std::vector<float>{5, 7, 9}));  // summed over the broadcast rows
  EXPECT_EQ(values(a.grad()), (std::vector<float>{10, 20, 30, 10, 20, 30}));
}

TEST(AutogradBackward, DivisionAndSubtractionWithAlpha) {
  Tensor a = leaf({2, 4}, {2});
  Tensor b = leaf({1, 2}, {2});
  div(a, b).backward(ones({2}), true);
  EXPECT_EQ(values(a.grad()), (std::vector<float>{1, 0.5f}));
  EXPECT_EQ(values(b.grad()), (std::vector<float>{-2, -1}));  // -a/b^2
  Tensor c = leaf({1, 1}, {2});
  Tensor d = leaf({1, 1}, {2});
  sub(c, d, Scalar(3.0)).backward(ones({2}));
  EXPECT_EQ(values(d.grad()), (std::vector<float>{-3, -3}));
}

TEST(AutogradBackward, ThroughViews) {
  Tensor x = leaf({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor y = x.t().reshape({6});
  Tensor w = values_tensor({1, 2, 3, 4, 5, 6}, {6});
  mul(y, w).backward(ones({6}));
  // y = [1, 4, 2, 5, 3, 6]: the gradient of x[i][j] is w at the position x[i][j] landed.
  EXPECT_EQ(values(x.grad()), (std::vector<float>{1, 3, 5, 2, 4, 6}));
  Tensor z = leaf({1, 2, 3, 4}, {2, 2});
  mul(z.select(0, 1), values_tensor({7, 8}, {2})).backward(ones({2}));
  EXPECT_EQ(values(z.grad()), (std::vector<float>{0, 0, 7, 8}));
}

TEST(AutogradBackward, SecondBackwardWithoutRetainGraphIsAnError) {
  Tensor x = leaf({1, 2}, {2});
  Tensor y = mul(x, x);
  y.backward(ones({2}));
  try {
    y.backward(ones({2}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Trying to backward through the graph a second time"), std::string::npos);
  }
}

TEST(AutogradBackward, NonScalarNeedsAGradient) {
  Tensor x = leaf({1, 2}, {2});
  EXPECT_THROW(mul(x, x).backward(), Error);
  Tensor c = values_tensor({1}, {1});
  EXPECT_THROW(c.backward(), Error);  // does not require grad
}

TEST(AutogradSafety, InPlaceOnLeafAndModifiedSavedTensor) {
  Tensor x = leaf({1, 2}, {2});
  try {
    x.add_(ones({2}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a leaf Variable that requires grad is being used in an in-place operation"),
              std::string::npos);
  }
  Tensor a = mul(x, Scalar(2.0));
  Tensor b = mul(a, a);  // saves a
  a.add_(ones({2}));     // in-place on a saved tensor
  try {
    b.backward(ones({2}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("modified by an inplace operation"), std::string::npos) << e.what();
  }
}

TEST(AutogradInPlace, RecordsOnNonLeaves) {
  Tensor x = leaf({1, 2}, {2});
  Tensor y = mul(x, Scalar(3.0));
  y.add_(x);  // y = 3x + x
  EXPECT_EQ(y.grad_fn()->name(), "AddBackward0");
  y.backward(ones({2}));
  EXPECT_EQ(values(x.grad()), (std::vector<float>{4, 4}));
}

TEST(AutogradGradMode, NoGradRecordsNothing) {
  Tensor x = leaf({1, 2}, {2});
  {
    autograd::NoGradGuard no_grad;
    EXPECT_FALSE(autograd::is_grad_enabled());
    Tensor y = mul(x, x);
    EXPECT_FALSE(y.requires_grad());
    x.add_(ones({2}));  // allowed without grad mode (optimisers do this)
    {
      autograd::EnableGradGuard enable;
      EXPECT_TRUE(mul(x, x).requires_grad());
    }
  }
  EXPECT_TRUE(autograd::is_grad_enabled());
  EXPECT_EQ(values(x), (std::vector<float>{2, 3}));
}

TEST(AutogradHooks, TensorHooksSeeAndReplaceGradients) {
  Tensor x = leaf({1, 2}, {2});
  Tensor y = mul(x, Scalar(2.0));
  std::vector<float> seen;
  y.register_hook([&](const Tensor& g) {
    seen = values(g);
    return mul(g, Scalar(10.0));
  });
  y.retain_grad();
  y.backward(ones({2}));
  EXPECT_EQ(seen, (std::vector<float>{1, 1}));
  EXPECT_EQ(values(x.grad()), (std::vector<float>{20, 20}));
  EXPECT_EQ(values(y.grad()), (std::vector<float>{10, 10}));
  Tensor z = leaf({1}, {1});
  z.register_hook([](const Tensor& g) { return mul(g, Scalar(0.5)); });
  mul(z, Scalar(4.0)).backward();
  EXPECT_EQ(values(z.grad()), (std::vector<float>{2}));
}

TEST(AutogradGrad, ReturnsGradientsWithoutAccumulating) {
  Tensor x = leaf({1, 2, 3}, {3});
  Tensor y = mul(mul(x, x), x);  // x^3
  std::vector<Tensor> g = autograd::grad({y}, {x}, {ones({3})}, std::nullopt, /*create_graph=*/true);
  EXPECT_FALSE(x.grad().defined());
  EXPECT_EQ(values(g[0]), (std::vector<float>{3, 12, 27}));  // 3x^2
  ASSERT_TRUE(g[0].requires_grad());
  std::vector<Tensor> gg = autograd::grad({g[0]}, {x}, {ones({3})});
  EXPECT_EQ(values(gg[0]), (std::vector<float>{6, 12, 18}));  // 6x
  Tensor unused = leaf({1}, {1});
  Tensor y2 = mul(x, x);
  EXPECT_THROW(autograd::grad({y2}, {unused}, {ones({3})}), Error);
  std::vector<Tensor> maybe = autograd::grad({mul(x, x)}, {unused}, {ones({3})}, std::nullopt, false, true);
  EXPECT_FALSE(maybe[0].defined());
}

TEST(AutogradOrder, LaterNodesRunFirst) {
  const uint64_t before = autograd::peek_sequence_nr();
  Tensor x = leaf({1}, {1});
  Tensor a = mul(x, Scalar(2.0));
  Tensor b = mul(a, Scalar(3.0));
  EXPECT_GT(b.grad_fn()->sequence_nr(), a.grad_fn()->sequence_nr());
  EXPECT_GE(a.grad_fn()->sequence_nr(), before);
  // A diamond: both paths arrive before x's accumulation runs, so the total is exact.
  Tensor d = add(a, b);
  d.backward();
  EXPECT_EQ(values(x.grad()), (std::vector<float>{8}));
}

TEST(AutogradErrors, RequiresGradOnlyForFloatingLeaves) {
  Tensor i = ones({2}, ScalarType::Int64);
  EXPECT_THROW(i.requires_grad_(), Error);
  Tensor x = leaf({1}, {1});
  Tensor y = mul(x, x);
  EXPECT_THROW(y.requires_grad_(false), Error);
  EXPECT_THROW(add_out(y, x, x), Error);  // out= with inputs that require grad
}
