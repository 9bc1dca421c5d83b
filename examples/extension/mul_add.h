#pragma once
// What mul_add.cpp and mul_add_cuda.cu share: the argument checks (one place for every error text).
#include <glassbox/glassbox.h>

namespace myops {
void check_mul_add(const glassbox::Tensor& x, const glassbox::Tensor& y, const glassbox::Tensor& z);
}
