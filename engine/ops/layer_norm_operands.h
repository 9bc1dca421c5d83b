#pragma once
// native_layer_norm and its backward as the kernels of every backend begin them: the shapes
// checked (engine/ops/linalg_shape.h), the inputs made contiguous and the outputs allocated in
// input's dtype and on its device. A weight or bias not given stays an undefined tensor.
#include <optional>

#include "engine/ops/linalg_shape.h"

namespace glassbox {

struct LayerNormOperands {
  LayerNormShape s;
  Tensor x, w, b;          // contiguous
  Tensor out, mean, rstd;  // input's shape, then s.stats twice
};
LayerNormOperands layer_norm_operands(const Tensor& input, IntArrayRef normalized_shape,
                                      const std::optional<Tensor>& weight, const std::optional<Tensor>& bias);

struct LayerNormBackwardOperands {
  LayerNormShape s;
  Tensor g, x, mu, rs, w;          // grad_out, input, mean, rstd and weight, contiguous
  Tensor grad_in, grad_w, grad_b;  // input's shape, then normalized_shape twice
};
LayerNormBackwardOperands layer_norm_backward_operands(const Tensor& grad_out, const Tensor& input,
                                                       IntArrayRef normalized_shape, const Tensor& mean,
                                                       const Tensor& rstd, const std::optional<Tensor>& weight,
                                                       const std::optional<Tensor>& bias);

// The data of an optional parameter, or null when it was not given.
template <class T>
const T* data_or_null(const Tensor& t) {
  return t.defined() ? t.data<T>() : nullptr;
}

}  // namespace glassbox
