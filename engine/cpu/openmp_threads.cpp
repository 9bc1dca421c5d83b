#include "engine/cpu/openmp_threads.h"

#include "engine/core/parallel.h"

namespace glassbox::cpu {

int openmp_threads() { return in_forked_child() ? 1 : get_num_threads(); }

}  // namespace glassbox::cpu
