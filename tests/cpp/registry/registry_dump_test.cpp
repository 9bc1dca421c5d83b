// Dumps (text and JSON) and the dispatch trace.
#include "registry/registry_dump.h"

#include <gtest/gtest.h>

#ifdef GLASSBOX_HAVE_NLOHMANN_JSON
#include <nlohmann/json.hpp>
#endif

#include "registry/dispatch_trace_quiet.h"
#include "registry/json_writer.h"
#include "registry_test_util.h"

using namespace glassbox;
using namespace glassbox::testing;
using K = DispatchKey;

namespace {
int64_t cpu_kernel(const Tensor&) { return 1; }
int64_t autograd_kernel(DispatchKeySet keys, const Tensor& x) {
  static const auto op = Dispatcher::singleton().find_schema_or_throw("t_dump::f").typed<int64_t(const Tensor&)>();
  return op.redispatch(keys.below(K::AutogradCPU), x) + 10;
}
int64_t explicit_kernel(const Tensor&) { return 3; }

struct DumpFixture : ::testing::Test {
  Library lib = GB_TEST_LIBRARY(DEF, "t_dump");
  std::string def_at, cpu_at, autograd_at, explicit_at;
  void SetUp() override {
    def_at = GB_NEXT_LINE;
    lib.def("f(Tensor x) -> int", {"pointwise", "core"});
    cpu_at = GB_NEXT_LINE;
    lib.impl("f", K::CPU, &cpu_kernel);
    autograd_at = GB_NEXT_LINE;
    lib.impl("f", K::AutogradCPU, &autograd_kernel);
    explicit_at = GB_NEXT_LINE;
    lib.impl("f", K::CompositeExplicitAutograd, &explicit_kernel);
  }
  OperatorHandle op() const { return Dispatcher::singleton().find_schema_or_throw("t_dump::f"); }
};

// Where the built-in fallback for a key was registered (registry/builtin_fallbacks.cpp:N).
std::string builtin_fallback_at(DispatchKey key) {
  for (const FallbackInfo& f : Dispatcher::singleton().info().fallbacks)
    if (f.key == key) return f.debug;
  return "(none)";
}
}  // namespace

TEST_F(DumpFixture, DumpListsSchemaTagsAndKernels) {
  const std::string expected =
      "operator: t_dump::f\n"
      "schema: t_dump::f(Tensor x) -> int\n"
      "  defined at " +
      def_at +
      "\n"
      "tags: pointwise core\n"
      "kernels:\n"
      "  CPU: registered at " +
      cpu_at +
      " [unboxed: int64_t (const Tensor&)]\n"
      "  AutogradCPU: registered at " +
      autograd_at +
      " [unboxed: int64_t (DispatchKeySet, const Tensor&)]\n"
      "  CompositeExplicitAutograd[alias]: registered at " +
      explicit_at + " [unboxed: int64_t (const Tensor&)]\n";
  EXPECT_EQ(dump(op()), expected);
}

TEST_F(DumpFixture, DumpTableGivesEverySlotAndItsProvenance) {
  const std::string expected = "CPU: registered at " + cpu_at +
                               " [kernel]\n"
                               "CUDA: registered at " +
                               explicit_at +
                               " as CompositeExplicitAutograd [default backend kernel]\n"
                               "Meta: registered at " +
                               explicit_at +
                               " as CompositeExplicitAutograd [default backend kernel]\n"
                               "AutogradCPU: registered at " +
                               autograd_at +
                               " [kernel]\n"
                               "AutogradCUDA: fallthrough registered at " +
                               builtin_fallback_at(K::AutogradCUDA) +
                               " [fallthrough]\n"
                               "Trace: [missing]\n"
                               "Python: [missing]\n";
  EXPECT_EQ(dump_table(op()), expected);
}

TEST_F(DumpFixture, RegistrationsPerKey) {
  const std::string cpu = dump_registrations(K::CPU);
  EXPECT_NE(cpu.find("registrations for dispatch key CPU:\n"), std::string::npos);
  EXPECT_NE(cpu.find("  t_dump::f: registered at " + cpu_at + " [unboxed]\n"), std::string::npos) << cpu;
  const std::string ag = dump_registrations(K::AutogradCPU);
  EXPECT_NE(ag.find("  fallback: fallthrough registered at " + builtin_fallback_at(K::AutogradCPU) + "\n"),
            std::string::npos)
      << ag;
  EXPECT_EQ(builtin_fallback_at(K::AutogradCPU).rfind("registry/builtin_fallbacks.cpp:", 0), 0u);
  EXPECT_EQ(dump_registrations(K::Python).find("t_dump::f"), std::string::npos);
}

TEST(JsonWriter, EscapesAndNests) {
  JsonWriter w(0);
  w.begin_object().field("a", "q\"\\\n\x01").key("list").begin_array().value(1).value(true).null().end_array();
  w.key("empty").begin_object().end_object().end_object();
  EXPECT_EQ(w.str(), "{\"a\":\"q\\\"\\\\\\n\\u0001\",\"list\":[1,true,null],\"empty\":{}}");
}

#ifdef GLASSBOX_HAVE_NLOHMANN_JSON
TEST_F(DumpFixture, RegistryJsonHasOperatorsKernelsAndTables) {
  const auto j = nlohmann::json::parse(registry_to_json());
  EXPECT_EQ(j["format"], "glassbox-registry");
  bool found_builtin = false;
  for (const auto& f : j["fallbacks"])
    if (f["key"] == "AutogradCPU") found_builtin = f["fallthrough"].get<bool>();
  EXPECT_TRUE(found_builtin);
  const nlohmann::json* entry = nullptr;
  for (const auto& o : j["operators"])
    if (o["name"] == "t_dump::f") entry = &o;
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ((*entry)["schema"], "t_dump::f(Tensor x) -> int");
  EXPECT_EQ((*entry)["defined_at"], def_at);
  EXPECT_EQ((*entry)["tags"], nlohmann::json::array({"pointwise", "core"}));
  ASSERT_EQ((*entry)["kernels"].size(), 3u);
  EXPECT_EQ((*entry)["kernels"][0]["key"], "CPU");
  EXPECT_EQ((*entry)["kernels"][0]["registered_at"], cpu_at);
  EXPECT_EQ((*entry)["kernels"][2]["alias"], true);
  ASSERT_EQ((*entry)["table"].size(), static_cast<size_t>(kNumRuntimeKeys - 1));
  EXPECT_EQ((*entry)["table"][1]["key"], "CUDA");
  EXPECT_EQ((*entry)["table"][1]["provenance"], "default backend kernel");
  EXPECT_EQ((*entry)["table"][1]["source_key"], "CompositeExplicitAutograd");
  EXPECT_EQ((*entry)["table"][5]["provenance"], "missing");
  bool found_library = false;
  for (const auto& l : j["libraries"])
    if (l["namespace"] == "t_dump" && l["kind"] == "DEF") found_library = true;
  EXPECT_TRUE(found_library);
  EXPECT_EQ(nlohmann::json::parse(operator_to_json(op()))["name"], "t_dump::f");
}
#endif

TEST_F(DumpFixture, TraceCaptureAndStderr) {
  auto f = op().typed<int64_t(const Tensor&)>();
  {
    DispatchTraceCapture outer;
    {
      DispatchTraceCapture inner;
      EXPECT_EQ(f.call(cpu_tensor()), 11);
      EXPECT_EQ(inner.to_string(),
                "[call] op=[t_dump::f] key=[AutogradCPU]\n  [redispatch] op=[t_dump::f] key=[CPU]\n");
    }
    f.call(tensor_with_keys({K::Meta}));
    ASSERT_EQ(outer.events().size(), 3u);  // nested captures both see the calls
    EXPECT_EQ(outer.events()[2].to_string(), "[call] op=[t_dump::f] key=[Meta]");
    EXPECT_EQ(outer.events()[1].depth, 1);
  }
  EXPECT_FALSE(dispatch_trace_active());

  ::testing::internal::CaptureStderr();
  set_dispatch_trace(true);
  f.call(cpu_tensor());
  Stack stack{IValue(cpu_tensor())};
  op().call_boxed(&stack);
  set_dispatch_trace(false);
  f.call(cpu_tensor());  // not printed
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "[call] op=[t_dump::f] key=[AutogradCPU]\n  [redispatch] op=[t_dump::f] key=[CPU]\n"
            "[call] op=[t_dump::f] key=[AutogradCPU]\n  [redispatch] op=[t_dump::f] key=[CPU]\n");
  EXPECT_FALSE(dispatch_trace_active());
}

TEST_F(DumpFixture, QuietTraceCapturesWithoutPrinting) {
  auto f = op().typed<int64_t(const Tensor&)>();
  ::testing::internal::CaptureStderr();
  set_dispatch_trace(true);
  {
    DispatchTraceCapture capture;  // a capture alone still prints (GLASSBOX_DISPATCH_TRACE=1 users rely on it)
    QuietDispatchTrace quiet;
    f.call(cpu_tensor());
    EXPECT_EQ(capture.events().size(), 2u);
  }
  f.call(tensor_with_keys({K::Meta}));  // printed again
  set_dispatch_trace(false);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "[call] op=[t_dump::f] key=[Meta]\n");
}
