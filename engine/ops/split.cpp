// split, split_with_sizes and chunk (views: narrow slices sharing the input's storage), and
// stack (cat of unsqueezed inputs). Written with other operators, they work on every backend.
#include "glassbox/ops/native/split.h"
#include "engine/core/error.h"
#include "engine/ops/view_geometry.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/chunk.h"
#include "glassbox/ops/native/split_with_sizes.h"
#include "glassbox/ops/native/stack.h"

namespace glassbox::native {

namespace {
void check_splittable(const char* op, const Tensor& self) {
  if (self.dim() == 0) {
    throw Error(detail::str_cat(op, ": cannot split a 0-dim tensor (", to_string(self.dtype()), ")"));
  }
}
}  // namespace

std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim) {
  check_splittable("split", self);
  const int64_t d = wrap_dim(dim, self.dim(), "split");
  const int64_t length = self.sizes()[d];
  if (split_size < 0 || (split_size == 0 && length != 0)) {
    throw Error(detail::str_cat("split: split_size must be positive (0 only for an empty dimension), but got ",
                                split_size, " for dimension ", d, " of size ", length, " in shape ",
                                shape_to_string(self.sizes())));
  }
  // At least one piece, even of an empty dimension; the last piece may be shorter.
  const int64_t pieces = split_size == 0 ? 1 : std::max<int64_t>((length + split_size - 1) / split_size, 1);
  std::vector<Tensor> out;
  out.reserve(static_cast<size_t>(pieces));
  for (int64_t i = 0; i < pieces; ++i) {
    const int64_t start = i * split_size;
    out.push_back(glassbox::narrow(self, d, start, std::min(split_size, length - start)));
  }
  return out;
}

std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  check_splittable("split_with_sizes", self);
  const int64_t d = wrap_dim(dim, self.dim(), "split_with_sizes");
  const int64_t length = self.sizes()[d];
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    if (s < 0) {
      throw Error(detail::str_cat("split_with_sizes: split_sizes must be non-negative, but got ",
                                  shape_to_string(split_sizes)));
    }
    total += s;
  }
  if (total != length) {
    throw Error(detail::str_cat("split_with_sizes: split_sizes ", shape_to_string(split_sizes), " sum to ", total,
                                " but dimension ", d, " of the input ", shape_to_string(self.sizes()), " has size ",
                                length));
  }
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    out.push_back(glassbox::narrow(self, d, start, s));
    start += s;
  }
  return out;
}

std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  check_splittable("chunk", self);
  if (chunks <= 0) {
    throw Error(detail::str_cat("chunk: the number of chunks must be greater than 0, but got ", chunks));
  }
  const int64_t d = wrap_dim(dim, self.dim(), "chunk");
  const int64_t length = self.sizes()[d];
  // Pieces of ceil(length / chunks), so there may be fewer than `chunks`; an empty dimension
  // gives `chunks` empty pieces.
  if (length == 0) return glassbox::split_with_sizes(self, std::vector<int64_t>(static_cast<size_t>(chunks), 0), d);
  return glassbox::split(self, (length + chunks - 1) / chunks, d);
}

Tensor stack(TensorList tensors, int64_t dim) {
  if (tensors.empty()) throw Error("stack: expected a non-empty list of tensors");
  for (size_t i = 1; i < tensors.size(); ++i) {
    if (!(tensors[i].sizes() == tensors[0].sizes())) {
      throw Error(detail::str_cat("stack: expects every tensor to have the same shape, but got ",
                                  shape_to_string(tensors[0].sizes()), " at position 0 and ",
                                  shape_to_string(tensors[i].sizes()), " at position ", i));
    }
  }
  const int64_t d = wrap_dim(dim, tensors[0].dim() + 1, "stack");
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (const Tensor& t : tensors) parts.push_back(glassbox::unsqueeze(t, d));
  return glassbox::cat(parts, d);
}

}  // namespace glassbox::native
