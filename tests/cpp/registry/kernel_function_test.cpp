// Kernels called both ways: unboxed through typed handles, boxed on a stack, and the conversions
// between them for every argument type a schema can name.
#include "registry/kernel_function.h"

#include <gtest/gtest.h>

#include "registry_test_util.h"

using namespace glassbox;
using namespace glassbox::testing;
using K = DispatchKey;

namespace {
// Takes one of everything and reports what it saw.
std::tuple<Tensor, int64_t, std::string> everything(const Tensor& t, int64_t i, double d, bool b, const Scalar& s,
                                                    std::string_view str, IntArrayRef ints,
                                                    const std::optional<Tensor>& opt, TensorList list, ScalarType dtype,
                                                    Device device, std::optional<double> maybe) {
  std::string seen = std::to_string(i) + "|" + std::to_string(d) + "|" + (b ? "T" : "F") + "|" + s.to_string() + "|" +
                     std::string(str) + "|";
  for (int64_t v : ints) seen += std::to_string(v) + ",";
  seen += "|" + std::string(opt ? "opt" : "noopt") + "|" + std::to_string(list.size()) + "|" +
          std::string(to_string(dtype)) + "|" + device.to_string() + "|" + (maybe ? std::to_string(*maybe) : "none");
  return {t, static_cast<int64_t>(ints.size()), seen};
}
constexpr const char* kEverythingSchema =
    "everything(Tensor t, int i, float d, bool b, Scalar s, str str, int[] ints, Tensor? opt, Tensor[] list, "
    "ScalarType dtype, Device device, float? maybe) -> (Tensor, int, str)";
using EverythingSig = std::tuple<Tensor, int64_t, std::string>(const Tensor&, int64_t, double, bool, const Scalar&,
                                                               std::string_view, IntArrayRef,
                                                               const std::optional<Tensor>&, TensorList, ScalarType,
                                                               Device, std::optional<double>);
}  // namespace

TEST(KernelFunction, UnboxedAndBoxedCallsAgree) {
  auto lib = GB_TEST_LIBRARY(DEF, "t_kf");
  lib.def(kEverythingSchema);
  lib.impl("everything", K::CPU, &everything);
  auto op = Dispatcher::singleton().find_schema_or_throw("t_kf::everything");
  const Tensor t = cpu_tensor();
  const std::vector<int64_t> ints{3, 4};
  const std::vector<Tensor> list{t, t};
  auto [out, n, seen] = op.typed<EverythingSig>().call(t, 7, 0.5, true, Scalar(2), "mean", ints, std::nullopt, list,
                                                       ScalarType::Int64, Device::parse("cpu"), 1.5);
  EXPECT_TRUE(out.is_same(t));
  EXPECT_EQ(n, 2);
  const std::string expected = "7|0.500000|T|2|mean|3,4,|noopt|2|int64|cpu|1.500000";
  EXPECT_EQ(seen, expected);

  Stack stack{IValue(t),
              IValue(int64_t{7}),
              IValue(0.5),
              IValue(true),
              IValue(int64_t{2}),
              IValue("mean"),
              IValue(ints),
              IValue(),
              IValue(list),
              IValue(ScalarType::Int64),
              IValue(Device::parse("cpu")),
              IValue(1.5)};
  op.call_boxed(&stack);
  ASSERT_EQ(stack.size(), 3u);
  EXPECT_TRUE(stack[0].to_tensor().is_same(t));
  EXPECT_EQ(stack[1].to_int(), 2);
  EXPECT_EQ(stack[2].to_string_ref(), expected);
}

TEST(KernelFunction, StatefulCallablesAndKeySetParameter) {
  auto lib = GB_TEST_LIBRARY(DEF, "t_kf2");
  lib.def("count(Tensor x) -> int");
  int64_t calls = 0;
  DispatchKeySet seen;
  lib.impl("count", K::CPU, [&calls, &seen](DispatchKeySet keys, const Tensor&) -> int64_t {
    seen = keys;
    return ++calls;
  });
  auto f = Dispatcher::singleton().find_schema_or_throw("t_kf2::count").typed<int64_t(const Tensor&)>();
  EXPECT_EQ(f.call(cpu_tensor()), 1);
  EXPECT_EQ(f.call(cpu_tensor()), 2);
  // The kernel sees the keys it was dispatched with (AutogradCPU was a fallthrough: masked out).
  EXPECT_EQ(seen, DispatchKeySet({K::CPU}));
  Stack stack{IValue(cpu_tensor())};
  Dispatcher::singleton().find_schema_or_throw("t_kf2::count").call_boxed(&stack);
  EXPECT_EQ(stack.at(0).to_int(), 3);
}

TEST(KernelFunction, BoxedKernelCalledUnboxed) {
  auto lib = GB_TEST_LIBRARY(DEF, "t_kf3");
  lib.def("pair(Tensor x, int n) -> (Tensor, int)");
  lib.def("fill_(Tensor(a!) self, Scalar v) -> Tensor(a!)");
  lib.def("nothing(Tensor x) -> ()");
  auto impl = GB_TEST_IMPL_LIBRARY("t_kf3", CPU);
  impl.impl("pair", KernelFunction::from_boxed([](const OperatorHandle&, DispatchKeySet, Stack* s) {
              const int64_t n = s->back().to_int();
              s->pop_back();  // leaves the tensor as the first result
              s->push_back(IValue(n * 10));
            }));
  std::string filled;
  impl.impl("fill_", KernelFunction::from_boxed_callable([&](const OperatorHandle&, DispatchKeySet, Stack* s) {
              filled = s->back().to_scalar().to_string();
              s->pop_back();
            }));
  impl.impl("nothing", KernelFunction::from_boxed([](const OperatorHandle&, DispatchKeySet, Stack* s) { s->clear(); }));

  const Tensor t = cpu_tensor();
  auto pair = Dispatcher::singleton()
                  .find_schema_or_throw("t_kf3::pair")
                  .typed<std::tuple<Tensor, int64_t>(const Tensor&, int64_t)>();
  auto [x, n] = pair.call(t, 4);
  EXPECT_TRUE(x.is_same(t));
  EXPECT_EQ(n, 40);

  auto fill = Dispatcher::singleton().find_schema_or_throw("t_kf3::fill_").typed<Tensor&(Tensor&, const Scalar&)>();
  Tensor target = cpu_tensor();
  Tensor& result = fill.call(target, Scalar(2.5));
  EXPECT_EQ(&result, &target);  // in-place operators hand back the tensor they were given
  EXPECT_EQ(filled, "2.500000");

  auto nothing = Dispatcher::singleton().find_schema_or_throw("t_kf3::nothing").typed<void(const Tensor&)>();
  nothing.call(t);
  // A boxed kernel that leaves the wrong number of results is caught.
  auto bad = Dispatcher::singleton().find_schema_or_throw("t_kf3::nothing");
  auto lib2 = GB_TEST_LIBRARY(FRAGMENT, "t_kf3");
  lib2.def("two(Tensor x) -> (Tensor, Tensor)");
  auto impl2 = GB_TEST_IMPL_LIBRARY("t_kf3", CPU);
  impl2.impl("two", KernelFunction::from_boxed([](const OperatorHandle&, DispatchKeySet, Stack*) {}));
  auto two =
      Dispatcher::singleton().find_schema_or_throw("t_kf3::two").typed<std::tuple<Tensor, Tensor>(const Tensor&)>();
  EXPECT_ERROR_CONTAINS(two.call(t), "t_kf3::two: the boxed kernel left 1 values on the stack, expected 2");
  (void)bad;
}

TEST(KernelFunction, SignatureDescriptions) {
  EXPECT_EQ(make_cpp_signature<EverythingSig>().to_string(),
            "std::tuple<Tensor, int64_t, std::string> (const Tensor&, int64_t, double, bool, const Scalar&, "
            "std::string_view, IntArrayRef, const std::optional<Tensor>&, TensorList, ScalarType, Device, "
            "std::optional<double>)");
  const CppSignature keys = make_cpp_signature<Tensor&(DispatchKeySet, Tensor&, const Scalar&)>();
  EXPECT_TRUE(keys.takes_dispatch_key_set);
  EXPECT_EQ(keys.to_string(), "Tensor& (DispatchKeySet, Tensor&, const Scalar&)");
  EXPECT_TRUE(keys.args[0].mutable_ref);
  EXPECT_EQ(signature_mismatch(make_cpp_signature<EverythingSig>(), parse_schema(kEverythingSchema)), "");
  EXPECT_EQ(signature_mismatch(make_cpp_signature<int64_t(const Tensor&, std::vector<int64_t>)>(),
                               parse_schema("f(Tensor x, SymInt[2] size) -> int")),
            "");
  EXPECT_EQ(signature_mismatch(make_cpp_signature<int64_t(const Tensor&)>(), parse_schema("f(Tensor? x) -> int")),
            "argument 1 'x': the schema says Tensor?, the kernel takes const Tensor&");
  EXPECT_EQ(signature_mismatch(make_cpp_signature<void(const Tensor&)>(), parse_schema("f(Tensor x) -> Tensor")),
            "the schema has 1 returns, the kernel returns 0");
}

TEST(KernelFunction, FallthroughRedispatchesWhenCalledDirectly) {
  auto lib = GB_TEST_LIBRARY(DEF, "t_kf4");
  lib.def("f(Tensor x) -> int");
  lib.impl("f", K::CPU, [](const Tensor&) -> int64_t { return 9; });
  auto op = Dispatcher::singleton().find_schema_or_throw("t_kf4::f");
  Stack stack{IValue(cpu_tensor())};
  KernelFunction::fallthrough().call_boxed(op, DispatchKeySet({K::CPU, K::Trace}), &stack);
  EXPECT_EQ(stack.at(0).to_int(), 9);
}
