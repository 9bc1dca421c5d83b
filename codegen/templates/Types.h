${banner}
#pragma once
// What the generated declarations use besides Tensor. engine/core/tensor.h includes this before
// class Tensor, because the method declarations in TensorMethods.inc name these types.
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

#include "engine/core/array_ref.h"
#include "engine/core/device.h"
#include "engine/core/scalar.h"
#include "engine/core/scalar_type.h"

namespace glassbox {

class Tensor;

// The same aliases as registry/cpp_signature.h (redeclaring an alias to the same type is allowed).
using IntArrayRef = ArrayRef<int64_t>;
using TensorList = ArrayRef<Tensor>;
using OptionalTensorList = ArrayRef<std::optional<Tensor>>;  // Tensor?[]

// The `int reduction=Mean` defaults of loss functions (PyTorch's at::Reduction values).
namespace Reduction {
inline constexpr int64_t None = 0;
inline constexpr int64_t Mean = 1;
inline constexpr int64_t Sum = 2;
}  // namespace Reduction

}  // namespace glassbox
