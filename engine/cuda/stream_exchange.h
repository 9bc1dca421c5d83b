#pragma once
// CUDA memory handed to and taken from other libraries (DLPack): streams are named by numbers as the
// DLPack protocol names them (1: CUDA's legacy default stream, 2: the per-thread default stream,
// anything else: a cudaStream_t). Needs no CUDA headers, so the Python bindings use it with or
// without CUDA (the stub library throws).
#include <cstdint>

namespace glassbox::cuda {

// The DLPack number of this thread's current stream on `device`, for a producer to order its work
// before ours.
std::uintptr_t current_stream_number(int device);
// Makes the consumer's stream (a DLPack number) wait for the work queued so far on our current
// stream of `device`, so it reads the data only after we have written it.
void order_after_current_stream(std::uintptr_t consumer_stream, int device);

}  // namespace glassbox::cuda
