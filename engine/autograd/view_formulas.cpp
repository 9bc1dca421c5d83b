// Gradients of the views whose elements are not a simple slice of their input: unfold (windows,
// possibly overlapping) and as_strided (any layout over the input's storage).
#include <algorithm>
#include <vector>

#include "engine/autograd/formulas.h"
#include "engine/core/error.h"
#include "glassbox/ops/Functions.h"

namespace glassbox::autograd {

namespace {

// An int64 index tensor on `device` holding `values`.
Tensor index_tensor(const std::vector<int64_t>& values, Device device) {
  Tensor t = glassbox::empty({static_cast<int64_t>(values.size())}, ScalarType::Int64);
  std::copy(values.begin(), values.end(), t.data<int64_t>());
  return device.type == DeviceType::CPU ? t : t.to(device);
}

// The storage position of every element of a tensor with this layout, in row-major order.
std::vector<int64_t> storage_positions(IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<int64_t> out;
  if (n == 0) return out;
  out.reserve(static_cast<size_t>(n));
  const int64_t nd = static_cast<int64_t>(sizes.size());
  std::vector<int64_t> index(sizes.size(), 0);
  int64_t position = offset;
  for (int64_t k = 0; k < n; ++k) {
    out.push_back(position);
    for (int64_t d = nd - 1; d >= 0; --d) {  // the next index, like an odometer
      if (++index[d] < sizes[d]) {
        position += strides[d];
        break;
      }
      position -= strides[d] * (sizes[d] - 1);
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace

Tensor unfold_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, int64_t size, int64_t step) {
  const int64_t nd = static_cast<int64_t>(input_sizes.size());
  if (nd == 0) return grad.reshape(input_sizes);  // a 0-d input has one window of its one element
  dim = ((dim % nd) + nd) % nd;
  // grad has the input's dims (dim counting windows) and a last dim for the place in a window:
  // put that place right after the window number, and flatten the pair. Element (w, j) of the
  // flattened dim came from input position w * step + j along dim.
  std::vector<int64_t> order;
  for (int64_t d = 0; d < nd; ++d) {
    order.push_back(d);
    if (d == dim) order.push_back(nd);
  }
  const int64_t windows = grad.sizes()[static_cast<size_t>(dim)];
  DimVector flat(input_sizes);
  flat[static_cast<size_t>(dim)] = windows * size;
  Tensor pieces = grad.permute(order).reshape(flat);
  std::vector<int64_t> from;
  from.reserve(static_cast<size_t>(windows * size));
  for (int64_t w = 0; w < windows; ++w)
    for (int64_t j = 0; j < size; ++j) from.push_back(w * step + j);
  return glassbox::index_add(glassbox::zeros(input_sizes, grad.dtype(), grad.device()), dim,
                             index_tensor(from, grad.device()), pieces);
}

Tensor as_strided_backward(const Tensor& grad, IntArrayRef input_sizes, IntArrayRef input_strides,
                           int64_t input_storage_offset, IntArrayRef size, IntArrayRef stride,
                           std::optional<int64_t> storage_offset) {
  const std::vector<int64_t> in = storage_positions(input_sizes, input_strides, input_storage_offset);
  const std::vector<int64_t> out = storage_positions(size, stride, storage_offset.value_or(input_storage_offset));
  if (in.empty() || out.empty()) return glassbox::zeros(input_sizes, grad.dtype(), grad.device());
  const auto [in_lo, in_hi] = std::minmax_element(in.begin(), in.end());
  const auto [out_lo, out_hi] = std::minmax_element(out.begin(), out.end());
  const int64_t base = std::min(*in_lo, *out_lo);
  const int64_t span = std::max(*in_hi, *out_hi) - base + 1;

  // How many input elements share each storage position (more than one for expanded inputs).
  std::vector<int64_t> sharing(static_cast<size_t>(span), 0);
  std::vector<int64_t> in_index(in.size()), out_index(out.size());
  for (size_t i = 0; i < in.size(); ++i) ++sharing[static_cast<size_t>(in_index[i] = in[i] - base)];
  for (size_t i = 0; i < out.size(); ++i) out_index[i] = out[i] - base;

  Tensor in_positions = index_tensor(in_index, grad.device());
  Tensor in_storage = glassbox::index_add(glassbox::zeros({span}, grad.dtype(), grad.device()), 0,
                                          index_tensor(out_index, grad.device()), grad.reshape({-1}));
  Tensor g = glassbox::index_select(in_storage, 0, in_positions);
  if (std::any_of(in_index.begin(), in_index.end(), [&](int64_t p) { return sharing[static_cast<size_t>(p)] > 1; })) {
    std::vector<int64_t> shared_by(in_index.size());
    for (size_t i = 0; i < in_index.size(); ++i) shared_by[i] = sharing[static_cast<size_t>(in_index[i])];
    g = glassbox::div(g, index_tensor(shared_by, grad.device()).to(grad.dtype()));
  }
  return g.reshape(input_sizes);
}

}  // namespace glassbox::autograd
