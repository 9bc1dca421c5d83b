#include "engine/autograd/node.h"

namespace glassbox::autograd {

namespace {
thread_local uint64_t next_sequence_nr = 0;
}

Node::Node() : sequence_nr_(next_sequence_nr++) {}

uint64_t peek_sequence_nr() { return next_sequence_nr; }

uint32_t Node::add_input_metadata(const Tensor& t) {
  return add_input_metadata(InputMetadata{t.sizes(), t.dtype(), t.device()});
}

uint32_t Node::add_input_metadata(InputMetadata m) {
  input_metadata_.push_back(std::move(m));
  return static_cast<uint32_t>(input_metadata_.size() - 1);
}

void Node::add_tensor_hook(uint32_t input_nr, TensorHook hook) {
  tensor_hooks_.emplace_back(input_nr, std::move(hook));
}

void Node::run_tensor_hooks(variable_list& grads) const {
  for (const auto& [nr, hook] : tensor_hooks_) {
    if (nr >= grads.size() || !grads[nr].defined()) continue;
    Tensor replaced = hook(grads[nr]);
    if (replaced.defined()) grads[nr] = std::move(replaced);
  }
}

}  // namespace glassbox::autograd
