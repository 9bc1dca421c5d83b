// NumPy interop without copies: gb.from_numpy(a) wraps a's memory (the array stays alive as long
// as any tensor or view uses it), and t.numpy() / np.asarray(t) view the tensor's memory.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/core/tensor.h"

namespace py = pybind11;
using namespace glassbox;

namespace {

// NumPy's dtype for a glassbox dtype (bfloat16 has none).
py::dtype numpy_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::Float32: return py::dtype("float32");
    case ScalarType::Float64: return py::dtype("float64");
    case ScalarType::Float16: return py::dtype("float16");
    case ScalarType::Int64: return py::dtype("int64");
    case ScalarType::Int32: return py::dtype("int32");
    case ScalarType::Int16: return py::dtype("int16");
    case ScalarType::Int8: return py::dtype("int8");
    case ScalarType::UInt8: return py::dtype("uint8");
    case ScalarType::Bool: return py::dtype("bool");
    case ScalarType::BFloat16:
    case ScalarType::NumTypes: break;
  }
  throw TypeError("numpy(): NumPy has no " + std::string(to_string(t)) +
                  " dtype; convert with .to(glassbox.float32) first");
}

ScalarType from_numpy_dtype(const py::dtype& d) {
  const char kind = d.kind();
  const auto size = d.itemsize();
  if (kind == 'f' && size == 4) return ScalarType::Float32;
  if (kind == 'f' && size == 8) return ScalarType::Float64;
  if (kind == 'f' && size == 2) return ScalarType::Float16;
  if (kind == 'i' && size == 8) return ScalarType::Int64;
  if (kind == 'i' && size == 4) return ScalarType::Int32;
  if (kind == 'i' && size == 2) return ScalarType::Int16;
  if (kind == 'i' && size == 1) return ScalarType::Int8;
  if (kind == 'u' && size == 1) return ScalarType::UInt8;
  if (kind == 'b') return ScalarType::Bool;
  throw TypeError(
      "from_numpy: NumPy dtype " + py::str(d).cast<std::string>() +
      " is not supported; glassbox has float64, float32, float16, int64, int32, int16, int8, uint8 and bool");
}

void release_array(void* ctx) {
  py::gil_scoped_acquire gil;
  delete static_cast<py::object*>(ctx);
}

Tensor from_numpy(const py::array& a) {
  const ScalarType dtype = from_numpy_dtype(a.dtype());
  if (!a.dtype().attr("isnative").cast<bool>()) throw ValueError("from_numpy: the array is not in native byte order");
  if (!a.writeable())
    throw ValueError("from_numpy: the array is read-only; glassbox tensors are writable (copy it first)");
  const int64_t item = a.itemsize();
  std::vector<int64_t> sizes(a.ndim()), strides(a.ndim());
  int64_t lowest = 0, highest = 0;  // the byte range the array's elements span
  for (py::ssize_t d = 0; d < a.ndim(); ++d) {
    sizes[d] = a.shape(d);
    const int64_t s = a.strides(d);
    if (s < 0)
      throw ValueError("from_numpy: negative strides are not supported (array has strides " +
                       shape_to_string(std::vector<int64_t>(a.strides(), a.strides() + a.ndim())) + "); copy it first");
    if (s % item != 0)
      throw ValueError("from_numpy: byte strides that are not a multiple of the element size are not supported");
    strides[d] = s / item;
    if (sizes[d] > 1) highest += (sizes[d] - 1) * s;
    if (sizes[d] == 0) lowest = highest = -item;
  }
  const size_t nbytes = static_cast<size_t>(highest - lowest + item);
  auto* keep = new py::object(a);
  Storage storage = Storage::make(const_cast<void*>(a.data()), a.size() == 0 ? 0 : nbytes, Device(DeviceType::CPU),
                                  &release_array, keep);
  auto impl = intrusive_ptr<TensorImpl>::make(std::move(storage), default_key_set(DeviceType::CPU), dtype,
                                              Device(DeviceType::CPU), std::span<const int64_t>());
  impl->set_geometry(sizes, strides, 0);
  return Tensor(std::move(impl));
}

py::array to_numpy(const Tensor& t) {
  if (!t.defined()) throw ValueError("numpy(): undefined tensor");
  // As in PyTorch: the array would not carry the tensor's history, so say so instead of dropping it.
  if (t.requires_grad())
    throw Error("numpy(): can't call numpy() on a tensor that requires grad; use tensor.detach().numpy() instead");
  if (t.device().type != DeviceType::CPU)
    throw TypeError("numpy(): can't convert a " + t.device().to_string() + " tensor to NumPy; use .cpu() first");
  py::dtype dt = numpy_dtype(t.dtype());
  const auto item = static_cast<py::ssize_t>(t.unsafe_impl()->itemsize());
  std::vector<py::ssize_t> shape(t.sizes().begin(), t.sizes().end()), strides;
  for (int64_t s : t.strides()) strides.push_back(s * item);
  // The array's base owns a handle to the tensor, so the memory outlives the tensor object.
  py::object base = py::cast(t);
  return py::array(dt, shape, strides, t.data_ptr(), base);
}

}  // namespace

void bind_numpy(py::module_& m) {
  m.def("from_numpy", &from_numpy, py::arg("array"),
        "A tensor sharing the NumPy array's memory (writes through either are seen by both).");
  auto tensor = py::type::of<Tensor>();
  tensor.attr("numpy") = py::cpp_function(
      [](const Tensor& t, bool force) {
    if (!force || !t.defined()) return to_numpy(t);
    const Tensor d = t.detach();
    return to_numpy(d.device().type == DeviceType::CPU ? d : py::cast(d).attr("cpu")().cast<Tensor>());
      },
      py::is_method(tensor), py::name("numpy"), py::arg("force") = false,
      "A NumPy array sharing this CPU tensor's memory; force=True detaches and copies to the CPU first.");
  tensor.attr("__array__") = py::cpp_function(
      [](const Tensor& t, py::object dtype, py::object copy) {
    py::object a = to_numpy(t);
    if (!dtype.is_none()) a = a.attr("astype")(dtype);
    if (!copy.is_none() && copy.cast<bool>()) a = a.attr("copy")();
    return a;
      },
      py::is_method(tensor), py::name("__array__"), py::arg("dtype") = py::none(), py::arg("copy") = py::none());
}
