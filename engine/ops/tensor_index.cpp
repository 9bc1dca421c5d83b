#include "engine/ops/tensor_index.h"

#include <string>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/ops/index_shape.h"
#include "glassbox/ops/Functions.h"

namespace glassbox {

namespace {
using indexing::TensorIndex;
using Kind = TensorIndex::Kind;

bool is_mask(const TensorIndex& i) { return i.kind() == Kind::Tensor && is_mask_dtype(i.tensor().dtype()); }

// How many dims of self an index stands for (None, Ellipsis and bools stand for none).
int64_t dims_covered(const TensorIndex& i) {
  switch (i.kind()) {
    case Kind::Integer:
    case Kind::Slice: return 1;
    case Kind::Tensor: return is_mask(i) ? i.tensor().dim() : 1;
    default: return 0;
  }
}

// A bool as an advanced index on a new axis of size 1: True picks it ([0]), False picks nothing ([]).
Tensor bool_as_index(bool b, Device device) {
  const DimVector shape{b ? 1 : 0};
  Tensor cpu = empty_tensor(shape, ScalarType::Int64, Device(DeviceType::CPU));
  if (b) *cpu.data<int64_t>() = 0;
  if (device.type == DeviceType::CPU) return cpu;
  Tensor out = empty_tensor(shape, ScalarType::Int64, device);
  return device.type == DeviceType::Meta ? out : glassbox::copy_(out, cpu);
}

// The basic indices applied (a view of self) and the advanced ones left for index/index_put_,
// as the Tensor?[] list those take: one entry per dim of the view, a mask standing for its dims.
struct Indexed {
  Tensor view;
  std::vector<std::optional<Tensor>> advanced;
  int64_t advanced_dims = 0;  // dims of the view the entries of `advanced` cover
  bool has_advanced = false;

  void add(int64_t at_dim, Tensor t, int64_t covers) {
    for (; advanced_dims < at_dim; ++advanced_dims) advanced.emplace_back();
    advanced.emplace_back(std::move(t));
    advanced_dims += covers;
    has_advanced = true;
  }
};

Indexed apply_basic(const Tensor& self, std::span<const TensorIndex> indices) {
  int64_t covered = 0;
  bool ellipsis = false;
  for (const TensorIndex& i : indices) {
    covered += dims_covered(i);
    if (i.kind() == Kind::Ellipsis) {
      if (ellipsis) throw IndexError("index: an index can only have a single ellipsis ('...')");
      ellipsis = true;
    }
  }
  if (covered > self.dim()) {
    throw IndexError(detail::str_cat("index: too many indices for tensor of dimension ", self.dim(), " (shape ",
                                     shape_to_string(self.sizes()), "): the indices cover ", covered, " dimensions"));
  }
  Indexed r{self, {}, 0, false};
  int64_t dim = 0;  // the dim of r.view the next index applies to
  for (const TensorIndex& i : indices) {
    switch (i.kind()) {
      case Kind::None: r.view = glassbox::unsqueeze(r.view, dim++); break;
      case Kind::Ellipsis: dim += self.dim() - covered; break;
      case Kind::Integer: {
        const int64_t size = r.view.sizes()[dim];
        if (i.integer() < -size || i.integer() >= size) throw_index_out_of_range("index", i.integer(), dim, size);
        r.view = glassbox::select(r.view, dim, i.integer());
        break;
      }
      case Kind::Slice:
        if (i.slice().step <= 0)
          throw ValueError(detail::str_cat("index: slice step must be positive, got ", i.slice().step));
        r.view = glassbox::slice(r.view, dim++, i.slice().start, i.slice().stop, i.slice().step);
        break;
      case Kind::Boolean:
        r.view = glassbox::unsqueeze(r.view, dim);
        r.add(dim++, bool_as_index(i.boolean(), self.device()), 1);
        break;
      case Kind::Tensor: {
        const Tensor& t = i.tensor();
        GB_CHECK(t.defined(), "index: an index tensor is undefined");
        if (is_mask(i) && t.dim() == 0) {  // a 0-d mask is a bool: a new axis kept or emptied
          if (t.device().type != DeviceType::CPU)
            throw Error("index: a 0-d mask is read as a bool, which needs its value on the cpu, got " +
                        t.device().to_string());
          const bool keep = *static_cast<const uint8_t*>(t.data_ptr()) != 0;  // bool and uint8: one byte
          r.view = glassbox::unsqueeze(r.view, dim);
          r.add(dim++, bool_as_index(keep, self.device()), 1);
        } else {
          const int64_t covers = dims_covered(i);
          r.add(dim, t, covers);
          dim += covers;
        }
        break;
      }
    }
  }
  return r;
}

// Leading size-1 dims of value beyond the target's rank are dropped, so that t[0] = u[None] works.
Tensor strip_leading_ones(Tensor value, int64_t target_dim) {
  while (value.dim() > target_dim && value.sizes()[0] == 1) value = glassbox::squeeze(value, 0);
  return value;
}
}  // namespace

Tensor get_item(const Tensor& self, std::span<const TensorIndex> indices) {
  GB_CHECK(self.defined(), "index: undefined tensor");
  Indexed r = apply_basic(self, indices);
  if (r.has_advanced) return glassbox::index(r.view, r.advanced);
  // t[...] and t[()] still return a new view, as in PyTorch.
  return r.view.is_same(self) ? self.view(self.sizes()) : r.view;
}

void set_item(const Tensor& self, std::span<const TensorIndex> indices, const Tensor& value) {
  GB_CHECK(self.defined() && value.defined(), "index_put_: undefined tensor");
  Indexed r = apply_basic(self, indices);
  Tensor v = value.dtype() == self.dtype() ? value : value.to(self.dtype());
  if (!r.has_advanced) {
    glassbox::copy_(r.view, strip_leading_ones(v, r.view.dim()));
    return;
  }
  // The indexed shape is not known before indexing; stripping to the view's rank is enough for
  // every index whose result has no more dims than the view.
  glassbox::index_put_(r.view, r.advanced, strip_leading_ones(v, r.view.dim()));
}

void set_item(const Tensor& self, std::span<const TensorIndex> indices, const Scalar& value) {
  GB_CHECK(self.defined(), "index_put_: undefined tensor");
  Indexed r = apply_basic(self, indices);
  if (!r.has_advanced) {
    glassbox::fill_(r.view, value);
    return;
  }
  glassbox::index_put_(r.view, r.advanced, glassbox::full({}, value, self.dtype(), self.device()));
}

}  // namespace glassbox
