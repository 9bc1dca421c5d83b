#include "engine/core/dispatch_key_set.h"

#include <gtest/gtest.h>

#include "engine/core/error.h"

using namespace glassbox;
using K = DispatchKey;

TEST(DispatchKey, NamesRoundTrip) {
  for (int i = 0; i < kNumKeys; ++i) {
    const auto k = static_cast<DispatchKey>(i);
    EXPECT_EQ(parse_dispatch_key(to_string(k)), k) << to_string(k);
  }
  EXPECT_EQ(to_string(K::AutogradCPU), "AutogradCPU");
  EXPECT_EQ(parse_dispatch_key("cpu"), std::nullopt);  // names are case-sensitive
  try {
    dispatch_key_from_string("Autgrad");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown dispatch key 'Autgrad'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("CompositeImplicitAutograd"), std::string::npos);
  }
}

TEST(DispatchKey, Classification) {
  EXPECT_TRUE(is_runtime_key(K::Python));
  EXPECT_FALSE(is_runtime_key(K::Undefined));
  EXPECT_FALSE(is_runtime_key(K::Autograd));
  EXPECT_TRUE(is_alias_key(K::CompositeExplicitAutograd));
  EXPECT_TRUE(is_backend_key(K::Meta));
  EXPECT_TRUE(is_autograd_key(K::AutogradCUDA));
  EXPECT_EQ(backend_of_autograd_key(K::AutogradCUDA), K::CUDA);
  EXPECT_EQ(autograd_key_of_backend(K::CPU), K::AutogradCPU);
  EXPECT_EQ(autograd_key_of_backend(K::Meta), K::Undefined);
}

TEST(DispatchKeySet, HighestPriorityKeyWins) {
  EXPECT_EQ(DispatchKeySet().highest_priority_key(), K::Undefined);
  EXPECT_EQ(DispatchKeySet({K::CPU}).highest_priority_key(), K::CPU);
  EXPECT_EQ(DispatchKeySet({K::CPU, K::AutogradCPU}).highest_priority_key(), K::AutogradCPU);
  EXPECT_EQ(DispatchKeySet({K::CUDA, K::CPU}).highest_priority_key(), K::CUDA);
  EXPECT_EQ(DispatchKeySet({K::CPU, K::AutogradCPU, K::Trace}).highest_priority_key(), K::Trace);
  EXPECT_EQ(DispatchKeySet({K::Python, K::Trace, K::Meta}).highest_priority_key(), K::Python);
  // Priority is the order of the enum: every runtime key beats every key declared before it.
  for (int lo = 1; lo < kNumRuntimeKeys; ++lo)
    for (int hi = lo + 1; hi < kNumRuntimeKeys; ++hi)
      EXPECT_EQ(DispatchKeySet({static_cast<K>(lo), static_cast<K>(hi)}).highest_priority_key(), static_cast<K>(hi));
}

TEST(DispatchKeySet, SetOperations) {
  const DispatchKeySet s{K::CPU, K::AutogradCPU, K::Trace};
  EXPECT_TRUE(s.has(K::CPU));
  EXPECT_FALSE(s.has(K::CUDA));
  EXPECT_EQ(s.below(K::Trace), DispatchKeySet({K::CPU, K::AutogradCPU}));
  EXPECT_EQ(s.below(K::AutogradCPU), DispatchKeySet({K::CPU}));
  EXPECT_EQ(s.below(K::CPU), DispatchKeySet());
  EXPECT_EQ(s - DispatchKeySet({K::Trace}), DispatchKeySet({K::CPU, K::AutogradCPU}));
  EXPECT_EQ(s.remove(K::CPU).add(K::Meta), DispatchKeySet({K::Meta, K::AutogradCPU, K::Trace}));
  EXPECT_EQ((s & DispatchKeySet({K::CPU, K::CUDA})), DispatchKeySet({K::CPU}));
  EXPECT_EQ(DispatchKeySet(K::Undefined), DispatchKeySet());
  EXPECT_EQ(s.to_string(), "DispatchKeySet(CPU, AutogradCPU, Trace)");
  EXPECT_TRUE(DispatchKeySet::all().has(K::Python));
  EXPECT_FALSE(DispatchKeySet::all().has(K::Undefined));
}

TEST(DispatchKeySet, AliasKeysExpand) {
  EXPECT_EQ(runtime_keys_of(K::Autograd), DispatchKeySet({K::AutogradCPU, K::AutogradCUDA}));
  EXPECT_EQ(runtime_keys_of(K::CompositeExplicitAutograd), DispatchKeySet({K::CPU, K::CUDA, K::Meta}));
  EXPECT_EQ(runtime_keys_of(K::CompositeImplicitAutograd),
            DispatchKeySet({K::CPU, K::CUDA, K::Meta, K::AutogradCPU, K::AutogradCUDA}));
  EXPECT_EQ(runtime_keys_of(K::Trace), DispatchKeySet({K::Trace}));
}
