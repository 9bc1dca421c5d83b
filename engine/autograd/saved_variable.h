#pragma once
// SavedVariable: a tensor a backward formula needs, kept by its node. It remembers the tensor's
// version when saved, so a later in-place change is caught instead of giving wrong gradients,
// and it can be released after backward (retain_graph=False) so memory goes back early.
// An output of the node itself is saved without its grad_fn (that would be a reference cycle)
// and gets it back, through a weak pointer, when unpacked.
#include <cstdint>
#include <memory>
#include <string>

#include "engine/core/tensor.h"

namespace glassbox::autograd {

class Node;

class SavedVariable {
 public:
  SavedVariable() = default;
  // is_output: `tensor` is an output of the node that saves it.
  SavedVariable(const Tensor& tensor, bool is_output);
  SavedVariable(const std::optional<Tensor>& tensor, bool is_output)
      : SavedVariable(tensor ? *tensor : Tensor(), is_output) {}

  // The saved tensor (undefined if an undefined tensor was saved). Throws if it was released
  // or modified in place since it was saved; `by` names the node in those messages.
  Tensor unpack(const Node& by) const;
  void reset();
  bool was_released() const { return released_; }

 private:
  Tensor data_;  // inputs: the tensor itself; outputs: an alias without autograd history
  uint64_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool is_output_ = false;
  bool released_ = false;
};

}  // namespace glassbox::autograd
