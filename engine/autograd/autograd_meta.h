#pragma once
// AutogradMeta: what autograd keeps on a tensor — requires_grad, .grad, the node that made it
// (grad_fn) and which of that node's outputs it is, hooks — and the helpers the generated
// autograd kernels use to build the graph.
#include <memory>
#include <vector>

#include "engine/autograd/node.h"
#include "engine/core/tensor.h"

namespace glassbox::autograd {

// Where a view's elements sit in the storage it shares with its base.
struct ViewGeometry {
  DimVector sizes;
  DimVector strides;
  int64_t offset = 0;
};

// What a view made by a view operator (view, select, slice, transpose, ...) remembers, so that an
// in-place write through it, or to its base, reaches the history of both (PyTorch's "differentiable
// views"). Base and views share one storage and so one version counter: when the version moved
// since the view's grad_fn was made, the grad_fn is made again from the base's current history.
struct ViewInfo {
  Tensor base;  // the tensor that owns the memory; never itself a view
  ViewGeometry geometry;
  uint64_t version = 0;  // the storage's version when the view's grad_fn was last made
};

class AutogradMeta final : public AutogradMetaInterface {
 public:
  // A view whose base was written in place since its grad_fn was made asks the base (this may
  // make the view require grad, or give it a new grad_fn).
  bool requires_grad() const override;

  bool requires_grad_ = false;  // set by the user on leaves
  Tensor grad_;
  std::shared_ptr<Node> grad_fn_;
  std::weak_ptr<Node> grad_accumulator_;
  uint32_t output_nr_ = 0;
  bool retains_grad_ = false;
  // A non-leaf's retained .grad lives here, shared with the hook that fills it (the hook may
  // outlive the tensor).
  std::shared_ptr<Tensor> retained_grad_;
  std::vector<TensorHook> leaf_hooks_;  // run by AccumulateGrad
  std::unique_ptr<ViewInfo> view_;      // set on views only
};

AutogradMeta* autograd_meta(const Tensor& t);  // null when the tensor has none
AutogradMeta& materialize_autograd_meta(const Tensor& t);

inline bool requires_grad(const Tensor& t) {
  const AutogradMetaInterface* m = t.defined() ? t.unsafe_impl()->autograd_meta() : nullptr;
  return m && m->requires_grad();
}
// Only floating-point leaves may require grad (the error names the dtype otherwise).
void set_requires_grad(const Tensor& t, bool requires_grad);
std::shared_ptr<Node> grad_fn(const Tensor& t);
bool is_leaf(const Tensor& t);
// The AccumulateGrad node of a leaf that requires grad (made on first use, shared after).
std::shared_ptr<Node> grad_accumulator(const Tensor& t);
// Where t's gradient goes: its grad_fn's output, or its AccumulateGrad; invalid if t needs none.
Edge gradient_edge(const Tensor& t);

// Makes `node` the history of `result`, its output number `input_nr` (recorded in order).
void set_history(const Tensor& result, const std::shared_ptr<Node>& node);
// After an in-place op: self's history is now `node` (self stays the same tensor).
void rebase_history(const Tensor& self, const std::shared_ptr<Node>& node);
// In-place ops on a leaf that requires grad, or on a view of one, are an error while grad mode is on.
void check_inplace(const Tensor& self, const char* op_name);

// After a view operator: marks `view` as a view of `self`'s base when the two share memory (a view
// of a view records the first base). The view operators' Autograd kernels call it.
void set_view_of(const Tensor& view, const Tensor& self);
inline void set_view_of(const std::vector<Tensor>& views, const Tensor& self) {
  for (const Tensor& v : views) set_view_of(v, self);
}
bool is_view(const Tensor& t);

// A tensor sharing t's data, with no autograd history (Tensor::detach).
Tensor detach(const Tensor& t);

// --- helpers for the generated kernels: tensors, optional tensors and tensor lists alike.
inline bool any_requires_grad(const Tensor& t) { return requires_grad(t); }
inline bool any_requires_grad(const std::optional<Tensor>& t) { return t && requires_grad(*t); }
inline bool any_requires_grad(TensorList l) {
  for (const Tensor& t : l)
    if (requires_grad(t)) return true;
  return false;
}
template <class... Ts>
bool compute_requires_grad(const Ts&... ts) {
  return (any_requires_grad(ts) || ...);
}
inline void append_edges(std::vector<Edge>& e, const Tensor& t) { e.push_back(gradient_edge(t)); }
inline void append_edges(std::vector<Edge>& e, const std::optional<Tensor>& t) {
  e.push_back(t ? gradient_edge(*t) : Edge());
}
inline void append_edges(std::vector<Edge>& e, TensorList l) {
  for (const Tensor& t : l) e.push_back(gradient_edge(t));
}
template <class... Ts>
std::vector<Edge> collect_next_edges(const Ts&... ts) {
  std::vector<Edge> edges;
  (append_edges(edges, ts), ...);
  return edges;
}

}  // namespace glassbox::autograd
