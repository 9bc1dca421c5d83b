#pragma once
// The dtype and device a factory call means when its arguments leave them out.
#include <optional>

#include "engine/core/device.h"
#include "engine/core/scalar_type.h"

namespace glassbox {

inline ScalarType dtype_or_default(std::optional<ScalarType> dtype) { return dtype.value_or(kDefaultFloat); }
inline Device device_or_default(std::optional<Device> device) { return device.value_or(Device(DeviceType::CPU)); }

}  // namespace glassbox
