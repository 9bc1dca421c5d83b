#include "engine/core/device.h"

#include <charconv>

#include "engine/core/error.h"

namespace glassbox {

Device Device::parse(std::string_view text) {
  const auto colon = text.find(':');
  const std::string_view kind = text.substr(0, colon);
  DeviceType type;
  if (kind == "cpu") type = DeviceType::CPU;
  else if (kind == "cuda") type = DeviceType::CUDA;
  else if (kind == "meta") type = DeviceType::Meta;
  else throw Error("unknown device '" + std::string(text) + "'; expected cpu, cuda, cuda:N or meta");
  if (colon == std::string_view::npos) return Device(type);
  const std::string_view idx = text.substr(colon + 1);
  int value = -1;
  auto [end, ec] = std::from_chars(idx.data(), idx.data() + idx.size(), value);
  if (ec != std::errc() || end != idx.data() + idx.size() || value < 0 || value > 127 || idx.empty())
    throw Error("bad device index in '" + std::string(text) + "'; expected a number from 0 to 127");
  return Device(type, static_cast<int8_t>(value));
}

std::string Device::to_string() const {
  std::string out = type == DeviceType::CPU ? "cpu" : type == DeviceType::CUDA ? "cuda" : "meta";
  if (index >= 0) out += ":" + std::to_string(index);
  return out;
}

DispatchKey backend_key(DeviceType t) {
  switch (t) {
    case DeviceType::CPU: return DispatchKey::CPU;
    case DeviceType::CUDA: return DispatchKey::CUDA;
    case DeviceType::Meta: return DispatchKey::Meta;
  }
  return DispatchKey::Undefined;
}

}  // namespace glassbox
