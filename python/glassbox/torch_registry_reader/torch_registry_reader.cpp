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
// usage: torch_registry_reader [SUBSTRING]   (only operators whose name contains SUBSTRING)
#include <ATen/core/dispatch/Dispatcher.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  const std::string only = argc > 1 ? argv[1] : "";
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
    std::cout << "@@operator " << text << "\n" << handle->dumpState() << "@@table\n" << handle->dumpComputedTable()
              << "@@end\n";
  }
  std::cout << "@@done " << names.size() << "\n";
  return 0;
}
