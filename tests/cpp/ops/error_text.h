#pragma once
// The one helper every operator test uses for error messages: run f, return the text of the
// glassbox::Error it throws (or "(no error)").
#include <string>

#include "engine/core/error.h"

namespace glassbox::testing {

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace glassbox::testing
