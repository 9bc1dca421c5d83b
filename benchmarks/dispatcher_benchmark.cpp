// ns per call through the dispatcher: unboxed (one lookup, one indirect call), unboxed with an
// autograd-key redispatch, boxed, and the direct C++ call for reference. The trace is off.
//   build/dev/bin/dispatcher_benchmark
#include <benchmark/benchmark.h>

#include "engine/core/tensor.h"
#include "registry/library.h"

using namespace glassbox;

namespace {
int64_t trivial(const Tensor& x, int64_t n) { return n + 1; }
int64_t via_autograd(DispatchKeySet keys, const Tensor& x, int64_t n);

GLASSBOX_LIBRARY(bench, m) {
  m.def("trivial(Tensor x, int n) -> int");
  m.def("layered(Tensor x, int n) -> int");
}
GLASSBOX_LIBRARY_IMPL(bench, CPU, m) {
  m.impl("trivial", &trivial);
  m.impl("layered", &trivial);
}
GLASSBOX_LIBRARY_IMPL(bench, AutogradCPU, m) { m.impl("layered", &via_autograd); }

const auto& layered() {
  static const auto op =
      Dispatcher::singleton().find_schema_or_throw("bench::layered").typed<int64_t(const Tensor&, int64_t)>();
  return op;
}
int64_t via_autograd(DispatchKeySet keys, const Tensor& x, int64_t n) {
  return layered().redispatch(keys.below(DispatchKey::AutogradCPU), x, n);
}

Tensor cpu_tensor() {
  return Tensor(intrusive_ptr<TensorImpl>::make(default_key_set(DeviceType::CPU), ScalarType::Float32,
                                                Device(DeviceType::CPU), std::vector<int64_t>{1}));
}

void BM_DirectCall(benchmark::State& state) {
  const Tensor x = cpu_tensor();
  auto* volatile fn = &trivial;  // an indirect call, as the dispatcher makes
  int64_t n = 0;
  for (auto _ : state) benchmark::DoNotOptimize(n = fn(x, n));
}
BENCHMARK(BM_DirectCall);

void BM_UnboxedDispatch(benchmark::State& state) {
  const auto op =
      Dispatcher::singleton().find_schema_or_throw("bench::trivial").typed<int64_t(const Tensor&, int64_t)>();
  const Tensor x = cpu_tensor();
  int64_t n = 0;
  for (auto _ : state) benchmark::DoNotOptimize(n = op.call(x, n));
}
BENCHMARK(BM_UnboxedDispatch);

void BM_UnboxedDispatchWithRedispatch(benchmark::State& state) {
  const Tensor x = cpu_tensor();
  int64_t n = 0;
  for (auto _ : state) benchmark::DoNotOptimize(n = layered().call(x, n));
}
BENCHMARK(BM_UnboxedDispatchWithRedispatch);

void BM_BoxedCall(benchmark::State& state) {
  const OperatorHandle op = Dispatcher::singleton().find_schema_or_throw("bench::trivial");
  const Tensor x = cpu_tensor();
  Stack stack;
  stack.reserve(2);
  for (auto _ : state) {
    stack.emplace_back(x);
    stack.emplace_back(int64_t{1});
    op.call_boxed(&stack);
    benchmark::DoNotOptimize(stack.back().to_int());
    stack.clear();
  }
}
BENCHMARK(BM_BoxedCall);

void BM_UnboxedDispatchTraceCaptured(benchmark::State& state) {
  const auto op =
      Dispatcher::singleton().find_schema_or_throw("bench::trivial").typed<int64_t(const Tensor&, int64_t)>();
  const Tensor x = cpu_tensor();
  int64_t n = 0;
  for (auto _ : state) {
    DispatchTraceCapture capture;  // what gb.trace() costs per call
    benchmark::DoNotOptimize(n = op.call(x, n));
  }
}
BENCHMARK(BM_UnboxedDispatchTraceCaptured);
}  // namespace

BENCHMARK_MAIN();
