// Autograd from Python: requires_grad, .grad, .grad_fn (the backward Node, with next_functions as
// PyTorch shows them), backward(), hooks, detach; glassbox._C._autograd.grad and grad mode.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <sstream>

#include "engine/autograd/autograd_meta.h"
#include "engine/autograd/engine.h"
#include "engine/autograd/grad_mode.h"
#include "engine/autograd/node.h"
#include "engine/core/tensor.h"

namespace py = pybind11;
using namespace glassbox;
using autograd::Node;

namespace {
std::string node_repr(const Node& n) {
  std::ostringstream s;
  s << "<" << n.name() << " object at " << static_cast<const void*>(&n) << ">";
  return s.str();
}

py::tuple next_functions(const Node& n) {
  py::tuple out(n.next_edges().size());
  for (size_t i = 0; i < n.next_edges().size(); ++i) {
    const autograd::Edge& e = n.next_edges()[i];
    out[i] = py::make_tuple(e.function ? py::cast(e.function) : py::none(), e.input_nr);
  }
  return out;
}

// A Python hook as the engine holds it: copies share one reference, dropped with the GIL held
// (the engine may free a graph, and its hooks, on a thread that does not hold it). remove() makes
// the hook a no-op: the engine keeps no removable list of hooks.
struct PythonHook {
  PyObject* fn;
  bool removed = false;
  explicit PythonHook(PyObject* f) : fn(f) { Py_INCREF(fn); }
  PythonHook(const PythonHook&) = delete;
  PythonHook& operator=(const PythonHook&) = delete;
  ~PythonHook() {
    if (!Py_IsInitialized()) return;  // the interpreter is gone: nothing left to release
    py::gil_scoped_acquire gil;
    Py_DECREF(fn);
  }
};

// What register_hook returns, as PyTorch's RemovableHandle: remove(), and `with` removes on exit.
struct HookHandle {
  std::shared_ptr<PythonHook> hook;
  void remove() const { hook->removed = true; }
};

std::vector<Tensor> tensors_or_empty(const py::object& o) {
  if (o.is_none()) return {};
  if (py::isinstance<Tensor>(o)) return {o.cast<Tensor>()};
  std::vector<Tensor> out;
  for (py::handle h : o) out.push_back(h.is_none() ? Tensor() : h.cast<Tensor>());
  return out;
}
}  // namespace

void bind_python_function(py::module_& ag);  // python_function.cpp: gb.autograd.Function's node

void bind_autograd(py::module_& m) {
  py::class_<Node, std::shared_ptr<Node>>(m, "Node", "A node of the backward graph (grad_fn)")
      .def("name", &Node::name)
      .def_property_readonly("next_functions", &next_functions)
      .def_property_readonly("sequence_nr", &Node::sequence_nr)
      .def("__repr__", &node_repr);

  auto tensor = py::reinterpret_borrow<py::class_<Tensor>>(py::type::of<Tensor>());
  tensor
      .def_property(
          "requires_grad", [](const Tensor& t) { return t.requires_grad(); },
          [](const Tensor& t, bool v) { t.requires_grad_(v); })
      .def(
          "requires_grad_", [](const Tensor& t, bool v) { return t.requires_grad_(v); },
          py::arg("requires_grad") = true)
      .def_property(
          "grad",
          [](const Tensor& t) -> py::object {
            Tensor g = t.grad();
            return g.defined() ? py::cast(g) : py::none();
          },
          [](const Tensor& t, const py::object& g) { t.set_grad(g.is_none() ? Tensor() : g.cast<Tensor>()); })
      .def_property_readonly("grad_fn", [](const Tensor& t) { return t.grad_fn(); })
      .def_property_readonly("is_leaf", &Tensor::is_leaf)
      .def_property_readonly("output_nr", &Tensor::output_nr)
      .def(
          "backward",
          [](const Tensor& t, const py::object& gradient, std::optional<bool> retain_graph, bool create_graph) {
    const Tensor g = gradient.is_none() ? Tensor() : gradient.cast<Tensor>();
    py::gil_scoped_release nogil;  // hooks take it back
    t.backward(g, retain_graph, create_graph);
          },
          py::arg("gradient") = py::none(), py::arg("retain_graph") = py::none(), py::arg("create_graph") = false)
      .def("detach", &Tensor::detach)
      .def("retain_grad", &Tensor::retain_grad)
      .def_property_readonly("retains_grad", &Tensor::retains_grad)
      .def(
          "register_hook",
          [](const Tensor& t, py::function fn) {
    auto hook = std::make_shared<PythonHook>(fn.ptr());
    t.register_hook([hook](const Tensor& g) -> Tensor {
      py::gil_scoped_acquire gil;
      if (hook->removed) return Tensor();
      py::object r = py::reinterpret_borrow<py::object>(hook->fn)(g);
      if (r.is_none()) return Tensor();
      if (!py::isinstance<Tensor>(r))
        throw py::type_error("a tensor hook must return a Tensor or None, but it returned " +
                             std::string(py::str(py::type::handle_of(r).attr("__name__"))));
      return r.cast<Tensor>();
    });
    return HookHandle{hook};
          },
          py::arg("hook"))
      // t.data: the same data without history; t.data = other makes this Python tensor hold
      // other's data (shared, not copied) and keeps its requires_grad (and .grad where it fits).
      .def_property(
          "data", [](const Tensor& t) { return t.detach(); },
          [](py::object self, const Tensor& value) {
    Tensor& held = self.cast<Tensor&>();
    Tensor replacement = value.detach();
    const bool requires_grad = held.requires_grad();
    const Tensor grad = held.grad();
    if (requires_grad) replacement.requires_grad_(true);
    // .grad stays while it still fits (the engine refuses a grad of another shape or dtype).
    if (grad.defined() && grad.sizes() == replacement.sizes() && grad.dtype() == replacement.dtype())
      replacement.set_grad(grad);
    held = replacement;
          });

  py::class_<HookHandle>(m, "RemovableHandle", "what register_hook returns: remove() takes the hook out")
      .def("remove", &HookHandle::remove)
      .def("__enter__", [](const HookHandle& h) { return h; })
      .def("__exit__", [](const HookHandle& h, py::args) { h.remove(); });

  py::module_ ag = m.def_submodule("_autograd", "the autograd engine");
  ag.def("is_grad_enabled", &autograd::is_grad_enabled);
  ag.def("set_grad_enabled", &autograd::set_grad_enabled, py::arg("enabled"));
  bind_python_function(ag);
  ag.def(
      "backward",
      [](const py::object& tensors, const py::object& grads, std::optional<bool> retain_graph, bool create_graph) {
    std::vector<Tensor> outputs = tensors_or_empty(tensors), gradients = tensors_or_empty(grads);
    py::gil_scoped_release nogil;
    autograd::backward(outputs, gradients, retain_graph, create_graph);
      },
      py::arg("tensors"), py::arg("grad_tensors") = py::none(), py::arg("retain_graph") = py::none(),
      py::arg("create_graph") = false);
  ag.def(
      "grad",
      [](const py::object& outputs, const py::object& inputs, const py::object& grad_outputs,
         std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
    const std::vector<Tensor> outs = tensors_or_empty(outputs), ins = tensors_or_empty(inputs),
                              grads = tensors_or_empty(grad_outputs);
    std::vector<Tensor> gs;
    {
      py::gil_scoped_release nogil;
      gs = autograd::grad(outs, ins, grads, retain_graph, create_graph, allow_unused);
    }
    py::tuple out(gs.size());
    for (size_t i = 0; i < gs.size(); ++i) out[i] = gs[i].defined() ? py::cast(gs[i]) : py::none();
    return out;
      },
      py::arg("outputs"), py::arg("inputs"), py::arg("grad_outputs") = py::none(), py::arg("retain_graph") = py::none(),
      py::arg("create_graph") = false, py::arg("allow_unused") = false);
}
