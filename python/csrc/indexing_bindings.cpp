// Tensor.__getitem__ / __setitem__: Python index expressions (ints, slices with steps, None,
// Ellipsis, bools, bool masks, integer tensors, lists and NumPy arrays of ints or bools) turned
// into engine/ops/tensor_index.h's TensorIndex list, so Python and C++ index alike.
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/ops/tensor_index.h"
#include "glassbox/ops/Functions.h"
#include "python/csrc/type_casters.h"

namespace py = pybind11;
using namespace glassbox;
using indexing::TensorIndex;

namespace {
std::string type_name(py::handle h) { return py::str(py::type::handle_of(h).attr("__name__")); }

// A list or NumPy array used as an index: a tensor made by glassbox.tensor (ints give int64,
// bools bool). An empty list picks nothing, as an empty int64 index.
Tensor sequence_index(py::handle h) {
  Tensor t = py::module_::import("glassbox").attr("tensor")(h).cast<Tensor>();
  if (t.numel() == 0 && is_floating_point(t.dtype())) return t.to(ScalarType::Int64);
  return t;
}

TensorIndex to_index(py::handle h) {
  if (h.is_none()) return TensorIndex(indexing::None);
  if (h.ptr() == Py_Ellipsis) return TensorIndex(indexing::Ellipsis);
  if (py::isinstance<Tensor>(h)) return TensorIndex(h.cast<Tensor>());
  if (py::isinstance<py::bool_>(h)) return TensorIndex(h.cast<bool>());
  if (PySlice_Check(h.ptr())) {
    Py_ssize_t start = 0, stop = 0, step = 0;
    if (PySlice_Unpack(h.ptr(), &start, &stop, &step) != 0) throw py::error_already_set();
    // PySlice_Unpack turns an omitted bound into the extreme value, which slicing clamps.
    return TensorIndex(indexing::Slice(start, stop, step));
  }
  if (py::isinstance<py::list>(h)) return TensorIndex(sequence_index(h));
  // NumPy arrays of any rank claim to be integers (__index__): arrays index as tensors, 0-d bools as
  // bools, and the rest (0-d integers, NumPy integer scalars) as integers.
  const bool numpy_like = py::hasattr(h, "__array__") && py::hasattr(h, "ndim") && py::hasattr(h, "dtype");
  const bool array = numpy_like && h.attr("ndim").cast<int64_t>() > 0;
  if (numpy_like && !array && h.attr("dtype").attr("kind").cast<std::string>() == "b") {
    const int truth = PyObject_IsTrue(h.ptr());
    if (truth < 0) throw py::error_already_set();
    return TensorIndex(truth != 0);
  }
  if (PyIndex_Check(h.ptr()) && !array) return TensorIndex(int64_from_python(h, IntOverflow::ValueError, "index"));
  if (py::hasattr(h, "__array__")) return TensorIndex(sequence_index(h));
  throw TypeError(
      "index: only integers, slices (':'), ellipsis ('...'), None, bools, and integer or bool tensors "
      "(or lists of them) are valid indices, got " +
      type_name(h));
}

// A tuple is one index per position; anything else is a single index (t[[0, 1]] is one list).
std::vector<TensorIndex> to_indices(py::handle obj) {
  std::vector<TensorIndex> out;
  if (py::isinstance<py::tuple>(obj)) {
    for (py::handle e : py::reinterpret_borrow<py::tuple>(obj)) out.push_back(to_index(e));
  } else {
    out.push_back(to_index(obj));
  }
  return out;
}

Tensor getitem(const Tensor& self, py::handle obj) {
  const std::vector<TensorIndex> indices = to_indices(obj);
  py::gil_scoped_release nogil;
  return get_item(self, indices);
}

void set_item_without_gil(const Tensor& self, const std::vector<TensorIndex>& indices, const Tensor& value) {
  py::gil_scoped_release nogil;
  set_item(self, indices, value);
}

void set_item_without_gil(const Tensor& self, const std::vector<TensorIndex>& indices, const Scalar& value) {
  py::gil_scoped_release nogil;
  set_item(self, indices, value);
}

void setitem(const Tensor& self, py::handle obj, py::handle value) {
  const std::vector<TensorIndex> indices = to_indices(obj);
  py::detail::make_caster<Scalar> scalar;  // bools, ints, floats and NumPy scalars
  if (py::isinstance<Tensor>(value)) {
    set_item_without_gil(self, indices, value.cast<Tensor>());
  } else if (scalar.load(value, true)) {
    set_item_without_gil(self, indices, py::detail::cast_op<Scalar>(scalar));
  } else if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value) || py::hasattr(value, "__array__")) {
    set_item_without_gil(self, indices, py::module_::import("glassbox").attr("tensor")(value).cast<Tensor>());
  } else {
    throw TypeError("index_put_: can assign a tensor, a number, or a list or array of numbers, got " +
                    type_name(value));
  }
}
}  // namespace

void bind_indexing(py::module_& m) {
  py::object cls = m.attr("Tensor");
  cls.attr("__getitem__") = py::cpp_function(&getitem, py::is_method(cls), py::arg("indices"));
  cls.attr("__setitem__") = py::cpp_function(&setitem, py::is_method(cls), py::arg("indices"), py::arg("value"));
}
