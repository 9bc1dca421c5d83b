#include "engine/ops/index_masks.h"

#include "engine/core/empty.h"
#include "engine/ops/index_shape.h"

namespace glassbox {

namespace {
// The coordinates of a k-d mask's true elements, in row-major order: k int64 tensors on the mask's device.
std::vector<Tensor> mask_coordinates(const Tensor& mask) {
  const bool on_host = mask.device().type == DeviceType::CPU;
  const Tensor m = (on_host ? mask : mask.to(Device(DeviceType::CPU))).contiguous();
  const auto* bytes = static_cast<const uint8_t*>(m.data_ptr());  // bool and uint8 are one byte
  const int64_t n = m.numel(), k = m.dim();
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += bytes[i] != 0;
  std::vector<Tensor> out;
  std::vector<int64_t*> columns;
  for (int64_t j = 0; j < k; ++j) {
    out.push_back(empty_tensor(DimVector{count}, ScalarType::Int64, m.device()));
    columns.push_back(out.back().data<int64_t>());
  }
  DimVector coord(k, 0);
  for (int64_t i = 0, w = 0; i < n; ++i) {
    if (bytes[i]) {
      for (int64_t j = 0; j < k; ++j) columns[j][w] = coord[j];
      ++w;
    }
    for (int64_t j = k - 1; j >= 0 && ++coord[j] == m.sizes()[j]; --j) coord[j] = 0;
  }
  if (!on_host)
    for (Tensor& c : out) c = c.to(mask.device());
  return out;
}
}  // namespace

std::vector<std::optional<Tensor>> expand_index_masks(const char* op, const Tensor& self, OptionalTensorList indices) {
  check_indices(op, self, indices, /*allow_masks=*/true);
  std::vector<std::optional<Tensor>> out;
  for (const std::optional<Tensor>& entry : indices) {
    if (entry && entry->defined() && is_mask_dtype(entry->dtype())) {
      for (Tensor& t : mask_coordinates(*entry)) out.emplace_back(std::move(t));
    } else {
      out.push_back(entry);
    }
  }
  return out;
}

}  // namespace glassbox
