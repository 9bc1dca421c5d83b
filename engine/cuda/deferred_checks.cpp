#include "engine/cuda/deferred_checks.h"

#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <vector>

#include "engine/cuda/cuda_error.h"
#include "engine/cuda/device_guard.h"
#include "engine/cuda/stream.h"

namespace glassbox::cuda {
namespace {

struct Pending {
  cudaEvent_t arrived;  // recorded behind the copy of the verdict
  int64_t* verdict;     // a pinned host slot
  int64_t none;
  std::function<void(int64_t)> raise;
  Tensor flag;  // kept until the copy has run
};

struct Checks {
  std::mutex mutex;
  std::deque<Pending> pending;  // in call order
  std::vector<int64_t*> slots;  // free pinned slots
};

Checks& checks() {
  static auto* c = new Checks();  // never destroyed: pending events outlive statics
  return *c;
}

int64_t* take_slot(Checks& c) {
  if (c.slots.empty()) {
    constexpr int kSlots = 256;  // one pinned allocation serves many checks
    void* block = nullptr;
    GB_CUDA_CHECK(cudaHostAlloc(&block, kSlots * sizeof(int64_t), cudaHostAllocDefault));
    for (int i = 0; i < kSlots; ++i) c.slots.push_back(static_cast<int64_t*>(block) + i);
  }
  int64_t* slot = c.slots.back();
  c.slots.pop_back();
  return slot;
}

}  // namespace

bool synchronous_checks() {
  static const bool sync = [] {
    const char* v = std::getenv("GLASSBOX_CUDA_SYNC_CHECKS");
    return v && *v && std::strcmp(v, "0") != 0;
  }();
  return sync;
}

void defer_check(const Tensor& flag, int64_t none, std::function<void(int64_t)> raise) {
  const int device = flag.device().index;
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device).handle();
  if (synchronous_checks()) {
    int64_t verdict = none;
    GB_CUDA_CHECK(cudaMemcpyAsync(&verdict, flag.data_ptr(), sizeof verdict, cudaMemcpyDeviceToHost, stream));
    GB_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (verdict != none) raise(verdict);
    return;
  }
  raise_failed_checks(false);  // earlier verdicts first
  Checks& c = checks();
  const std::lock_guard lock(c.mutex);
  Pending p{nullptr, take_slot(c), none, std::move(raise), flag};
  GB_CUDA_CHECK(cudaMemcpyAsync(p.verdict, flag.data_ptr(), sizeof(int64_t), cudaMemcpyDeviceToHost, stream));
  GB_CUDA_CHECK(cudaEventCreateWithFlags(&p.arrived, cudaEventDisableTiming));
  GB_CUDA_CHECK(cudaEventRecord(p.arrived, stream));
  c.pending.push_back(std::move(p));
}

void raise_failed_checks(bool wait) {
  Checks& c = checks();
  std::function<void(int64_t)> raise;
  int64_t verdict = 0;
  {
    const std::lock_guard lock(c.mutex);
    while (!c.pending.empty()) {
      Pending& p = c.pending.front();
      if (wait) {
        GB_CUDA_CHECK(cudaEventSynchronize(p.arrived));
      } else if (const cudaError_t status = cudaEventQuery(p.arrived); status == cudaErrorNotReady) {
        cudaGetLastError();  // "not ready" is an answer, not an error
        break;
      } else {
        GB_CUDA_CHECK(status);
      }
      verdict = *p.verdict;
      const bool failed = verdict != p.none;
      if (failed) raise = std::move(p.raise);
      cudaEventDestroy(p.arrived);
      c.slots.push_back(p.verdict);
      c.pending.pop_front();
      if (failed) break;
    }
  }
  if (raise) raise(verdict);  // outside the lock: raising reads the device
}

}  // namespace glassbox::cuda
