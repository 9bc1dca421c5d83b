#include "engine/cpu/streaming_store.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <string>

#include "engine/core/error.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GLASSBOX_STREAMING_STORES 1
#endif

namespace glassbox::cpu {

namespace {
// The last-level cache a core sees, from Linux's sysfs ("32768K"); 0 when it cannot be read.
// (sysconf's figure is the whole package's on some virtual machines, ten times what one core shares.)
int64_t last_level_cache_bytes() {
  for (int index = 3; index >= 2; --index) {
    std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
    int64_t value = 0;
    std::string unit;
    if (in >> value && value > 0) {
      in >> unit;
      return value * (unit == "K" ? 1024 : unit == "M" ? 1024 * 1024 : 1);
    }
  }
  return 0;
}

// Bytes before dst reaches a multiple of `align` (at most `bytes`).
int64_t head_bytes(const char* dst, int64_t bytes, uintptr_t align) {
  return std::min<int64_t>(bytes, static_cast<int64_t>(-reinterpret_cast<uintptr_t>(dst) & (align - 1)));
}
}  // namespace

namespace streaming_store_detail {
std::atomic<int64_t> g_streaming_store_threshold{0};

int64_t read_streaming_store_threshold() {
  const int64_t llc = last_level_cache_bytes();
  const int64_t bytes = llc > 0 ? llc : int64_t{32} << 20;
  int64_t expected = 0;
  g_streaming_store_threshold.compare_exchange_strong(expected, bytes, std::memory_order_relaxed);
  return g_streaming_store_threshold.load(std::memory_order_relaxed);
}
}  // namespace streaming_store_detail

int64_t set_streaming_store_threshold(int64_t bytes) {
  if (bytes <= 0)
    throw Error("set_streaming_store_threshold: expected a positive number of bytes, got " + std::to_string(bytes));
  const int64_t old = streaming_store_threshold();
  streaming_store_detail::g_streaming_store_threshold.store(bytes, std::memory_order_relaxed);
  return old;
}

#ifdef GLASSBOX_STREAMING_STORES
void stream_bytes(char* dst, const char* src, int64_t bytes) {
  int64_t i = head_bytes(dst, bytes, 16);
  std::memcpy(dst, src, static_cast<size_t>(i));
  for (; i + 16 <= bytes; i += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
  std::memcpy(dst + i, src + i, static_cast<size_t>(bytes - i));
}

__attribute__((target("avx2"))) void stream_bytes_avx2(char* dst, const char* src, int64_t bytes) {
  int64_t i = head_bytes(dst, bytes, 32);
  std::memcpy(dst, src, static_cast<size_t>(i));
  for (; i + 32 <= bytes; i += 32) {
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
  }
  std::memcpy(dst + i, src + i, static_cast<size_t>(bytes - i));
}

void streaming_store_fence() { _mm_sfence(); }
#else
void stream_bytes(char* dst, const char* src, int64_t bytes) { std::memcpy(dst, src, static_cast<size_t>(bytes)); }
void stream_bytes_avx2(char* dst, const char* src, int64_t bytes) { stream_bytes(dst, src, bytes); }
void streaming_store_fence() {}
#endif

}  // namespace glassbox::cpu
