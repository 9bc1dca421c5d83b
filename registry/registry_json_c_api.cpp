// A C entry point to the registry's JSON, for tools that load a registering library with dlopen
// and have no C++ ABI in common with it (glassbox ops --load LIB does):
//
//   char* glassbox_registry_json(int indent);   // the registry_to_json() text, malloc'ed; NULL on error
//   void glassbox_registry_json_free(char* p);  // releases it
#include <cstdlib>
#include <cstring>
#include <exception>

#include "registry/registry_dump.h"

extern "C" {

__attribute__((visibility("default"))) char* glassbox_registry_json(int indent) {
  try {
    const std::string text = glassbox::registry_to_json(indent);
    char* out = static_cast<char*>(std::malloc(text.size() + 1));
    if (out) std::memcpy(out, text.c_str(), text.size() + 1);
    return out;
  } catch (const std::exception&) {
    return nullptr;
  }
}

__attribute__((visibility("default"))) void glassbox_registry_json_free(char* text) { std::free(text); }

}  // extern "C"
