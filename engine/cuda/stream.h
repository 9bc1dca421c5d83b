#pragma once
// CUDA streams. Every device has a default stream (CUDA's legacy default stream, ordered with all
// blocking work on the device); every thread has a current stream per device, the one kernels and
// copies are queued on, which StreamGuard switches for a scope. Further streams come from a small
// pool per device, created on first use and kept for the life of the process.
#include <cuda_runtime_api.h>

namespace glassbox::cuda {

class Stream {
 public:
  Stream(cudaStream_t handle, int device) : handle_(handle), device_(device) {}
  cudaStream_t handle() const { return handle_; }
  int device() const { return device_; }
  bool is_default() const { return handle_ == nullptr; }
  // Waits until everything queued on the stream has finished.
  void synchronize() const;
  // True when everything queued on the stream has finished.
  bool query() const;
  bool operator==(const Stream&) const = default;

 private:
  cudaStream_t handle_;
  int device_;
};

// device -1: the current device.
Stream default_stream(int device = -1);
Stream current_stream(int device = -1);
void set_current_stream(const Stream& stream);
// The next stream of the device's pool (round-robin). Pool streams do not wait for the default
// stream: order work across them with synchronize() (or events).
Stream pool_stream(int device = -1);

// Makes `stream` current on its device for a scope, then restores the stream that was.
class StreamGuard {
 public:
  explicit StreamGuard(const Stream& stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  Stream previous_;
};

}  // namespace glassbox::cuda
