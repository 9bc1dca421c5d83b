// The program the gdb tests drive: it registers a small library, makes tensors and dispatches
// calls, and stops in inspect() with one value of each type the pretty-printers know.
#include "engine/autograd/node.h"
#include "glassbox/ops/Functions.h"
#include "registry/library.h"

using namespace glassbox;

namespace {
int64_t gdb_probe_cpu(const Tensor& x) { return x.numel(); }
}  // namespace

GLASSBOX_LIBRARY(gdbt, m) { m.def("probe(Tensor x) -> int"); }
GLASSBOX_LIBRARY_IMPL(gdbt, CPU, m) { m.impl("probe", &gdb_probe_cpu); }

// Not optimised, so every argument can be printed at the breakpoint.
[[gnu::noinline, gnu::optimize("O0")]] void inspect(const Tensor& tensor, DispatchKeySet keys, const OperatorHandle& op,
                                                    const KernelFunction& kernel, const FunctionSchema& schema,
                                                    const OperatorName& name, const Tensor& strided,
                                                    const autograd::Node& node) {
  asm volatile("" ::: "memory");
}

int main() {
  const Tensor a = full({2, 3}, Scalar(1.5));
  const Tensor b = add(a, a);
  const OperatorHandle op = Dispatcher::singleton().find_schema_or_throw("glassbox::add", "Tensor");
  const KernelFunction& kernel = op.entry().table().slots[index_of(DispatchKey::CPU)];
  Tensor ints = full({4}, Scalar(int64_t{7}), ScalarType::Int32);
  Tensor leaf = full({2}, Scalar(2.0));
  leaf.requires_grad_();
  const Tensor product = mul(leaf, leaf);
  inspect(b, b.key_set(), op, kernel, op.schema(), op.name(), ints, *product.grad_fn());
  const auto probe = Dispatcher::singleton().find_schema_or_throw("gdbt::probe").typed<int64_t(const Tensor&)>();
  return probe.call(b) == 6 ? 0 : 1;
}
