#pragma once
// Streaming (non-temporal) stores for element-wise outputs larger than the last-level cache.
// Such an output cannot stay cached anyway; written with ordinary stores, every line is first read
// from memory (to own it) and then written back, and it evicts everything else on the way.
// Streaming stores skip the read: a + b moves 12 bytes per float element instead of 16.
// Loops compute a tile into a small buffer that stays in L1, then stream the tile out.
#include <atomic>
#include <cstdint>

namespace glassbox::cpu {

namespace streaming_store_detail {
extern std::atomic<int64_t> g_streaming_store_threshold;  // 0 until first read
int64_t read_streaming_store_threshold();
}  // namespace streaming_store_detail

// Output sizes (bytes) from which element-wise loops stream their results: the size of the
// last-level cache one core sees (32 MiB where the system cannot say).
inline int64_t streaming_store_threshold() {
  const int64_t t = streaming_store_detail::g_streaming_store_threshold.load(std::memory_order_relaxed);
  return t ? t : streaming_store_detail::read_streaming_store_threshold();
}
// Replaces the threshold (bytes > 0) and returns the old one: tests run the streaming loops on
// small tensors with it.
int64_t set_streaming_store_threshold(int64_t bytes);

// Bytes of one tile: small enough to stay in L1 beside the inputs' lines in flight.
inline constexpr int64_t kStreamTileBytes = 1024;

// dst[0, bytes) = src[0, bytes), with streaming stores where dst is aligned for them; the AVX2
// form stores 32 bytes at a time (call it only where the CPU has AVX2).
void stream_bytes(char* dst, const char* src, int64_t bytes);
void stream_bytes_avx2(char* dst, const char* src, int64_t bytes);
// Streaming stores are weakly ordered: a thread fences them before it hands its chunk back.
void streaming_store_fence();

// Whether a loop writing `out_bytes` at `out` may stream while reading `in_bytes` at `in`: the
// input is the output itself or lies elsewhere. (Tiles read ahead of where they write, which
// must not change what a partly overlapping input reads.)
inline bool may_stream(const void* out, int64_t out_bytes, const void* in, int64_t in_bytes) {
  const auto o = reinterpret_cast<uintptr_t>(out), i = reinterpret_cast<uintptr_t>(in);
  return o == i || o + static_cast<uintptr_t>(out_bytes) <= i || i + static_cast<uintptr_t>(in_bytes) <= o;
}

}  // namespace glassbox::cpu
