// Tests of core/lazy/trace_context.h: threads bound to one trace context share its live tensors
// and trie, and mark_step on any of them syncs what all of them traced.
#include "core/lazy/trace_context.h"

#include <gtest/gtest.h>

#include <thread>

#include "core/lazy/lazy_state.h"
#include "core/lazy/lazy_tensor.h"
#include "core/tensor/tensor_impl.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/add.h"
#include "lazygen/lazy.h"

namespace lazygen::lazy {
namespace {

TEST(TraceContext, ATensorTracedOnABoundThreadJoinsTheContextsLiveTensors) {
  TraceContext context;
  Tensor on_other_thread;
  size_t own_before = live_state_count();
  std::thread([&] {
    TraceContextScope bound(context);
    on_other_thread = add(zeros({3}, DType::Float32, kLazy), 1);
  }).join();
  EXPECT_EQ(live_state_count(), own_before);  // not in this thread's own registry
  TraceContextScope bound(context);
  bool found = false;
  for (const auto& s : live_states()) found |= s.get() == on_other_thread.impl()->lazy_state().get();
  EXPECT_TRUE(found);
}

TEST(TraceContext, MarkStepOnOneThreadSyncsWhatAnotherTracedAndTheTrieIsShared) {
  TraceContext context;
  Tensor w;
  {
    TraceContextScope bound(context);
    w = zeros({4}, DType::Float32, kLazy);
    mark_step();
  }
  for (int step = 0; step < 3; ++step) {
    std::thread([&] {  // "backward" on another thread
      TraceContextScope bound(context);
      w.add_(ones({4}, DType::Float32, kLazy));
    }).join();
    TraceContextScope bound(context);
    EXPECT_TRUE(lazy_state(w).pending());
    mark_step();  // syncs w although this thread did not trace its update
    EXPECT_FALSE(lazy_state(w).pending());
    if (step > 0) {
      EXPECT_GT(context.trie().stats().hits, 0);  // the other thread's nodes, reused
    }
  }
  EXPECT_EQ(w.cpu().data_ptr<float>()[0], 3.0f);
}

TEST(TraceContext, ScopesNestAndRestoreTheThreadsOwnState) {
  TraceContext a, b;
  ir::TrieCache& own = ir::TrieCache::current();
  {
    TraceContextScope in_a(a);
    EXPECT_EQ(&ir::TrieCache::current(), &a.trie());
    {
      TraceContextScope in_b(b);
      EXPECT_EQ(&ir::TrieCache::current(), &b.trie());
    }
    EXPECT_EQ(&ir::TrieCache::current(), &a.trie());
  }
  EXPECT_EQ(&ir::TrieCache::current(), &own);
}

}  // namespace
}  // namespace lazygen::lazy
