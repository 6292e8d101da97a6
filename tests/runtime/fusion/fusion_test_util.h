// Helpers shared by the tests of the fusion layer and of the fusing backends: tracing a program
// on the lazy device into a Graph, running it fused, and comparing with eager results bit for bit
// or to a tolerance.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend/graph.h"
#include "core/ir/trie_cache.h"
#include "core/lazy/lazy_tensor.h"
#include "fusion/fusion_plan.h"
#include "lazygen/aot.h"
#include "lazygen/autograd.h"
#include "lazygen/composite.h"
#include "lazygen/conv.h"
#include "lazygen/cuda.h"
#include "lazygen/device.h"
#include "lazygen/dtype.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/t.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"
#include "lazygen/operators.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"
#include "lazygen/version.h"

namespace lazygen::testing {

using Program = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

// Each test starts from an empty trace on the fused backend.
class FusionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    set_fusion_enabled(true);
    mark_step();
    ir::TrieCache::current().reset();
  }
  void TearDown() override {
    set_fusion_enabled(true);
    mark_step();
    ir::TrieCache::current().reset();
  }
};

inline std::vector<Tensor> to_lazy(const std::vector<Tensor>& ts) {
  std::vector<Tensor> out;
  for (const Tensor& t : ts) out.push_back(t.to(kLazy));
  return out;
}

// The graph the executor would build for the pending values of `outs`.
inline exec::Graph graph_of(const std::vector<Tensor>& outs) {
  std::vector<ir::Value> roots;
  for (const Tensor& t : outs) roots.push_back(lazy::lazy_state(t).value);
  return exec::Graph(std::move(roots));
}

// Plans the pending values of a program, keeping the graph (graph_) so that a test can name its
// nodes and dump the plan.
class PlanningTest : public FusionTest {
 protected:
  fusion::FusionPlan plan(const std::vector<Tensor>& outs, const fusion::Budgets& budgets = {}) {
    graph_ = std::make_unique<exec::Graph>(graph_of(outs));
    return fusion::plan_fusion(*graph_, budgets);
  }
  std::unique_ptr<exec::Graph> graph_;
};

// Same dtype, sizes and bytes (so NaNs and signed zeros must match too).
inline ::testing::AssertionResult bitwise_equal(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) {
    return ::testing::AssertionFailure() << a.shape().str() << " vs " << b.shape().str();
  }
  Tensor ca = a.cpu().contiguous(), cb = b.cpu().contiguous();
  const size_t bytes = static_cast<size_t>(ca.numel()) * itemsize(ca.dtype());
  if (bytes == 0 || std::memcmp(ca.raw_data(), cb.raw_data(), bytes) == 0) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "values differ:\n" << ca.str() << "\nvs\n" << cb.str();
}

// |a - b| <= tol * (1 + |b|) elementwise, compared in float64.
inline ::testing::AssertionResult close_to(const Tensor& a, const Tensor& b, double tol) {
  if (a.shape() != b.shape()) {
    return ::testing::AssertionFailure() << a.shape().str() << " vs " << b.shape().str();
  }
  Tensor ca = a.cpu().to(DType::Float64).contiguous(), cb = b.cpu().to(DType::Float64).contiguous();
  const double* pa = ca.data_ptr<double>();
  const double* pb = cb.data_ptr<double>();
  for (int64_t i = 0; i < ca.numel(); ++i) {
    if (!(std::abs(pa[i] - pb[i]) <= tol * (1 + std::abs(pb[i])))) {
      return ::testing::AssertionFailure() << "element " << i << ": " << pa[i] << " vs " << pb[i];
    }
  }
  return ::testing::AssertionSuccess();
}

// `program` on cpu tensors (eager) and on lazy copies run fused: equal bit for bit, or to `tol`
// when tol > 0.
inline void expect_fused_matches_eager(const Program& program, const std::vector<Tensor>& inputs,
                                       double tol = 0) {
  const std::vector<Tensor> eager = program(inputs);
  const std::vector<Tensor> fused = program(to_lazy(inputs));
  sync(fused);
  ASSERT_EQ(eager.size(), fused.size());
  for (size_t k = 0; k < eager.size(); ++k) {
    if (tol > 0) {
      EXPECT_TRUE(close_to(fused[k], eager[k], tol)) << "output " << k;
    } else {
      EXPECT_TRUE(bitwise_equal(fused[k], eager[k])) << "output " << k;
    }
  }
  mark_step();
}

}  // namespace lazygen::testing
