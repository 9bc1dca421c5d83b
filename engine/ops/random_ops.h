#pragma once
// Argument checks of the random operators, shared by their front ends, CPU kernels and Meta
// kernels, so that every backend refuses the same calls with the same words.
#include <cstdint>

#include "engine/core/scalar_type.h"

namespace glassbox {

// uniform_, normal_, rand, randn and bernoulli(p) produce floating-point values only.
void check_floating_dtype(const char* op, ScalarType dtype);
void check_uniform_range(const char* op, double from, double to);
void check_normal_std(const char* op, double std);
void check_probability(const char* op, double p);
// [from, to) must be non-empty and every value in it representable in dtype.
void check_random_range(const char* op, ScalarType dtype, int64_t from, int64_t to);

}  // namespace glassbox
