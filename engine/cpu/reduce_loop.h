#pragma once
// The reduction loop. Every reduction sees its input as a contiguous [outer, reduced, inner]
// block (reduce_geometry of engine/ops/reduction_shape.h makes it so) and an Op that combines values into an
// accumulator:
//   using acc_t; acc_t identity() const; acc_t combine(acc_t acc, acc_t v) const; acc_t merge(acc_t, acc_t) const;
// Runs along `reduced` are summed in blocks with many independent accumulators (they vectorise and
// bound the rounding error), blocks combine pairwise, and long runs split into fixed chunks that
// threads share. The split depends on the shape only, so results do not depend on the thread count.
#include <algorithm>
#include <vector>

#include "engine/core/parallel.h"
#include "engine/cpu/loops.h"
#include "engine/ops/reduction_shape.h"

namespace glassbox::cpu {

inline constexpr int64_t kReduceLanes = 32;     // independent accumulators of a block (several vector registers)
inline constexpr int64_t kReduceBlock = 1024;   // elements per block before pairwise combining
inline constexpr int64_t kReduceChunk = 65536;  // elements per thread task when few results are asked for
// Elements per thread task of a column sum that makes few tasks otherwise (a bias's gradient: 512
// rows of 128 to 4096 columns, one task in all): the rows are cut into chunks of about this many.
inline constexpr int64_t kColumnChunk = 8192;
inline constexpr int64_t kFewTasks = 16;

template <class T, class A>
inline A load_as(const T* p) {
  return static_cast<A>(static_cast<opmath_t<T>>(*p));
}

// One block of a contiguous run, values shifted by -c (for centred statistics).
template <class Op, class T, bool kCentered>
inline typename Op::acc_t reduce_block(const T* x, int64_t n, const Op& op, typename Op::acc_t c) {
  using A = typename Op::acc_t;
  A acc[kReduceLanes];
  for (auto& a : acc) a = op.identity();
  int64_t i = 0;
  for (; i + kReduceLanes <= n; i += kReduceLanes)
    for (int64_t k = 0; k < kReduceLanes; ++k) {
      A v = load_as<T, A>(x + i + k);
      if constexpr (kCentered) v -= c;
      acc[k] = op.combine(acc[k], v);
    }
  for (; i < n; ++i) {
    A v = load_as<T, A>(x + i);
    if constexpr (kCentered) v -= c;
    acc[0] = op.combine(acc[0], v);
  }
  for (int64_t w = kReduceLanes / 2; w > 0; w /= 2)
    for (int64_t k = 0; k < w; ++k) acc[k] = op.merge(acc[k], acc[k + w]);
  return acc[0];
}

#ifdef GLASSBOX_X86_DISPATCH
template <class Op, class T, bool kCentered>
__attribute__((target("avx2"))) typename Op::acc_t reduce_block_avx2(const T* x, int64_t n, const Op& op,
                                                                     typename Op::acc_t c) {
  return reduce_block<Op, T, kCentered>(x, n, op, c);
}
#endif

// A contiguous run of n values, blocks combined pairwise.
template <class Op, class T, bool kCentered = false>
typename Op::acc_t reduce_run(const T* x, int64_t n, const Op& op, typename Op::acc_t c = {}) {
  if (n <= kReduceBlock) {
#ifdef GLASSBOX_X86_DISPATCH
    if (n >= 64 && cpu_has_avx2()) return reduce_block_avx2<Op, T, kCentered>(x, n, op, c);
#endif
    return reduce_block<Op, T, kCentered>(x, n, op, c);
  }
  const int64_t half = ((n / kReduceBlock + 1) / 2) * kReduceBlock;
  // Left half first, in its own statement: as two arguments of one call the compiler may evaluate
  // them right to left, which walks memory backwards block by block and defeats the prefetcher.
  const typename Op::acc_t left = reduce_run<Op, T, kCentered>(x, half, op, c);
  const typename Op::acc_t right = reduce_run<Op, T, kCentered>(x + half, n - half, op, c);
  return op.merge(left, right);
}

// Rows [0, rows) of a block whose rows are `stride` elements apart, columns [0, width), into
// out[width]: rows accumulate column-wise (the inner loop vectorises across columns), and every
// kRowBlock rows the partial results fold into out, which bounds the rounding error of long sums.
template <class Op, class T, bool kCentered>
void reduce_columns(const T* x, int64_t rows, int64_t width, int64_t stride, const Op& op,
                    const typename Op::acc_t* center, typename Op::acc_t* out) {
  using A = typename Op::acc_t;
  constexpr int64_t kTile = 256, kRowBlock = 128;
  A part[kTile];
  for (int64_t c0 = 0; c0 < width; c0 += kTile) {
    const int64_t w = std::min(kTile, width - c0);
    for (int64_t j = 0; j < w; ++j) out[c0 + j] = op.identity();
    for (int64_t r0 = 0; r0 < rows; r0 += kRowBlock) {
      for (int64_t j = 0; j < w; ++j) part[j] = op.identity();
      const int64_t r1 = std::min(rows, r0 + kRowBlock);
      for (int64_t r = r0; r < r1; ++r) {
        const T* row = x + r * stride + c0;
        for (int64_t j = 0; j < w; ++j) {
          A v = load_as<T, A>(row + j);
          if constexpr (kCentered) v -= center[c0 + j];
          part[j] = op.combine(part[j], v);
        }
      }
      for (int64_t j = 0; j < w; ++j) out[c0 + j] = op.merge(out[c0 + j], part[j]);
    }
  }
}

// out[o * inner + i] = the reduction of x[o, :, i]; center (optional, same layout) is subtracted
// from every value first.
template <class Op, class T, bool kCentered = false>
void reduce_ori(const T* x, int64_t outer, int64_t reduced, int64_t inner, const Op& op,
                const typename Op::acc_t* center, typename Op::acc_t* out) {
  using A = typename Op::acc_t;
  const int64_t outputs = outer * inner;
  if (outputs == 0) return;
  if (reduced == 0) {
    std::fill(out, out + outputs, op.identity());
    return;
  }
  auto c_at = [&](int64_t k) { return kCentered ? center[k] : A{}; };
  constexpr int64_t kColsPerTask = 4096;
  const int64_t tiles = (inner + kColsPerTask - 1) / kColsPerTask;
  // Few results from many values, or few wide tasks over many rows: split the reduced dim into
  // fixed chunks, then merge them.
  int64_t rows_per_chunk = std::max<int64_t>(1, kReduceChunk / inner), chunks = 1;
  if (outputs <= 64 && reduced * inner > 2 * kReduceChunk) {
    chunks = (reduced + rows_per_chunk - 1) / rows_per_chunk;
  } else if (inner > 1 && outer * tiles < kFewTasks && reduced * inner > 2 * kColumnChunk) {
    rows_per_chunk = std::max({int64_t{1}, kColumnChunk / inner, (reduced + kFewTasks - 1) / kFewTasks});
    chunks = (reduced + rows_per_chunk - 1) / rows_per_chunk;
  }
  if (chunks > 1) {
    std::vector<A> partial(static_cast<size_t>(outer * chunks * inner));
    parallel_for(0, outer * chunks, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t t = lo; t < hi; ++t) {
        const int64_t o = t / chunks, ch = t % chunks;
        const int64_t r0 = ch * rows_per_chunk, r1 = std::min(reduced, r0 + rows_per_chunk);
        const T* base = x + (o * reduced + r0) * inner;
        A* dst = partial.data() + t * inner;
        if (inner == 1) dst[0] = reduce_run<Op, T, kCentered>(base, r1 - r0, op, c_at(o));
        else
          reduce_columns<Op, T, kCentered>(base, r1 - r0, inner, inner, op, kCentered ? center + o * inner : nullptr,
                                           dst);
      }
    });
    // The chunks' results merge pairwise (a tree, for its smaller rounding error), a row of inner
    // results at a time.
    for (int64_t o = 0; o < outer; ++o) {
      A* rows = partial.data() + o * chunks * inner;
      for (int64_t n = chunks; n > 1; n = (n + 1) / 2) {
        for (int64_t k = 0; k < n / 2; ++k)
          for (int64_t i = 0; i < inner; ++i)
            rows[k * inner + i] = op.merge(rows[2 * k * inner + i], rows[(2 * k + 1) * inner + i]);
        if (n % 2) std::copy(rows + (n - 1) * inner, rows + n * inner, rows + (n / 2) * inner);
      }
      std::copy(rows, rows + inner, out + o * inner);
    }
    return;
  }
  // Many results: threads split the outer rows (and column tiles of wide inner blocks).
  const int64_t work_per_task = reduced * std::min(inner, kColsPerTask);
  parallel_for(0, outer * tiles, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(work_per_task, 1)),
               [&](int64_t lo, int64_t hi) {
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t o = t / tiles, c0 = (t % tiles) * kColsPerTask;
      const int64_t w = std::min(kColsPerTask, inner - c0);
      const T* base = x + o * reduced * inner + c0;
      A* dst = out + o * inner + c0;
      if (inner == 1) dst[0] = reduce_run<Op, T, kCentered>(base, reduced, op, c_at(o));
      else
        reduce_columns<Op, T, kCentered>(base, reduced, w, inner, op, kCentered ? center + o * inner + c0 : nullptr,
                                         dst);
    }
  });
}

}  // namespace glassbox::cpu
