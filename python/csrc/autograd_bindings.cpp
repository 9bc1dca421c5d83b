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

std::vector<Tensor> tensors_or_empty(const py::object& o) {
  if (o.is_none()) return {};
  if (py::isinstance<Tensor>(o)) return {o.cast<Tensor>()};
  std::vector<Tensor> out;
  for (py::handle h : o) out.push_back(h.is_none() ? Tensor() : h.cast<Tensor>());
  return out;
}
}  // namespace

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
      .def("requires_grad_", [](const Tensor& t, bool v) { return t.requires_grad_(v); }, py::arg("requires_grad") = true)
      .def_property(
          "grad", [](const Tensor& t) -> py::object { Tensor g = t.grad(); return g.defined() ? py::cast(g) : py::none(); },
          [](const Tensor& t, const py::object& g) { t.set_grad(g.is_none() ? Tensor() : g.cast<Tensor>()); })
      .def_property_readonly("grad_fn", [](const Tensor& t) { return t.grad_fn(); })
      .def_property_readonly("is_leaf", &Tensor::is_leaf)
      .def_property_readonly("output_nr", &Tensor::output_nr)
      .def(
          "backward",
          [](const Tensor& t, const py::object& gradient, std::optional<bool> retain_graph, bool create_graph) {
            t.backward(gradient.is_none() ? Tensor() : gradient.cast<Tensor>(), retain_graph, create_graph);
          },
          py::arg("gradient") = py::none(), py::arg("retain_graph") = py::none(), py::arg("create_graph") = false)
      .def("detach", &Tensor::detach)
      .def("retain_grad", &Tensor::retain_grad)
      .def_property_readonly("retains_grad", &Tensor::retains_grad)
      .def("register_hook", [](const Tensor& t, py::function hook) {
        t.register_hook([hook](const Tensor& g) -> Tensor {
          py::gil_scoped_acquire gil;
          py::object r = hook(g);
          return r.is_none() ? Tensor() : r.cast<Tensor>();
        });
      });

  py::module_ ag = m.def_submodule("_autograd", "the autograd engine");
  ag.def("is_grad_enabled", &autograd::is_grad_enabled);
  ag.def("set_grad_enabled", &autograd::set_grad_enabled, py::arg("enabled"));
  ag.def(
      "backward",
      [](const py::object& tensors, const py::object& grads, std::optional<bool> retain_graph, bool create_graph) {
        autograd::backward(tensors_or_empty(tensors), tensors_or_empty(grads), retain_graph, create_graph);
      },
      py::arg("tensors"), py::arg("grad_tensors") = py::none(), py::arg("retain_graph") = py::none(),
      py::arg("create_graph") = false);
  ag.def(
      "grad",
      [](const py::object& outputs, const py::object& inputs, const py::object& grad_outputs,
         std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
        std::vector<Tensor> gs = autograd::grad(tensors_or_empty(outputs), tensors_or_empty(inputs),
                                                tensors_or_empty(grad_outputs), retain_graph, create_graph,
                                                allow_unused);
        py::tuple out(gs.size());
        for (size_t i = 0; i < gs.size(); ++i) out[i] = gs[i].defined() ? py::cast(gs[i]) : py::none();
        return out;
      },
      py::arg("outputs"), py::arg("inputs"), py::arg("grad_outputs") = py::none(), py::arg("retain_graph") = py::none(),
      py::arg("create_graph") = false, py::arg("allow_unused") = false);
}
