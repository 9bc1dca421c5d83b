// gb.autograd.Function's backward node: a Node whose apply() calls the Python class's backward
// (python/glassbox/autograd/function.py) with the GIL taken, and the binding that records it as the
// history of the forward's outputs. The engine runs backward without the GIL, so every touch of a
// Python object here takes it first.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/autograd/autograd_meta.h"
#include "engine/autograd/node.h"
#include "engine/core/error.h"

namespace py = pybind11;
using namespace glassbox;

namespace {
class PythonFunctionNode : public autograd::Node {
 public:
  PythonFunctionNode(PyObject* backward, std::string name) : backward_(backward), name_(std::move(name)) {
    Py_INCREF(backward_);
  }
  ~PythonFunctionNode() override {
    if (!Py_IsInitialized()) return;  // the interpreter is gone: nothing left to release
    py::gil_scoped_acquire gil;
    Py_DECREF(backward_);
  }

  std::string name() const override { return name_; }

  autograd::variable_list apply(autograd::variable_list&& grads) override {
    py::gil_scoped_acquire gil;
    py::tuple args(grads.size());
    for (size_t i = 0; i < grads.size(); ++i) args[i] = grads[i].defined() ? py::cast(grads[i]) : py::none();
    const py::object result = py::reinterpret_borrow<py::object>(backward_)(*args);
    // The Python side has checked the count and types: one tensor or None per next edge.
    autograd::variable_list out;
    for (py::handle g : result) out.push_back(g.is_none() ? Tensor() : g.cast<Tensor>());
    GB_CHECK(out.size() == num_outputs(), name_, " returned ", out.size(), " gradients for ", num_outputs(), " inputs");
    return out;
  }

 private:
  PyObject* backward_;
  std::string name_;
};
}  // namespace

void bind_python_function(py::module_& ag) {
  ag.def(
      "_record_function",
      [](py::object backward, std::string name, const std::vector<std::optional<Tensor>>& inputs,
         const std::vector<Tensor>& outputs, const std::vector<bool>& differentiable) {
    auto node = std::make_shared<PythonFunctionNode>(backward.ptr(), std::move(name));
    std::vector<autograd::Edge> edges;
    for (const std::optional<Tensor>& t : inputs) autograd::append_edges(edges, t);
    node->set_next_edges(std::move(edges));
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (differentiable[i]) autograd::set_history(outputs[i], node);
      else node->add_input_metadata(outputs[i]);  // keeps the output numbering; no gradient flows
    }
    return std::static_pointer_cast<autograd::Node>(node);
      },
      "Makes a gb.autograd.Function's backward the history of its outputs (internal)", py::arg("backward"),
      py::arg("name"), py::arg("inputs"), py::arg("outputs"), py::arg("differentiable"));
}
