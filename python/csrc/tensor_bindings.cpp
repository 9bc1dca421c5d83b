// glassbox.Tensor and the dtypes in Python. The full PyTorch-like Tensor API is built on this.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <functional>

#include "engine/autograd/node.h"
#include "engine/core/error.h"
#include "engine/core/tensor.h"
#include "engine/ops/tensor_printing.h"

namespace py = pybind11;
using namespace glassbox;

namespace {
// Elements in logical (row-major) order as nested Python lists (a CUDA tensor's copied to the CPU).
py::object to_list(const Tensor& self) {
  if (!self.defined()) throw ValueError("tolist: undefined tensor");
  Tensor t = self;
  if (self.device().type == DeviceType::CUDA) {
    py::gil_scoped_release nogil;  // a device-to-host copy
    t = self.to(Device(DeviceType::CPU));
  }
  if ((t.device().type == DeviceType::Meta || !t.data_ptr()) && t.numel() > 0)  // a meta storage has no memory
    throw ValueError("tolist: a tensor on " + t.device().to_string() + " has no data to read");
  return visit_scalar_type(t.dtype(), [&]<class T>() -> py::object {
    const char* base = static_cast<const char*>(t.data_ptr());
    auto element = [&](int64_t offset) -> py::object {
      T v;
      std::memcpy(&v, base + offset * static_cast<int64_t>(sizeof(T)), sizeof(T));
      if constexpr (std::is_same_v<T, bool>) return py::bool_(v);
      else if constexpr (std::is_integral_v<T>) return py::int_(static_cast<int64_t>(v));
      else if constexpr (std::is_same_v<T, double>) return py::float_(v);
      else return py::float_(static_cast<double>(static_cast<float>(v)));  // float, half, bfloat16
    };
    std::function<py::object(size_t, int64_t)> level = [&](size_t d, int64_t offset) -> py::object {
      if (d == t.sizes().size()) return element(offset);
      py::list out;
      for (int64_t i = 0; i < t.sizes()[d]; ++i) out.append(level(d + 1, offset + i * t.strides()[d]));
      return out;
    };
    return level(0, 0);
  });
}
// As PyTorch prints: the values, then grad_fn=<...> for results of recorded ops, or
// requires_grad=True for leaves that require grad.
std::string tensor_repr(const Tensor& t) {
  std::string s;
  {
    py::gil_scoped_release nogil;  // may copy from a device first
    s = to_string(t);
  }
  if (!t.defined() || !t.requires_grad() || s.empty() || s.back() != ')') return s;
  s.pop_back();
  if (auto fn = t.grad_fn()) return s + ", grad_fn=<" + fn->name() + ">)";
  return s + ", requires_grad=True)";
}
}  // namespace

void bind_tensor(py::module_& m) {
  py::enum_<ScalarType> dtype(m, "dtype");
  for (int i = 0; i < kNumScalarTypes; ++i) {
    const auto t = static_cast<ScalarType>(i);
    dtype.value(std::string(to_string(t)).c_str(), t);
  }
  // As PyTorch spells them: str(gb.float32) == repr(gb.float32) == "glassbox.float32".
  auto spelled = [](ScalarType t) { return "glassbox." + std::string(to_string(t)); };
  dtype.def("__repr__", spelled).def("__str__", spelled);
  dtype.def_property_readonly("is_floating_point", [](ScalarType t) { return is_floating_point(t); });
  dtype.def_property_readonly("itemsize", [](ScalarType t) { return element_size(t); });

  py::class_<Tensor>(m, "Tensor")
      // Tensor(t): another handle to the same tensor (how gb.nn.Parameter wraps one).
      .def(py::init([](const Tensor& t) { return t; }), py::arg("data"))
      .def_property_readonly("shape", [](const Tensor& t) { return py::tuple(py::cast(t.sizes().vec())); })
      .def("size", [](const Tensor& t) { return py::tuple(py::cast(t.sizes().vec())); })
      .def("stride", [](const Tensor& t) { return py::tuple(py::cast(t.strides().vec())); })
      .def_property_readonly("dtype", &Tensor::dtype)
      .def_property_readonly("device", [](const Tensor& t) { return t.device().to_string(); })
      .def("dim", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def("is_contiguous", &Tensor::is_contiguous)
      .def("storage_offset", &Tensor::storage_offset)
      .def(
          "data_ptr",
          [](const Tensor& t) {
    return t.device().type == DeviceType::Meta ? 0 : reinterpret_cast<uintptr_t>(t.data_ptr());
          })
      .def("tolist", &to_list)
      .def(
          "item",
          [](const Tensor& t) {
    if (t.numel() != 1)
      throw Error("a Tensor with " + std::to_string(t.numel()) + " elements cannot be converted to Scalar");
    py::object v = to_list(t);
    while (py::isinstance<py::list>(v)) v = py::reinterpret_borrow<py::list>(v)[0];
    return v;
          })
      .def("_key_set", [](const Tensor& t) { return t.key_set().to_string(); })
      .def("__repr__", &tensor_repr);
}
