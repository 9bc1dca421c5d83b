#include "engine/core/generator.h"

#include <chrono>
#include <random>

namespace glassbox {

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mutex_);
  seed_ = seed;
  offset_ = 0;
}

uint64_t Generator::seed() {
  std::random_device device;
  // Mix the device's entropy with the clock: some platforms' random_device is deterministic.
  const uint64_t clock = static_cast<uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  const uint64_t s = ((static_cast<uint64_t>(device()) << 32) | device()) ^ (clock * 0x9E3779B97F4A7C15ull);
  manual_seed(s);
  return s;
}

uint64_t Generator::initial_seed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return seed_;
}

uint64_t Generator::offset() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return offset_;
}

void Generator::set_offset(uint64_t offset) {
  std::lock_guard<std::mutex> lock(mutex_);
  offset_ = offset;
}

PhiloxState Generator::next_call() {
  std::lock_guard<std::mutex> lock(mutex_);
  return PhiloxState{seed_, offset_++};
}

Generator& default_generator() {
  static Generator generator;
  return generator;
}

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

}  // namespace glassbox
