#pragma once
// The random-number generator behind rand, randn, randint, normal_, uniform_, bernoulli_ and
// dropout: a seed (the Philox key) and an offset that advances by one on every operator call.
// A call's numbers depend only on (seed, offset, element index), never on the thread count.
#include <cstdint>
#include <mutex>

namespace glassbox {

// What one operator call draws from: its kernel evaluates philox_block(seed, offset, block).
struct PhiloxState {
  uint64_t seed = 0;
  uint64_t offset = 0;
};

class Generator {
 public:
  static constexpr uint64_t kDefaultSeed = 0x2545F4914F6CDD1Dull;

  explicit Generator(uint64_t seed = kDefaultSeed) : seed_(seed) {}

  // Restarts the stream: the same seed gives the same numbers, call after call.
  void manual_seed(uint64_t seed);
  // Seeds from a non-deterministic source and returns the seed chosen.
  uint64_t seed();
  uint64_t initial_seed() const;
  uint64_t offset() const;
  void set_offset(uint64_t offset);
  // The state for one call; the next call gets the next offset.
  PhiloxState next_call();

 private:
  mutable std::mutex mutex_;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

// The process-wide generator every random operator uses.
Generator& default_generator();
// default_generator().manual_seed(seed).
void manual_seed(uint64_t seed);

}  // namespace glassbox
