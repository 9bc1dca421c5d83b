#pragma once
// Node: one step of the backward graph (SigmoidBackward0, MmBackward0, AccumulateGrad, ...).
// apply() takes the gradients of the forward call's outputs and returns the gradients of its
// inputs, one per next edge. Nodes are numbered in creation order (sequence_nr): the engine
// runs later nodes first, the reverse of the forward order.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/autograd/edge.h"
#include "engine/core/tensor.h"

namespace glassbox::autograd {

using variable_list = std::vector<Tensor>;
// A tensor hook: sees the gradient and may return a replacement (undefined: keep it).
using TensorHook = std::function<Tensor(const Tensor&)>;

// What the engine needs to know about each output of the forward call (each input of this
// node): to make a zero gradient for an output that got none, and to check incoming gradients.
struct InputMetadata {
  DimVector sizes;
  ScalarType dtype = ScalarType::Float32;
  Device device;
};

class Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  virtual std::string name() const = 0;
  virtual variable_list apply(variable_list&& grads) = 0;
  // Drops saved tensors after a backward pass that did not ask to retain the graph.
  virtual void release_variables() {}

  uint64_t sequence_nr() const { return sequence_nr_; }
  const std::vector<Edge>& next_edges() const { return next_edges_; }
  void set_next_edges(std::vector<Edge> edges) { next_edges_ = std::move(edges); }
  size_t num_outputs() const { return next_edges_.size(); }
  // Whether gradient i (for next edge i) leads anywhere.
  bool should_compute_output(size_t i) const { return i < next_edges_.size() && next_edges_[i].is_valid(); }

  uint32_t add_input_metadata(const Tensor& t);
  uint32_t add_input_metadata(InputMetadata m);
  const std::vector<InputMetadata>& input_metadata() const { return input_metadata_; }
  size_t num_inputs() const { return input_metadata_.size(); }

  // Hooks on input `input_nr` (registered through Tensor::register_hook of a non-leaf output).
  void add_tensor_hook(uint32_t input_nr, TensorHook hook);
  // Runs the hooks on the incoming gradients, in registration order.
  void run_tensor_hooks(variable_list& grads) const;

 private:
  uint64_t sequence_nr_;
  std::vector<Edge> next_edges_;
  std::vector<InputMetadata> input_metadata_;
  std::vector<std::pair<uint32_t, TensorHook>> tensor_hooks_;
};

// The next sequence number on this thread (exposed for tests of ordering).
uint64_t peek_sequence_nr();

}  // namespace glassbox::autograd
