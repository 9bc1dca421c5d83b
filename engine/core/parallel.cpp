#include "engine/core/parallel.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/core/error.h"

#if GLASSBOX_PARALLEL_OPENMP
#include <omp.h>
#endif

namespace glassbox {

namespace {
thread_local bool t_in_parallel = false;

int cores() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

// More threads than this only thrash (and a runaway count would start threads until memory ran out).
int max_threads() { return std::max(64, 8 * cores()); }

int default_threads() {
  if (const char* env = std::getenv("GLASSBOX_NUM_THREADS")) {
    const int n = std::atoi(env);
    if (n > 0) return std::min(n, max_threads());
  }
  return cores();
}

void check_thread_count(int n) {
  if (n < 1) throw Error("set_num_threads: expected a positive number of threads, got " + std::to_string(n));
  if (n > max_threads())
    throw Error("set_num_threads: " + std::to_string(n) + " threads is more than glassbox runs on this machine (" +
                std::to_string(cores()) + " cores; at most " + std::to_string(max_threads()) + " threads)");
}

std::atomic<bool> g_forked_child{false};
// Registered when the library loads, so that every fork after it is seen.
const int g_atfork_registered = pthread_atfork(nullptr, nullptr, [] { g_forked_child.store(true); });

// Splits [begin, end) into `chunks` nearly equal runs and calls f on run c.
void run_chunk(int64_t begin, int64_t end, int64_t chunks, int64_t c, const std::function<void(int64_t, int64_t)>& f) {
  const int64_t step = (end - begin + chunks - 1) / chunks;
  const int64_t lo = begin + c * step;
  const int64_t hi = std::min(end, lo + step);
  if (lo < hi) f(lo, hi);
}

#if !GLASSBOX_PARALLEL_OPENMP
// A pool of n-1 workers; the calling thread works too. One job runs at a time; chunks are
// claimed under the lock (there are only as many as threads), so a worker that wakes late can
// never take a chunk of the next job.
class ThreadPool {
 public:
  explicit ThreadPool(int n) { resize(n); }
  ~ThreadPool() { stop(); }

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  void resize(int n) {
    stop();
    stopping_ = false;
    for (int i = 1; i < n; ++i) workers_.emplace_back([this] { work(); });
  }

  void run(int chunks, const std::function<void(int)>& task) {
    std::lock_guard job(job_mutex_);
    uint64_t gen;
    {
      std::lock_guard lock(mutex_);
      task_ = &task;
      chunks_ = chunks;
      next_ = 0;
      remaining_ = chunks;
      error_ = nullptr;
      gen = ++generation_;
    }
    wake_.notify_all();
    help(gen);
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return remaining_ == 0; });
    task_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  // Runs chunks of job `gen` until none are left.
  void help(uint64_t gen) {
    for (;;) {
      int c;
      const std::function<void(int)>* task;
      {
        std::lock_guard lock(mutex_);
        if (generation_ != gen || next_ >= chunks_) return;
        c = next_++;
        task = task_;
      }
      std::exception_ptr error;
      t_in_parallel = true;
      try {
        (*task)(c);
      } catch (...) {
        error = std::current_exception();
      }
      t_in_parallel = false;
      std::lock_guard lock(mutex_);
      if (error && !error_) error_ = error;
      if (--remaining_ == 0) done_.notify_all();
    }
  }
  void work() {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
      }
      help(seen);
    }
  }
  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& w : workers_) w.join();
    workers_.clear();
  }

  std::vector<std::thread> workers_;
  std::mutex job_mutex_, mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* task_ = nullptr;
  int chunks_ = 0, next_ = 0, remaining_ = 0;
  uint64_t generation_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
};

std::mutex g_pool_mutex;
ThreadPool& pool() {
  static ThreadPool* p = new ThreadPool(default_threads());  // never destroyed: workers outlive statics
  return *p;
}

void run_parallel(int64_t begin, int64_t end, int64_t chunks, const std::function<void(int64_t, int64_t)>& f) {
  pool().run(static_cast<int>(chunks), [&](int c) { run_chunk(begin, end, chunks, c, f); });
}
}  // namespace

int get_num_threads() { return pool().size(); }

void set_num_threads(int n) {
  check_thread_count(n);
  std::lock_guard lock(g_pool_mutex);
  if (n != pool().size()) pool().resize(n);
}
#else
// The OpenMP team is the one oneDNN's sgemm and convolutions use: one set of threads, which wait
// for the next region by spinning briefly, as PyTorch's do. A second pool beside it would leave
// two sets of threads competing for the cores after every oneDNN call. (Without oneDNN the build
// keeps the pool above: beside OpenBLAS's threads, which spin between products, a spinning team
// made the 16-core GPT step 40 times slower; workers that sleep do not.)
std::atomic<int> g_threads{default_threads()};
}  // namespace

int get_num_threads() { return g_threads.load(std::memory_order_relaxed); }

void set_num_threads(int n) {
  check_thread_count(n);
  g_threads.store(n, std::memory_order_relaxed);
}

namespace {
void run_parallel(int64_t begin, int64_t end, int64_t chunks, const std::function<void(int64_t, int64_t)>& f) {
  std::exception_ptr error;
  std::atomic<bool> failed{false};
  // Every region asks for the whole team, even when it has fewer chunks: GNU OpenMP ends the pool
  // threads a smaller team leaves out and starts new ones for the next larger team, so regions of
  // varying sizes would create and destroy threads on every call.
#pragma omp parallel num_threads(get_num_threads())
  {
    const bool was_in_parallel = t_in_parallel;
    t_in_parallel = true;
    // The runtime may give fewer threads than asked for: each takes every team-size-th chunk.
    for (int64_t c = omp_get_thread_num(); c < chunks; c += omp_get_num_threads()) {
      if (failed.load(std::memory_order_relaxed)) break;
      try {
        run_chunk(begin, end, chunks, c, f);
      } catch (...) {
#pragma omp critical(glassbox_parallel_error)
        if (!failed.exchange(true)) error = std::current_exception();
      }
    }
    t_in_parallel = was_in_parallel;
  }
  if (error) std::rethrow_exception(error);
}
}  // namespace
#endif

bool in_parallel_region() { return t_in_parallel; }

bool in_forked_child() {
  (void)g_atfork_registered;
  return g_forked_child.load(std::memory_order_relaxed);
}

void parallel_for(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& f) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  // GNU OpenMP's team does not survive fork(): a child asking for more than one thread would wait
  // forever for the parent's. A forked child (a data-loader worker) therefore runs serially.
  const int threads = t_in_parallel || in_forked_child() ? 1 : get_num_threads();
  const int64_t chunks = std::min<int64_t>(threads, (n + grain - 1) / grain);
  if (chunks <= 1) {
    f(begin, end);
    return;
  }
  run_parallel(begin, end, chunks, f);
}

}  // namespace glassbox
