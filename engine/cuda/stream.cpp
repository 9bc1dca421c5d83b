#include "engine/cuda/stream.h"

#include <array>
#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/cuda/cuda_device.h"
#include "engine/cuda/cuda_error.h"
#include "engine/cuda/deferred_checks.h"
#include "engine/cuda/device_guard.h"
#include "engine/cuda/stream_exchange.h"

namespace glassbox::cuda {

namespace {
constexpr int kMaxDevices = 64;
constexpr int kPoolSize = 8;

// Null (the default stream) until a StreamGuard or set_current_stream says otherwise.
thread_local std::array<cudaStream_t, kMaxDevices> t_current{};

int resolve(int device, const char* what) {
  const int index = checked_device_index(device, what);
  GB_CHECK(index < kMaxDevices, what, ": glassbox handles at most ", kMaxDevices, " CUDA devices");
  return index;
}

struct Pool {
  std::once_flag created;
  std::array<cudaStream_t, kPoolSize> streams{};
  std::atomic<unsigned> next{0};
};
std::array<Pool, kMaxDevices>& pools() {
  static auto* p = new std::array<Pool, kMaxDevices>();  // never destroyed: streams outlive statics
  return *p;
}
}  // namespace

void Stream::synchronize() const {
  DeviceGuard guard(device_);
  GB_CUDA_CHECK(cudaStreamSynchronize(handle_));
  raise_failed_checks(true);  // a wait is where deferred checks report
}

bool Stream::query() const {
  DeviceGuard guard(device_);
  const cudaError_t status = cudaStreamQuery(handle_);
  if (status == cudaErrorNotReady) {
    cudaGetLastError();  // "not ready" is an answer, not an error
    return false;
  }
  GB_CUDA_CHECK(status);
  return true;
}

Stream default_stream(int device) { return Stream(nullptr, resolve(device, "default_stream")); }

Stream current_stream(int device) {
  const int index = resolve(device, "current_stream");
  return Stream(t_current[index], index);
}

void set_current_stream(const Stream& stream) {
  const int index = resolve(stream.device(), "set_current_stream");
  t_current[index] = stream.handle();
}

Stream pool_stream(int device) {
  const int index = resolve(device, "pool_stream");
  Pool& pool = pools()[index];
  std::call_once(pool.created, [&] {
    DeviceGuard guard(index);
    for (cudaStream_t& s : pool.streams) GB_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  });
  return Stream(pool.streams[pool.next.fetch_add(1, std::memory_order_relaxed) % kPoolSize], index);
}

StreamGuard::StreamGuard(const Stream& stream) : previous_(current_stream(stream.device())) {
  set_current_stream(stream);
}

StreamGuard::~StreamGuard() { t_current[previous_.device()] = previous_.handle(); }

std::uintptr_t current_stream_number(int device) {
  const Stream s = current_stream(device);
  return s.is_default() ? 1 : reinterpret_cast<std::uintptr_t>(s.handle());
}

void order_after_current_stream(std::uintptr_t consumer_stream, int device) {
  GB_CHECK(consumer_stream != 0, "__dlpack__: stream 0 is ambiguous for CUDA; pass 1 for the legacy default stream");
  const Stream ours = current_stream(device);
  cudaStream_t theirs = consumer_stream == 1   ? cudaStreamLegacy
                        : consumer_stream == 2 ? cudaStreamPerThread
                                               : reinterpret_cast<cudaStream_t>(consumer_stream);
  if (theirs == ours.handle() || (ours.is_default() && consumer_stream == 1)) return;  // already in order
  DeviceGuard guard(ours.device());
  cudaEvent_t written;
  GB_CUDA_CHECK(cudaEventCreateWithFlags(&written, cudaEventDisableTiming));
  GB_CUDA_CHECK(cudaEventRecord(written, ours.handle()));
  GB_CUDA_CHECK(cudaStreamWaitEvent(theirs, written, 0));
  GB_CUDA_CHECK(cudaEventDestroy(written));  // released once the wait has happened
}

}  // namespace glassbox::cuda
