// where and div with a rounding mode on the CPU: the formulas of engine/ops/kernels/where_div_mode.h
// in the element-wise loops (the front end, with every check, is engine/ops/where_div_mode.cpp).
#include <atomic>

#include "engine/cpu/pointwise_kernel.h"
#include "engine/ops/kernels/where_div_mode.h"

namespace glassbox::cpu {

namespace {
using namespace kernels;

void where(TensorIterator& it) {
  visit_scalar_type(it.operand(0).dtype(), [&]<class T>() { ternary_loop<T, bool, T, T>(it, Select{}); });
}

bool div_rounded(TensorIterator& it, bool floor) {
  std::atomic<int> divided_by_zero{0};
  visit_numeric_type(it.compute_dtype(), [&]<class T>() {
    if (floor) binary_loop<T, T>(it, DivRounded<true, std::atomic<int>>{&divided_by_zero});
    else binary_loop<T, T>(it, DivRounded<false, std::atomic<int>>{&divided_by_zero});
  });
  return divided_by_zero.load() != 0;
}

Tensor& true_divide(const char* op, Tensor& out, const Tensor& self, const Tensor& other) {
  return structured_pointwise<functors::Div, PointwiseCompute>(op, out, self, other);
}

const WhereDivModeBackend kWhereDivMode{where, div_rounded, true_divide};
const WhereDivModeBackends::Registration kRegistered(DeviceType::CPU, kWhereDivMode);
}  // namespace

}  // namespace glassbox::cpu
