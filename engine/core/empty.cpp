#include "engine/core/empty.h"

#include <array>
#include <mutex>

#include "engine/core/error.h"

namespace glassbox {

namespace {
std::array<std::atomic<Allocator*>, 3> g_allocators{&cpu_allocator(), nullptr, nullptr};
}  // namespace

void register_allocator(DeviceType type, Allocator* allocator) {
  g_allocators[static_cast<int>(type)].store(allocator);
}

Allocator& allocator_for(DeviceType type) {
  Allocator* a = g_allocators[static_cast<int>(type)].load();
  if (!a) {
    throw Error(std::string("no allocator for device type ") + Device(type).to_string() +
                (type == DeviceType::CUDA ? ": glassbox_cuda is not loaded, or glassbox was built without CUDA" : ""));
  }
  return *a;
}

namespace {
// A meta tensor's storage has a size and no memory, so views of it are bounds-checked as on the CPU.
Allocator* memory_for(Device device) { return device.type == DeviceType::Meta ? nullptr : &allocator_for(device.type); }
}  // namespace

Tensor empty_strided_tensor(std::span<const int64_t> sizes, std::span<const int64_t> strides, ScalarType dtype,
                            Device device) {
  GB_CHECK(sizes.size() == strides.size(), "empty_strided: ", sizes.size(), " sizes but ", strides.size(), " strides");
  const int64_t numel = checked_numel(sizes, "empty_strided");
  int64_t extent = numel == 0 ? 0 : 1;
  for (size_t i = 0; i < sizes.size() && numel; ++i) {
    GB_CHECK(strides[i] >= 0, "empty_strided: negative stride ", strides[i]);
    extent += (sizes[i] - 1) * strides[i];
  }
  int64_t nbytes = 0;
  if (__builtin_mul_overflow(extent, static_cast<int64_t>(element_size(dtype)), &nbytes))
    throw Error("empty_strided: the tensor would need more bytes than int64 can count");
  Storage storage = Storage::make(static_cast<size_t>(nbytes), memory_for(device), device);
  auto impl = intrusive_ptr<TensorImpl>::make(std::move(storage), default_key_set(device.type), dtype, device, sizes);
  impl->set_geometry(sizes, strides, 0);
  return Tensor(std::move(impl));
}

Tensor empty_tensor(std::span<const int64_t> sizes, ScalarType dtype, Device device) {
  const int64_t numel = checked_numel(sizes, "empty");
  int64_t nbytes = 0;
  if (__builtin_mul_overflow(numel, static_cast<int64_t>(element_size(dtype)), &nbytes))
    throw Error("empty: the tensor would need more bytes than int64 can count");
  Storage storage = Storage::make(static_cast<size_t>(nbytes), memory_for(device), device);
  return Tensor(
      intrusive_ptr<TensorImpl>::make(std::move(storage), default_key_set(device.type), dtype, device, sizes));
}

Tensor wrap_scalar(const Scalar& s) {
  const ScalarType dtype = s.is_bool() ? ScalarType::Bool : s.is_integral() ? ScalarType::Int64 : ScalarType::Float64;
  Tensor t = empty_tensor({}, dtype, Device(DeviceType::CPU));
  if (s.is_bool()) *t.data<bool>() = s.to_bool();
  else if (s.is_integral()) *t.data<int64_t>() = s.to_int();
  else *t.data<double>() = s.to_double();
  t.unsafe_impl()->set_wrapped_number(true);
  return t;
}

}  // namespace glassbox
