#include "engine/autograd/generated_support.h"

#include "engine/core/error.h"
#include "glassbox/ops/Functions.h"

namespace glassbox::autograd {

void throw_out_not_differentiable(const char* op) {
  throw Error(std::string(op) +
              "(): functions with out=... arguments don't support automatic differentiation, but one of the "
              "arguments requires grad.");
}

namespace {
class NotImplementedBackward final : public Node {
 public:
  explicit NotImplementedBackward(std::string op) : op_(std::move(op)) {}
  std::string name() const override { return "NotImplemented"; }
  variable_list apply(variable_list&&) override {
    throw Error("the derivative for '" + op_ +
                "' is not implemented (a gradient reached it through an input that "
                "requires grad; call it on .detach()ed inputs or under no_grad() if none should flow through it)");
  }

 private:
  std::string op_;
};
}  // namespace

std::shared_ptr<Node> not_implemented_node(const char* op, std::vector<Edge> next_edges) {
  auto node = std::make_shared<NotImplementedBackward>(op);
  node->set_next_edges(std::move(next_edges));
  return node;
}

void set_not_implemented_history(const Tensor& result, const std::shared_ptr<Node>& node) {
  if (!result.defined()) return;
  if (is_floating_point(result.dtype())) set_history(result, node);
  else node->add_input_metadata(result);  // keeps the output slots in step; no gradient flows from it
}

Tensor clone_original_self(const Tensor& self) { return glassbox::clone(self); }

}  // namespace glassbox::autograd
