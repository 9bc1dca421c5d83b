// cat on the CPU: each input is copied (converting its dtype, following its strides) into its
// slice of the output, so the element loops are copy_'s, threads included.
#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/ops/join_reorder_copy.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/cat.h"

namespace glassbox::native {

Tensor cat_cpu(TensorList tensors, int64_t dim) {
  const CatResult r = cat_result("cat", tensors, dim);
  Tensor out = empty_tensor(r.shape, r.dtype, r.device);
  copy_into_cat_slices(tensors, r, out);
  return out;
}

Tensor& cat_out_cpu(TensorList tensors, int64_t dim, Tensor& out) {
  const CatResult r = cat_result("cat.out", tensors, dim);
  check_cat_out(r, out);
  copy_into_cat_slices(tensors, r, out);
  return out;
}

}  // namespace glassbox::native
