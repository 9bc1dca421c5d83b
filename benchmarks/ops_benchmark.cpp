// End-to-end cost of small operator calls (allocation, dispatch, iterator, kernel), as a user of
// the C++ API pays it, and element-wise throughput. PyTorch 2.11's at::add of two 1-element
// tensors: 712 ns (DESIGN.md). The thread count comes from GLASSBOX_NUM_THREADS.
//   build/dev/bin/ops_benchmark
//   benchmarks/elementwise_vs_numpy.py   (the same sizes side by side with NumPy, 1 and 2 threads)
#include <benchmark/benchmark.h>

#include "engine/core/empty.h"
#include "engine/core/parallel.h"
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

void BM_AddOutOneElement(benchmark::State& state) {
  const Tensor a = ones({1}), b = ones({1});
  Tensor out = empty({1});
  for (auto _ : state) benchmark::DoNotOptimize(add_out(out, a, b));
}
BENCHMARK(BM_AddOutOneElement);

// Allocating style, as `a + b` in NumPy: each call allocates its output. glassbox's allocator
// hands back the same-sized block the previous call freed; NumPy's outputs come from the C
// library, which maps blocks above 32 MiB afresh and pays their first-touch page faults.
void BM_AddFloat32(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Tensor a = ones({n}), b = ones({n});
  for (auto _ : state) benchmark::DoNotOptimize(add(a, b));
  state.SetBytesProcessed(state.iterations() * n * 12);  // two reads and one write of float32
  state.counters["threads"] = get_num_threads();
}
BENCHMARK(BM_AddFloat32)->Arg(1 << 10)->Arg(1 << 20)->Arg(1 << 24)->UseRealTime();

// out= style, as np.add(a, b, out=c): the kernel's own throughput, no allocation.
void BM_AddOutFloat32(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Tensor a = ones({n}), b = ones({n});
  Tensor out = zeros({n});
  for (auto _ : state) benchmark::DoNotOptimize(add_out(out, a, b));
  state.SetBytesProcessed(state.iterations() * n * 12);
  state.counters["threads"] = get_num_threads();
}
BENCHMARK(BM_AddOutFloat32)->Arg(1 << 10)->Arg(1 << 20)->Arg(1 << 24)->UseRealTime();

void BM_MulFloat32(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Tensor a = ones({n}), b = ones({n});
  for (auto _ : state) benchmark::DoNotOptimize(mul(a, b));
  state.SetBytesProcessed(state.iterations() * n * 12);
  state.counters["threads"] = get_num_threads();
}
BENCHMARK(BM_MulFloat32)->Arg(1 << 24)->UseRealTime();
}  // namespace

BENCHMARK_MAIN();
