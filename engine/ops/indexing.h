#pragma once
// The indexing family (gather, scatter, scatter_add, index_select, index_add, index, index_put,
// masked_fill, one_hot, embedding_dense_backward): one front end (indexing.cpp) is each operator's
// kernel on CPU, CUDA and Meta. It checks the arguments (index_shape.h), allocates the result, lays
// the operands over one shape (index_layout.h) and builds the TensorIterator; a backend only runs
// the loop (IndexBackend). Meta has none: its kernel is the front end without compute. What only
// the data can tell (the elements a bool mask picks, an inferred num_classes) Meta refuses.
#include "engine/ops/backend_table.h"
#include "engine/ops/index_layout.h"
#include "engine/ops/tensor_iterator.h"

namespace glassbox {

// How a loop addresses the indexed dim of the operand it reads or writes through an index: its
// byte stride, its size (indices in [-size, size) wrap) and its number (for error messages).
struct IndexedAlong {
  int64_t stride_bytes;
  int64_t size;
  int64_t dim;
  ScalarType dtype;        // the element type moved
  ScalarType index_dtype;  // Int64 or Int32
};

struct IndexBackend {
  // Operands (out, src, index) of one shape: out = src at index. Indices outside [-size, size) throw
  // throw_index_out_of_range(op, ...); index_values (the same values without repetitions) is what a
  // backend that checks before reading checks. Undefined index_values: indices known to be in range.
  void (*gather)(const char* op, TensorIterator& it, const Tensor& index_values, const IndexedAlong& d);
  // Operands (dst, src, index): dst at index = src, or += alpha * src when accumulate. Indices are
  // checked (index_values, as for gather) before anything is written.
  void (*scatter)(const char* op, TensorIterator& it, const Tensor& index_values, const IndexedAlong& d,
                  bool accumulate, const Scalar& alpha);
  // offsets (Int64, a.index_shape) = for each position, the byte offset into self that the index
  // tensors pick (the sum of index * stride over the indexed dims); every index range-checked.
  void (*index_offsets)(const char* op, const Tensor& self, const AdvancedIndexing& a, Tensor& offsets);
  // Operands (self, mask): self = value where mask; or (out, self, mask): out = value where mask,
  // self elsewhere (value already checked against self's dtype).
  void (*fill_masked)(TensorIterator& it, const Scalar& value);
  // out (zeroed by nobody: written whole) = grad rows summed into the rows ids pick; ids (Int64,
  // contiguous) outside [0, out.size(0)) throw throw_index_out_of_range.
  void (*embedding_backward)(const Tensor& grad, const Tensor& ids, int64_t padding_idx, bool scale_grad_by_freq,
                             Tensor& out);
};
using IndexBackends = BackendTable<IndexBackend>;

}  // namespace glassbox
