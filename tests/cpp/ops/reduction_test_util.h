#pragma once
// Helpers of the reduction, softmax/sort and loss tests: tensors from values, values back as
// doubles, and central differences for checking backward helpers.
#include <functional>
#include <random>
#include <vector>

#include "glassbox/ops/Functions.h"

namespace glassbox::testing {

inline Tensor from_values(const std::vector<double>& v, std::vector<int64_t> sizes,
                          ScalarType dtype = ScalarType::Float32) {
  Tensor d = empty(sizes, ScalarType::Float64);
  for (size_t i = 0; i < v.size(); ++i) d.data<double>()[i] = v[i];
  return d.to(dtype);
}
inline std::vector<double> as_doubles(const Tensor& t) {
  const Tensor d = clone(t.to(ScalarType::Float64));
  return std::vector<double>(d.data<double>(), d.data<double>() + d.numel());
}
inline Tensor random_tensor(std::vector<int64_t> sizes, uint32_t seed, double lo = -2, double hi = 2,
                            ScalarType dtype = ScalarType::Float64) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<double> v(n);
  for (double& x : v) x = dist(gen);
  return from_values(v, sizes, dtype);
}

// d/dx of sum(f(x) * g) by central differences, x and g float64.
inline std::vector<double> numeric_grad(const std::function<Tensor(const Tensor&)>& f, const Tensor& x, const Tensor& g,
                                        double eps = 1e-6) {
  std::vector<double> out(x.numel());
  const std::vector<double> gv = as_doubles(g);
  for (int64_t i = 0; i < x.numel(); ++i) {
    Tensor plus = clone(x), minus = clone(x);
    plus.data<double>()[i] += eps;
    minus.data<double>()[i] -= eps;
    const std::vector<double> fp = as_doubles(f(plus)), fm = as_doubles(f(minus));
    double acc = 0;
    for (size_t k = 0; k < fp.size(); ++k) acc += (fp[k] - fm[k]) / (2 * eps) * gv[gv.size() == 1 ? 0 : k];
    out[i] = acc;
  }
  return out;
}

}  // namespace glassbox::testing
