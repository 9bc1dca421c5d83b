// CPU kernels of the counting factories: empty_strided, and the out= overloads that arange,
// linspace and eye fill. Lengths and shapes come from the inference in engine/ops/factories.h.
#include <algorithm>
#include <cstring>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/core/parallel.h"
#include "engine/ops/copy.h"
#include "engine/ops/factories.h"
#include "engine/ops/factory_options.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/arange.h"
#include "glassbox/ops/native/empty_strided.h"
#include "glassbox/ops/native/eye.h"
#include "glassbox/ops/native/linspace.h"

namespace glassbox::native {

namespace {

// out[i] = value(i) over a 1-d tensor of any stride, split across threads.
template <class T, class F>
void fill_1d(Tensor& out, F value) {
  char* base = static_cast<char*>(out.data_ptr());
  const int64_t stride = out.dim() == 1 ? out.strides()[0] * static_cast<int64_t>(sizeof(T)) : 0;
  parallel_for(0, out.numel(), kDefaultGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const T v = value(i);
      std::memcpy(base + i * stride, &v, sizeof(T));
    }
  });
  if (out.unsafe_impl()->storage()) out.unsafe_impl()->storage()->bump_version();
}

}  // namespace

Tensor empty_strided_cpu(IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                         std::optional<Device> device) {
  const Device d = device_or_default(device);
  GB_CHECK(d.type == DeviceType::CPU, "empty_strided: the CPU kernel was asked for a tensor on ", d.to_string());
  check_empty_strided(size, stride);
  return empty_strided_tensor(size, stride, dtype_or_default(dtype), d);
}

Tensor& arange_out_cpu(const Scalar& start, const Scalar& end, const Scalar& step, Tensor& out) {
  const bool integral = check_arange_out(start, end, step, out).integral;
  visit_scalar_type(out.dtype(), [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      if (integral && std::is_integral_v<T>) {
        // Exact in int64: every value lies between start and end.
        const int64_t s = start.to_int(), st = step.to_int();
        fill_1d<T>(out, [&](int64_t i) { return convert_value<T>(s + i * st); });
      } else {
        const double s = start.to_double(), st = step.to_double();
        fill_1d<T>(out, [&](int64_t i) { return convert_value<T>(s + static_cast<double>(i) * st); });
      }
    }
  });
  return out;
}

Tensor& linspace_out_cpu(const Scalar& start, const Scalar& end, int64_t steps, Tensor& out) {
  const LinspaceOut l = check_linspace_out(start, end, steps, out);
  const double s = l.start, e = l.end, step = l.step;
  const int64_t half = (steps + 1) / 2;  // a single step is start
  visit_scalar_type(out.dtype(), [&]<class T>() {
    // The first half counts up from start and the second down from end, so both ends are exact
    // and the rounding error is symmetric.
    fill_1d<T>(out, [&](int64_t i) {
      const double v = i < half ? s + step * static_cast<double>(i) : e - step * static_cast<double>(steps - 1 - i);
      return convert_value<T>(v);
    });
  });
  return out;
}

Tensor& eye_out_cpu(int64_t n, int64_t m, Tensor& out) {
  check_eye_out(n, m, out);
  glassbox::fill_(out, Scalar(int64_t{0}));
  visit_scalar_type(out.dtype(), [&]<class T>() {
    const T one = convert_value<T>(int64_t{1});
    char* base = static_cast<char*>(out.data_ptr());
    const int64_t diagonal_stride = (out.strides()[0] + out.strides()[1]) * static_cast<int64_t>(sizeof(T));
    for (int64_t i = 0; i < std::min(n, m); ++i) std::memcpy(base + i * diagonal_stride, &one, sizeof(T));
  });
  return out;
}

}  // namespace glassbox::native
