#pragma once
// parallel_for over [begin, end) in chunks of at least `grain` items, on the OpenMP team that
// oneDNN uses too (or, built without oneDNN, a fixed pool of worker threads). GLASSBOX_NUM_THREADS
// (or set_num_threads) sets the thread count; the default is the number of cores. Nested calls,
// and every call in a process forked after the library loaded, run serially on the calling thread.
#include <cstdint>
#include <functional>

namespace glassbox {

int get_num_threads();
void set_num_threads(int n);
// True inside a parallel_for body (on any of its threads).
bool in_parallel_region();
// True in a process forked from one that had loaded glassbox: its thread teams did not survive.
bool in_forked_child();

// f(chunk_begin, chunk_end) is called for disjoint chunks covering [begin, end).
void parallel_for(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& f);

// Element counts under this go on one thread: thread hand-off costs more than it saves.
inline constexpr int64_t kDefaultGrain = 32768;

}  // namespace glassbox
