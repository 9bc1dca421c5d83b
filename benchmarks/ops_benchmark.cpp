// End-to-end cost of small operator calls (allocation, dispatch, iterator, kernel), as a user of
// the C++ API pays it. PyTorch 2.11's at::add of two 1-element tensors: 712 ns (DESIGN.md).
//   build/dev/bin/ops_benchmark
#include <benchmark/benchmark.h>

#include "engine/core/empty.h"
#include "glassbox/ops/Functions.h"

using namespace glassbox;

namespace {
void BM_EmptyOneElement(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(empty({1}));
}
BENCHMARK(BM_EmptyOneElement);

void BM_AddOneElement(benchmark::State& state) {
  const Tensor a = ones({1}), b = ones({1});
  for (auto _ : state) benchmark::DoNotOptimize(add(a, b));
}
BENCHMARK(BM_AddOneElement);

void BM_AddFloat32(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Tensor a = ones({n}), b = ones({n});
  for (auto _ : state) benchmark::DoNotOptimize(add(a, b));
  state.SetBytesProcessed(state.iterations() * n * 12);  // two reads and one write of float32
}
BENCHMARK(BM_AddFloat32)->Arg(1 << 10)->Arg(1 << 20)->Arg(1 << 24)->UseRealTime();
}  // namespace

BENCHMARK_MAIN();
