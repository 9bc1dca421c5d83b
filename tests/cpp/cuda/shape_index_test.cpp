// cat, flip, roll, tril/triu and the indexing operators (index, index_put_, index_select,
// index_add_, gather, scatter, scatter_add, masked_fill, one_hot, embedding_dense_backward) on CUDA
// against the CPU on the same inputs: every dtype, transposed and empty operands, in-place forms,
// duplicate indices where they add, gradients, and the CPU's errors for out-of-range indices.
#include <gtest/gtest.h>

#include <string>

#include "tests/cpp/cuda/cuda_test_util.h"
#include "tests/cpp/ops/error_text.h"

using namespace glassbox;
using namespace glassbox::cuda_testing;
using glassbox::testing::error_of;

namespace {
struct Pair {
  Tensor cpu, cuda;
};
Pair both(const Tensor& cpu) { return {cpu, on_cuda(cpu)}; }
// Random values; `transpose` gives a non-contiguous view of the same shape.
Pair make(std::vector<int64_t> shape, ScalarType t, bool transpose = false) {
  if (transpose && shape.size() >= 2) {
    std::swap(shape[0], shape[1]);
    const Tensor base = random_cpu(shape, t);
    return {base.transpose(0, 1), on_cuda(base).transpose(0, 1)};
  }
  return both(random_cpu(shape, t));
}
Pair ints(const std::vector<int64_t>& values, ScalarType t = ScalarType::Int64) {
  Tensor c = empty({static_cast<int64_t>(values.size())}, ScalarType::Int64);
  std::copy(values.begin(), values.end(), c.data<int64_t>());
  return both(c.to(t));
}
Pair random_index(IntArrayRef shape, int64_t size, ScalarType t = ScalarType::Int64) {
  return both(randint(0, size, shape, t));
}
// Sums of repeated indices are added in another order on the GPU: a few roundings of the
// partial sums apart (exact for integers).
double sum_rtol(ScalarType t) { return is_floating_point(t) ? 2 * tolerance(t).rtol : 0; }
double sum_atol(ScalarType t) { return is_floating_point(t) ? 8 * tolerance(t).rtol : 0; }
// Errors are compared whole: the CUDA kernel must name the problem as the CPU one does.
// The CUDA call's error may come at the next synchronisation (a deferred index check), as a user
// meets it: the call and a synchronize together must raise the CPU's error.
#define EXPECT_SAME_ERROR(cuda_call, cpu_call, needle)                 \
  do {                                                                 \
    const std::string gpu_error = error_of([&] {                       \
      cuda_call;                                                       \
      glassbox::cuda::synchronize();                                   \
    });                                                                \
    EXPECT_NE(gpu_error.find(needle), std::string::npos) << gpu_error; \
    EXPECT_EQ(gpu_error, error_of([&] { cpu_call; }));                 \
  } while (0)
}  // namespace

TEST(CudaShape, CatMatchesTheCpu) {
  GB_REQUIRE_GPU();
  for (ScalarType t : all_types()) {
    const Pair a = make({3, 4}, t), b = make({5, 4}, t, true), skip = make({0}, t), none = make({0, 4}, t);
    EXPECT_TRUE(matches(cat({a.cuda, b.cuda, skip.cuda, none.cuda}), cat({a.cpu, b.cpu, skip.cpu, none.cpu})))
        << to_string(t);
    const Pair c = make({3, 2}, t);
    EXPECT_TRUE(matches(cat({a.cuda, c.cuda}, 1), cat({a.cpu, c.cpu}, 1))) << to_string(t);
    Tensor out = empty({3, 6}, t, kCuda);
    cat_out(out, {a.cuda, c.cuda}, -1);
    EXPECT_TRUE(matches(out, cat({a.cpu, c.cpu}, 1))) << "out= " << to_string(t);
  }
  // Mixed dtypes promote; errors name the input.
  const Pair i = make({2, 3}, ScalarType::Int32), f = make({1, 3}, ScalarType::Float16);
  EXPECT_TRUE(matches(cat({i.cuda, f.cuda}), cat({i.cpu, f.cpu})));
  const Pair wrong = make({2, 5}, ScalarType::Int32);
  EXPECT_SAME_ERROR(cat({i.cuda, wrong.cuda}), cat({i.cpu, wrong.cpu}), "cat");
}

TEST(CudaShape, FlipAndRollMatchTheCpu) {
  GB_REQUIRE_GPU();
  for (ScalarType t : all_types()) {
    for (bool transpose : {false, true}) {
      const Pair x = make({5, 6, 3}, t, transpose);
      for (std::vector<int64_t> dims : {std::vector<int64_t>{0}, {1, 2}, {0, 1, 2}, {-1}, {}})
        EXPECT_TRUE(matches(flip(x.cuda, dims), flip(x.cpu, dims), 0)) << "flip " << to_string(t);
      EXPECT_TRUE(matches(roll(x.cuda, {2}, {0}), roll(x.cpu, {2}, {0}), 0)) << "roll " << to_string(t);
      EXPECT_TRUE(matches(roll(x.cuda, {-7, 4}, {1, 2}), roll(x.cpu, {-7, 4}, {1, 2}), 0)) << "roll " << to_string(t);
      EXPECT_TRUE(matches(roll(x.cuda, {11}), roll(x.cpu, {11}), 0)) << "roll flattened " << to_string(t);
      EXPECT_TRUE(matches(roll(x.cuda, {1, 2}, {0, 0}), roll(x.cpu, {1, 2}, {0, 0}), 0))
          << "roll repeated " << to_string(t);
    }
  }
  const Pair empty_x = make({0, 3}, ScalarType::Float32), scalar = make({}, ScalarType::Float32);
  EXPECT_TRUE(matches(flip(empty_x.cuda, {0, 1}), flip(empty_x.cpu, {0, 1})));
  EXPECT_TRUE(matches(roll(empty_x.cuda, {1}, {1}), roll(empty_x.cpu, {1}, {1})));
  EXPECT_TRUE(matches(flip(scalar.cuda, {}), flip(scalar.cpu, {})));
  const Pair x = make({4, 4}, ScalarType::Float32);
  EXPECT_SAME_ERROR(flip(x.cuda, {0, 0}), flip(x.cpu, {0, 0}), "flip");
  EXPECT_SAME_ERROR(roll(x.cuda, {1, 2}, {0}), roll(x.cpu, {1, 2}, {0}), "roll");
}

TEST(CudaShape, TrilTriuMatchTheCpu) {
  GB_REQUIRE_GPU();
  for (ScalarType t : all_types()) {
    for (bool transpose : {false, true}) {
      const Pair x = make({6, 4, 5}, t, transpose);
      for (int64_t d : {0, 1, -2, 9, -9}) {
        EXPECT_TRUE(matches(tril(x.cuda, d), tril(x.cpu, d), 0)) << "tril " << to_string(t) << " " << d;
        EXPECT_TRUE(matches(triu(x.cuda, d), triu(x.cpu, d), 0)) << "triu " << to_string(t) << " " << d;
        Tensor lower = x.cuda.clone(), upper = x.cuda.transpose(0, 1).clone().transpose(0, 1);  // contiguous, and not
        lower.tril_(d);
        upper.triu_(d);
        EXPECT_TRUE(matches(lower, tril(x.cpu, d), 0)) << "tril_ " << to_string(t);
        EXPECT_TRUE(matches(upper, triu(x.cpu, d), 0)) << "triu_ " << to_string(t);
      }
    }
  }
  const Pair empty_x = make({0, 3}, ScalarType::Float32), v = make({4}, ScalarType::Float32);
  EXPECT_TRUE(matches(tril(empty_x.cuda), tril(empty_x.cpu)));
  EXPECT_SAME_ERROR(triu(v.cuda), triu(v.cpu), "triu");
}

TEST(CudaShape, GradientsMatchTheCpu) {
  GB_REQUIRE_GPU();
  const Tensor a0 = random_cpu({4, 5}, ScalarType::Float64), b0 = random_cpu({2, 5}, ScalarType::Float64);
  const Tensor w0 = random_cpu({6, 5}, ScalarType::Float64);
  auto run = [&](Device d) {
    Tensor a = a0.to(d).detach(), b = b0.to(d).detach();
    a.requires_grad_(true);
    b.requires_grad_(true);
    const Tensor joined = cat({a, b});
    const Tensor y =
        mul(add(add(flip(joined, {0}), roll(joined, {3}, {1})), add(tril(joined, 1), triu(joined))), w0.to(d));
    y.sum().backward();
    return std::vector<Tensor>{a.grad(), b.grad()};
  };
  const std::vector<Tensor> c = run(kCpu), g = run(kCuda);
  for (size_t i = 0; i < c.size(); ++i) EXPECT_TRUE(matches(g[i], c[i], 1e-12, 1e-12)) << "grad " << i;
}

TEST(CudaIndex, IndexMatchesTheCpu) {
  GB_REQUIRE_GPU();
  const std::optional<Tensor> none;
  for (ScalarType t : all_types()) {
    for (bool transpose : {false, true}) {
      const Pair x = make({5, 6, 4}, t, transpose);
      const Pair rows = ints({4, -1, 0, 2, 4}), cols = ints({1, 5, -6, 0, 3}, ScalarType::Int32);
      EXPECT_TRUE(matches(index(x.cuda, {rows.cuda}), index(x.cpu, {rows.cpu}), 0)) << to_string(t);
      EXPECT_TRUE(matches(index(x.cuda, {rows.cuda, cols.cuda}), index(x.cpu, {rows.cpu, cols.cpu}), 0))
          << to_string(t);
      EXPECT_TRUE(matches(index(x.cuda, {none, cols.cuda}), index(x.cpu, {none, cols.cpu}), 0)) << to_string(t);
      // Separated by a None: the index dims go first. Broadcast index tensors.
      const Pair r2 = random_index({3, 1}, 5), c2 = random_index({2}, 4);
      EXPECT_TRUE(matches(index(x.cuda, {r2.cuda, none, c2.cuda}), index(x.cpu, {r2.cpu, none, c2.cpu}), 0))
          << to_string(t);
      // Bool masks, over one dim and over two.
      const Pair m1 = make({6}, ScalarType::Bool), m2 = make({5, 6}, ScalarType::Bool);
      EXPECT_TRUE(matches(index(x.cuda, {none, m1.cuda}), index(x.cpu, {none, m1.cpu}), 0)) << to_string(t);
      EXPECT_TRUE(matches(index(x.cuda, {m2.cuda}), index(x.cpu, {m2.cpu}), 0)) << to_string(t);
    }
  }
  const Pair x = make({5, 6}, ScalarType::Float32), e = ints({});
  EXPECT_TRUE(matches(index(x.cuda, {e.cuda}), index(x.cpu, {e.cpu})));
  const Pair bad = ints({1, 7, 2});
  EXPECT_SAME_ERROR(index(x.cuda, {bad.cuda}), index(x.cpu, {bad.cpu}),
                    "index 7 is out of bounds for dimension 0 with size 5");
  const Pair bad_neg = ints({-7}, ScalarType::Int32);
  EXPECT_SAME_ERROR(index(x.cuda, {std::optional<Tensor>(), bad_neg.cuda}),
                    index(x.cpu, {std::optional<Tensor>(), bad_neg.cpu}),
                    "index -7 is out of bounds for dimension 1 with size 6");
}

TEST(CudaIndex, IndexPutMatchesTheCpu) {
  GB_REQUIRE_GPU();
  const std::optional<Tensor> none;
  for (ScalarType t : all_types()) {
    for (bool transpose : {false, true}) {
      const Pair x = make({5, 6}, t, transpose);
      // Without accumulate: distinct positions (which of two writes wins is unspecified on the GPU).
      const Pair rows = ints({4, 0, -3}), values = make({3, 6}, t), row_values = make({6}, t);
      EXPECT_TRUE(matches(index_put(x.cuda, {rows.cuda}, values.cuda), index_put(x.cpu, {rows.cpu}, values.cpu), 0))
          << to_string(t);
      EXPECT_TRUE(
          matches(index_put(x.cuda, {rows.cuda}, row_values.cuda), index_put(x.cpu, {rows.cpu}, row_values.cpu), 0));
      // Accumulate: repeated positions add up (integers exactly; floats to rounding).
      const Pair dup_r = ints({1, 1, 3, 1, -1, 0, 1}), dup_c = ints({2, 2, 0, 2, 5, 5, -4}, ScalarType::Int32),
                 adds = make({7}, t);
      Tensor g = x.cuda.clone(), c = x.cpu.clone();
      g.index_put_({dup_r.cuda, dup_c.cuda}, adds.cuda, true);
      c.index_put_({dup_r.cpu, dup_c.cpu}, adds.cpu, true);
      EXPECT_TRUE(matches(g, c, sum_rtol(t), sum_atol(t))) << "accumulate " << to_string(t);
      // A mask, and a 0-d value broadcast over it.
      const Pair m = make({5, 6}, ScalarType::Bool), scalar = make({}, t);
      Tensor gm = x.cuda.clone(), cm = x.cpu.clone();
      gm.index_put_({m.cuda}, scalar.cuda);
      cm.index_put_({m.cpu}, scalar.cpu);
      EXPECT_TRUE(matches(gm, cm, 0)) << "mask " << to_string(t);
      const Pair col_mask = make({6}, ScalarType::Bool);
      EXPECT_TRUE(matches(index_put(x.cuda, {none, col_mask.cuda}, scalar.cuda, true),
                          index_put(x.cpu, {none, col_mask.cpu}, scalar.cpu, true), 0))
          << "column mask " << to_string(t);
    }
  }
  // Errors: an out-of-range index writes nothing; values of the wrong dtype are refused as on the CPU.
  const Pair x = make({5, 6}, ScalarType::Float32), bad = ints({0, 5}), v = make({2, 6}, ScalarType::Float32);
  Tensor g = x.cuda.clone(), c = x.cpu.clone();
  EXPECT_SAME_ERROR(g.index_put_({bad.cuda}, v.cuda), c.index_put_({bad.cpu}, v.cpu),
                    "index 5 is out of bounds for dimension 0 with size 5");
  EXPECT_TRUE(matches(g, x.cpu, 0)) << "nothing written";
  const Pair vd = make({2, 6}, ScalarType::Float64), ok = ints({0, 1});
  EXPECT_SAME_ERROR(g.index_put_({ok.cuda}, vd.cuda), c.index_put_({ok.cpu}, vd.cpu), "index_put_");
}

TEST(CudaIndex, SelectGatherScatterMatchTheCpu) {
  GB_REQUIRE_GPU();
  for (ScalarType t : all_types()) {
    for (bool transpose : {false, true}) {
      const Pair x = make({5, 7}, t, transpose);
      const double rtol = sum_rtol(t), atol = sum_atol(t);
      for (int64_t dim : {0, 1, -1}) {
        const int64_t size = x.cpu.sizes()[dim < 0 ? dim + 2 : dim];
        const Pair idx = random_index({9}, size, dim == 0 ? ScalarType::Int64 : ScalarType::Int32);
        EXPECT_TRUE(matches(index_select(x.cuda, dim, idx.cuda), index_select(x.cpu, dim, idx.cpu), 0)) << to_string(t);
        const Pair gidx = random_index({4, 3}, size);
        EXPECT_TRUE(matches(gather(x.cuda, dim, gidx.cuda), gather(x.cpu, dim, gidx.cpu), 0))
            << "gather " << to_string(t);
        // index_add_ and scatter_add with repeated indices: they add up.
        std::vector<int64_t> src_shape{5, 7};
        src_shape[dim < 0 ? dim + 2 : dim] = 9;
        const Pair source = make(src_shape, t, transpose);
        if (t != ScalarType::Bool) {
          EXPECT_TRUE(matches(index_add(x.cuda, dim, idx.cuda, source.cuda, Scalar(int64_t{2})),
                              index_add(x.cpu, dim, idx.cpu, source.cpu, Scalar(int64_t{2})), rtol, atol))
              << "index_add " << to_string(t);
        }
        Tensor in_place = x.cuda.clone(), in_place_cpu = x.cpu.clone();
        in_place.index_add_(dim, idx.cuda, source.cuda);
        in_place_cpu.index_add_(dim, idx.cpu, source.cpu);
        EXPECT_TRUE(matches(in_place, in_place_cpu, rtol, atol)) << "index_add_ " << to_string(t);
        const Pair src = make({4, 3}, t);
        EXPECT_TRUE(matches(scatter_add(x.cuda, dim, gidx.cuda, src.cuda), scatter_add(x.cpu, dim, gidx.cpu, src.cpu),
                            rtol, atol))
            << "scatter_add " << to_string(t);
      }
      // scatter: distinct positions along dim in every column / row.
      Pair perm = both(empty({3, 7}, ScalarType::Int64));
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 7; ++j) perm.cpu.data<int64_t>()[i * 7 + j] = (i * 3 + j) % 5;
      perm.cuda = on_cuda(perm.cpu);
      const Pair src = make({4, 7}, t);
      EXPECT_TRUE(matches(scatter(x.cuda, 0, perm.cuda, src.cuda), scatter(x.cpu, 0, perm.cpu, src.cpu), 0))
          << "scatter " << to_string(t);
      EXPECT_TRUE(matches(scatter(x.cuda, 0, perm.cuda, Scalar(int64_t{1})),
                          scatter(x.cpu, 0, perm.cpu, Scalar(int64_t{1})), 0));
      Tensor s = x.cuda.clone(), sc = x.cpu.clone();
      s.scatter_(0, perm.cuda, src.cuda);
      sc.scatter_(0, perm.cpu, src.cpu);
      EXPECT_TRUE(matches(s, sc, 0)) << "scatter_ " << to_string(t);
      s.scatter_(0, perm.cuda, Scalar(int64_t{0}));
      sc.scatter_(0, perm.cpu, Scalar(int64_t{0}));
      EXPECT_TRUE(matches(s, sc, 0)) << "scatter_ value " << to_string(t);
      s.scatter_add_(0, perm.cuda, src.cuda);
      sc.scatter_add_(0, perm.cpu, src.cpu);
      EXPECT_TRUE(matches(s, sc, 0)) << "scatter_add_ " << to_string(t);
    }
  }
  // Empty index, 0-d operands.
  const Pair x = make({5, 7}, ScalarType::Float32), e = ints({}), z = both(zeros({0, 7}, ScalarType::Int64));
  EXPECT_TRUE(matches(index_select(x.cuda, 0, e.cuda), index_select(x.cpu, 0, e.cpu)));
  EXPECT_TRUE(matches(gather(x.cuda, 0, z.cuda), gather(x.cpu, 0, z.cpu)));
  const Pair s0 = make({}, ScalarType::Float32), i0 = both(zeros({}, ScalarType::Int64));
  EXPECT_TRUE(matches(gather(s0.cuda, 0, i0.cuda), gather(s0.cpu, 0, i0.cpu)));
  EXPECT_TRUE(matches(scatter_add(s0.cuda, 0, i0.cuda, s0.cuda), scatter_add(s0.cpu, 0, i0.cpu, s0.cpu)));
  // Out-of-range indices name the index, the dim and its size, and nothing is written.
  const Pair bad = ints({0, 3, -6}), bad2 = both(full({2, 2}, Scalar(int64_t{9}), ScalarType::Int64)),
             src = make({2, 2}, ScalarType::Float32);
  EXPECT_SAME_ERROR(index_select(x.cuda, 0, bad.cuda), index_select(x.cpu, 0, bad.cpu),
                    "index -6 is out of bounds for dimension 0 with size 5");
  EXPECT_SAME_ERROR(gather(x.cuda, 1, bad2.cuda), gather(x.cpu, 1, bad2.cpu),
                    "index 9 is out of bounds for dimension 1 with size 7");
  Tensor g = x.cuda.clone(), c = x.cpu.clone();
  EXPECT_SAME_ERROR(g.scatter_(0, bad2.cuda, src.cuda), c.scatter_(0, bad2.cpu, src.cpu), "index 9 is out of bounds");
  EXPECT_SAME_ERROR(g.scatter_add_(0, bad2.cuda, src.cuda), c.scatter_add_(0, bad2.cpu, src.cpu),
                    "index 9 is out of bounds");
  const Pair rows = make({3, 7}, ScalarType::Float32);
  EXPECT_SAME_ERROR(g.index_add_(0, bad.cuda, rows.cuda), c.index_add_(0, bad.cpu, rows.cpu),
                    "index -6 is out of bounds");
  EXPECT_TRUE(matches(g, x.cpu, 0)) << "nothing written";
  const Pair fidx = make({2, 2}, ScalarType::Float32);
  EXPECT_SAME_ERROR(gather(x.cuda, 0, fidx.cuda), gather(x.cpu, 0, fidx.cpu), "gather");
  const Pair ii = make({3, 7}, ScalarType::Int64), ok = ints({0, 1, 2});
  EXPECT_SAME_ERROR(g.index_add_(0, ok.cuda, ii.cuda, Scalar(0.5)), c.index_add_(0, ok.cpu, ii.cpu, Scalar(0.5)),
                    "index_add_");
}

TEST(CudaIndex, MaskedFillOneHotEmbeddingMatchTheCpu) {
  GB_REQUIRE_GPU();
  for (ScalarType t : all_types()) {
    for (bool transpose : {false, true}) {
      const Pair x = make({6, 5}, t, transpose), m = make({6, 5}, ScalarType::Bool, transpose),
                 row = make({5}, ScalarType::Bool);
      EXPECT_TRUE(
          matches(masked_fill(x.cuda, m.cuda, Scalar(int64_t{3})), masked_fill(x.cpu, m.cpu, Scalar(int64_t{3})), 0));
      EXPECT_TRUE(matches(masked_fill(x.cuda, row.cuda, Scalar(true)), masked_fill(x.cpu, row.cpu, Scalar(true)), 0));
      const Pair v = make({}, t);
      EXPECT_TRUE(matches(masked_fill(x.cuda, m.cuda, v.cuda), masked_fill(x.cpu, m.cpu, v.cpu), 0)) << to_string(t);
      EXPECT_TRUE(matches(masked_fill(x.cuda, m.cuda, v.cpu), masked_fill(x.cpu, m.cpu, v.cpu), 0))
          << "cpu value " << to_string(t);
      Tensor g = x.cuda.clone(), c = x.cpu.clone();
      g.masked_fill_(row.cuda, Scalar(int64_t{1}));
      c.masked_fill_(row.cpu, Scalar(int64_t{1}));
      EXPECT_TRUE(matches(g, c, 0)) << "masked_fill_ " << to_string(t);
      g.masked_fill_(m.cuda, v.cuda);
      c.masked_fill_(m.cpu, v.cpu);
      EXPECT_TRUE(matches(g, c, 0)) << "masked_fill_ tensor " << to_string(t);
    }
  }
  // A mask that grows self (out of place only), and the in-place refusal.
  const Pair small = make({5}, ScalarType::Float32), big_mask = make({3, 5}, ScalarType::Bool);
  EXPECT_TRUE(
      matches(masked_fill(small.cuda, big_mask.cuda, Scalar(2.5)), masked_fill(small.cpu, big_mask.cpu, Scalar(2.5))));
  Tensor sg = small.cuda.clone(), sc = small.cpu.clone();
  EXPECT_SAME_ERROR(sg.masked_fill_(big_mask.cuda, Scalar(1.0)), sc.masked_fill_(big_mask.cpu, Scalar(1.0)),
                    "masked_fill_");

  for (ScalarType t : kIntTypes) {
    const Pair classes = both(randint(0, 6, {4, 7}, t));
    EXPECT_TRUE(matches(one_hot(classes.cuda, 9), one_hot(classes.cpu, 9), 0)) << "one_hot " << to_string(t);
    EXPECT_TRUE(matches(one_hot(classes.cuda), one_hot(classes.cpu), 0)) << "one_hot inferred " << to_string(t);
    EXPECT_TRUE(matches(one_hot(classes.cuda.t(), 6), one_hot(classes.cpu.t(), 6), 0))
        << "one_hot transposed " << to_string(t);
  }
  const Pair bad_class = ints({0, 2, 7, 1}), no_classes = ints({});
  EXPECT_SAME_ERROR(one_hot(bad_class.cuda, 4), one_hot(bad_class.cpu, 4),
                    "class value 7 is out of range for num_classes 4");
  EXPECT_SAME_ERROR(one_hot(no_classes.cuda), one_hot(no_classes.cpu), "one_hot");
  EXPECT_TRUE(matches(one_hot(no_classes.cuda, 3), one_hot(no_classes.cpu, 3)));

  for (ScalarType t : kFloatTypes) {
    const Pair ids = random_index({6, 4}, 10), grad = make({6, 4, 3}, t);
    for (bool scale : {false, true}) {
      for (int64_t padding : {-1, 2}) {
        EXPECT_TRUE(matches(embedding_dense_backward(grad.cuda, ids.cuda, 10, padding, scale),
                            embedding_dense_backward(grad.cpu, ids.cpu, 10, padding, scale), 2 * tolerance(t).rtol,
                            4 * tolerance(t).atol))
            << "embedding_dense_backward " << to_string(t) << " scale " << scale << " padding " << padding;
      }
    }
  }
  const Pair bad_ids = ints({1, 10}), g2 = make({2, 3}, ScalarType::Float32);
  EXPECT_SAME_ERROR(embedding_dense_backward(g2.cuda, bad_ids.cuda, 10, -1, false),
                    embedding_dense_backward(g2.cpu, bad_ids.cpu, 10, -1, false), "index 10 is out of bounds");
}

TEST(CudaIndex, GradientsMatchTheCpu) {
  GB_REQUIRE_GPU();
  const Tensor x0 = random_cpu({5, 6}, ScalarType::Float64), w0 = random_cpu({10, 3}, ScalarType::Float64);
  const Tensor v0 = random_cpu({4, 6}, ScalarType::Float64), mask0 = random_cpu({5, 6}, ScalarType::Bool);
  const Tensor rows0 = randint(0, 5, {4}, ScalarType::Int64), gidx0 = randint(0, 6, {5, 2}, ScalarType::Int64);
  const Tensor ids0 = randint(0, 10, {7}, ScalarType::Int64);
  auto run = [&](Device d) {
    Tensor x = x0.to(d).detach(), w = w0.to(d).detach(), v = v0.to(d).detach();
    for (Tensor* t : {&x, &w, &v}) t->requires_grad_(true);
    const Tensor rows = rows0.to(d), gidx = gidx0.to(d), mask = mask0.to(d), ids = ids0.to(d);
    Tensor loss = mul(index(x, {rows}), v).sum();
    loss = add(loss, mul(index_select(x, 1, gidx.select(1, 0)), x.select(1, 0).unsqueeze(1)).sum());
    loss = add(loss, mul(gather(x, 1, gidx), gidx.to(ScalarType::Float64)).sum());
    loss = add(loss, mul(scatter_add(x, 0, rows.unsqueeze(1).expand({4, 6}), v), x).sum());
    loss = add(loss, mul(index_add(x, 0, rows, v, Scalar(0.5)), x).sum());
    loss = add(loss, mul(index_put(x, {rows}, v, true), x).sum());
    loss = add(loss, mul(masked_fill(x, mask, Scalar(0.0)), x).sum());
    loss = add(loss, mul(embedding(w, ids, 3), ids.to(ScalarType::Float64).unsqueeze(1)).sum());
    loss.backward();
    return std::vector<Tensor>{x.grad(), w.grad(), v.grad()};
  };
  const std::vector<Tensor> c = run(kCpu), g = run(kCuda);
  for (size_t i = 0; i < c.size(); ++i) EXPECT_TRUE(matches(g[i], c[i], 1e-10, 1e-12)) << "grad " << i;
}

// More dims than one strided launch takes (the loop is split on the host), and empty operands.
TEST(CudaIndex, DeepAndEmptyOperandsMatchTheCpu) {
  GB_REQUIRE_GPU();
  const std::vector<int64_t> deep{2, 3, 2, 3, 2, 3, 4};
  for (ScalarType t : {ScalarType::Float32, ScalarType::Float16, ScalarType::Int16}) {
    const Pair x = make(deep, t, true);
    std::vector<int64_t> index_shape = deep;
    index_shape[6] = 3;
    const Pair gidx = random_index(index_shape, 4), src = make(index_shape, t);
    EXPECT_TRUE(matches(gather(x.cuda, 6, gidx.cuda), gather(x.cpu, 6, gidx.cpu), 0)) << "gather " << to_string(t);
    EXPECT_TRUE(matches(scatter_add(x.cuda, 6, gidx.cuda, src.cuda), scatter_add(x.cpu, 6, gidx.cpu, src.cpu),
                        sum_rtol(t), sum_atol(t)))
        << "scatter_add " << to_string(t);
    const Pair m = make(deep, ScalarType::Bool, true);
    EXPECT_TRUE(
        matches(masked_fill(x.cuda, m.cuda, Scalar(int64_t{7})), masked_fill(x.cpu, m.cpu, Scalar(int64_t{7})), 0));
    const Pair rows = ints({1, 0, 1});
    EXPECT_TRUE(matches(index(x.cuda, {std::nullopt, rows.cuda}), index(x.cpu, {std::nullopt, rows.cpu}), 0));
    EXPECT_TRUE(matches(flip(x.cuda, {0, 3, 6}), flip(x.cpu, {0, 3, 6}), 0)) << "flip " << to_string(t);
    EXPECT_TRUE(matches(tril(x.cuda, 1), tril(x.cpu, 1), 0)) << "tril " << to_string(t);
  }
  const Pair x = make({0, 4}, ScalarType::Float32), none_idx = both(zeros({0, 4}, ScalarType::Int64));
  const Pair e = ints({}), v = make({0, 4}, ScalarType::Float32);
  EXPECT_TRUE(matches(scatter(x.cuda, 0, none_idx.cuda, v.cuda), scatter(x.cpu, 0, none_idx.cpu, v.cpu)));
  EXPECT_TRUE(matches(masked_fill(x.cuda, make({0, 4}, ScalarType::Bool).cuda, Scalar(1.0)), x.cpu));
  const Pair y = make({3, 4}, ScalarType::Float32);
  EXPECT_TRUE(matches(index_put(y.cuda, {e.cuda}, v.cuda, true), index_put(y.cpu, {e.cpu}, v.cpu, true)));
  EXPECT_TRUE(matches(index_add(y.cuda, 0, e.cuda, v.cuda), index_add(y.cpu, 0, e.cpu, v.cpu)));
  EXPECT_TRUE(matches(one_hot(both(zeros({0}, ScalarType::Int64)).cuda, 3), one_hot(zeros({0}, ScalarType::Int64), 3)));
  EXPECT_TRUE(matches(embedding_dense_backward(make({0, 3}, ScalarType::Float32).cuda, e.cuda, 5, -1, true),
                      embedding_dense_backward(zeros({0, 3}, ScalarType::Float32), e.cpu, 5, -1, true)));
  EXPECT_TRUE(matches(cat({x.cuda, x.cuda}), cat({x.cpu, x.cpu})));
  EXPECT_TRUE(matches(bernoulli(x.cuda), bernoulli(x.cpu)));
}
