// The Meta kernels of the two element-wise operators that are not structured (where, div with a
// rounding mode): their front ends (engine/ops/pointwise_iterator.h) without the compute.
#include "engine/ops/pointwise_iterator.h"
#include "glassbox/ops/native/div.h"
#include "glassbox/ops/native/where.h"

namespace glassbox::native {

Tensor div_mode_meta(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  Tensor out;
  div_mode_iterator("div", parse_rounding_mode("div", rounding_mode), self, other, out);
  return out;
}
Tensor& div_mode_meta_(Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  div_mode_iterator("div_", parse_rounding_mode("div_", rounding_mode), self, other, self);
  return self;
}
Tensor& div_mode_out_meta(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode,
                          Tensor& out) {
  div_mode_iterator("div.out", parse_rounding_mode("div.out", rounding_mode), self, other, out);
  return out;
}

Tensor where_meta(const Tensor& condition, const Tensor& self, const Tensor& other) {
  Tensor out;
  return where_iterator("where", condition, self, other, out).result;
}
Tensor& where_out_meta(const Tensor& condition, const Tensor& self, const Tensor& other, Tensor& out) {
  where_iterator("where.out", condition, self, other, out);
  return out;
}

}  // namespace glassbox::native
