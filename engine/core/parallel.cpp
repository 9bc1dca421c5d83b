#include "engine/core/parallel.h"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/core/error.h"

namespace glassbox {

namespace {
thread_local bool t_in_parallel = false;

int default_threads() {
  if (const char* env = std::getenv("GLASSBOX_NUM_THREADS")) {
    const int n = std::atoi(env);
    if (n > 0) return n;
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

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
}  // namespace

int get_num_threads() { return pool().size(); }

void set_num_threads(int n) {
  if (n < 1) throw Error("set_num_threads: expected a positive number of threads, got " + std::to_string(n));
  std::lock_guard lock(g_pool_mutex);
  if (n != pool().size()) pool().resize(n);
}

bool in_parallel_region() { return t_in_parallel; }

void parallel_for(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& f) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  const int threads = t_in_parallel ? 1 : get_num_threads();
  const int64_t chunks = std::min<int64_t>(threads, (n + grain - 1) / grain);
  if (chunks <= 1) {
    f(begin, end);
    return;
  }
  const int64_t step = (n + chunks - 1) / chunks;
  pool().run(static_cast<int>(chunks), [&](int c) {
    const int64_t lo = begin + c * step;
    const int64_t hi = std::min(end, lo + step);
    if (lo < hi) f(lo, hi);
  });
}

}  // namespace glassbox
