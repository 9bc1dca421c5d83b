// The computed dispatch table: every provenance, the key each call reaches, and deregistration
// restoring the previous table.
#include "registry/operator_entry.h"

#include <gtest/gtest.h>

#include "registry/registry_dump.h"
#include "registry_test_util.h"

using namespace glassbox;
using namespace glassbox::testing;
using K = DispatchKey;

namespace {
int64_t k_cpu(const Tensor&) { return 1; }
int64_t k_cuda(const Tensor&) { return 2; }
int64_t k_explicit(const Tensor&) { return 3; }
int64_t k_math(const Tensor&) { return 4; }
int64_t k_autograd(const Tensor&) { return 5; }

SlotInfo slot(const OperatorHandle& op, DispatchKey key) {
  for (const SlotInfo& s : Dispatcher::singleton().info(op).table)
    if (s.key == key) return s;
  ADD_FAILURE() << "no slot for " << to_string(key);
  return {};
}
OperatorHandle op_named(const std::string& name) { return Dispatcher::singleton().find_schema_or_throw(name); }
}  // namespace

TEST(OperatorEntry, KernelAndMissing) {
  auto lib = GB_TEST_LIBRARY(DEF, "t_entry_a");
  lib.def("f(Tensor x) -> int");
  const std::string at = GB_NEXT_LINE;
  lib.impl("f", K::CPU, &k_cpu);
  const OperatorHandle op = op_named("t_entry_a::f");
  EXPECT_EQ(slot(op, K::CPU).provenance, Provenance::Kernel);
  EXPECT_EQ(slot(op, K::CPU).debug, at);
  EXPECT_EQ(slot(op, K::CUDA).provenance, Provenance::Missing);
  EXPECT_EQ(slot(op, K::Meta).provenance, Provenance::Missing);
  EXPECT_EQ(slot(op, K::Trace).provenance, Provenance::Missing);
  // The built-in AutogradCPU fallback is a fallthrough: a CPU tensor's call skips to CPU.
  EXPECT_EQ(slot(op, K::AutogradCPU).provenance, Provenance::Fallthrough);
  EXPECT_FALSE(op.entry().table().non_fallthrough.has(K::AutogradCPU));
  EXPECT_EQ(op.typed<int64_t(const Tensor&)>().call(cpu_tensor()), 1);
}

TEST(OperatorEntry, DefaultBackendKernelFillsBackendsWithoutOwnKernel) {
  auto lib = GB_TEST_LIBRARY(DEF, "t_entry_b");
  lib.def("f(Tensor x) -> int");
  lib.impl("f", K::CPU, &k_cpu);
  lib.impl("f", K::CompositeExplicitAutograd, &k_explicit);
  const OperatorHandle op = op_named("t_entry_b::f");
  EXPECT_EQ(slot(op, K::CPU).provenance, Provenance::Kernel);
  EXPECT_EQ(slot(op, K::CUDA).provenance, Provenance::DefaultBackendKernel);
  EXPECT_EQ(slot(op, K::CUDA).source_key, K::CompositeExplicitAutograd);
  EXPECT_EQ(slot(op, K::Meta).provenance, Provenance::DefaultBackendKernel);
  // Not an autograd kernel: autograd keys still fall through.
  EXPECT_EQ(slot(op, K::AutogradCUDA).provenance, Provenance::Fallthrough);
  auto f = op.typed<int64_t(const Tensor&)>();
  EXPECT_EQ(f.call(cpu_tensor()), 1);
  EXPECT_EQ(f.call(cuda_tensor()), 3);
  EXPECT_EQ(f.call(tensor_with_keys({K::Meta})), 3);
}

TEST(OperatorEntry, MathKernelServesBackendsAndAutograd) {
  auto lib = GB_TEST_LIBRARY(DEF, "t_entry_c");
  lib.def("f(Tensor x) -> int");
  lib.impl("f", &k_math);  // a DEF block's impl without a key is a math kernel
  const OperatorHandle op = op_named("t_entry_c::f");
  for (K k : {K::CPU, K::CUDA, K::Meta, K::AutogradCPU, K::AutogradCUDA}) {
    EXPECT_EQ(slot(op, k).provenance, Provenance::MathKernel) << to_string(k);
    EXPECT_EQ(slot(op, k).source_key, K::CompositeImplicitAutograd);
  }
  EXPECT_EQ(slot(op, K::Trace).provenance, Provenance::Missing);
  // A call stops at the autograd key (the decomposition is what gets differentiated).
  DispatchTraceCapture trace;
  EXPECT_EQ(op.typed<int64_t(const Tensor&)>().call(cpu_tensor()), 4);
  ASSERT_EQ(trace.events().size(), 1u);
  EXPECT_EQ(trace.events()[0].key, K::AutogradCPU);
}

TEST(OperatorEntry, MathKernelYieldsToBackendKernelAtAutogradKey) {
  auto lib = GB_TEST_LIBRARY(DEF, "t_entry_d");
  lib.def("f(Tensor x) -> int");
  lib.impl("f", &k_math);
  lib.impl("f", K::CUDA, &k_cuda);
  const OperatorHandle op = op_named("t_entry_d::f");
  EXPECT_EQ(slot(op, K::CPU).provenance, Provenance::MathKernel);
  EXPECT_EQ(slot(op, K::AutogradCPU).provenance, Provenance::MathKernel);
  EXPECT_EQ(slot(op, K::CUDA).provenance, Provenance::Kernel);
  // CUDA has its own kernel, so AutogradCUDA must not run the decomposition: fallthrough.
  EXPECT_EQ(slot(op, K::AutogradCUDA).provenance, Provenance::Fallthrough);
  EXPECT_EQ(op.typed<int64_t(const Tensor&)>().call(cuda_tensor()), 2);
}

TEST(OperatorEntry, AutogradAliasKernel) {
  auto lib = GB_TEST_LIBRARY(DEF, "t_entry_e");
  lib.def("f(Tensor x) -> int");
  lib.impl("f", K::CPU, &k_cpu);
  lib.impl("f", K::Autograd, &k_autograd);
  lib.impl("f", &k_math);
  const OperatorHandle op = op_named("t_entry_e::f");
  EXPECT_EQ(slot(op, K::AutogradCPU).provenance, Provenance::AutogradKernel);
  EXPECT_EQ(slot(op, K::AutogradCUDA).provenance, Provenance::AutogradKernel);
  EXPECT_EQ(slot(op, K::CUDA).provenance, Provenance::MathKernel);
  EXPECT_EQ(op.typed<int64_t(const Tensor&)>().call(cpu_tensor()), 5);
  EXPECT_EQ(op.typed<int64_t(const Tensor&)>().call(tensor_with_keys({K::CPU})), 1);
}

TEST(OperatorEntry, BackendFallbackAndFallthroughKernel) {
  auto lib = GB_TEST_LIBRARY(DEF, "t_entry_f");
  lib.def("f(Tensor x) -> int");
  lib.impl("f", K::CPU, &k_cpu);
  const OperatorHandle op = op_named("t_entry_f::f");
  int64_t fallback_calls = 0;
  {
    auto fb = GB_TEST_IMPL_LIBRARY("_", Python);
    const std::string at = GB_NEXT_LINE;
    fb.fallback([&](const OperatorHandle& o, DispatchKeySet keys, Stack* stack) {
      ++fallback_calls;
      o.redispatch_boxed(keys.below(K::Python), stack);
    });
    EXPECT_EQ(slot(op, K::Python).provenance, Provenance::BackendFallback);
    EXPECT_EQ(slot(op, K::Python).debug, at);
    EXPECT_EQ(op.typed<int64_t(const Tensor&)>().call(tensor_with_keys({K::CPU, K::Python})), 1);
    EXPECT_EQ(fallback_calls, 1);

    // A fallthrough kernel for one operator beats the key's fallback for that operator.
    auto impl = GB_TEST_IMPL_LIBRARY("t_entry_f", Python);
    impl.impl("f", fallthrough_kernel());
    EXPECT_EQ(slot(op, K::Python).provenance, Provenance::Fallthrough);
    EXPECT_EQ(op.typed<int64_t(const Tensor&)>().call(tensor_with_keys({K::CPU, K::Python})), 1);
    EXPECT_EQ(fallback_calls, 1);
  }
  EXPECT_EQ(slot(op, K::Python).provenance, Provenance::Missing);
}

TEST(OperatorEntry, DeregistrationRestoresThePreviousTable) {
  auto lib = GB_TEST_LIBRARY(DEF, "t_entry_g");
  lib.def("f(Tensor x) -> int");
  lib.impl("f", K::CPU, &k_cpu);
  const OperatorHandle op = op_named("t_entry_g::f");
  auto f = op.typed<int64_t(const Tensor&)>();
  const std::string before = dump_table(op);
  const std::string before_dump = dump(op);
  {
    auto override_lib = GB_TEST_IMPL_LIBRARY("t_entry_g", CPU);
    ::testing::internal::CaptureStderr();
    override_lib.impl("f", &k_cuda);  // replaces the CPU kernel (with a warning)
    ::testing::internal::GetCapturedStderr();
    auto explicit_lib = GB_TEST_LIBRARY(FRAGMENT, "t_entry_g");
    explicit_lib.impl("f", K::CompositeExplicitAutograd, &k_explicit);
    EXPECT_EQ(f.call(cpu_tensor()), 2);
    EXPECT_EQ(f.call(cuda_tensor()), 3);
    EXPECT_NE(dump_table(op), before);
  }
  EXPECT_EQ(dump_table(op), before);
  EXPECT_EQ(dump(op), before_dump);
  EXPECT_EQ(f.call(cpu_tensor()), 1);
  EXPECT_ERROR_CONTAINS(f.call(cuda_tensor()), "no kernel for t_entry_g::f for dispatch key CUDA");
}

TEST(OperatorEntry, OperatorDisappearsWhenEverythingIsDeregistered) {
  {
    auto lib = GB_TEST_LIBRARY(DEF, "t_entry_h");
    lib.def("f(Tensor x) -> int");
    auto impl = GB_TEST_IMPL_LIBRARY("t_entry_h", CPU);
    impl.impl("f", &k_cpu);
    EXPECT_TRUE(Dispatcher::singleton().find_op(OperatorName::parse("t_entry_h::f")).has_value());
  }
  EXPECT_FALSE(Dispatcher::singleton().find_op(OperatorName::parse("t_entry_h::f")).has_value());
  // A kernel registered before its def keeps the entry alive, schema-less.
  auto impl = GB_TEST_IMPL_LIBRARY("t_entry_h", CPU);
  impl.impl("g", &k_cpu);
  auto op = Dispatcher::singleton().find_op(OperatorName::parse("t_entry_h::g"));
  ASSERT_TRUE(op.has_value());
  EXPECT_FALSE(op->has_schema());
  EXPECT_ERROR_CONTAINS(op->schema(), "t_entry_h::g has no schema", "CPU");
  EXPECT_ERROR_CONTAINS(Dispatcher::singleton().find_schema_or_throw("t_entry_h::g"),
                        "could not find the schema of operator t_entry_h::g", "kernels for CPU but no def");
}
