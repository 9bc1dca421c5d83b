// flip, roll, tril and triu on the CPU. flip and roll move whole elements: each output index
// reads the input at an index remapped per dimension, so one byte-moving loop serves every dtype.
#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/core/parallel.h"
#include "engine/ops/join_reorder_copy.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/flip.h"
#include "glassbox/ops/native/roll.h"
#include "glassbox/ops/native/tril.h"
#include "glassbox/ops/native/triu.h"

namespace glassbox::native {

namespace {

using IndexMaps = std::vector<std::vector<int64_t>>;  // per dim: output index -> input index

template <class Word>
void copy_row(char* out, const char* in, const std::vector<int64_t>& offsets) {
  for (size_t j = 0; j < offsets.size(); ++j) std::memcpy(out + j * sizeof(Word), in + offsets[j], sizeof(Word));
}

// out (contiguous, src's shape) gets out[i0, ..., in] = src[maps[0][i0], ..., maps[n][in]].
void remap_copy(const Tensor& src, Tensor& out, const IndexMaps& maps) {
  const int64_t ndim = src.dim(), numel = src.numel();
  if (numel == 0) return;
  const int64_t es = static_cast<int64_t>(element_size(src.dtype()));
  const char* in = static_cast<const char*>(src.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  if (ndim == 0) {
    std::memcpy(dst, in, static_cast<size_t>(es));
    return;
  }
  const int64_t inner = src.sizes()[ndim - 1];
  std::vector<int64_t> inner_offsets(static_cast<size_t>(inner));
  for (int64_t j = 0; j < inner; ++j) inner_offsets[j] = maps[ndim - 1][j] * src.strides()[ndim - 1] * es;
  const int64_t rows = numel / inner;
  parallel_for(0, rows, std::max<int64_t>(1, kDefaultGrain / inner), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      int64_t offset = 0;  // byte offset of the input row that output row r reads
      for (int64_t d = ndim - 2, rest = r; d >= 0; --d) {
        const int64_t i = rest % src.sizes()[d];
        rest /= src.sizes()[d];
        offset += maps[d][i] * src.strides()[d] * es;
      }
      char* o = dst + r * inner * es;
      switch (es) {
        case 1: copy_row<uint8_t>(o, in + offset, inner_offsets); break;
        case 2: copy_row<uint16_t>(o, in + offset, inner_offsets); break;
        case 4: copy_row<uint32_t>(o, in + offset, inner_offsets); break;
        default: copy_row<uint64_t>(o, in + offset, inner_offsets); break;
      }
    }
  });
}

IndexMaps identity_maps(const Tensor& t) {
  IndexMaps maps(static_cast<size_t>(t.dim()));
  for (int64_t d = 0; d < t.dim(); ++d) {
    maps[d].resize(static_cast<size_t>(t.sizes()[d]));
    for (int64_t i = 0; i < t.sizes()[d]; ++i) maps[d][i] = i;
  }
  return maps;
}

// Rotation by `shift` in [0, size): output index i reads input index i - shift (mod size).
void rotate(std::vector<int64_t>& map, int64_t shift) {
  const int64_t size = static_cast<int64_t>(map.size());
  for (int64_t i = 0; i < size; ++i) map[i] = (i - shift + size) % size;
}

// Zeroes, in a contiguous tensor, the elements outside the kept triangle of every matrix of its
// last two dims: tril keeps column j <= i + diagonal of row i, triu keeps j >= i + diagonal.
void zero_outside_triangle(Tensor& t, int64_t diagonal, bool lower) {
  const int64_t rows = t.sizes()[t.dim() - 2], cols = t.sizes()[t.dim() - 1];
  if (t.numel() == 0) return;
  const int64_t es = static_cast<int64_t>(element_size(t.dtype()));
  // Diagonals past either corner behave like the corner one; clamping keeps i + d from overflowing.
  const int64_t d = std::clamp(diagonal, -rows, cols);
  char* base = static_cast<char*>(t.data_ptr());
  const int64_t all_rows = t.numel() / cols;
  parallel_for(0, all_rows, std::max<int64_t>(1, kDefaultGrain / cols), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t i = r % rows;
      const int64_t lo = lower ? std::clamp<int64_t>(i + d + 1, 0, cols) : 0;
      const int64_t hi = lower ? cols : std::clamp<int64_t>(i + d, 0, cols);
      if (hi > lo) std::memset(base + (r * cols + lo) * es, 0, static_cast<size_t>((hi - lo) * es));
    }
  });
  if (t.unsafe_impl()->storage()) t.unsafe_impl()->storage()->bump_version();
}

}  // namespace

Tensor flip_cpu(const Tensor& self, IntArrayRef dims) {
  const DimVector flipped = flip_dims(self, dims);
  IndexMaps maps = identity_maps(self);
  for (int64_t d : flipped) {
    if (self.dim() == 0) continue;
    std::reverse(maps[d].begin(), maps[d].end());
  }
  Tensor out = empty_tensor(self.sizes(), self.dtype(), self.device());
  remap_copy(self, out, maps);
  return out;
}

Tensor roll_cpu(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  const RollPlan plan = roll_plan(self, shifts, dims);
  Tensor out = empty_tensor(self.sizes(), self.dtype(), self.device());
  if (plan.flattened) {
    // Rolling the flattened tensor: a 1-d view of a contiguous copy, rotated as one dimension.
    const int64_t flat[] = {self.numel()};
    const Tensor src = self.contiguous().view(flat);
    Tensor dst = out.view(flat);
    IndexMaps maps = identity_maps(src);
    rotate(maps[0], plan.shifts[0]);
    remap_copy(src, dst, maps);
    return out;
  }
  IndexMaps maps = identity_maps(self);
  for (int64_t d = 0; d < self.dim(); ++d) rotate(maps[d], plan.shifts[d]);
  remap_copy(self, out, maps);
  return out;
}

Tensor tril_cpu(const Tensor& self, int64_t diagonal) {
  return triangle("tril", self, diagonal, true, zero_outside_triangle);
}
Tensor triu_cpu(const Tensor& self, int64_t diagonal) {
  return triangle("triu", self, diagonal, false, zero_outside_triangle);
}
Tensor& tril_cpu_(Tensor& self, int64_t diagonal) {
  return triangle_("tril_", self, diagonal, true, zero_outside_triangle);
}
Tensor& triu_cpu_(Tensor& self, int64_t diagonal) {
  return triangle_("triu_", self, diagonal, false, zero_outside_triangle);
}

}  // namespace glassbox::native
