// The random fills on the CPU: the blocks of engine/ops/kernels/random.h in a parallel loop (the
// front end, with every check, is engine/ops/random_ops.cpp).
#include "engine/cpu/for_each_index.h"
#include "engine/ops/kernels/random.h"

namespace glassbox::cpu {

namespace {
using namespace kernels;

// Drawing costs about ten times a copy per element: smaller chunks still pay for a thread.
constexpr int64_t kRandomGrain = kDefaultGrain / 8;

void fill(Tensor& out, const RandomFill& f, PhiloxState state) {
  visit_scalar_type(out.dtype(), [&]<class T>() {
    with_random_blocks(out.data<T>(), out.numel(), state, f, [&](const auto& blocks, int64_t count) {
      using Draw = decltype(blocks.draw);
      for_each_index(count, kRandomGrain / Draw::kPerBlock, blocks);
    });
  });
}

std::optional<int64_t> first_bad_probability(const Tensor& probs) {
  const double* p = probs.data<double>();
  for (int64_t i = 0; i < probs.numel(); ++i)
    if (!(p[i] >= 0.0 && p[i] <= 1.0)) return i;
  return std::nullopt;
}

const RandomBackend kRandom{fill, first_bad_probability};
const RandomBackends::Registration kRegistered(DeviceType::CPU, kRandom);
}  // namespace

}  // namespace glassbox::cpu
