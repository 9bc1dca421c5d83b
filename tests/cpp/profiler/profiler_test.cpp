// glassbox::profiler from C++: operator events with their hops and provenance, nesting under
// RecordFunction ranges, memory, sessions, and the Chrome trace.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/autograd/grad_mode.h"
#include "engine/core/error.h"
#include "engine/profiler/profiler.h"
#include "glassbox/ops/Functions.h"

using namespace glassbox;

namespace {
const profiler::Event& only(const std::vector<profiler::Event>& events, const std::string& name) {
  auto it = std::find_if(events.begin(), events.end(), [&](const profiler::Event& e) { return e.name == name; });
  EXPECT_NE(it, events.end()) << name;
  EXPECT_EQ(std::count_if(events.begin(), events.end(), [&](const profiler::Event& e) { return e.name == name; }), 1)
      << name;
  return *it;
}
}  // namespace

TEST(Profiler, OperatorEventsKeepEveryHopWithItsProvenance) {
  Tensor a = ones({2, 3});
  a.requires_grad_();
  profiler::start(profiler::Options{true, true, false, false});
  Tensor b = exp(a);
  std::vector<profiler::Event> events = profiler::stop();
  const profiler::Event& e = only(events, "glassbox::exp");
  ASSERT_EQ(e.hops.size(), 2u);
  EXPECT_EQ(e.hops[0].key, DispatchKey::AutogradCPU);
  EXPECT_FALSE(e.hops[0].redispatch);
  EXPECT_EQ(e.hops[0].provenance, "autograd kernel");
  EXPECT_EQ(e.hops[1].key, DispatchKey::CPU);
  EXPECT_TRUE(e.hops[1].redispatch);
  EXPECT_EQ(e.hops[1].provenance, "kernel");
  EXPECT_NE(e.hops[1].registered_at.find(".cpp:"), std::string::npos);
  ASSERT_EQ(e.inputs.size(), 1u);
  EXPECT_EQ(e.inputs[0].sizes, (DimVector{2, 3}));
  EXPECT_EQ(e.bytes_allocated, 24);
  EXPECT_LE(e.start_ns, e.end_ns);
}

TEST(Profiler, RangesNestOperatorsAndSessionsDoNotOverlap) {
  profiler::start(profiler::Options{});
  EXPECT_THROW(profiler::start(profiler::Options{}), Error);
  {
    profiler::RecordFunction range("outer");
    Tensor t = add(ones({4}), ones({4}));
  }
  std::vector<profiler::Event> events = profiler::stop();
  EXPECT_THROW(profiler::stop(), Error);
  const profiler::Event& outer = only(events, "outer");
  const profiler::Event& add_event = only(events, "glassbox::add.Tensor");
  EXPECT_EQ(outer.kind, profiler::Event::Kind::Scope);
  EXPECT_EQ(add_event.parent, outer.id);
  EXPECT_EQ(add_event.depth, outer.depth + 1);
  EXPECT_LE(outer.start_ns, add_event.start_ns);
  EXPECT_LE(add_event.end_ns, outer.end_ns);
  EXPECT_FALSE(profiler::active());
}

TEST(Profiler, ChromeTraceHoldsEveryEvent) {
  profiler::start(profiler::Options{true, false, false, false});
  {
    autograd::NoGradGuard no_grad;
    Tensor t = neg(ones({3}));
  }
  std::vector<profiler::Event> events = profiler::stop();
  const profiler::Event& e = only(events, "glassbox::neg");
  EXPECT_NE(e.local_excluded.to_string().find("AutogradCPU"), std::string::npos);
  const std::string json = profiler::chrome_trace(events);
  EXPECT_EQ(json.rfind("{\"traceEvents\":[", 0), 0u) << json.substr(0, 80);
  EXPECT_NE(json.find("\"name\":\"glassbox::neg\""), std::string::npos);
  EXPECT_NE(json.find("\"tls_excluded\""), std::string::npos);
  EXPECT_NE(json.find("\"input_shapes\":[[3]]"), std::string::npos);
  EXPECT_EQ(std::count(json.begin(), json.end(), '{'), std::count(json.begin(), json.end(), '}'));
}

TEST(Profiler, CudaActivityIsRefusedWithAReasonWhereItCannotRun) {
  const std::string why = profiler::gpu_unavailable_reason();
  if (!why.empty()) {
    EXPECT_THROW(profiler::start(profiler::Options{false, false, false, true}), Error);
    EXPECT_FALSE(profiler::active());
  }
}
