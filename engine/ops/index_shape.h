#pragma once
// Shape and dtype inference of the indexing operators (index, index_put_, gather, scatter,
// index_select, index_add_, masked_fill, one_hot, embedding_dense_backward), called by their front
// end (indexing.cpp), which is every device's kernel, Meta's included.
#include <cstdint>
#include <vector>

#include "engine/core/tensor.h"

namespace glassbox {

// "index: index 7 is out of bounds for dimension 1 with size 3" (an IndexError).
[[noreturn]] void throw_index_out_of_range(const char* op, int64_t index, int64_t dim, int64_t size);

// Throws unless `index` is defined, of an integer dtype the op accepts (int64, and int32 when
// allow_int32), and on self's device.
void check_index_tensor(const char* op, const char* arg, const Tensor& self, const Tensor& index,
                        bool allow_int32 = true);

// True for the dtypes a mask may have in `indices` (bool; uint8 as PyTorch's legacy byte masks).
bool is_mask_dtype(ScalarType t);

// index / index_put_: where the index tensors go. `indices` holds one entry per leading dim of self
// (bool masks already replaced by one integer tensor per dim they cover).
struct AdvancedIndexing {
  DimVector index_shape;              // the index tensors broadcast together
  DimVector result_shape;             // the shape of self[indices]
  std::vector<int64_t> indexed_dims;  // the dims of self the index tensors address, ascending
  std::vector<Tensor> indices;        // their index tensors, as given (not broadcast)
  int64_t result_dim = 0;             // where index_shape starts in result_shape
};

// Checks the entries of `indices` against self: count, dtypes, devices, and for masks their shape.
// Masks are accepted only when allow_masks (the Meta key cannot know how many elements they pick).
void check_indices(const char* op, const Tensor& self, OptionalTensorList indices, bool allow_masks);

// The geometry of self[indices] for integer index tensors. Index tensors separated by a None (a
// dim left alone) put the broadcast index dims first; adjacent ones put them where they stand.
AdvancedIndexing advanced_indexing(const char* op, const Tensor& self, OptionalTensorList indices);

// index_put_: values must broadcast to the indexing result and share self's dtype.
void check_index_put_values(const char* op, const Tensor& self, const Tensor& values,
                            std::span<const int64_t> result_shape);

// gather(self, dim, index): the result has index's shape. Returns the wrapped dim.
int64_t check_gather(const char* op, const Tensor& self, int64_t dim, const Tensor& index);
// scatter(self, dim, index, src) and scatter_add: src (when given) must cover index and share
// self's dtype. Returns the wrapped dim.
int64_t check_scatter(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src);

// index_select(self, dim, index): self's shape with dim's size replaced by index's length.
DimVector index_select_shape(const char* op, const Tensor& self, int64_t dim, const Tensor& index);
// index_add_(self, dim, index, source): source is self's shape with dim's size index's length.
// Returns the wrapped dim.
int64_t check_index_add(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);

// masked_fill: a bool mask broadcasting with self; the result has the broadcast shape. In-place,
// that shape must be self's. A Tensor value must be 0-d.
DimVector masked_fill_shape(const char* op, const Tensor& self, const Tensor& mask, const Tensor* value, bool in_place);

// one_hot: self of an integer dtype; the result is self's shape + [num_classes], int64.
DimVector one_hot_shape(const Tensor& self, int64_t num_classes);
// one_hot's errors on the data: num_classes = -1 with an empty self (an Error), and a class
// value outside [0, num_classes) (an IndexError).
[[noreturn]] void throw_one_hot_no_classes(const Tensor& self);
[[noreturn]] void throw_one_hot_class_out_of_range(int64_t value, int64_t num_classes);

// embedding_dense_backward: grad_output is indices' shape + [embedding_dim]; the result is
// [num_weights, embedding_dim] in grad_output's (floating-point) dtype.
DimVector embedding_backward_shape(const Tensor& grad_output, const Tensor& indices, int64_t num_weights);

}  // namespace glassbox
