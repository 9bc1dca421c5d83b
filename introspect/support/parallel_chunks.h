#pragma once
// Runs fn(begin, end) over [0, count) in chunks of `chunk` items on up to `threads` std::threads
// (0: one per hardware thread); each thread takes the next free chunk. Small inputs run inline.
// The first exception thrown by fn is rethrown after all threads have stopped.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace glassbox::introspect {

inline unsigned default_thread_count() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

template <class Fn>
void parallel_chunks(std::size_t count, std::size_t chunk, unsigned threads, Fn&& fn) {
  if (count == 0) return;
  chunk = std::max<std::size_t>(chunk, 1);
  const std::size_t chunks = (count + chunk - 1) / chunk;
  const unsigned workers =
      static_cast<unsigned>(std::min<std::size_t>(chunks, threads == 0 ? default_thread_count() : threads));
  if (workers <= 1) {
    fn(std::size_t{0}, count);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work = [&] {
    for (std::size_t c; (c = next.fetch_add(1, std::memory_order_relaxed)) < chunks;) {
      try {
        fn(c * chunk, std::min(count, (c + 1) * chunk));
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next.store(chunks);  // stop handing out chunks
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (unsigned i = 1; i < workers; ++i) pool.emplace_back(work);
  work();  // the calling thread is a worker too
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace glassbox::introspect
