// pow (tensor exponent), clamp (tensor bounds) and div with a rounding mode on CUDA. The front end
// (engine/ops/pointwise_iterator.h) promotes and broadcasts as for the CPU kernels
// (engine/cpu/pow_kernels.cpp, compare_kernels.cpp, binary_kernels.cpp), whose formulas these
// repeat. Integer division by zero sets a flag on the device that is read back to throw the CPU's
// error (the result is not written anywhere the user sees it before that).
#include <cmath>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cuda/elementwise.cuh"
#include "engine/ops/copy.h"
#include "engine/ops/division_rounding.h"
#include "engine/ops/pointwise_iterator.h"
#include "glassbox/ops/native/clamp.h"
#include "glassbox/ops/native/div.h"
#include "glassbox/ops/native/pow.h"

namespace glassbox::native {

namespace {
using namespace glassbox::cuda;

// Multiplying by squaring, wrapping on overflow; a negative exponent gives 0 but for bases 1 and -1.
template <class C>
__device__ C integer_pow(C base, C exponent) {
  if constexpr (std::is_signed_v<C>) {
    if (exponent < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exponent & 1) ? C(-1) : C(1);
      return 0;
    }
  }
  using U = std::make_unsigned_t<C>;
  U result = 1, b = static_cast<U>(base);
  for (U e = static_cast<U>(exponent); e != 0; e >>= 1) {
    if (e & 1) result = static_cast<U>(result * b);
    b = static_cast<U>(b * b);
  }
  return static_cast<C>(result);
}

enum class PowKind : int { General, Square, Reciprocal };

template <class C>
struct PowFn {
  PowKind kind;
  __device__ C operator()(C x, C y) const {
    if constexpr (std::is_floating_point_v<C>) {
      switch (kind) {
        case PowKind::Square: return x * x;
        case PowKind::Reciprocal: return C(1) / x;
        default: return ::pow(x, y);
      }
    } else {
      return integer_pow<C>(x, y);
    }
  }
};

// The value of a one-element exponent given as a number (a 0-d CPU tensor), when it has one: the
// CPU kernel's exact shortcuts for 2 and -1 apply to it.
PowKind pow_kind(const Tensor& exponent) {
  if (exponent.numel() != 1 || exponent.device().type != DeviceType::CPU) return PowKind::General;
  double v = 0;
  visit_scalar_type(exponent.dtype(), [&]<class H>() { v = convert_value<double>(*exponent.data<H>()); });
  return v == 2.0 ? PowKind::Square : v == -1.0 ? PowKind::Reciprocal : PowKind::General;
}

Tensor& pow_into(const char* op, const Tensor& self, const Tensor& exponent, Tensor& out) {
  DeviceGuard guard(self.device().type == DeviceType::CUDA ? self.device().index : exponent.device().index);
  TensorIterator it = binary_iterator(op, BinaryKind::Numeric, self, exponent, out);
  const PowKind kind = pow_kind(exponent);
  visit_numeric_device_type(it.compute_dtype(), [&]<class T>() { launch_elementwise<T, T, T>(it, PowFn<opmath_t<T>>{kind}); });
  it.finish();
  mark_written(out);
  return out;
}

// A NaN in self or in a bound gives NaN (as PyTorch); with min > max every element becomes max.
// x != x is true only for NaN (and never for integers).
struct ClampMin {
  template <class C>
  __device__ C operator()(C x, C lo) const { return x != x ? x : lo != lo ? lo : x < lo ? lo : x; }
};
struct ClampMax {
  template <class C>
  __device__ C operator()(C x, C hi) const { return x != x ? x : hi != hi ? hi : x > hi ? hi : x; }
};
struct ClampBoth {
  template <class C>
  __device__ C operator()(C x, C lo, C hi) const { return ClampMax{}(ClampMin{}(x, lo), hi); }
};

Tensor& clamp_into(const char* op, const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max,
                   Tensor& out) {
  DeviceGuard guard(self.device().index);
  TensorIterator it = clamp_iterator(op, self, min, max, out);
  const bool has_min = min && min->defined(), has_max = max && max->defined();
  visit_numeric_device_type(it.compute_dtype(), [&]<class T>() {
    if (has_min && has_max) launch_elementwise<T, T, T, T>(it, ClampBoth{});
    else if (has_min) launch_elementwise<T, T, T>(it, ClampMin{});
    else launch_elementwise<T, T, T>(it, ClampMax{});
  });
  it.finish();
  mark_written(out);
  return out;
}

template <class C>
struct DivRoundedFn {
  bool floor;
  int* divided_by_zero;  // integers only
  __device__ C operator()(C x, C y) const {
    if constexpr (std::is_floating_point_v<C>) {
      return floor ? floor_divide(x, y) : ::trunc(x / y);
    } else {
      if (y == C(0)) {
        *divided_by_zero = 1;
        return C(0);
      }
      return integer_divide(x, y, floor);
    }
  }
};

Tensor& divide_rounded(const char* name, const Tensor& self, const Tensor& other,
                       std::optional<std::string_view> rounding_mode, Tensor& out) {
  const RoundingMode mode = parse_rounding_mode(name, rounding_mode);
  const int device = self.device().type == DeviceType::CUDA ? self.device().index : other.device().index;
  DeviceGuard guard(device);
  TensorIterator it = div_mode_iterator(name, mode, self, other, out);
  const bool floor = mode == RoundingMode::Floor;
  const ScalarType dtype = it.compute_dtype();
  Tensor flag;
  if (!is_floating_point(dtype)) {
    flag = empty_tensor(DimVector{1}, ScalarType::Int32, Device(DeviceType::CUDA, static_cast<int8_t>(device)));
    GB_CUDA_CHECK(cudaMemsetAsync(flag.data_ptr(), 0, sizeof(int), current_stream(device).handle()));
  }
  visit_numeric_device_type(dtype, [&]<class T>() {
    launch_elementwise<T, T, T>(it, DivRoundedFn<opmath_t<T>>{floor, flag.defined() ? static_cast<int*>(flag.data_ptr()) : nullptr});
  });
  if (flag.defined() && it.numel() > 0) {
    int divided_by_zero = 0;
    const cudaStream_t stream = current_stream(device).handle();
    GB_CUDA_CHECK(cudaMemcpyAsync(&divided_by_zero, flag.data_ptr(), sizeof(int), cudaMemcpyDeviceToHost, stream));
    GB_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (divided_by_zero) {
      throw Error(std::string(name) + ": integer division by zero (rounding_mode='" + (floor ? "floor" : "trunc") +
                       "', self " + describe(self) + ", other " + describe(other) + ")");
    }
  }
  it.finish();
  mark_written(out);
  return out;
}
}  // namespace

Tensor pow_cuda(const Tensor& self, const Tensor& exponent) {
  Tensor out;
  return pow_into("pow", self, exponent, out);
}
Tensor& pow_cuda_(Tensor& self, const Tensor& exponent) { return pow_into("pow_", self, exponent, self); }
Tensor& pow_out_cuda(const Tensor& self, const Tensor& exponent, Tensor& out) { return pow_into("pow.out", self, exponent, out); }

Tensor clamp_cuda(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  Tensor out;
  return clamp_into("clamp", self, min, max, out);
}
Tensor& clamp_cuda_(Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return clamp_into("clamp_", self, min, max, self);
}
Tensor& clamp_out_cuda(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max,
                       Tensor& out) {
  return clamp_into("clamp.out", self, min, max, out);
}

// Without a rounding mode these are true division, the existing kernels (binary_kernels.cu).
Tensor div_mode_cuda(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  if (parse_rounding_mode("div", rounding_mode) == RoundingMode::None) return div_cuda(self, other);
  Tensor out;
  divide_rounded("div", self, other, rounding_mode, out);
  return out;
}
Tensor& div_mode_cuda_(Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  if (parse_rounding_mode("div_", rounding_mode) == RoundingMode::None) return div_cuda_(self, other);
  return divide_rounded("div_", self, other, rounding_mode, self);
}
Tensor& div_mode_out_cuda(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode,
                          Tensor& out) {
  if (parse_rounding_mode("div.out", rounding_mode) == RoundingMode::None) return div_out_cuda(self, other, out);
  return divide_rounded("div.out", self, other, rounding_mode, out);
}

}  // namespace glassbox::native
