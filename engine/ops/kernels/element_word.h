#pragma once
// Kernels that move elements without looking at them (copies, gathers, flips) need one
// instantiation per element size, not per dtype; index tensors are int64 or int32.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "engine/core/scalar_type.h"

namespace glassbox {

// Calls f.template operator()<kBytes>() for a dtype's element size: kernels that move elements as
// bytes need one instantiation per size, not per dtype.
template <class F>
void visit_element_size(ScalarType t, F&& f) {
  switch (element_size(t)) {
    case 1: f.template operator()<1>(); break;
    case 2: f.template operator()<2>(); break;
    case 4: f.template operator()<4>(); break;
    default: f.template operator()<8>(); break;
  }
}

// Elements moved as unsigned words of their size (B from visit_element_size).
template <size_t B>
using element_word_t =
    std::conditional_t<B == 1, uint8_t,
                       std::conditional_t<B == 2, uint16_t, std::conditional_t<B == 4, uint32_t, uint64_t>>>;

// Calls f.template operator()<I>() with I the C++ type of an int64 or int32 index tensor.
template <class F>
void visit_index_type(ScalarType t, F&& f) {
  if (t == ScalarType::Int32) f.template operator()<int32_t>();
  else f.template operator()<int64_t>();
}

}  // namespace glassbox
