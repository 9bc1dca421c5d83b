#pragma once
// The history of differentiable views (used by autograd_meta.cpp). An in-place op on a view
// changes its base too, so the base's history becomes a CopySlices node: the base's gradient with
// the view's part routed through the in-place op's backward. A view's own grad_fn is then made
// again from the base (an as_strided view of the base's gradient) whenever the shared version
// counter says the base was written since.
#include <memory>

#include "engine/autograd/autograd_meta.h"

namespace glassbox::autograd {

// Makes m's grad_fn again if the base was written in place since it was made.
void refresh_view_history(AutogradMeta& m);

// rebase_history for a view: `node` is the in-place op's backward, recorded with the view as self.
void rebase_view_history(const Tensor& view, AutogradMeta& m, const std::shared_ptr<Node>& node);

// The leaf that requires grad which `t` is a view of, if any (in-place writes to it are refused).
bool is_view_of_leaf_requiring_grad(const AutogradMeta& m);

}  // namespace glassbox::autograd
