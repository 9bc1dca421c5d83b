#pragma once
// Real PyTorch's operator registrations, in the form glassbox's own take (RegistrationInputs), so
// that `glassbox ops --torch` gives the same table, graph and JSON for PyTorch as for glassbox:
//   - live: PyTorch's registry, read by python/glassbox/introspect_torch.py in a child process with
//     a time limit (its kernels per key with `registered at FILE:LINE`, and each computed table);
//   - binary alone: which key has a kernel for each operator and which function it is, inferred
//     from the symbol names of libtorch_cpu.so / libtorch_cuda.so (no loading): every kernel
//     registered through TORCH_FN leaves a boxing wrapper whose name spells the kernel
//     (make_boxed_from_unboxed_functor<...CompileTimeFunctionPointer<SIG, &KERNEL>...>), and the
//     generated kernels' names spell the key and operator (at::(anon)::wrapper_CPU_add_Tensor,
//     torch::autograd::VariableType::(anon)::add_Tensor, ...); the operators' names come from the
//     schema strings in .rodata ("add.Tensor(Tensor self, ...) -> Tensor"); and the code of each
//     TORCH_LIBRARY_IMPL(ns, Key, m) block (Capstone) loads the names of the operators it registers
//     a kernel for under Key, boxed ones and hand-written ones included (their kernel unnamed).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "introspect/registry/registration_graph.h"

namespace glassbox::introspect {

struct TorchLiveOptions {
  std::string python;         // an interpreter that can `import torch`
  std::string reader;         // introspect_torch.py
  std::string op_regex;       // only these operators ("" for all)
  std::string torch_dir;      // a torch folder (include/, lib/): where `import torch` fails, the reader builds
                              // a C++ reader against its headers and loads its libraries instead ("" for none)
  int timeout_seconds = 300;  // the child is killed after this
};

// The live registry as glassbox-registry JSON (with "torch_lib_dir" and "producer"). Throws
// glassbox::Error saying what failed: the interpreter cannot run, `import torch` fails (its
// message), the time limit passed, or the output is not JSON.
std::string torch_live_registry_json(const TorchLiveOptions& options);

// The torch/lib directory and version a live registry JSON names ("" when absent); reads only the
// JSON's top-level fields.
struct TorchLiveInfo {
  std::string lib_dir, producer;
};
TorchLiveInfo torch_live_info(std::string_view registry_json);

// What the binaries alone show.
struct TorchBinaryKernels {
  std::vector<BinaryRegistrationRecord> registrations;  // kind "impl", block "TORCH_FN (inferred)"
  std::vector<KernelDefinitionRecord> definitions;      // the kernels' symbols and sizes
  std::vector<BinaryLibraryRecord> libraries;
  std::size_t schemas = 0;          // operator names found in .rodata schema strings
  std::size_t boxed_kernels = 0;    // distinct kernels behind a TORCH_FN boxing wrapper
  std::size_t unplaced = 0;         // of those, kernels whose key or operator the name does not tell
  std::size_t blocks = 0;           // TORCH_LIBRARY_IMPL blocks whose code was read
  std::size_t from_block_code = 0;  // (operator, key) registrations found only in a block's code
  std::size_t not_in_blocks = 0;    // placed kernels of a key no block is for: not registered at load
  // Registrations both a block's code and the kernel's name place: how often the kernel the block
  // loads before the operator's name is the one the name placement gives.
  std::size_t block_kernels_checked = 0, block_kernels_agree = 0;
  std::vector<std::string> notes;  // what could not be read (stripped, missing)
};

// Reads each library (a missing or non-ELF one becomes a note, not an error).
TorchBinaryKernels read_torch_binaries(const std::vector<std::string>& libraries);

// The torch libraries under lib_dir that hold operator kernels: libtorch_cpu.so and, when
// present and `with_cuda`, libtorch_cuda.so.
std::vector<std::string> torch_kernel_libraries(const std::string& lib_dir, bool with_cuda);

// The kernel-name family a registration unit defines ("at::(anonymous namespace)::wrapper_CPU_" for
// .../RegisterCPU_0.cpp, "torch::autograd::VariableType::" for VariableType_2.cpp), or "" for a
// hand-written unit, whose kernels' names cannot be told from where they are registered.
std::string torch_kernel_family(std::string_view registered_at);

// The binary-alone recovery against the live registry over one namespace's operators.
// (operator, key) pairs agree when both have the registration; (operator, key, kernel) triples
// when, besides, the kernel agrees: the binary names a function of the family that the live
// registration's unit defines (wrapper_CPU_* for RegisterCPU_0.cpp; for a hand-written unit, whose
// kernels' names cannot be told from where they are registered, any); or, for a kernel the binary
// found only in a block's code (a boxed one, unnamed), the unit whose static initialiser runs that
// block is the live registration's unit.
// Registrations made from Python (.py) cannot be in a binary and are counted apart.
struct TorchAgreement {
  std::size_t live = 0, binary = 0, both = 0, agree = 0, from_python = 0, kernel_checked = 0, kernel_unnamed = 0;
  std::vector<std::string> live_only, binary_only, kernel_differs;  // "aten::op key" examples
  std::size_t all() const { return live + binary - both; }
  double pair_percent() const;  // both / all, in %
  double percent() const;       // agree / all, in %
};
TorchAgreement torch_agreement(const RegistrationView& view, std::string_view ns = "aten");

// The computed dispatch table of each operator the view shows, from the live registry JSON, in
// PyTorch's _dispatch_dump_table text: "CPU: registered at FILE:LINE [kernel]" per slot.
std::string torch_dispatch_table_text(std::string_view registry_json, const std::string& op_regex);

}  // namespace glassbox::introspect
