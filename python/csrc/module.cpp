// glassbox._C: the engine's Python bindings. Errors arrive in Python as exceptions with the same
// text: glassbox::TypeError/IndexError/ValueError/NotImplementedError as the Python class of that name, every other
// glassbox::Error as RuntimeError.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdio>

#include "engine/core/error.h"
#include "engine/core/parallel.h"
#include "engine/core/tensor.h"
#include "engine/core/warning.h"
#include "engine/cuda/cuda_device.h"
#include "engine/ops/kernels/conv.h"
#include "python/csrc/type_casters.h"

namespace py = pybind11;

void bind_registry(py::module_& m);
void bind_tensor(py::module_& m);
void bind_op_calls(py::module_& m);
void bind_numpy(py::module_& m);
void bind_autograd(py::module_& m);
void bind_tensor_operators(py::module_& m);
namespace glassbox {
void bind_generated(py::module_& m, py::class_<Tensor>& tensor);
}
void bind_indexing(py::module_& m);
void bind_random(py::module_& m);
void bind_cuda(py::module_& cuda);
void bind_dlpack(py::module_& m);
void bind_library(py::module_& m);
void bind_trace(py::module_& m);
void bind_profiler(py::module_& m);

namespace {
// glassbox::warn as Python's warnings.warn(UserWarning), as PyTorch's warnings arrive. Kernels run with the
// GIL released, so it is taken here; a warning filter set to "error" raises from the operator call.
void warn_in_python(const std::string& message) {
  if (!Py_IsInitialized()) {
    std::fprintf(stderr, "glassbox warning: %s\n", message.c_str());
    return;
  }
  py::gil_scoped_acquire gil;
  if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) != 0) throw py::error_already_set();
}
}  // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "glassbox engine bindings";
  py::register_local_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const glassbox::TypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const glassbox::IndexError& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    } catch (const glassbox::ValueError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const glassbox::NotImplementedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    } catch (const glassbox::Error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
  glassbox::set_warning_handler(&warn_in_python);
  bind_registry(m);
  bind_tensor(m);
  bind_op_calls(m);
  bind_numpy(m);
  bind_autograd(m);
  bind_tensor_operators(m);
  // Every operator of ops.yaml, typed: glassbox._C._functions.<op> and the Tensor methods.
  py::module_ functions = m.def_submodule("_functions", "the operators of ops.yaml as typed functions");
  auto tensor = py::reinterpret_borrow<py::class_<glassbox::Tensor>>(py::type::of<glassbox::Tensor>());
  glassbox::bind_generated(functions, tensor);
  bind_indexing(m);
  bind_random(m);
  bind_dlpack(m);
  bind_library(m);
  bind_trace(m);
  bind_profiler(m);

  // torch.set_num_threads / get_num_threads: the CPU kernels' thread pool (OpenBLAS and oneDNN follow it).
  m.def("set_num_threads", &glassbox::set_num_threads, py::arg("n"));
  m.def("get_num_threads", &glassbox::get_num_threads);
  // Which library computes convolutions on a device ("oneDNN", "im2col + gemm", ...; None on Meta).
  m.def("_convolution_library", [](const glassbox::Device& device) -> std::optional<std::string> {
    const auto* backend = glassbox::kernels::ConvBackends::of(device);
    if (!backend || !backend->library) return std::nullopt;
    return std::string(backend->library());
  });

  py::module_ cuda = m.def_submodule("_cuda", "what glassbox_cuda was built with and sees");
  cuda.def("built_with_cuda", &glassbox::cuda::built_with_cuda);
  cuda.def("device_count", &glassbox::cuda::device_count);
  cuda.def("describe", &glassbox::cuda::describe);
  bind_cuda(cuda);
}
