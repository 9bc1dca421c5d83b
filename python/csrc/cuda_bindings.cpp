// glassbox._C._cuda: devices, memory statistics, matmul and cuDNN settings of glassbox_cuda (all of it
// answers without a GPU too: counts are 0 and waiting for a device raises). python/glassbox/cuda.py
// and python/glassbox/backends/ build the PyTorch-like API on top.
#include <pybind11/pybind11.h>

#include "engine/cuda/cuda_device.h"
#include "engine/cuda/cudnn_settings.h"
#include "engine/cuda/matmul_settings.h"
#include "engine/cuda/memory.h"

namespace py = pybind11;

void bind_cuda(py::module_& cuda) {
  using namespace glassbox::cuda;
  cuda.def("current_device", &current_device);
  cuda.def("set_device", &set_device, py::arg("device"));
  cuda.def("synchronize", &synchronize, py::arg("device") = -1);
  cuda.def(
      "memory_stats",
      [](int device) {
    const MemoryStats s = memory_stats(device);
    py::dict d;
    d["allocated_bytes"] = s.allocated_bytes;
    d["peak_allocated_bytes"] = s.peak_allocated_bytes;
    d["reserved_bytes"] = s.reserved_bytes;
    d["peak_reserved_bytes"] = s.peak_reserved_bytes;
    d["active_blocks"] = s.active_blocks;
    d["allocations"] = s.allocations;
    d["driver_allocations"] = s.driver_allocations;
    return d;
      },
      py::arg("device") = -1);
  cuda.def("reset_peak_memory_stats", &reset_peak_memory_stats, py::arg("device") = -1);
  cuda.def("empty_cache", &empty_cache);
  cuda.def("matmul_allow_tf32", &matmul_allow_tf32);
  cuda.def("set_matmul_allow_tf32", &set_matmul_allow_tf32, py::arg("allow"));
  cuda.def("cudnn_available", &cudnn_available);
  cuda.def("cudnn_version", &cudnn_version);
  cuda.def("cudnn_describe", &cudnn_describe);
  cuda.def("cudnn_enabled", &cudnn_enabled);
  cuda.def("set_cudnn_enabled", &set_cudnn_enabled, py::arg("enabled"));
  cuda.def("cudnn_allow_tf32", &cudnn_allow_tf32);
  cuda.def("set_cudnn_allow_tf32", &set_cudnn_allow_tf32, py::arg("allow"));
  cuda.def("cudnn_benchmark", &cudnn_benchmark);
  cuda.def("set_cudnn_benchmark", &set_cudnn_benchmark, py::arg("measure"));
}
