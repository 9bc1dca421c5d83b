// Calls through the dispatcher: key computation, redispatch, thread-local keys, boxed calls,
// call errors, and calls racing registrations.
#include "registry/dispatcher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "registry_test_util.h"

using namespace glassbox;
using namespace glassbox::testing;
using K = DispatchKey;

namespace {
int64_t cpu_kernel(const Tensor& x, int64_t n) { return n; }
int64_t autograd_kernel(DispatchKeySet keys, const Tensor& x, int64_t n) {
  static const auto op =
      Dispatcher::singleton().find_schema_or_throw("t_disp::f").typed<int64_t(const Tensor&, int64_t)>();
  return 1000 + op.redispatch(keys.below(K::AutogradCPU), x, n);
}
}  // namespace

GLASSBOX_LIBRARY(t_disp, m) {
  m.def("f(Tensor x, int n) -> int");
  m.def("make(Device device) -> int");
  m.def("h(Tensor x) -> int");
}
GLASSBOX_LIBRARY_IMPL(t_disp, CPU, m) {
  m.impl("f", &cpu_kernel);
  m.impl("make", [](Device) -> int64_t { return 11; });
}
GLASSBOX_LIBRARY_IMPL(t_disp, AutogradCPU, m) { m.impl("f", &autograd_kernel); }
GLASSBOX_LIBRARY_IMPL(t_disp, CUDA, m) {
  m.impl("make", [](Device) -> int64_t { return 22; });
}

TEST(Dispatcher, NoLoadErrorsFromThisBinary) {
  for (const auto& e : Dispatcher::singleton().load_errors()) ADD_FAILURE() << e;
}

TEST(Dispatcher, CallGoesToHighestKeyAndRedispatches) {
  auto f = Dispatcher::singleton().find_schema_or_throw("t_disp::f").typed<int64_t(const Tensor&, int64_t)>();
  EXPECT_EQ(f.call(cpu_tensor(), 7), 1007);
  EXPECT_EQ(f.call(tensor_with_keys({K::CPU}), 7), 7);
  DispatchTraceCapture trace;
  f.call(cpu_tensor(), 1);
  ASSERT_EQ(trace.events().size(), 2u);
  EXPECT_EQ(trace.to_string(), "[call] op=[t_disp::f] key=[AutogradCPU]\n  [redispatch] op=[t_disp::f] key=[CPU]\n");
}

TEST(Dispatcher, KeysAreTheUnionOfTensorArguments) {
  auto lib = GB_TEST_LIBRARY(DEF, "t_disp2");
  lib.def("g(Tensor a, Tensor? b, Tensor[] c) -> int");
  auto cpu = GB_TEST_IMPL_LIBRARY("t_disp2", CPU);
  cpu.impl("g", [](const Tensor&, const std::optional<Tensor>&, TensorList) -> int64_t { return 1; });
  auto cuda = GB_TEST_IMPL_LIBRARY("t_disp2", CUDA);
  cuda.impl("g", [](const Tensor&, const std::optional<Tensor>&, TensorList) -> int64_t { return 2; });
  auto g = Dispatcher::singleton()
               .find_schema_or_throw("t_disp2::g")
               .typed<int64_t(const Tensor&, const std::optional<Tensor>&, TensorList)>();
  const std::vector<Tensor> none, one_cuda{cuda_tensor()};
  EXPECT_EQ(g.call(cpu_tensor(), std::nullopt, none), 1);
  EXPECT_EQ(g.call(cpu_tensor(), cuda_tensor(), none), 2);  // CUDA outranks CPU
  EXPECT_EQ(g.call(cpu_tensor(), std::nullopt, one_cuda), 2);
}

TEST(Dispatcher, DeviceArgumentsChooseTheBackend) {
  auto make = Dispatcher::singleton().find_schema_or_throw("t_disp::make").typed<int64_t(Device)>();
  EXPECT_EQ(make.call(Device(DeviceType::CPU)), 11);
  EXPECT_EQ(make.call(Device::parse("cuda:0")), 22);
  EXPECT_ERROR_CONTAINS(make.call(Device::parse("meta")), "no kernel for t_disp::make for dispatch key Meta",
                        "registered: CPU, CUDA");
}

TEST(Dispatcher, ThreadLocalIncludeAndExclude) {
  auto f = Dispatcher::singleton().find_schema_or_throw("t_disp::f").typed<int64_t(const Tensor&, int64_t)>();
  {
    ExcludeDispatchKeyGuard no_autograd(K::AutogradCPU);
    EXPECT_EQ(f.call(cpu_tensor(), 3), 3);
    {
      IncludeDispatchKeyGuard trace(K::Trace);
      // Trace is included but has neither a kernel nor a fallback for t_disp::f.
      EXPECT_ERROR_CONTAINS(f.call(cpu_tensor(), 3), "no kernel for t_disp::f for dispatch key Trace");
    }
    EXPECT_EQ(f.call(cpu_tensor(), 3), 3);
  }
  EXPECT_EQ(f.call(cpu_tensor(), 3), 1003);
  // Guards are per thread.
  ExcludeDispatchKeyGuard no_autograd(K::AutogradCPU);
  int64_t other = 0;
  std::thread([&] { other = f.call(cpu_tensor(), 3); }).join();
  EXPECT_EQ(other, 1003);
}

TEST(Dispatcher, BoxedCallsAndRedispatch) {
  const OperatorHandle op = Dispatcher::singleton().find_schema_or_throw("t_disp::f");
  Stack stack{IValue(cpu_tensor()), IValue(int64_t{5})};
  op.call_boxed(&stack);
  ASSERT_EQ(stack.size(), 1u);
  EXPECT_EQ(stack[0].to_int(), 1005);
  Stack again{IValue(cpu_tensor()), IValue(int64_t{5})};
  op.redispatch_boxed(DispatchKeySet({K::CPU}), &again);
  EXPECT_EQ(again.at(0).to_int(), 5);
}

TEST(Dispatcher, CallErrors) {
  auto h = Dispatcher::singleton().find_schema_or_throw("t_disp::h").typed<int64_t(const Tensor&)>();
  EXPECT_ERROR_CONTAINS(h.call(cpu_tensor()), "no kernel for t_disp::h for dispatch key CPU; registered: none");
  auto make = Dispatcher::singleton().find_schema_or_throw("t_disp::make").typed<int64_t(Device)>();
  auto f = Dispatcher::singleton().find_schema_or_throw("t_disp::f").typed<int64_t(const Tensor&, int64_t)>();
  EXPECT_ERROR_CONTAINS(f.call(Tensor(), 1), "cannot dispatch t_disp::f: the call has no dispatch key",
                        "registered: CPU, AutogradCPU");
  EXPECT_ERROR_CONTAINS(Dispatcher::singleton().find_schema_or_throw("t_disp::nope"),
                        "could not find the schema of operator t_disp::nope");
  EXPECT_ERROR_CONTAINS(Dispatcher::singleton().find_schema_or_throw("t_disp::f", "Tensor"), "t_disp::f.Tensor",
                        "overloads that exist: t_disp::f");
  const OperatorHandle op = Dispatcher::singleton().find_schema_or_throw("t_disp::f");
  Stack wrong{IValue(cpu_tensor()), IValue(2.5)};
  EXPECT_ERROR_CONTAINS(op.call_boxed(&wrong), "t_disp::f: argument 2 'n': expected a value of type int but got float");
  Stack short_stack{IValue(int64_t{1})};
  EXPECT_ERROR_CONTAINS(op.redispatch_boxed(DispatchKeySet({K::CPU}), &short_stack), "takes 2 arguments");
  (void)make;
}

// Calls on several threads while another thread registers and deregisters other operators (and
// kernels of this one): calls take no lock and must always see a complete table.
TEST(Dispatcher, CallsRaceRegistrations) {
  auto lib = GB_TEST_LIBRARY(DEF, "t_threads");
  lib.def("hot(Tensor x, int n) -> int");
  auto impl = GB_TEST_IMPL_LIBRARY("t_threads", CPU);
  impl.impl("hot", [](const Tensor&, int64_t n) -> int64_t { return n + 1; });
  auto hot = Dispatcher::singleton().find_schema_or_throw("t_threads::hot").typed<int64_t(const Tensor&, int64_t)>();

  std::atomic<bool> stop{false};
  std::atomic<int64_t> wrong{0}, calls{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 3; ++t) {
    callers.emplace_back([&, t] {
      const Tensor x = cpu_tensor();
      int64_t i = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        if (hot.call(x, i + t) != i + t + 1) wrong.fetch_add(1);
        ++i;
      }
      calls.fetch_add(i);
    });
  }
  std::thread registrar([&] {
    for (int round = 0; round < 3000; ++round) {
      auto frag = GB_TEST_LIBRARY(FRAGMENT, "t_threads");
      const std::string name = "other_" + std::to_string(round % 7);
      frag.def(name + "(Tensor x) -> Tensor");
      frag.impl(name, K::CPU, [](const Tensor& x) { return x; });
      // Churn the hot operator's own table too, on keys its calls do not reach.
      frag.impl("hot", K::Meta, [](const Tensor&, int64_t n) -> int64_t { return -n; });
      frag.impl("hot", K::CompositeExplicitAutograd, [](const Tensor&, int64_t n) -> int64_t { return -n; });
    }
    stop = true;
  });
  registrar.join();
  for (auto& c : callers) c.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(calls.load(), 0);
  EXPECT_FALSE(Dispatcher::singleton().find_op(OperatorName::parse("t_threads::other_3")).has_value());
}
