// Tensor?[] (index.Tensor's indices) end to end in the registry: the C++ spelling kernels take
// (OptionalTensorList), signature checks, unboxed and boxed calls, the IValue it boxes to, and
// the dispatch keys its elements contribute.
#include <gtest/gtest.h>

#include "registry/kernel_function.h"
#include "registry_test_util.h"

using namespace glassbox;
using namespace glassbox::testing;
using K = DispatchKey;

namespace {
// "T,-,T": which entries hold a tensor; the first tensor is handed back.
std::tuple<Tensor, std::string> describe_list(const Tensor& self, OptionalTensorList indices) {
  std::string seen;
  for (const std::optional<Tensor>& t : indices) seen += std::string(seen.empty() ? "" : ",") + (t ? "T" : "-");
  for (const std::optional<Tensor>& t : indices)
    if (t) return {*t, seen};
  return {self, seen};
}
using DescribeSig = std::tuple<Tensor, std::string>(const Tensor&, OptionalTensorList);
constexpr const char* kSchema = "pick(Tensor self, Tensor?[] indices) -> (Tensor, str)";
}  // namespace

TEST(OptionalTensorList, SignatureMatchesTheSchemaType) {
  const CppSignature sig = make_cpp_signature<DescribeSig>();
  EXPECT_EQ(sig.to_string(), "std::tuple<Tensor, std::string> (const Tensor&, OptionalTensorList)");
  EXPECT_TRUE(sig.args[1].element_optional);
  EXPECT_EQ(signature_mismatch(sig, parse_schema(kSchema)), "");
  // a list of plain tensors is not a list of optional ones, either way round
  EXPECT_EQ(signature_mismatch(make_cpp_signature<std::tuple<Tensor, std::string>(const Tensor&, TensorList)>(),
                               parse_schema(kSchema)),
            "argument 2 'indices': the schema says Tensor?[], the kernel takes TensorList");
  EXPECT_NE(signature_mismatch(sig, parse_schema("pick(Tensor self, Tensor[] indices) -> (Tensor, str)")), "");
  EXPECT_EQ(make_cpp_signature<void(const std::vector<std::optional<Tensor>>&)>().args[0].cpp_name,
            "const std::vector<std::optional<Tensor>>&");
}

TEST(OptionalTensorList, UnboxedAndBoxedCallsRoundTrip) {
  auto lib = GB_TEST_LIBRARY(DEF, "t_otl");
  lib.def(kSchema);
  lib.impl("pick", K::CPU, &describe_list);
  auto op = Dispatcher::singleton().find_schema_or_throw("t_otl::pick");
  const Tensor self = cpu_tensor(), a = cpu_tensor();
  const std::vector<std::optional<Tensor>> list{std::nullopt, a, std::nullopt};
  auto [first, seen] = op.typed<DescribeSig>().call(self, list);
  EXPECT_TRUE(first.is_same(a));
  EXPECT_EQ(seen, "-,T,-");

  Stack stack{IValue(self), IValue(list)};
  EXPECT_TRUE(stack[1].is_optional_tensor_list());
  EXPECT_EQ(stack[1].repr(), "[None, Tensor[2] float32 cpu, None]");
  op.call_boxed(&stack);
  ASSERT_EQ(stack.size(), 2u);
  EXPECT_TRUE(stack[0].to_tensor().is_same(a));
  EXPECT_EQ(stack[1].to_string_ref(), "-,T,-");

  // a boxed kernel sees the list as an IValue, and a typed call reaches it through the stack
  auto impl = GB_TEST_IMPL_LIBRARY("t_otl", CUDA);
  impl.impl("pick", KernelFunction::from_boxed([](const OperatorHandle&, DispatchKeySet, Stack* s) {
              const std::vector<std::optional<Tensor>> got = s->back().to_optional_tensor_list();
              s->pop_back();
              s->push_back(IValue(std::to_string(got.size()) + (got[0] ? " first set" : " first None")));
            }));
  const std::vector<std::optional<Tensor>> on_cuda{std::nullopt, cuda_tensor()};
  auto [unused, boxed_seen] = op.typed<DescribeSig>().call(self, on_cuda);  // the CUDA element picks CUDA
  EXPECT_EQ(boxed_seen, "2 first None");
  EXPECT_ERROR_CONTAINS(IValue(int64_t{1}).to_optional_tensor_list(), "expected a value of type Tensor?[]", "int");
}
