#pragma once
// The DLPack exchange format as laid out in memory (DLPack 1.x, with the pre-1.0 unversioned
// managed tensor). These are format facts: the field order and sizes are what every producer and
// consumer (NumPy, PyTorch, JAX, CuPy) agree on, so they must not change.
#include <cstdint>

namespace glassbox::dlpack {

// Device types (only the ones glassbox names in messages; the field holds any value).
enum DeviceType : int32_t {
  kCPU = 1,
  kCUDA = 2,
  kCUDAHost = 3,
  kOpenCL = 4,
  kVulkan = 7,
  kMetal = 8,
  kVPI = 9,
  kROCM = 10,
  kROCMHost = 11,
  kExtDev = 12,
  kCUDAManaged = 13,
  kOneAPI = 14,
};

// Element type codes.
enum TypeCode : uint8_t {
  kInt = 0,
  kUInt = 1,
  kFloat = 2,
  kOpaqueHandle = 3,
  kBfloat = 4,
  kComplex = 5,
  kBool = 6,
};

struct Device {
  int32_t device_type;  // a DeviceType
  int32_t device_id;
};

struct DataType {
  uint8_t code;  // a TypeCode
  uint8_t bits;
  uint16_t lanes;
};

struct Tensor {
  void* data;
  Device device;
  int32_t ndim;
  DataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; null means compact row-major
  uint64_t byte_offset;
};

// The pre-1.0 managed tensor, carried in a capsule named "dltensor".
struct ManagedTensor {
  Tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor* self);
};

struct Version {
  uint32_t major;
  uint32_t minor;
};

inline constexpr uint64_t kFlagReadOnly = 1u << 0;
inline constexpr uint64_t kFlagIsCopied = 1u << 1;

// The 1.x managed tensor, carried in a capsule named "dltensor_versioned".
struct ManagedTensorVersioned {
  Version version;
  void* manager_ctx;
  void (*deleter)(ManagedTensorVersioned* self);
  uint64_t flags;
  Tensor dl_tensor;
};

// The version glassbox produces, and the major version it reads.
inline constexpr Version kVersion{1, 0};

// Capsule names: a consumer renames the capsule when it takes ownership.
inline constexpr const char* kCapsuleName = "dltensor";
inline constexpr const char* kUsedCapsuleName = "used_dltensor";
inline constexpr const char* kVersionedCapsuleName = "dltensor_versioned";
inline constexpr const char* kUsedVersionedCapsuleName = "used_dltensor_versioned";

static_assert(sizeof(Device) == 8 && sizeof(DataType) == 4);
static_assert(sizeof(Tensor) == 48);
static_assert(sizeof(ManagedTensor) == 64);
static_assert(sizeof(ManagedTensorVersioned) == 80);

}  // namespace glassbox::dlpack
