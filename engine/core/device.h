#pragma once
// Where a tensor lives: "cpu", "cuda:0", or "meta" (shapes only).
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/core/dispatch_key.h"

namespace glassbox {

enum class DeviceType : int8_t { CPU, CUDA, Meta };

struct Device {
  DeviceType type = DeviceType::CPU;
  int8_t index = -1;  // -1: the current device of that type

  Device() = default;
  Device(DeviceType t, int8_t i = -1) : type(t), index(i) {}
  // "cpu", "cuda", "cuda:1", "meta"; throws Error on anything else.
  static Device parse(std::string_view text);

  std::string to_string() const;
  bool operator==(const Device&) const = default;
};

// The backend dispatch key of tensors on this device (CPU, CUDA, Meta).
DispatchKey backend_key(DeviceType t);

}  // namespace glassbox
