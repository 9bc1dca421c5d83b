#include "engine/autograd/view_history.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "engine/autograd/formulas.h"
#include "engine/core/error.h"
#include "glassbox/ops/Functions.h"

namespace glassbox::autograd {

namespace {

uint64_t version_of(const Tensor& t) { return t.unsafe_impl()->storage()->version(); }

ViewGeometry geometry_of(const Tensor& t) { return ViewGeometry{t.sizes(), t.strides(), t.storage_offset()}; }

// Whether no two elements of this layout share a storage position (false for expanded or
// overlapping windows): then writing a gradient into it element by element loses nothing. Taken
// from the smallest stride up, each dim must step past everything the smaller ones reach.
bool non_overlapping(const ViewGeometry& g) {
  std::vector<size_t> dims;
  for (size_t d = 0; d < g.sizes.size(); ++d) {
    if (g.sizes[d] == 0) return true;
    if (g.sizes[d] > 1) dims.push_back(d);
  }
  std::sort(dims.begin(), dims.end(),
            [&](size_t a, size_t b) { return std::abs(g.strides[a]) < std::abs(g.strides[b]); });
  int64_t reach = 0;  // the farthest position the dims so far get to from the first element
  for (size_t d : dims) {
    const int64_t stride = std::abs(g.strides[d]);
    if (stride <= reach) return false;
    reach += stride * (g.sizes[d] - 1);
  }
  return true;
}

bool all_strides_non_negative(const ViewGeometry& g) {
  return std::all_of(g.strides.begin(), g.strides.end(), [](int64_t s) { return s >= 0; });
}

// A fresh tensor laid out as the base is, so that the view's geometry (relative to the base's
// offset) picks the view's elements out of it; filled with `from`, or with zeros.
Tensor base_layout(const ViewGeometry& base, ScalarType dtype, Device device, const Tensor* from) {
  Tensor out = glassbox::empty_strided(base.sizes, base.strides, dtype, device);
  if (from) glassbox::copy_(out, *from);
  else glassbox::fill_(out, Scalar(0.0));
  return out;
}

Tensor slot_of(const Tensor& base_buffer, const ViewGeometry& base, const ViewGeometry& view) {
  return glassbox::as_strided(base_buffer, view.sizes, view.strides, view.offset - base.offset);
}

// The geometry of the base and the view can be used for the direct route (write into a buffer
// laid out like the base) when neither overlaps itself and the view starts inside the base.
bool direct_route(const ViewGeometry& base, const ViewGeometry& view) {
  return non_overlapping(base) && non_overlapping(view) && all_strides_non_negative(base) &&
         all_strides_non_negative(view) && view.offset >= base.offset;
}

// The grad_fn of a view made again from its base: the view's gradient, placed where the view's
// elements sit in the base (zeros elsewhere).
class AsStridedViewBackward final : public Node {
 public:
  AsStridedViewBackward(ViewGeometry base, ViewGeometry view) : base_(std::move(base)), view_(std::move(view)) {}
  std::string name() const override { return "AsStridedBackward0"; }
  variable_list apply(variable_list&& grads) override {
    const Tensor& grad = grads[0];
    if (!direct_route(base_, view_))
      return {as_strided_backward(grad, base_.sizes, base_.strides, base_.offset, view_.sizes, view_.strides,
                                  view_.offset)};
    Tensor out = base_layout(base_, grad.dtype(), grad.device(), nullptr);
    Tensor slot = slot_of(out, base_, view_);
    glassbox::copy_(slot, grad);
    return {out};
  }

 private:
  ViewGeometry base_, view_;
};

// The base's history after an in-place op on one of its views: the base's incoming gradient goes
// to its history from before the write, except for the view's part, which goes through the
// in-place op's backward (`fn`), whose other inputs (e.g. `other` of mul_) get their gradients too.
class CopySlices final : public Node {
 public:
  CopySlices(ViewGeometry base, ViewGeometry view, std::shared_ptr<Node> fn)
      : base_(std::move(base)), view_(std::move(view)), fn_(std::move(fn)) {}
  std::string name() const override { return "CopySlices"; }
  variable_list apply(variable_list&& grads) override {
    const Tensor& grad = grads[0];
    Tensor result = base_layout(base_, grad.dtype(), grad.device(), &grad);
    Tensor slot = slot_of(result, base_, view_);
    variable_list fn_grads = fn_->apply({glassbox::clone(slot)});
    if (!fn_grads.empty() && fn_grads[0].defined()) glassbox::copy_(slot, fn_grads[0]);
    else glassbox::fill_(slot, Scalar(0.0));
    if (fn_grads.empty()) fn_grads.resize(1);
    fn_grads[0] = std::move(result);
    return fn_grads;
  }
  void release_variables() override { fn_->release_variables(); }

 private:
  ViewGeometry base_, view_;
  std::shared_ptr<Node> fn_;
};

void make_view_grad_fn(AutogradMeta& m) {
  ViewInfo& v = *m.view_;
  v.version = version_of(v.base);
  Edge base_edge = gradient_edge(v.base);
  if (!base_edge.is_valid() || !is_floating_point(v.base.dtype())) {
    m.grad_fn_.reset();
    return;
  }
  auto node = std::make_shared<AsStridedViewBackward>(geometry_of(v.base), v.geometry);
  node->set_next_edges({std::move(base_edge)});
  m.grad_fn_ = node;
  m.output_nr_ = node->add_input_metadata(InputMetadata{v.geometry.sizes, v.base.dtype(), v.base.device()});
}

}  // namespace

void refresh_view_history(AutogradMeta& m) {
  // A view the user made a leaf (requires_grad_ on a view of a tensor without history) keeps it.
  if (!m.view_ || m.requires_grad_ || version_of(m.view_->base) == m.view_->version) return;
  make_view_grad_fn(m);
}

void rebase_view_history(const Tensor& view, AutogradMeta& m, const std::shared_ptr<Node>& node) {
  const Tensor& base = m.view_->base;
  const ViewGeometry base_geometry = geometry_of(base);
  if (!direct_route(base_geometry, m.view_->geometry))
    throw Error("in-place operation on a view that overlaps itself or lies outside its base ([" +
                std::string(to_string(view.dtype())) + " " + shape_to_string(view.sizes()) +
                "]) is not differentiable; clone() it first");
  // The in-place op's backward reads the view's part of the base's gradient; what it returns for
  // self goes back into that part, on to the base's history from before the write.
  std::vector<Edge> edges = node->next_edges();
  if (edges.empty()) edges.resize(1);
  edges[0] = gradient_edge(base);
  node->set_next_edges(edges);
  node->add_input_metadata(view);
  auto copy_slices = std::make_shared<CopySlices>(base_geometry, m.view_->geometry, node);
  copy_slices->set_next_edges(std::move(edges));
  AutogradMeta& base_meta = materialize_autograd_meta(base);
  base_meta.grad_fn_ = copy_slices;
  base_meta.grad_accumulator_.reset();
  base_meta.output_nr_ = copy_slices->add_input_metadata(base);
  make_view_grad_fn(m);
}

bool is_view_of_leaf_requiring_grad(const AutogradMeta& m) {
  if (!m.view_) return false;
  const AutogradMeta* base = autograd_meta(m.view_->base);
  return base && base->requires_grad_ && !base->grad_fn_;
}

void set_view_of(const Tensor& view, const Tensor& self) {
  if (!view.defined() || !self.defined() || view.unsafe_impl() == self.unsafe_impl()) return;
  const TensorImpl& v = *view.unsafe_impl();
  const TensorImpl& s = *self.unsafe_impl();
  // A copy (reshape of a non-contiguous tensor), or a reinterpretation as another dtype, is no view.
  if (!v.has_storage() || !s.has_storage() || v.storage().get() != s.storage().get() || v.dtype() != s.dtype()) return;
  const AutogradMeta* self_meta = autograd_meta(self);
  const Tensor& base = self_meta && self_meta->view_ ? self_meta->view_->base : self;
  AutogradMeta& m = materialize_autograd_meta(view);
  m.view_ = std::make_unique<ViewInfo>(ViewInfo{base, geometry_of(view), version_of(base)});
}

bool is_view(const Tensor& t) {
  const AutogradMeta* m = autograd_meta(t);
  return m && m->view_;
}

}  // namespace glassbox::autograd
