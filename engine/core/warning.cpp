#include "engine/core/warning.h"

#include <atomic>
#include <cstdio>

namespace glassbox {

namespace {
void print_warning(const std::string& message) { std::fprintf(stderr, "glassbox warning: %s\n", message.c_str()); }

std::atomic<WarningHandler> current_handler{&print_warning};
}  // namespace

void warn(const std::string& message) { current_handler.load(std::memory_order_acquire)(message); }

void set_warning_handler(WarningHandler handler) {
  current_handler.store(handler ? handler : &print_warning, std::memory_order_release);
}

}  // namespace glassbox
