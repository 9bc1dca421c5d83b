// The first generated operators end to end: factories, copies, and broadcast arithmetic through
// the dispatcher, against plain loops; the Meta device; errors.
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "engine/core/parallel.h"
#include "engine/cpu/streaming_store.h"
#include "glassbox/ops/Functions.h"
#include "registry/dispatch_trace.h"
#include "registry/registry_dump.h"

using namespace glassbox;

namespace {
Tensor iota(std::vector<int64_t> sizes, ScalarType dtype = ScalarType::Float32) {
  Tensor t = empty(sizes, dtype);
  visit_scalar_type(dtype, [&]<class T>() {
    for (int64_t i = 0; i < t.numel(); ++i) t.data<T>()[i] = static_cast<T>(static_cast<float>(i % 50));
  });
  return t;
}
template <class T>
std::vector<T> values(const Tensor& t) {
  const Tensor c = t.is_contiguous() ? t : clone(t);
  return std::vector<T>(c.data<T>(), c.data<T>() + c.numel());
}
}  // namespace

TEST(Factories, EmptyZerosOnesFull) {
  const Tensor z = zeros({2, 3});
  ASSERT_EQ(z.sizes(), DimVector({2, 3}));
  ASSERT_EQ(z.dtype(), ScalarType::Float32);
  EXPECT_EQ(values<float>(z), std::vector<float>(6, 0.0f));
  EXPECT_EQ(values<int64_t>(ones({4}, ScalarType::Int64)), std::vector<int64_t>(4, 1));
  const Tensor f = full({2}, Scalar(int64_t{7}));
  EXPECT_EQ(f.dtype(), ScalarType::Int64);  // the fill value decides when no dtype is given
  EXPECT_EQ(full({2}, Scalar(true)).dtype(), ScalarType::Bool);
  EXPECT_EQ(values<double>(full({3}, Scalar(0.5), ScalarType::Float64)), std::vector<double>(3, 0.5));
  EXPECT_THROW(empty({2, -1}), Error);
  EXPECT_THROW(empty({int64_t{1} << 40, int64_t{1} << 40}), Error);
}

TEST(Arithmetic, BroadcastAddSubMulDivAgainstLoops) {
  const Tensor a = iota({3, 1, 4}), b = iota({5, 1});
  const Tensor s = add(a, b, Scalar(2)), d = sub(a, b), m = mul(a, b), q = div(a, add(b, Scalar(1)));
  ASSERT_EQ(s.sizes(), DimVector({3, 5, 4}));
  const auto av = values<float>(a), bv = values<float>(b);
  const auto sv = values<float>(s), dv = values<float>(d), mv = values<float>(m), qv = values<float>(q);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j)
      for (int k = 0; k < 4; ++k) {
        const float x = av[i * 4 + k], y = bv[j];
        const int o = (i * 5 + j) * 4 + k;
        EXPECT_EQ(sv[o], x + 2 * y);
        EXPECT_EQ(dv[o], x - y);
        EXPECT_EQ(mv[o], x * y);
        EXPECT_FLOAT_EQ(qv[o], x / (y + 1));
      }
}

TEST(Arithmetic, PromotionAndScalars) {
  const Tensor i = iota({4}, ScalarType::Int64);
  EXPECT_EQ(add(i, Scalar(int64_t{1})).dtype(), ScalarType::Int64);
  EXPECT_EQ(add(i, Scalar(2.5)).dtype(), ScalarType::Float32);
  EXPECT_EQ(values<float>(add(i, Scalar(0.5))), (std::vector<float>{0.5f, 1.5f, 2.5f, 3.5f}));
  EXPECT_EQ(div(i, i).dtype(), ScalarType::Float32);  // true division
  EXPECT_EQ(mul(iota({2}, ScalarType::Float16), Scalar(2.0)).dtype(), ScalarType::Float16);
  EXPECT_EQ(values<int32_t>(mul(iota({3}, ScalarType::Int32), iota({3}, ScalarType::Int32))),
            (std::vector<int32_t>{0, 1, 4}));
  EXPECT_EQ(add(iota({2}, ScalarType::Int8), iota({2}, ScalarType::UInt8)).dtype(), ScalarType::Int16);
  EXPECT_EQ(values<double>(mul(iota({2}, ScalarType::Float64), Scalar(3))), (std::vector<double>{0, 3}));
}

TEST(Arithmetic, MethodsInPlaceAndOut) {
  Tensor a = iota({2, 3});
  const Tensor b = iota({3});
  EXPECT_EQ(values<float>(a.add(b)), values<float>(add(a, b)));
  Tensor& r = a.add_(b, Scalar(10));
  EXPECT_EQ(&r, &a);
  EXPECT_EQ(values<float>(a), (std::vector<float>{0, 11, 22, 3, 14, 25}));
  Tensor out = empty({2, 3});
  add_out(out, iota({2, 3}), b);
  EXPECT_EQ(values<float>(out), (std::vector<float>{0, 2, 4, 3, 5, 7}));
  Tensor small = iota({3});
  EXPECT_THROW(small.add_(iota({2, 3})), Error);  // in-place cannot grow self
  EXPECT_EQ(values<float>(neg(b)), (std::vector<float>{-0.0f, -1, -2}));
  EXPECT_EQ(values<int64_t>(b.to(ScalarType::Int64)), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_TRUE(b.to(ScalarType::Float32).is_same(b));
}

TEST(Arithmetic, ErrorsNameTheOperatorAndShapes) {
  try {
    add(iota({2, 3}), iota({4}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "add: shapes [2, 3] and [4] cannot be broadcast together (dimension 1: 3 vs 4)");
  }
  EXPECT_THROW(sub(ones({2}, ScalarType::Bool), ones({2}, ScalarType::Bool)), NotImplementedError);
  EXPECT_THROW(add(iota({2}, ScalarType::Int64), iota({2}, ScalarType::Int64), Scalar(0.5)), Error);
  try {
    add(iota({2}), empty({2}, ScalarType::Float32, Device::parse("meta")));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected"), std::string::npos) << e.what();
  }
}

TEST(Meta, ShapesAndDtypesWithoutData) {
  const Device meta = Device::parse("meta");
  const Tensor a = empty({8, 1, 3}, ScalarType::Int32, meta), b = empty({5, 1}, ScalarType::Float16, meta);
  const Tensor c = mul(a, b);
  EXPECT_EQ(c.device(), meta);
  EXPECT_EQ(c.sizes(), DimVector({8, 5, 3}));
  EXPECT_EQ(c.dtype(), ScalarType::Float16);
  EXPECT_EQ(c.data_ptr(), nullptr);
  EXPECT_EQ(div(a, a).dtype(), ScalarType::Float32);
  EXPECT_THROW(add(a, empty({4}, ScalarType::Int32, meta)), Error);
}

TEST(Dispatch, GeneratedRegistrationsAreVisible) {
  DispatchTraceCapture trace;
  add(ones({1}), ones({1}));
  ASSERT_GE(trace.events().size(), 2u);
  // The generated autograd kernel sees the call first and redispatches to the CPU kernel.
  const size_t n = trace.events().size();
  EXPECT_EQ(trace.events()[n - 2].to_string(), "[call] op=[glassbox::add.Tensor] key=[AutogradCPU]");
  EXPECT_EQ(trace.events()[n - 1].to_string(), "  [redispatch] op=[glassbox::add.Tensor] key=[CPU]");
  const std::string table = dump_table(Dispatcher::singleton().find_schema_or_throw("glassbox::add", "Tensor"));
  EXPECT_NE(table.find("CPU: registered at "), std::string::npos) << table;
  EXPECT_NE(table.find("RegisterCPU.cpp"), std::string::npos) << table;
  EXPECT_NE(table.find("Meta: registered at "), std::string::npos) << table;
  EXPECT_NE(table.find("CUDA: [missing]"), std::string::npos) << table;
  EXPECT_NE(table.find("AutogradCPU: registered at "), std::string::npos) << table;
  EXPECT_NE(table.find("autograd/Register.cpp"), std::string::npos) << table;  // every Autograd registration
}

TEST(Arithmetic, LargeTensorsAcrossThreads) {
  set_num_threads(2);
  const Tensor a = iota({1000, 300}), b = iota({300});
  const auto sv = values<float>(add(a, b)), av = values<float>(a), bv = values<float>(b);
  for (int64_t i = 0; i < 300000; i += 997) EXPECT_EQ(sv[i], av[i] + bv[i % 300]);
}

// Given outputs above the streaming-store threshold are computed in tiles and streamed out: the
// values must be those of the ordinary loop for every dtype, misaligned views, in-place calls,
// broadcast scalars, an output that partly overlaps its input (it stays on the ordinary loop) and
// either thread count.
TEST(Arithmetic, StreamedOutputsMatchTheOrdinaryLoop) {
  const int saved_threads = get_num_threads();
  for (ScalarType dt : {ScalarType::Float32, ScalarType::Float64, ScalarType::Int32, ScalarType::Float16}) {
    for (int threads : {1, 2}) {
      set_num_threads(threads);
      const Tensor a = iota({70001}, dt), b = iota({70001}, dt).mul(iota({70001}, dt));
      // Odd offsets: data pointers off the 16- and 32-byte alignment of streaming stores.
      const Tensor av = narrow(a, 0, 3, 69990), bv = narrow(b, 0, 1, 69990);
      const Tensor s = iota({1}, dt).add(ones({1}, dt));
      // Streaming is for outputs that already exist (out=, in place): memory the iterator
      // allocates itself takes ordinary stores. Both kinds are checked.
      auto into = [&](int64_t n) { return zeros({n}, dt); };
      auto compute = [&] {
        std::vector<Tensor> r;
        Tensor o1 = into(70001), o2 = into(69990), o3 = into(69990), o4 = into(69990), o5 = into(69990);
        r.push_back(add_out(o1, a, b));
        r.push_back(mul_out(o2, av, bv));
        r.push_back(sub_out(o3, av, s));
        r.push_back(mul_out(o4, s, bv));
        r.push_back(neg_out(o5, av));
        r.push_back(add(a, b));
        r.push_back(mul(s, bv));
        Tensor inplace = clone(a);
        inplace.add_(b);
        r.push_back(inplace);
        if (threads == 1) {  // out is the input shifted by one element (two threads would race)
          Tensor buffer = clone(a);
          Tensor out = narrow(buffer, 0, 0, 70000);
          add_out(out, narrow(buffer, 0, 1, 70000), narrow(b, 0, 0, 70000));
          r.push_back(buffer);
        }
        return r;
      };
      const std::vector<Tensor> ordinary = compute();
      const int64_t old = cpu::set_streaming_store_threshold(4096);
      const std::vector<Tensor> streamed = compute();
      cpu::set_streaming_store_threshold(old);
      for (size_t k = 0; k < ordinary.size(); ++k) {
        const Tensor x = ordinary[k].to(ScalarType::Float64), y = streamed[k].to(ScalarType::Float64);
        EXPECT_EQ(values<double>(x), values<double>(y)) << to_string(dt) << " case " << k << " threads " << threads;
      }
    }
  }
  EXPECT_THROW(cpu::set_streaming_store_threshold(0), Error);
  set_num_threads(saved_threads);
}

// Small same-shape contiguous operands skip TensorIterator; a given output (out=) always takes it.
// Both must give the same dtype and values, for every dtype, alpha, 0-d and empty shapes.
TEST(Arithmetic, SmallSameShapeOperandsMatchTheIteratorPath) {
  const std::vector<ScalarType> dtypes = {ScalarType::Float32,  ScalarType::Float64, ScalarType::Float16,
                                          ScalarType::BFloat16, ScalarType::Int64,   ScalarType::Int32,
                                          ScalarType::Int8,     ScalarType::UInt8,   ScalarType::Bool};
  for (ScalarType dt : dtypes) {
    for (const std::vector<int64_t>& shape :
         {std::vector<int64_t>{7, 5}, std::vector<int64_t>{}, std::vector<int64_t>{0, 3}, std::vector<int64_t>{1}}) {
      const Tensor a = iota(shape, dt), b = add(iota(shape, dt), ones(shape, dt));
      const Scalar alpha = is_floating_point(dt) ? Scalar(2.5) : Scalar(int64_t{3});
      auto check = [&](const char* what, const Tensor& direct, Tensor via_out) {
        ASSERT_EQ(direct.dtype(), via_out.dtype()) << what << " " << to_string(dt);
        ASSERT_EQ(direct.sizes(), via_out.sizes()) << what << " " << to_string(dt);
        EXPECT_EQ(values<double>(direct.to(ScalarType::Float64)), values<double>(via_out.to(ScalarType::Float64)))
            << what << " " << to_string(dt);
      };
      Tensor out = empty(shape, dt);
      check("add", add(a, b, alpha), add_out(out, a, b, alpha));
      check("mul", mul(a, b), mul_out(out, a, b));
      if (dt != ScalarType::Bool) check("sub", sub(a, b, alpha), sub_out(out, a, b, alpha));
      if (is_floating_point(dt)) {
        Tensor q = empty(shape, dt);
        check("div", div(a, b), div_out(q, a, b));
      }
    }
  }
  EXPECT_THROW(add(iota({2}, ScalarType::Int32), iota({2}, ScalarType::Int32), Scalar(0.5)), Error);
}
