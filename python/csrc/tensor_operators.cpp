// Python's operators on tensors (a + b, 2 * a, a @ b, -a, a < b, a & b, a % b, a << b, ...), bound directly to the
// typed C++ functions: the fastest path from Python to a kernel. Each runs with the GIL released.
//
// Operands: tensors, Python numbers and NumPy scalars (as Scalars: weak types in promotion), and
// NumPy arrays (a 0-d array as the number it holds, an array with dims as a tensor holding a copy).
// Tensor.__array_priority__ makes NumPy's own operators step aside, so np.float32(2) * t and
// np.ones(3) + t come here through the reflected forms and keep autograd.
#include <pybind11/pybind11.h>

#include <optional>
#include <string_view>

#include "engine/core/empty.h"
#include "glassbox/ops/Functions.h"
#include "python/csrc/type_casters.h"

using namespace glassbox;

namespace {
// A Python number on the left (2 - a): a 0-d "wrapped number" tensor, which promotes as a weak type.
Tensor number(const Scalar& s) { return wrap_scalar(s); }

const auto kNoGil = py::call_guard<python::ReleaseGil>();

std::optional<Tensor> array_operand(py::handle h) {
  if (std::string_view(Py_TYPE(h.ptr())->tp_name) != "numpy.ndarray") return std::nullopt;
  if (py::getattr(h, "ndim").cast<int64_t>() == 0) {
    py::detail::make_caster<Scalar> scalar;
    if (!scalar.load(h.attr("item")(), true)) return std::nullopt;
    return number(py::detail::cast_op<Scalar>(scalar));
  }
  return py::module_::import("glassbox").attr("tensor")(h).cast<Tensor>();
}

using TensorFn = Tensor (*)(const Tensor&, const Tensor&);

// The overload tried last: NumPy arrays; anything else is NotImplemented (Python then tries the
// other operand's reflected operator, or == falls back to identity).
template <bool kReflected>
py::object with_array(const Tensor& a, py::handle other, TensorFn f) {
  std::optional<Tensor> b = array_operand(other);
  if (!b) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  Tensor out;
  {
    python::ReleaseGil nogil;
    out = kReflected ? f(*b, a) : f(a, *b);
  }
  return py::cast(std::move(out));
}

template <bool kReflected, TensorFn F>
void def_array(py::class_<Tensor>& t, const char* name) {
  t.def(
      name, [](const Tensor& a, py::handle other) { return with_array<kReflected>(a, other, F); }, py::is_operator());
}

Tensor add_tt(const Tensor& a, const Tensor& b) { return glassbox::add(a, b); }
Tensor sub_tt(const Tensor& a, const Tensor& b) { return glassbox::sub(a, b); }
Tensor mul_tt(const Tensor& a, const Tensor& b) { return glassbox::mul(a, b); }
Tensor div_tt(const Tensor& a, const Tensor& b) { return glassbox::div(a, b); }
Tensor pow_tt(const Tensor& a, const Tensor& b) { return glassbox::pow(a, b); }
Tensor matmul_tt(const Tensor& a, const Tensor& b) { return glassbox::matmul(a, b); }
Tensor and_tt(const Tensor& a, const Tensor& b) { return glassbox::bitwise_and(a, b); }
Tensor or_tt(const Tensor& a, const Tensor& b) { return glassbox::bitwise_or(a, b); }
Tensor xor_tt(const Tensor& a, const Tensor& b) { return glassbox::bitwise_xor(a, b); }
Tensor lshift_tt(const Tensor& a, const Tensor& b) { return glassbox::bitwise_left_shift(a, b); }
Tensor rshift_tt(const Tensor& a, const Tensor& b) { return glassbox::bitwise_right_shift(a, b); }
Tensor mod_tt(const Tensor& a, const Tensor& b) { return glassbox::remainder(a, b); }
Tensor floordiv_tt(const Tensor& a, const Tensor& b) { return glassbox::floor_divide(a, b); }

// ~ is bitwise: integers and bool only; Python's TypeError for floating point, as PyTorch raises it.
Tensor invert(const Tensor& a) {
  if (is_floating_point(a.dtype()))
    throw py::type_error("~ (operator.invert) is only implemented on integer and bool tensors, got " +
                         std::string(to_string(a.dtype())));
  return glassbox::bitwise_not(a);
}

// The binary operators Python spells with a symbol, each with its reflected (2 - a) and in-place
// (a -= 2) form, for tensor and number operands. In-place forms write self and return it.
template <TensorFn F>
void def_binary(py::class_<Tensor>& t, const char* name, const char* reflected, const char* inplace,
                Tensor& (Tensor::*in_place)(const Tensor&) const) {
  const auto op = py::is_operator();
  t.def(
       name, [](const Tensor& a, const Tensor& b) { return F(a, b); }, op, kNoGil)
      .def(
          name, [](const Tensor& a, const Scalar& b) { return F(a, number(b)); }, op, kNoGil)
      .def(
          reflected, [](const Tensor& a, const Tensor& b) { return F(b, a); }, op, kNoGil)
      .def(
          reflected, [](const Tensor& a, const Scalar& b) { return F(number(b), a); }, op, kNoGil)
      .def(
          inplace, [in_place](Tensor& a, const Tensor& b) { return (a.*in_place)(b); }, op, kNoGil)
      .def(
          inplace, [in_place](Tensor& a, const Scalar& b) { return (a.*in_place)(number(b)); }, op, kNoGil);
}
Tensor eq_tt(const Tensor& a, const Tensor& b) { return glassbox::eq(a, b); }
Tensor ne_tt(const Tensor& a, const Tensor& b) { return glassbox::ne(a, b); }
Tensor lt_tt(const Tensor& a, const Tensor& b) { return glassbox::lt(a, b); }
Tensor le_tt(const Tensor& a, const Tensor& b) { return glassbox::le(a, b); }
Tensor gt_tt(const Tensor& a, const Tensor& b) { return glassbox::gt(a, b); }
Tensor ge_tt(const Tensor& a, const Tensor& b) { return glassbox::ge(a, b); }
}  // namespace

void bind_tensor_operators(py::module_&) {
  auto t = py::reinterpret_borrow<py::class_<Tensor>>(py::type::of<Tensor>());
  const auto op = py::is_operator();
  t.def(
       "__add__", [](const Tensor& a, const Tensor& b) { return glassbox::add(a, b); }, op, kNoGil)
      .def(
          "__add__", [](const Tensor& a, const Scalar& b) { return glassbox::add(a, b); }, op, kNoGil)
      .def(
          "__radd__", [](const Tensor& a, const Scalar& b) { return glassbox::add(a, b); }, op, kNoGil)
      .def(
          "__iadd__", [](Tensor& a, const Tensor& b) { return a.add_(b); }, op, kNoGil)
      .def(
          "__iadd__", [](Tensor& a, const Scalar& b) { return a.add_(number(b)); }, op, kNoGil)
      .def(
          "__sub__", [](const Tensor& a, const Tensor& b) { return glassbox::sub(a, b); }, op, kNoGil)
      .def(
          "__sub__", [](const Tensor& a, const Scalar& b) { return glassbox::sub(a, number(b)); }, op, kNoGil)
      .def(
          "__rsub__", [](const Tensor& a, const Scalar& b) { return glassbox::sub(number(b), a); }, op, kNoGil)
      .def(
          "__mul__", [](const Tensor& a, const Tensor& b) { return glassbox::mul(a, b); }, op, kNoGil)
      .def(
          "__mul__", [](const Tensor& a, const Scalar& b) { return glassbox::mul(a, b); }, op, kNoGil)
      .def(
          "__rmul__", [](const Tensor& a, const Scalar& b) { return glassbox::mul(a, b); }, op, kNoGil)
      .def(
          "__truediv__", [](const Tensor& a, const Tensor& b) { return glassbox::div(a, b); }, op, kNoGil)
      .def(
          "__truediv__", [](const Tensor& a, const Scalar& b) { return glassbox::div(a, number(b)); }, op, kNoGil)
      .def(
          "__rtruediv__", [](const Tensor& a, const Scalar& b) { return glassbox::div(number(b), a); }, op, kNoGil)
      .def(
          "__pow__", [](const Tensor& a, const Tensor& b) { return glassbox::pow(a, b); }, op, kNoGil)
      .def(
          "__pow__", [](const Tensor& a, const Scalar& b) { return glassbox::pow(a, b); }, op, kNoGil)
      .def(
          "__rpow__", [](const Tensor& a, const Scalar& b) { return glassbox::pow(b, a); }, op, kNoGil)
      .def(
          "__matmul__", [](const Tensor& a, const Tensor& b) { return glassbox::matmul(a, b); }, op, kNoGil)
      .def(
          "__abs__", [](const Tensor& a) { return glassbox::abs(a); }, kNoGil)
      .def("__invert__", &invert, kNoGil)
      .def(
          "__neg__", [](const Tensor& a) { return glassbox::neg(a); }, kNoGil)
      .def("__pos__", [](const Tensor& a) { return a; })
      .def(
          "__eq__", [](const Tensor& a, const Tensor& b) { return glassbox::eq(a, b); }, op, kNoGil)
      .def(
          "__eq__", [](const Tensor& a, const Scalar& b) { return glassbox::eq(a, b); }, op, kNoGil)
      .def(
          "__ne__", [](const Tensor& a, const Tensor& b) { return glassbox::ne(a, b); }, op, kNoGil)
      .def(
          "__ne__", [](const Tensor& a, const Scalar& b) { return glassbox::ne(a, b); }, op, kNoGil)
      .def(
          "__lt__", [](const Tensor& a, const Tensor& b) { return glassbox::lt(a, b); }, op, kNoGil)
      .def(
          "__lt__", [](const Tensor& a, const Scalar& b) { return glassbox::lt(a, b); }, op, kNoGil)
      .def(
          "__le__", [](const Tensor& a, const Tensor& b) { return glassbox::le(a, b); }, op, kNoGil)
      .def(
          "__le__", [](const Tensor& a, const Scalar& b) { return glassbox::le(a, b); }, op, kNoGil)
      .def(
          "__gt__", [](const Tensor& a, const Tensor& b) { return glassbox::gt(a, b); }, op, kNoGil)
      .def(
          "__gt__", [](const Tensor& a, const Scalar& b) { return glassbox::gt(a, b); }, op, kNoGil)
      .def(
          "__ge__", [](const Tensor& a, const Tensor& b) { return glassbox::ge(a, b); }, op, kNoGil)
      .def(
          "__ge__", [](const Tensor& a, const Scalar& b) { return glassbox::ge(a, b); }, op, kNoGil);
  // Reflected forms called with a tensor (a.__rsub__(b) is b - a), as Python never does but code may.
  t.def(
       "__radd__", [](const Tensor& a, const Tensor& b) { return glassbox::add(b, a); }, op, kNoGil)
      .def(
          "__rsub__", [](const Tensor& a, const Tensor& b) { return glassbox::sub(b, a); }, op, kNoGil)
      .def(
          "__rmul__", [](const Tensor& a, const Tensor& b) { return glassbox::mul(b, a); }, op, kNoGil)
      .def(
          "__rtruediv__", [](const Tensor& a, const Tensor& b) { return glassbox::div(b, a); }, op, kNoGil)
      .def(
          "__rpow__", [](const Tensor& a, const Tensor& b) { return glassbox::pow(b, a); }, op, kNoGil)
      .def(
          "__rmatmul__", [](const Tensor& a, const Tensor& b) { return glassbox::matmul(b, a); }, op, kNoGil);
  // & | ^ are bitwise (logical on bool), << >> shift, % is Python's remainder, // floor division.
  def_binary<and_tt>(t, "__and__", "__rand__", "__iand__", &Tensor::bitwise_and_);
  def_binary<or_tt>(t, "__or__", "__ror__", "__ior__", &Tensor::bitwise_or_);
  def_binary<xor_tt>(t, "__xor__", "__rxor__", "__ixor__", &Tensor::bitwise_xor_);
  def_binary<lshift_tt>(t, "__lshift__", "__rlshift__", "__ilshift__", &Tensor::bitwise_left_shift_);
  def_binary<rshift_tt>(t, "__rshift__", "__rrshift__", "__irshift__", &Tensor::bitwise_right_shift_);
  def_binary<mod_tt>(t, "__mod__", "__rmod__", "__imod__", &Tensor::remainder_);
  def_binary<floordiv_tt>(t, "__floordiv__", "__rfloordiv__", "__ifloordiv__", &Tensor::floor_divide_);
  // The in-place arithmetic (a -= b writes a, as in PyTorch, rather than rebinding a to a new tensor).
  t.def(
       "__isub__", [](Tensor& a, const Tensor& b) { return a.sub_(b); }, op, kNoGil)
      .def(
          "__isub__", [](Tensor& a, const Scalar& b) { return a.sub_(number(b)); }, op, kNoGil)
      .def(
          "__imul__", [](Tensor& a, const Tensor& b) { return a.mul_(b); }, op, kNoGil)
      .def(
          "__imul__", [](Tensor& a, const Scalar& b) { return a.mul_(number(b)); }, op, kNoGil)
      .def(
          "__itruediv__", [](Tensor& a, const Tensor& b) { return a.div_(b); }, op, kNoGil)
      .def(
          "__itruediv__", [](Tensor& a, const Scalar& b) { return a.div_(number(b)); }, op, kNoGil);
  // NumPy arrays, tried after every typed overload.
  def_array<false, add_tt>(t, "__add__");
  def_array<true, add_tt>(t, "__radd__");
  def_array<false, sub_tt>(t, "__sub__");
  def_array<true, sub_tt>(t, "__rsub__");
  def_array<false, mul_tt>(t, "__mul__");
  def_array<true, mul_tt>(t, "__rmul__");
  def_array<false, div_tt>(t, "__truediv__");
  def_array<true, div_tt>(t, "__rtruediv__");
  def_array<false, pow_tt>(t, "__pow__");
  def_array<true, pow_tt>(t, "__rpow__");
  def_array<false, matmul_tt>(t, "__matmul__");
  def_array<true, matmul_tt>(t, "__rmatmul__");
  def_array<false, and_tt>(t, "__and__");
  def_array<true, and_tt>(t, "__rand__");
  def_array<false, or_tt>(t, "__or__");
  def_array<true, or_tt>(t, "__ror__");
  def_array<false, xor_tt>(t, "__xor__");
  def_array<true, xor_tt>(t, "__rxor__");
  def_array<false, lshift_tt>(t, "__lshift__");
  def_array<true, lshift_tt>(t, "__rlshift__");
  def_array<false, rshift_tt>(t, "__rshift__");
  def_array<true, rshift_tt>(t, "__rrshift__");
  def_array<false, mod_tt>(t, "__mod__");
  def_array<true, mod_tt>(t, "__rmod__");
  def_array<false, floordiv_tt>(t, "__floordiv__");
  def_array<true, floordiv_tt>(t, "__rfloordiv__");
  def_array<false, eq_tt>(t, "__eq__");
  def_array<false, ne_tt>(t, "__ne__");
  def_array<false, lt_tt>(t, "__lt__");
  def_array<false, le_tt>(t, "__le__");
  def_array<false, gt_tt>(t, "__gt__");
  def_array<false, ge_tt>(t, "__ge__");
  // Above NumPy's arrays and scalars, so that their operators return NotImplemented for a tensor
  // operand and Python calls the tensor's (reflected) operator instead.
  t.attr("__array_priority__") = 1000;
  // Tensors compare element-wise, yet stay usable as dict keys by identity (as in PyTorch).
  t.def("__hash__", [](const Tensor& a) {
     return reinterpret_cast<intptr_t>(a.unsafe_impl());
   }).def("__len__", [](const Tensor& a) {
    if (a.dim() == 0) throw py::type_error("len() of a 0-d tensor");
    return a.sizes()[0];
  });
}
