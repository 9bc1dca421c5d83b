#pragma once
// glassbox's C++ API in one header, as <torch/torch.h> is PyTorch's: tensors and their methods,
// every operator's function (glassbox::add, glassbox::ones, glassbox::matmul, ... generated from
// engine/ops/ops.yaml), printing (std::cout << t), autograd (t.backward(), t.grad()), errors, and
// the registration macros for operators of your own (GLASSBOX_LIBRARY, GLASSBOX_LIBRARY_IMPL).
//
// A project outside this tree gets it through CMake:
//   find_package(glassbox CONFIG REQUIRED)
//   target_link_libraries(app PRIVATE glassbox::glassbox)   # glassbox::cuda for the CUDA kernels
#include "engine/core/error.h"
#include "engine/core/scalar_type.h"
#include "engine/core/tensor.h"
#include "engine/ops/tensor_printing.h"
#include "glassbox/ops/Functions.h"
#include "registry/library.h"
