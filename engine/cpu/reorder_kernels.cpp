// flip, roll, tril and triu on the CPU: loops over the element arithmetic of
// engine/ops/kernels/reorder.h (the front end is engine/ops/join_reorder_copy.cpp). Elements move
// as unsigned words of their size, so one loop serves every dtype of that size.
#include <algorithm>
#include <cstring>

#include "engine/core/parallel.h"
#include "engine/ops/join_reorder_copy.h"
#include "engine/ops/kernels/element_word.h"

namespace glassbox::cpu {

namespace {

// Row by row: each output row's input offset once, then its elements through the last dim's remapping.
template <class W>
void remap_rows(const RemapPlan& r, const W* in, W* out, int64_t numel) {
  if (r.ndim == 0) {
    *out = *in;
    return;
  }
  const int last = r.ndim - 1;
  const int64_t inner = r.sizes[last], stride = r.in_strides[last];
  parallel_for(0, numel / inner, std::max<int64_t>(1, kDefaultGrain / inner), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const W* src = in + remapped_row_offset(r, row);
      W* dst = out + row * inner;
      for (int64_t j = 0; j < inner; ++j) dst[j] = src[remapped_index(r, last, j) * stride];
    }
  });
}

void remap(const RemapPlan& plan, const Tensor& src, Tensor& out) {
  visit_element_size(src.dtype(), [&]<size_t B>() {
    using W = element_word_t<B>;
    remap_rows<W>(plan, static_cast<const W*>(src.data_ptr()), static_cast<W*>(out.data_ptr()), src.numel());
  });
}

// Each row of each matrix zeroes its range of columns in one memset.
void zero_outside_triangle(const TrianglePlan& plan, Tensor& t) {
  const int64_t es = static_cast<int64_t>(element_size(t.dtype()));
  char* base = static_cast<char*>(t.data_ptr());
  parallel_for(0, t.numel() / plan.cols, std::max<int64_t>(1, kDefaultGrain / plan.cols),
               [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const ColumnRange z = zeroed_columns(plan, r % plan.rows);
      if (z.end > z.begin) std::memset(base + (r * plan.cols + z.begin) * es, 0, (z.end - z.begin) * es);
    }
  });
}

const ReorderBackend kReorder{remap, zero_outside_triangle};
const ReorderBackends::Registration kRegistered(DeviceType::CPU, kReorder);
}  // namespace

}  // namespace glassbox::cpu
