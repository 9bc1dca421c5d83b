#include "engine/autograd/engine.h"

#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "engine/autograd/accumulate_grad.h"
#include "engine/autograd/autograd_meta.h"
#include "engine/autograd/grad_mode.h"
#include "engine/core/error.h"
#include "engine/profiler/profiler.h"
#include "glassbox/ops/Functions.h"

namespace glassbox::autograd {

namespace {

// The root of a backward pass: hands the given gradients to the outputs' nodes.
class GraphRoot final : public Node {
 public:
  GraphRoot(std::vector<Edge> edges, variable_list grads) : grads_(std::move(grads)) {
    set_next_edges(std::move(edges));
  }
  std::string name() const override { return "GraphRoot"; }
  variable_list apply(variable_list&&) override { return grads_; }

 private:
  variable_list grads_;
};

struct LaterFirst {
  bool operator()(const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b) const {
    return a->sequence_nr() < b->sequence_nr();
  }
};

struct Capture {
  Node* node;
  uint32_t input_nr;
  size_t index;
};

Tensor accumulate(const Tensor& a, const Tensor& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return glassbox::add(a, b);
}

// Gradients this node never received become zeros of the right shape (formulas assume them).
void fill_missing(const Node& node, variable_list& grads) {
  grads.resize(node.num_inputs());
  for (size_t i = 0; i < grads.size(); ++i) {
    if (grads[i].defined()) continue;
    const InputMetadata& m = node.input_metadata()[i];
    if (!is_floating_point(m.dtype)) continue;
    grads[i] = glassbox::zeros(m.sizes, m.dtype, m.device);
  }
}

void check_gradient(const Node& node, size_t i, const Tensor& g) {
  if (!g.defined() || i >= node.num_inputs()) return;
  const InputMetadata& m = node.input_metadata()[i];
  if (g.sizes() != m.sizes)
    throw Error("backward: Function " + node.name() + " received a gradient of shape " + shape_to_string(g.sizes()) +
                " for its input " + std::to_string(i) + ", expected shape " + shape_to_string(m.sizes));
}

std::vector<Tensor> run(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs, bool keep_graph,
                        bool create_graph, const std::vector<Tensor>* inputs, bool allow_unused) {
  if (!grad_outputs.empty() && grad_outputs.size() != outputs.size())
    throw Error("backward: got " + std::to_string(grad_outputs.size()) + " gradients for " +
                std::to_string(outputs.size()) + " tensors");
  std::vector<Edge> root_edges;
  variable_list root_grads;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    Edge edge = gradient_edge(out);
    if (!edge.is_valid())
      throw Error("element " + std::to_string(i) + " of tensors does not require grad and does not have a grad_fn");
    Tensor g = grad_outputs.empty() ? Tensor() : grad_outputs[i];
    if (!g.defined()) {
      if (out.numel() != 1)
        throw Error("grad can be implicitly created only for scalar outputs (got an output of shape " +
                    shape_to_string(out.sizes()) + ")");
      g = glassbox::ones(out.sizes(), out.dtype(), out.device());
    } else if (g.sizes() != out.sizes()) {
      throw Error("backward: the gradient's shape " + shape_to_string(g.sizes()) +
                  " does not match the output's shape " + shape_to_string(out.sizes()));
    }
    root_edges.push_back(std::move(edge));
    root_grads.push_back(std::move(g));
  }
  auto root = std::make_shared<GraphRoot>(root_edges, root_grads);

  // Dependencies: how many edges lead into each node reachable from the root.
  std::unordered_map<Node*, int> dependencies;
  std::unordered_set<Node*> seen{root.get()};
  std::vector<Node*> stack{root.get()};
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_edges()) {
      if (!e.is_valid()) continue;
      ++dependencies[e.function.get()];
      if (seen.insert(e.function.get()).second) stack.push_back(e.function.get());
    }
  }

  std::vector<Capture> captures;
  std::vector<Tensor> captured;
  if (inputs) {
    captured.resize(inputs->size());
    for (size_t i = 0; i < inputs->size(); ++i) {
      const Tensor& in = (*inputs)[i];
      if (!requires_grad(in)) throw Error("grad: input " + std::to_string(i) + " does not require grad");
      Edge e = gradient_edge(in);
      captures.push_back(Capture{e.function.get(), e.input_nr, i});
    }
  }

  std::unordered_map<Node*, variable_list> buffers;
  std::priority_queue<std::shared_ptr<Node>, std::vector<std::shared_ptr<Node>>, LaterFirst> ready;
  ready.push(root);
  GradModeGuard grad_mode(create_graph);
  while (!ready.empty()) {
    std::shared_ptr<Node> node = ready.top();
    ready.pop();
    variable_list grads;
    if (node != root) {
      grads = std::move(buffers[node.get()]);
      buffers.erase(node.get());
      fill_missing(*node, grads);
      node->run_tensor_hooks(grads);
    }
    for (const Capture& c : captures)
      if (c.node == node.get()) captured[c.index] = c.input_nr < grads.size() ? grads[c.input_nr] : Tensor();
    // autograd.grad returns leaf gradients instead of accumulating them into .grad.
    if (inputs && dynamic_cast<AccumulateGrad*>(node.get())) continue;
    variable_list results = [&] {
      // In a profile, each backward node is a range named after it (its operators nest inside).
      profiler::RecordFunction range(profiler::active() ? "autograd::" + node->name() : std::string());
      return node->apply(std::move(grads));
    }();
    // A second pass through a released node fails only if it needs what was released (its
    // SavedVariables say so when unpacked), as in PyTorch.
    if (!keep_graph && node != root) node->release_variables();
    const auto& edges = node->next_edges();
    for (size_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i];
      if (!e.is_valid()) continue;
      Node* next = e.function.get();
      if (i < results.size() && results[i].defined()) {
        check_gradient(*next, e.input_nr, results[i]);
        variable_list& buffer = buffers[next];
        if (buffer.size() <= e.input_nr)
          buffer.resize(next->num_inputs() > e.input_nr ? next->num_inputs() : e.input_nr + 1);
        buffer[e.input_nr] = accumulate(buffer[e.input_nr], results[i]);
      }
      if (--dependencies[next] == 0) ready.push(e.function);
    }
  }
  if (inputs && !allow_unused) {
    for (size_t i = 0; i < captured.size(); ++i)
      if (!captured[i].defined())
        throw Error(
            "One of the differentiated Tensors (input " + std::to_string(i) +
            ") appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior.");
  }
  return captured;
}

}  // namespace

void backward(const std::vector<Tensor>& tensors, const std::vector<Tensor>& grad_tensors,
              std::optional<bool> retain_graph, bool create_graph) {
  run(tensors, grad_tensors, retain_graph.value_or(create_graph), create_graph, nullptr, false);
}

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, std::optional<bool> retain_graph, bool create_graph,
                         bool allow_unused) {
  return run(outputs, grad_outputs, retain_graph.value_or(create_graph), create_graph, &inputs, allow_unused);
}

}  // namespace glassbox::autograd
