#pragma once
// What the generated autograd code (build/.../glassbox/ops/autograd/*.cpp) uses: the graph
// helpers, saved variables, and small conversions between arguments and what nodes keep.
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "engine/autograd/autograd_meta.h"
#include "engine/autograd/formulas.h"
#include "engine/autograd/grad_mode.h"
#include "engine/autograd/node.h"
#include "engine/autograd/saved_variable.h"
#include "engine/core/local_dispatch_key_set.h"

namespace glassbox::autograd {

// The scope of a redispatch below autograd: ops called inside (by composite kernels) record nothing.
class BelowAutogradGuard {
 public:
  BelowAutogradGuard() : guard_(kAutogradKeys) {}

 private:
  ExcludeDispatchKeyGuard guard_;
};

[[noreturn]] void throw_out_not_differentiable(const char* op);
// The grad_fn of results of an operator without a derivative, whose inputs require grad: a backward
// pass that reaches it raises "the derivative for '<op>' is not implemented".
std::shared_ptr<Node> not_implemented_node(const char* op, std::vector<Edge> next_edges);

inline bool any_floating_point(const Tensor& t) { return t.defined() && is_floating_point(t.dtype()); }
void set_not_implemented_history(const Tensor& result, const std::shared_ptr<Node>& node);
inline void set_not_implemented_history(const std::vector<Tensor>& results, const std::shared_ptr<Node>& node) {
  for (const Tensor& t : results) set_not_implemented_history(t, node);
}
template <class... Ts>
void set_not_implemented_history(const std::tuple<Ts...>& results, const std::shared_ptr<Node>& node) {
  std::apply([&](const auto&... t) { (set_not_implemented_history(t, node), ...); }, results);
}

inline InputMetadata metadata_of(const Tensor& t) { return InputMetadata{t.sizes(), t.dtype(), t.device()}; }
inline std::optional<InputMetadata> metadata_of(const std::optional<Tensor>& t) {
  return t ? std::optional<InputMetadata>(metadata_of(*t)) : std::nullopt;
}
inline std::vector<InputMetadata> metadata_of(TensorList l) {
  std::vector<InputMetadata> out;
  for (const Tensor& t : l) out.push_back(metadata_of(t));
  return out;
}
inline int64_t numel_of(const InputMetadata& m) {
  int64_t n = 1;
  for (int64_t s : m.sizes) n *= s;
  return n;
}
inline std::vector<DimVector> sizes_of_list(const std::vector<InputMetadata>& l) {
  std::vector<DimVector> out;
  for (const InputMetadata& m : l) out.push_back(m.sizes);
  return out;
}
inline std::vector<ScalarType> dtype_of_list(const std::vector<InputMetadata>& l) {
  std::vector<ScalarType> out;
  for (const InputMetadata& m : l) out.push_back(m.dtype);
  return out;
}

inline std::vector<SavedVariable> save_list(TensorList l) {
  std::vector<SavedVariable> out;
  for (const Tensor& t : l) out.emplace_back(t, false);
  return out;
}
inline std::vector<Tensor> unpack_list(const std::vector<SavedVariable>& l, const Node& by) {
  std::vector<Tensor> out;
  for (const SavedVariable& v : l) out.push_back(v.unpack(by));
  return out;
}
inline std::optional<Tensor> unpack_optional(const SavedVariable& v, const Node& by) {
  Tensor t = v.unpack(by);
  return t.defined() ? std::optional<Tensor>(std::move(t)) : std::nullopt;
}

inline std::optional<std::vector<int64_t>> stored(std::optional<IntArrayRef> v) {
  return v ? std::optional<std::vector<int64_t>>(v->vec()) : std::nullopt;
}
inline std::optional<std::string> stored(std::optional<std::string_view> v) {
  return v ? std::optional<std::string>(std::string(*v)) : std::nullopt;
}

inline bool any_should_compute(const Node& n, size_t first, size_t count) {
  for (size_t i = first; i < first + count; ++i)
    if (n.should_compute_output(i)) return true;
  return false;
}

// An output that carries no gradient (indices of max.dim): recorded only to keep output numbers.
inline void mark_non_differentiable(const Tensor& t, const std::shared_ptr<Node>& node) { node->add_input_metadata(t); }

// A copy of self made before an in-place op overwrites it, for the op's backward formula. It is
// recorded (a clone node) so that a second derivative still reaches self's history before the write.
Tensor clone_original_self(const Tensor& self);

}  // namespace glassbox::autograd
