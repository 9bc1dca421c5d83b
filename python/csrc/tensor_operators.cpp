// Python's operators on tensors (a + b, 2 * a, a @ b, -a, a < b, ...), bound directly to the typed
// C++ functions: the fastest path from Python to a kernel.
#include <pybind11/pybind11.h>

#include "engine/core/empty.h"
#include "glassbox/ops/Functions.h"
#include "python/csrc/type_casters.h"

using namespace glassbox;

namespace {
// A Python number on the left (2 - a): a 0-d "wrapped number" tensor, which promotes as a weak type.
Tensor number(const Scalar& s) { return wrap_scalar(s); }
}  // namespace

void bind_tensor_operators(py::module_&) {
  auto t = py::reinterpret_borrow<py::class_<Tensor>>(py::type::of<Tensor>());
  t.def("__add__", [](const Tensor& a, const Tensor& b) { return glassbox::add(a, b); }, py::is_operator())
      .def("__add__", [](const Tensor& a, const Scalar& b) { return glassbox::add(a, b); }, py::is_operator())
      .def("__radd__", [](const Tensor& a, const Scalar& b) { return glassbox::add(a, b); }, py::is_operator())
      .def("__iadd__", [](Tensor& a, const Tensor& b) { return a.add_(b); }, py::is_operator())
      .def("__iadd__", [](Tensor& a, const Scalar& b) { return a.add_(number(b)); }, py::is_operator())
      .def("__sub__", [](const Tensor& a, const Tensor& b) { return glassbox::sub(a, b); }, py::is_operator())
      .def("__sub__", [](const Tensor& a, const Scalar& b) { return glassbox::sub(a, number(b)); }, py::is_operator())
      .def("__rsub__", [](const Tensor& a, const Scalar& b) { return glassbox::sub(number(b), a); }, py::is_operator())
      .def("__mul__", [](const Tensor& a, const Tensor& b) { return glassbox::mul(a, b); }, py::is_operator())
      .def("__mul__", [](const Tensor& a, const Scalar& b) { return glassbox::mul(a, b); }, py::is_operator())
      .def("__rmul__", [](const Tensor& a, const Scalar& b) { return glassbox::mul(a, b); }, py::is_operator())
      .def("__truediv__", [](const Tensor& a, const Tensor& b) { return glassbox::div(a, b); }, py::is_operator())
      .def("__truediv__", [](const Tensor& a, const Scalar& b) { return glassbox::div(a, number(b)); }, py::is_operator())
      .def("__rtruediv__", [](const Tensor& a, const Scalar& b) { return glassbox::div(number(b), a); }, py::is_operator())
      .def("__pow__", [](const Tensor& a, const Tensor& b) { return glassbox::pow(a, b); }, py::is_operator())
      .def("__pow__", [](const Tensor& a, const Scalar& b) { return glassbox::pow(a, b); }, py::is_operator())
      .def("__rpow__", [](const Tensor& a, const Scalar& b) { return glassbox::pow(b, a); }, py::is_operator())
      .def("__matmul__", [](const Tensor& a, const Tensor& b) { return glassbox::matmul(a, b); }, py::is_operator())
      .def("__abs__", [](const Tensor& a) { return glassbox::abs(a); })
      .def("__invert__", [](const Tensor& a) { return glassbox::logical_not(a); })
      .def("__and__", [](const Tensor& a, const Tensor& b) { return glassbox::logical_and(a, b); }, py::is_operator())
      .def("__or__", [](const Tensor& a, const Tensor& b) { return glassbox::logical_or(a, b); }, py::is_operator())
      .def("__xor__", [](const Tensor& a, const Tensor& b) { return glassbox::logical_xor(a, b); }, py::is_operator())
      .def("__neg__", [](const Tensor& a) { return glassbox::neg(a); })
      .def("__pos__", [](const Tensor& a) { return a; })
      .def("__eq__", [](const Tensor& a, const Tensor& b) { return glassbox::eq(a, b); }, py::is_operator())
      .def("__eq__", [](const Tensor& a, const Scalar& b) { return glassbox::eq(a, b); }, py::is_operator())
      .def("__ne__", [](const Tensor& a, const Tensor& b) { return glassbox::ne(a, b); }, py::is_operator())
      .def("__ne__", [](const Tensor& a, const Scalar& b) { return glassbox::ne(a, b); }, py::is_operator())
      .def("__lt__", [](const Tensor& a, const Tensor& b) { return glassbox::lt(a, b); }, py::is_operator())
      .def("__lt__", [](const Tensor& a, const Scalar& b) { return glassbox::lt(a, b); }, py::is_operator())
      .def("__le__", [](const Tensor& a, const Tensor& b) { return glassbox::le(a, b); }, py::is_operator())
      .def("__le__", [](const Tensor& a, const Scalar& b) { return glassbox::le(a, b); }, py::is_operator())
      .def("__gt__", [](const Tensor& a, const Tensor& b) { return glassbox::gt(a, b); }, py::is_operator())
      .def("__gt__", [](const Tensor& a, const Scalar& b) { return glassbox::gt(a, b); }, py::is_operator())
      .def("__ge__", [](const Tensor& a, const Tensor& b) { return glassbox::ge(a, b); }, py::is_operator())
      .def("__ge__", [](const Tensor& a, const Scalar& b) { return glassbox::ge(a, b); }, py::is_operator())
      // Tensors compare element-wise, yet stay usable as dict keys by identity (as in PyTorch).
      .def("__hash__", [](const Tensor& a) { return reinterpret_cast<intptr_t>(a.unsafe_impl()); })
      .def("__len__", [](const Tensor& a) {
        if (a.dim() == 0) throw py::type_error("len() of a 0-d tensor");
        return a.sizes()[0];
      });
}
