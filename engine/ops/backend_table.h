#pragma once
// Per-device tables of an operator family's compute. A family's front end (engine/ops) checks the
// arguments, decides the result and allocates it on the input's device, then looks up that device's
// table here; a backend library fills its entry when it loads (a static BackendTable<F>::Registration).
// Meta has no entry: for it the front end runs without compute, which is what its kernel is.
#include <array>

#include "engine/core/device.h"

namespace glassbox {

template <class Family>
class BackendTable {
 public:
  // The family's compute on `device`, or nullptr (Meta, or a backend that is not built).
  static const Family* of(Device device) { return entries()[static_cast<size_t>(device.type)]; }

  struct Registration {
    Registration(DeviceType type, const Family& family) { entries()[static_cast<size_t>(type)] = &family; }
  };

 private:
  static std::array<const Family*, 3>& entries() {
    static std::array<const Family*, 3> table{};  // one per DeviceType: CPU, CUDA, Meta
    return table;
  }
};

}  // namespace glassbox
