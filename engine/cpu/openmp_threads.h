#pragma once
// How many OpenMP threads oneDNN may use (its convolutions and its sgemm). GNU OpenMP's thread pool
// does not survive fork(): a child that opens a parallel region of more than one thread waits
// forever for the parent's threads. A process forked from one that has loaded glassbox (a
// data-loader worker) therefore runs oneDNN on one thread, as parallel_for does (engine/core).

namespace glassbox::cpu {

// get_num_threads(), or 1 in a forked child.
int openmp_threads();

}  // namespace glassbox::cpu
