#pragma once
// Edge: where a gradient goes next — input `input_nr` of `function`. An edge without a function
// leads nowhere (the input does not require grad).
#include <cstdint>
#include <memory>

namespace glassbox::autograd {

class Node;

struct Edge {
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;

  Edge() = default;
  Edge(std::shared_ptr<Node> fn, uint32_t nr) : function(std::move(fn)), input_nr(nr) {}
  bool is_valid() const { return function != nullptr; }
  bool operator==(const Edge& o) const { return function == o.function && input_nr == o.input_nr; }
};

}  // namespace glassbox::autograd
