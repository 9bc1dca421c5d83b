// The fused Adam step on the CPU (engine/ops/kernels/adam.h): one parallel loop over the elements
// of every parameter together. A model's parameters are many small tensors, each too small to be
// worth spreading over the threads alone, and Adam's update costs several multiplies' time per
// element: one loop per parameter left a 16-core GPT step's update on one thread (2.2 ms).
// Checks and constants are the front end's (engine/ops/fused_adam.cpp).
#include <algorithm>
#include <vector>

#include "engine/core/parallel.h"
#include "engine/cpu/loops.h"
#include "engine/cpu/pointwise_kernel.h"
#include "engine/ops/kernels/adam.h"

namespace glassbox::cpu {
namespace {
using namespace kernels;

constexpr int64_t kAdamGrain = 4096;

// Parameter o's elements [begin, end).
void update_range(const AdamOperands& o, int64_t begin, int64_t end) {
  visit_floating_type(o.param.dtype(), [&]<class T>() {
    const AdamUpdate<T, opmath_t<T>> update(o.param.data<T>(), o.grad.data<T>(), o.exp_avg.data<T>(),
                                            o.exp_avg_sq.data<T>(), o.constants);
    for (int64_t i = begin; i < end; ++i) update(i);
  });
}

void step(const AdamOperands* params, int64_t count) {
  // start[k]: where parameter k's elements begin in the joint index space.
  std::vector<int64_t> start(count + 1, 0);
  for (int64_t k = 0; k < count; ++k) start[k + 1] = start[k] + params[k].param.numel();
  parallel_for(0, start[count], kAdamGrain, [&](int64_t lo, int64_t hi) {
    auto k = std::upper_bound(start.begin(), start.end(), lo) - start.begin() - 1;
    for (; k < count && start[k] < hi; ++k) {
      const int64_t begin = std::max(lo, start[k]) - start[k], end = std::min(hi, start[k + 1]) - start[k];
      if (begin < end) update_range(params[k], begin, end);
    }
  });
}

const AdamBackend kAdam{step};
const AdamBackends::Registration kRegistered(DeviceType::CPU, kAdam);
}  // namespace
}  // namespace glassbox::cpu
