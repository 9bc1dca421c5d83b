// Prints real PyTorch's operator registry (c10::Dispatcher) as text: for every operator its state
// (name, schema, kernels per dispatch key with `registered at FILE:LINE`) and its computed
// dispatch table, the same text torch._C._dispatch_dump / _dispatch_dump_table give, between
// marker lines that introspect_torch.py reads:
//
//   @@operator aten::add.Tensor
//   <OperatorHandle::dumpState()>
//   @@table
//   <OperatorHandle::dumpComputedTable()>
//   @@end
//
// usage: torch_registry_reader [--also LIB]... [SUBSTRING]
//   --also LIB: load LIB too before reading (libtorch_cuda.so: its kernels join the registry); a
//               library that does not load is named on a "@@note" line and left out
//   SUBSTRING:  only operators whose name contains it
#include <ATen/core/dispatch/Dispatcher.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--also") == 0 && i + 1 < argc) {
      const char* lib = argv[++i];
      // RTLD_GLOBAL: its static initialisers register kernels with the dispatcher already loaded.
      if (!dlopen(lib, RTLD_NOW | RTLD_GLOBAL)) std::cout << "@@note cannot load " << lib << ": " << dlerror() << "\n";
    } else {
      only = argv[i];
    }
  }
  c10::Dispatcher& dispatcher = c10::Dispatcher::singleton();
  std::vector<std::pair<std::string, c10::OperatorName>> names;
  for (const c10::OperatorName& name : dispatcher.getAllOpNames()) {
    std::string text = c10::toString(name);
    if (only.empty() || text.find(only) != std::string::npos) names.emplace_back(std::move(text), name);
  }
  std::sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::ios::sync_with_stdio(false);
  for (const auto& [text, name] : names) {
    const auto handle = dispatcher.findOp(name);
    if (!handle) continue;
    std::cout << "@@operator " << text << "\n"
              << handle->dumpState() << "@@table\n"
              << handle->dumpComputedTable() << "@@end\n";
  }
  std::cout << "@@done " << names.size() << "\n";
  return 0;
}
