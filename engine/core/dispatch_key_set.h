#pragma once
// A 64-bit set of runtime dispatch keys. The highest set bit is the key a call dispatches to.
#include <bit>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "engine/core/dispatch_key.h"

namespace glassbox {

class DispatchKeySet {
 public:
  constexpr DispatchKeySet() = default;
  constexpr explicit DispatchKeySet(DispatchKey k)
      : bits_(k == DispatchKey::Undefined ? 0 : uint64_t{1} << index_of(k)) {}
  constexpr DispatchKeySet(std::initializer_list<DispatchKey> keys) {
    for (DispatchKey k : keys) bits_ |= DispatchKeySet(k).bits_;
  }
  static constexpr DispatchKeySet from_bits(uint64_t bits) {
    DispatchKeySet s;
    s.bits_ = bits;
    return s;
  }
  // Every runtime key.
  static constexpr DispatchKeySet all() { return from_bits(((uint64_t{1} << kNumRuntimeKeys) - 1) & ~uint64_t{1}); }

  constexpr uint64_t bits() const { return bits_; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr bool has(DispatchKey k) const { return (bits_ & DispatchKeySet(k).bits_) != 0; }
  constexpr DispatchKeySet add(DispatchKey k) const { return *this | DispatchKeySet(k); }
  constexpr DispatchKeySet remove(DispatchKey k) const { return from_bits(bits_ & ~DispatchKeySet(k).bits_); }

  constexpr DispatchKeySet operator|(DispatchKeySet o) const { return from_bits(bits_ | o.bits_); }
  constexpr DispatchKeySet operator&(DispatchKeySet o) const { return from_bits(bits_ & o.bits_); }
  constexpr DispatchKeySet operator-(DispatchKeySet o) const { return from_bits(bits_ & ~o.bits_); }
  constexpr bool operator==(const DispatchKeySet&) const = default;

  // The key a call goes to: the highest set bit (Undefined for the empty set).
  constexpr DispatchKey highest_priority_key() const {
    return bits_ == 0 ? DispatchKey::Undefined : static_cast<DispatchKey>(63 - std::countl_zero(bits_));
  }
  // The keys strictly below k: what a kernel at key k redispatches to.
  constexpr DispatchKeySet below(DispatchKey k) const { return from_bits(bits_ & ((uint64_t{1} << index_of(k)) - 1)); }

  // "DispatchKeySet(CPU, AutogradCPU)", lowest key first.
  std::string to_string() const;

 private:
  uint64_t bits_ = 0;
};

// The runtime keys an alias key stands for (a runtime key stands for itself).
DispatchKeySet runtime_keys_of(DispatchKey k);

}  // namespace glassbox
