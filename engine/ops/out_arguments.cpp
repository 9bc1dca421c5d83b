#include "engine/ops/out_arguments.h"

#include <algorithm>

#include "engine/core/error.h"

namespace glassbox {

void check_out(const char* op, const Tensor& out, std::span<const int64_t> shape, ScalarType dtype, Device device) {
  if (!out.defined()) throw ValueError(std::string(op) + ": out is an undefined tensor");
  const auto& s = out.sizes();
  if (!std::equal(s.begin(), s.end(), shape.begin(), shape.end()))
    throw ValueError(std::string(op) + ": out has shape " + shape_to_string(s) + " but the result has shape " +
                     shape_to_string(shape));
  if (out.dtype() != dtype)
    throw TypeError(std::string(op) + ": out has dtype " + std::string(to_string(out.dtype())) +
                    " but the result has dtype " + std::string(to_string(dtype)));
  if (!(out.device() == device))
    throw ValueError(std::string(op) + ": out is on " + out.device().to_string() + " but the input is on " +
                     device.to_string());
}

}  // namespace glassbox
