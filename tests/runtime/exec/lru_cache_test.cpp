// Tests of exec/lru_cache.h (the cases PyTorch's lazy-core cache test checks, and more).
#include "exec/lru_cache.h"

#include <gtest/gtest.h>

#include <string>

namespace lazygen::exec {
namespace {

using Cache = LruCache<int, std::string>;
std::shared_ptr<std::string> str(const char* s) {
  return std::make_shared<std::string>(s);
}

TEST(LruCache, AddsAndGets) {
  Cache cache(4);
  EXPECT_EQ(cache.add(1, str("one")), 0u);
  EXPECT_EQ(cache.add(2, str("two")), 0u);
  ASSERT_NE(cache.get(1), nullptr);
  EXPECT_EQ(*cache.get(1), "one");
  EXPECT_EQ(cache.get(3), nullptr);
  EXPECT_EQ(cache.size(), 2u);
}

TEST(LruCache, EvictsTheLeastRecentlyUsed) {
  Cache cache(2);
  cache.add(1, str("one"));
  cache.add(2, str("two"));
  cache.get(1);  // 2 is now the least recently used
  EXPECT_EQ(cache.add(3, str("three")), 1u);
  EXPECT_EQ(cache.get(2), nullptr);
  EXPECT_NE(cache.get(1), nullptr);
  EXPECT_NE(cache.get(3), nullptr);
  EXPECT_EQ(cache.size(), 2u);
}

TEST(LruCache, KeepsTheTotalWeightWithinItsBoundButAlwaysTheNewestEntry) {
  Cache cache(10, 100);
  cache.add(1, str("one"), 40);
  cache.add(2, str("two"), 40);
  cache.get(1);                                   // 2 is now the least recently used
  EXPECT_EQ(cache.add(3, str("three"), 30), 1u);  // 110 > 100: 2 goes
  EXPECT_EQ(cache.get(2), nullptr);
  EXPECT_EQ(cache.weight(), 70u);
  EXPECT_EQ(cache.add(4, str("four"), 500), 2u);  // heavier than the bound alone: stays alone
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_NE(cache.get(4), nullptr);
  EXPECT_EQ(cache.add(4, str("four"), 10), 0u);   // replaced: its new weight counts
  EXPECT_EQ(cache.weight(), 10u);
  EXPECT_TRUE(cache.erase(4));
  EXPECT_EQ(cache.weight(), 0u);
  EXPECT_EQ(cache.set_capacity(10, 5), 0u);
}

TEST(LruCache, AnEvictedValueStaysUsableByItsHolder) {
  Cache cache(1);
  cache.add(1, str("one"));
  std::shared_ptr<std::string> held = cache.get(1);
  cache.add(2, str("two"));
  EXPECT_EQ(cache.get(1), nullptr);
  EXPECT_EQ(*held, "one");
}

TEST(LruCache, AddingAnExistingKeyReplacesIt) {
  Cache cache(2);
  cache.add(1, str("one"));
  cache.add(2, str("two"));
  EXPECT_EQ(cache.add(1, str("uno")), 0u);
  EXPECT_EQ(*cache.get(1), "uno");
  EXPECT_EQ(cache.size(), 2u);
  cache.add(3, str("three"));  // 2 was least recently used
  EXPECT_EQ(cache.get(2), nullptr);
}

TEST(LruCache, Erases) {
  Cache cache(2);
  cache.add(1, str("one"));
  EXPECT_TRUE(cache.erase(1));
  EXPECT_FALSE(cache.erase(1));
  EXPECT_EQ(cache.get(1), nullptr);
  EXPECT_EQ(cache.size(), 0u);
}

TEST(LruCache, Clears) {
  Cache cache(3);
  cache.add(1, str("one"));
  cache.add(2, str("two"));
  cache.clear();
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.get(1), nullptr);
  cache.add(3, str("three"));
  EXPECT_EQ(cache.size(), 1u);
}

TEST(LruCache, ShrinkingTheCapacityEvicts) {
  Cache cache(3);
  for (int k = 0; k < 3; ++k) cache.add(k, str("v"));
  EXPECT_EQ(cache.set_capacity(1), 2u);
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_NE(cache.get(2), nullptr);  // the most recently added survives
  EXPECT_EQ(cache.capacity(), 1u);
}

TEST(LruCache, CapacityZeroStoresNothing) {
  Cache cache(0);
  EXPECT_EQ(cache.add(1, str("one")), 1u);
  EXPECT_EQ(cache.get(1), nullptr);
}

}  // namespace
}  // namespace lazygen::exec
