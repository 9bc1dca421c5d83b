#pragma once
// Tensors as text, the way PyTorch's repr shows them: `tensor([[1., 2.],\n        [3., 4.]])`,
// precision 4, `...` summaries past 1000 elements, a dtype suffix when the dtype is not the default
// of its kind, and shape-only text for meta tensors.
#include <ostream>
#include <string>

#include "engine/core/tensor.h"

namespace glassbox {

std::string to_string(const Tensor& t);
std::ostream& operator<<(std::ostream& out, const Tensor& t);

}  // namespace glassbox
