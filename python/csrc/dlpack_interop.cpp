// DLPack without copies, both ways:
//   t.__dlpack__(stream=None, max_version=None, dl_device=None, copy=None) -> a capsule that keeps
//     t's storage alive until its consumer calls the deleter (or, never consumed, until the capsule
//     dies: its destructor then calls the deleter itself);
//   t.__dlpack_device__() -> (device type, device id);
//   glassbox._C._dlpack.from_capsule(capsule, copy) -> a tensor over the producer's memory, which it
//     releases through the producer's deleter when the last view of it dies. The capsule is renamed
//     "used_dltensor[_versioned]" so neither it nor anyone else can consume it a second time.
// CPU memory and CUDA device memory are exchanged. For CUDA, `stream` orders the two libraries'
// work as the protocol says: the consumer names its stream, and the producer makes it wait for
// what the producer has queued (None: the legacy default stream; -1: no ordering).
#include <Python.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/tensor.h"
#include "engine/cuda/cuda_device.h"
#include "engine/cuda/stream_exchange.h"
#include "glassbox/ops/Functions.h"
#include "python/csrc/dlpack_abi.h"

namespace py = pybind11;
using namespace glassbox;

namespace {

// The exception the DLPack protocol uses for "this data cannot be exchanged".
[[noreturn]] void buffer_error(const std::string& message) {
  PyErr_SetString(PyExc_BufferError, message.c_str());
  throw py::error_already_set();
}

std::string device_name(int32_t type, int32_t id) {
  std::string name;
  switch (type) {
    case dlpack::kCPU: name = "cpu"; break;
    case dlpack::kCUDA: name = "cuda"; break;
    case dlpack::kCUDAHost: name = "cuda_host"; break;
    case dlpack::kOpenCL: name = "opencl"; break;
    case dlpack::kVulkan: name = "vulkan"; break;
    case dlpack::kMetal: name = "metal"; break;
    case dlpack::kVPI: name = "vpi"; break;
    case dlpack::kROCM: name = "rocm"; break;
    case dlpack::kROCMHost: name = "rocm_host"; break;
    case dlpack::kExtDev: name = "ext_dev"; break;
    case dlpack::kCUDAManaged: name = "cuda_managed"; break;
    case dlpack::kOneAPI: name = "oneapi"; break;
    default: name = "device type " + std::to_string(type); break;
  }
  return name + ":" + std::to_string(id);
}

dlpack::DataType dlpack_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::Float32: return {dlpack::kFloat, 32, 1};
    case ScalarType::Float64: return {dlpack::kFloat, 64, 1};
    case ScalarType::Float16: return {dlpack::kFloat, 16, 1};
    case ScalarType::BFloat16: return {dlpack::kBfloat, 16, 1};
    case ScalarType::Int64: return {dlpack::kInt, 64, 1};
    case ScalarType::Int32: return {dlpack::kInt, 32, 1};
    case ScalarType::Int16: return {dlpack::kInt, 16, 1};
    case ScalarType::Int8: return {dlpack::kInt, 8, 1};
    case ScalarType::UInt8: return {dlpack::kUInt, 8, 1};
    case ScalarType::Bool: return {dlpack::kBool, 8, 1};
    case ScalarType::NumTypes: break;
  }
  throw TypeError("__dlpack__: unknown dtype");
}

std::optional<ScalarType> scalar_type_of(dlpack::DataType d) {
  if (d.lanes != 1) return std::nullopt;
  switch (d.code) {
    case dlpack::kFloat:
      if (d.bits == 32) return ScalarType::Float32;
      if (d.bits == 64) return ScalarType::Float64;
      if (d.bits == 16) return ScalarType::Float16;
      break;
    case dlpack::kBfloat:
      if (d.bits == 16) return ScalarType::BFloat16;
      break;
    case dlpack::kInt:
      if (d.bits == 64) return ScalarType::Int64;
      if (d.bits == 32) return ScalarType::Int32;
      if (d.bits == 16) return ScalarType::Int16;
      if (d.bits == 8) return ScalarType::Int8;
      break;
    case dlpack::kUInt:
      if (d.bits == 8) return ScalarType::UInt8;
      break;
    case dlpack::kBool:
      if (d.bits == 8) return ScalarType::Bool;
      break;
    default: break;
  }
  return std::nullopt;
}

std::string describe(dlpack::DataType d) {
  static const char* const names[] = {"int", "uint", "float", "opaque handle", "bfloat", "complex", "bool"};
  std::string s = d.code < 7 ? names[d.code] : "type code " + std::to_string(d.code);
  s += std::to_string(d.bits);
  if (d.lanes != 1) s += "x" + std::to_string(d.lanes) + " lanes";
  return s;
}

// ---- export ----------------------------------------------------------------------------------

// Owns what a capsule points at: the storage (so the memory outlives the tensor) and the shape
// and stride arrays the DLTensor points into. Its deleter needs no GIL.
template <class Managed>
struct Export {
  Managed managed{};
  Storage storage;
  std::vector<int64_t> shape, strides;

  static void deleter(Managed* m) { delete static_cast<Export*>(m->manager_ctx); }
};

template <class Managed>
constexpr const char* capsule_name() {
  return std::is_same_v<Managed, dlpack::ManagedTensor> ? dlpack::kCapsuleName : dlpack::kVersionedCapsuleName;
}

// A capsule nobody consumed still owns its tensor; a consumed one was renamed and owns nothing.
template <class Managed>
void capsule_destructor(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, capsule_name<Managed>())) return;
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);  // may run while an exception is being raised
  auto* m = static_cast<Managed*>(PyCapsule_GetPointer(capsule, capsule_name<Managed>()));
  if (m && m->deleter) m->deleter(m);
  PyErr_Restore(type, value, traceback);
}

template <class Managed>
py::object make_capsule(const Tensor& t, bool copied) {
  auto* ctx = new Export<Managed>();
  ctx->storage = t.unsafe_impl()->storage();
  ctx->shape.assign(t.sizes().begin(), t.sizes().end());
  ctx->strides.assign(t.strides().begin(), t.strides().end());
  dlpack::Tensor& dl = ctx->managed.dl_tensor;
  dl.data = t.data_ptr();  // the first element: byte_offset stays 0, which every consumer reads
  dl.device = t.device().type == DeviceType::CUDA
                  ? dlpack::Device{dlpack::kCUDA, std::max<int32_t>(t.device().index, 0)}
                  : dlpack::Device{dlpack::kCPU, 0};
  dl.ndim = static_cast<int32_t>(t.dim());
  dl.dtype = dlpack_dtype(t.dtype());
  dl.shape = ctx->shape.data();
  dl.strides = ctx->strides.data();
  dl.byte_offset = 0;
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = &Export<Managed>::deleter;
  if constexpr (std::is_same_v<Managed, dlpack::ManagedTensorVersioned>) {
    ctx->managed.version = dlpack::kVersion;
    ctx->managed.flags = copied ? dlpack::kFlagIsCopied : 0;
  }
  PyObject* capsule = PyCapsule_New(&ctx->managed, capsule_name<Managed>(), &capsule_destructor<Managed>);
  if (!capsule) {
    delete ctx;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::object>(capsule);
}

void check_exportable(const Tensor& t, const char* what) {
  if (!t.defined()) throw ValueError(std::string(what) + ": undefined tensor");
  if (t.device().type == DeviceType::Meta)
    buffer_error(std::string(what) + ": a meta tensor has no data to share through DLPack");
}

// The consumer's stream (a DLPack number) waits for the work queued on ours: None names the legacy
// default stream, -1 asks for no ordering.
void order_for_consumer(const Tensor& t, const py::object& stream) {
  if (!stream.is_none() && !py::isinstance<py::int_>(stream))
    throw TypeError("__dlpack__: stream must be None or an int for a CUDA tensor (got " +
                    py::repr(stream).cast<std::string>() + ")");
  const long long number = stream.is_none() ? 1 : stream.cast<long long>();
  if (number == -1) return;
  if (number < 0) throw ValueError("__dlpack__: stream " + std::to_string(number) + " is not a CUDA stream");
  cuda::order_after_current_stream(static_cast<std::uintptr_t>(number), t.device().index);
}

py::object to_dlpack(const Tensor& t, const py::object& stream, const py::object& max_version,
                     const py::object& dl_device, const py::object& copy) {
  check_exportable(t, "__dlpack__");
  const bool on_cuda = t.device().type == DeviceType::CUDA;
  if (on_cuda) order_for_consumer(t, stream);
  else if (!stream.is_none())
    throw ValueError("__dlpack__: stream must be None for a CPU tensor (got " + py::repr(stream).cast<std::string>() +
                     ")");
  bool copied = !copy.is_none() && copy.cast<bool>();
  Tensor shared = copied ? glassbox::clone(t) : t;
  if (!dl_device.is_none()) {
    const auto want = dl_device.cast<std::pair<int32_t, int32_t>>();
    const bool same = on_cuda ? want.first == dlpack::kCUDA && want.second == std::max<int32_t>(t.device().index, 0)
                              : want.first == dlpack::kCPU;
    if (!same && on_cuda && want.first == dlpack::kCPU && !copy.is_none() && copy.cast<bool>()) {
      shared = t.to(Device(DeviceType::CPU));  // a copy the consumer may keep: it waits for the GPU here
    } else if (!same) {
      buffer_error("__dlpack__: cannot export a " + t.device().to_string() + " tensor to " +
                   device_name(want.first, want.second) +
                   (on_cuda && want.first == dlpack::kCPU ? " without copy=True" : ""));
    }
  }
  bool versioned = false;
  if (!max_version.is_none()) {
    const auto v = max_version.cast<std::pair<uint32_t, uint32_t>>();
    versioned = v.first >= dlpack::kVersion.major;
  }
  return versioned ? make_capsule<dlpack::ManagedTensorVersioned>(shared, copied)
                   : make_capsule<dlpack::ManagedTensor>(shared, copied);
}

py::tuple dlpack_device(const Tensor& t) {
  if (!t.defined()) throw ValueError("__dlpack_device__: undefined tensor");
  switch (t.device().type) {
    case DeviceType::CPU: return py::make_tuple(int{dlpack::kCPU}, 0);
    case DeviceType::CUDA: return py::make_tuple(int{dlpack::kCUDA}, std::max<int>(t.device().index, 0));
    case DeviceType::Meta: break;
  }
  buffer_error("__dlpack_device__: a meta tensor has no DLPack device");
}

// ---- import ----------------------------------------------------------------------------------

template <class Managed>
void release_managed(void* ctx) {
  auto* m = static_cast<Managed*>(ctx);
  if (m->deleter) m->deleter(m);
}

template <class Managed>
Tensor import_managed(PyObject* capsule, Managed* m, const char* used_name, uint64_t flags, std::optional<bool> copy) {
  const dlpack::Tensor& dl = m->dl_tensor;
  if (dl.device.device_type != dlpack::kCPU && dl.device.device_type != dlpack::kCUDA)
    buffer_error("from_dlpack: glassbox imports CPU and CUDA memory through DLPack; the capsule holds memory on " +
                 device_name(dl.device.device_type, dl.device.device_id));
  const Device device =
      dl.device.device_type == dlpack::kCPU
          ? Device(DeviceType::CPU)
          : Device(DeviceType::CUDA,
                   static_cast<int8_t>(cuda::checked_device_index(dl.device.device_id, "from_dlpack")));
  const std::optional<ScalarType> dtype = scalar_type_of(dl.dtype);
  if (!dtype)
    buffer_error("from_dlpack: DLPack dtype " + describe(dl.dtype) +
                 " is not supported; glassbox has float32, float64, float16, bfloat16, int64, int32, int16, int8, "
                 "uint8 and bool");
  if (dl.ndim < 0 || (dl.ndim > 0 && !dl.shape)) throw ValueError("from_dlpack: the DLTensor has no valid shape");
  const bool read_only = flags & dlpack::kFlagReadOnly;
  if (read_only && copy == false)
    buffer_error(
        "from_dlpack: the producer shares this memory read-only, and glassbox tensors are writable; "
        "pass copy=None or copy=True to import a copy");

  std::vector<int64_t> sizes(dl.shape, dl.shape + dl.ndim);
  std::vector<int64_t> strides(sizes.size());
  if (dl.strides) {
    strides.assign(dl.strides, dl.strides + dl.ndim);
  } else {  // compact row-major
    int64_t step = 1;
    for (size_t d = sizes.size(); d-- > 0;) {
      strides[d] = step;
      step *= sizes[d];
    }
  }
  int64_t numel = 1, last = 0;  // the furthest element any index reaches
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0) throw ValueError("from_dlpack: negative size in shape " + shape_to_string(sizes));
    numel *= sizes[d];
    if (strides[d] < 0 && sizes[d] > 1)
      buffer_error("from_dlpack: negative strides are not supported (strides " + shape_to_string(strides) +
                   "); make a copy on the producer's side first");
    if (sizes[d] > 0) last += (sizes[d] - 1) * std::max<int64_t>(strides[d], 0);
  }
  for (int64_t& s : strides) s = std::max<int64_t>(s, 0);  // a negative stride of a size-1 dim is never used
  const size_t item = element_size(*dtype);
  const size_t nbytes = numel == 0 ? 0 : static_cast<size_t>(last + 1) * item;
  void* base = dl.data ? static_cast<char*>(dl.data) + dl.byte_offset : nullptr;
  if (!base && nbytes > 0) throw ValueError("from_dlpack: the DLTensor has no data pointer");

  // From here on the tensor's storage owns the managed tensor: the capsule must not release it.
  if (PyCapsule_SetName(capsule, used_name) != 0) throw py::error_already_set();
  Storage storage = Storage::make(base, nbytes, device, &release_managed<Managed>, m);
  auto impl = intrusive_ptr<TensorImpl>::make(std::move(storage), default_key_set(device.type), *dtype, device,
                                              std::span<const int64_t>());
  impl->set_geometry(sizes, strides, 0);
  Tensor shared(std::move(impl));
  // A read-only producer gets a private copy; so does anyone asking for one.
  if (copy == true || read_only) return glassbox::clone(shared);
  return shared;
}

Tensor from_capsule(const py::object& obj, std::optional<bool> copy) {
  PyObject* capsule = obj.ptr();
  if (!PyCapsule_CheckExact(capsule))
    throw TypeError("from_dlpack: expected an object with __dlpack__ or a DLPack capsule, got " +
                    py::str(py::type::handle_of(obj).attr("__name__")).cast<std::string>());
  const char* name = PyCapsule_GetName(capsule);
  const std::string name_text = name ? name : "";
  if (name_text == dlpack::kCapsuleName) {
    auto* m = static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule, dlpack::kCapsuleName));
    if (!m) throw py::error_already_set();
    return import_managed(capsule, m, dlpack::kUsedCapsuleName, 0, copy);
  }
  if (name_text == dlpack::kVersionedCapsuleName) {
    auto* m =
        static_cast<dlpack::ManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, dlpack::kVersionedCapsuleName));
    if (!m) throw py::error_already_set();
    if (m->version.major != dlpack::kVersion.major)
      buffer_error("from_dlpack: DLPack version " + std::to_string(m->version.major) + "." +
                   std::to_string(m->version.minor) + " is not supported; glassbox reads version 1.x");
    return import_managed(capsule, m, dlpack::kUsedVersionedCapsuleName, m->flags, copy);
  }
  if (name_text == dlpack::kUsedCapsuleName || name_text == dlpack::kUsedVersionedCapsuleName)
    throw ValueError("from_dlpack: this DLPack capsule was already consumed (it is named '" + name_text +
                     "'); a capsule can be imported once: ask the producer for a new one with __dlpack__()");
  throw TypeError("from_dlpack: expected a capsule named 'dltensor' or 'dltensor_versioned', got one named '" +
                  name_text + "'");
}

}  // namespace

void bind_dlpack(py::module_& m) {
  py::module_ dl = m.def_submodule("_dlpack", "DLPack capsules: glassbox tensors shared with other libraries");
  dl.def("from_capsule", &from_capsule, py::arg("capsule"), py::arg("copy") = py::none(),
         "A tensor over the memory of a 'dltensor' or 'dltensor_versioned' capsule (consumes the capsule).");
  dl.def(
      "consumer_stream", [](int device) { return cuda::current_stream_number(device); }, py::arg("device"),
      "The DLPack number of this thread's current CUDA stream on `device`, for __dlpack__(stream=...).");
  dl.attr("VERSION") = py::make_tuple(dlpack::kVersion.major, dlpack::kVersion.minor);
  auto tensor = py::type::of<Tensor>();
  tensor.attr("__dlpack__") = py::cpp_function(
      &to_dlpack, py::is_method(tensor), py::name("__dlpack__"), py::arg("stream") = py::none(), py::kw_only(),
      py::arg("max_version") = py::none(), py::arg("dl_device") = py::none(), py::arg("copy") = py::none(),
      "A DLPack capsule sharing this tensor's memory, CPU or CUDA ('dltensor_versioned' when max_version >= (1, 0)).");
  tensor.attr("__dlpack_device__") =
      py::cpp_function(&dlpack_device, py::is_method(tensor), py::name("__dlpack_device__"),
                       "(DLPack device type, device id): (1, 0) for the CPU, (2, N) for cuda:N.");
}
