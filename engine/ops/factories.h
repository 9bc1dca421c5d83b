#pragma once
// Shape, dtype and argument checks of empty_strided, arange, linspace and eye: one inference
// each, used by the front ends (engine/ops/factories.cpp), the CPU kernels and the Meta kernels.
#include <span>

#include "engine/core/tensor.h"

namespace glassbox {

void check_empty_strided(std::span<const int64_t> size, std::span<const int64_t> stride);

// The number of values in [start, end) by step. Integer bounds are counted exactly; any
// floating-point bound counts as ceil((end - start) / step). Throws for a zero step, a step
// whose sign leads away from end, non-finite bounds, or a length int64 cannot hold.
int64_t arange_length(const Scalar& start, const Scalar& end, const Scalar& step);
// int64 when start, end and step are all integers, else the default float dtype.
ScalarType arange_dtype(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<ScalarType> dtype);

void check_linspace_steps(int64_t steps);
void check_eye_sizes(int64_t n, int64_t m);

// An out= tensor of these factories is resized to the result's shape (resize_output), as in PyTorch.
void check_out_shape(const char* op, const Tensor& out, std::span<const int64_t> expected);

// The checks of the out= kernels of every backend before they fill out: out's shape and, for
// arange and linspace, a dtype other than bool.
// arange.out: `integral` when start, end and step are all integers (the values are exact in int64).
struct ArangeOut {
  int64_t length;
  bool integral;
};
ArangeOut check_arange_out(const Scalar& start, const Scalar& end, const Scalar& step, const Tensor& out);
// linspace.out: `steps` values from start to end, `step` apart.
struct LinspaceOut {
  double start, end, step;
};
LinspaceOut check_linspace_out(const Scalar& start, const Scalar& end, int64_t steps, const Tensor& out);
// eye.out: out is [n, m].
void check_eye_out(int64_t n, int64_t m, const Tensor& out);

// "5", "-0.5", "True": a Scalar as an error message shows it.
std::string scalar_to_string(const Scalar& s);

}  // namespace glassbox
