// glassbox_cuda as built without CUDA: the same interface, nothing available. No kernels are
// registered for the CUDA key, so the dispatcher names the operator that has none; moving a tensor
// to CUDA fails in to() for want of an allocator.
#include <atomic>
#include <string>

#include "engine/core/error.h"
#include "engine/cuda/cuda_device.h"
#include "engine/cuda/matmul_settings.h"
#include "engine/cuda/memory.h"
#include "engine/cuda/stream_exchange.h"

namespace glassbox::cuda {

namespace {
const char* const kWhy = "glassbox was built without CUDA (GLASSBOX_CUDA=OFF or nvcc/cuBLAS not found)";
std::atomic<bool> g_allow_tf32{false};
}  // namespace

bool built_with_cuda() { return false; }
int device_count() { return 0; }
std::string describe() { return kWhy; }

void check_available(const char* what) { throw Error(std::string(what) + ": CUDA is not available: " + kWhy); }
int checked_device_index(int, const char* what) {
  check_available(what);
  return -1;
}
int current_device() {
  check_available("current_device");
  return -1;
}
void set_device(int) { check_available("set_device"); }
void synchronize(int) { check_available("synchronize"); }

std::uintptr_t current_stream_number(int) {
  check_available("current_stream_number");
  return 0;
}
void order_after_current_stream(std::uintptr_t, int) { check_available("order_after_current_stream"); }

MemoryStats memory_stats(int) { return {}; }
void reset_peak_memory_stats(int) {}
void empty_cache() {}

// Kept so that settings made before CUDA is used read back the same everywhere.
bool matmul_allow_tf32() { return g_allow_tf32.load(); }
void set_matmul_allow_tf32(bool allow) { g_allow_tf32.store(allow); }

}  // namespace glassbox::cuda
