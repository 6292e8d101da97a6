// Tests of lazy views (core/lazy/lazy_view.h): an update through any alias of a lazy tensor
// reaches its base and the base's other views, as on the cpu. Each test runs the same program on
// the cpu and on the lazy device and compares every tensor exactly (the programs only move and
// scale small integers, so both are exact).
#include "core/lazy/lazy_view.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/lazy/lazy_tensor.h"
#include "lazygen/device.h"
#include "lazygen/dtype.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/add_.h"
#include "lazygen/generated/ops/fill_.h"
#include "lazygen/generated/ops/t.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"
#include "lazygen/operators.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"

namespace lazygen {
namespace {

// A program over a base tensor; returns the tensors to compare (base first).
using Program = std::function<std::vector<Tensor>(const Tensor& base, Device device)>;

Tensor iota(IntList sizes, Device device) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return arange(n, DType::Float32).reshape(std::vector<int64_t>(sizes)).to(device);
}

// The values of a cpu tensor, row-major.
std::vector<double> values_of(const Tensor& t) {
  Tensor c = t.to(DType::Float64).contiguous();
  return {c.data_ptr<double>(), c.data_ptr<double>() + c.numel()};
}

bool equal(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && values_of(a) == values_of(b);
}

// t += k in place (alpha is a runtime scalar on the lazy device).
const Tensor& add_(const Tensor& t, double k) {
  return t.add_(full_like(t, Scalar(1.0)), Scalar(k));
}

void expect_same_on_both(const Program& program, IntList sizes, const std::string& what) {
  std::vector<Tensor> eager = program(iota(sizes, kCPU), kCPU);
  std::vector<Tensor> lazy = program(iota(sizes, kLazy), kLazy);
  ASSERT_EQ(eager.size(), lazy.size());
  for (size_t i = 0; i < eager.size(); ++i) {
    Tensor got = lazy[i].cpu();
    ASSERT_EQ(got.sizes(), eager[i].sizes()) << what << ", tensor " << i;
    EXPECT_TRUE(equal(got, eager[i]))
        << what << ", tensor " << i << ":\neager " << eager[i] << "\nlazy  " << got;
  }
}

TEST(LazyViews, InPlaceThroughEachViewOpReachesTheBase) {
  struct Case {
    std::string name;
    std::function<Tensor(const Tensor&)> view;
  };
  const std::vector<Case> cases = {
      {"t", [](const Tensor& x) { return x.t(); }},
      {"transpose", [](const Tensor& x) { return x.transpose(0, 1); }},
      {"permute", [](const Tensor& x) { return x.permute({-1, 0}); }},
      {"view", [](const Tensor& x) { return x.view({10, 2}); }},
      {"reshape", [](const Tensor& x) { return x.reshape({2, 10}); }},
      {"flatten", [](const Tensor& x) { return x.flatten(); }},
      {"unsqueeze", [](const Tensor& x) { return x.unsqueeze(1); }},
      {"squeeze", [](const Tensor& x) { return x.unsqueeze(0).squeeze(0); }},
      {"slice", [](const Tensor& x) { return x.slice(1, 1, 5, 2); }},
      {"slice open end", [](const Tensor& x) { return x.slice(0, -2); }},
      {"narrow", [](const Tensor& x) { return x.narrow(1, -3, 2); }},
      {"select", [](const Tensor& x) { return x.select(0, 2); }},
      {"select negative", [](const Tensor& x) { return x.select(1, -1); }},
  };
  for (const Case& c : cases) {
    expect_same_on_both(
        [&](const Tensor& x, Device) {
          Tensor v = c.view(x);
          add_(v.mul_(Scalar(10.0)), 1);
          return std::vector<Tensor>{x, v};
        },
        {4, 5}, c.name);
  }
}

TEST(LazyViews, CopyIntoANarrowedRowFillsTheBase) {
  expect_same_on_both(
      [](const Tensor& x, Device device) {
        x.narrow(0, 1, 2).copy_(full({2, 5}, Scalar(-7.0), DType::Float32, device));
        x.select(1, 0).fill_(Scalar(3.0));
        x.select(0, -1).zero_();
        return std::vector<Tensor>{x};
      },
      {4, 5}, "copy_, fill_, zero_ through views");
}

TEST(LazyViews, SiblingViewsSeeEachOthersWrites) {
  expect_same_on_both(
      [](const Tensor& x, Device) {
        Tensor top = x.narrow(0, 0, 3), bottom = x.narrow(0, 1, 3), cols = x.t();
        add_(top, 100);
        Tensor bottom_after_top = bottom.clone();  // rows 1, 2 already changed by `top`
        bottom.mul_(2);
        return std::vector<Tensor>{x, top, bottom, cols, bottom_after_top};
      },
      {4, 5}, "overlapping siblings");
}

TEST(LazyViews, AViewOfAViewWritesThroughTheWholeChain) {
  expect_same_on_both(
      [](const Tensor& x, Device) {
        Tensor t = x.t();                          // [5, 4]
        Tensor row = t.narrow(0, 1, 2).select(1, 3);  // [2]: x[3, 1:3]
        add_(row, -50);
        Tensor flat = t.reshape({20});
        return std::vector<Tensor>{x, t, row, flat};
      },
      {4, 5}, "t -> narrow -> select");
}

TEST(LazyViews, ViewPositionsNameEachElementsPlaceInTheRoot) {
  const Tensor x = iota({4, 5}, kLazy);
  const Tensor row = x.t().narrow(0, 1, 2).select(1, 3);  // x[3, 1:3]: root elements 16, 17
  EXPECT_EQ(values_of(lazy::view_positions(lazy::lazy_state(row))), (std::vector<double>{16, 17}));
  const Tensor column = x.t().reshape({20}).narrow(0, 5, 3);  // x[1:4, 1] through the reshape
  EXPECT_EQ(values_of(lazy::view_positions(lazy::lazy_state(column))),
            (std::vector<double>{6, 11, 16}));
  EXPECT_EQ(values_of(x.cpu()), values_of(iota({4, 5}, kCPU)));  // the root is untouched
}

TEST(LazyViews, AnUpdateOfTheBaseReachesItsViews) {
  expect_same_on_both(
      [](const Tensor& x, Device) {
        Tensor v = x.view({20}), c = x.select(1, 2), s = x.t().narrow(1, 1, 2);
        add_(x, 1000);
        Tensor v_then = v.clone();
        x.mul_(Scalar(-1.0));
        return std::vector<Tensor>{x, v, c, s, v_then};
      },
      {4, 5}, "base updated twice");
}

TEST(LazyViews, WritesThroughViewsAcrossStepsReuseOneCompiledGraph) {
  Tensor x = iota({4, 5}, kLazy);
  Tensor e = iota({4, 5}, kCPU);
  const int64_t hits = metrics::counter_value("computation_cache.hit");
  const int64_t misses = metrics::counter_value("computation_cache.miss");
  for (int step = 0; step < 6; ++step) {
    for (Tensor t : {x, e}) {
      t.narrow(0, 1, 2).mul_(Scalar(0.5 + step));
      add_(t.t().select(0, 4), step);
    }
    mark_step();
    ASSERT_TRUE(equal(x.cpu(), e)) << "step " << step;
  }
  EXPECT_EQ(metrics::counter_value("computation_cache.miss") - misses, 1);
  EXPECT_GE(metrics::counter_value("computation_cache.hit") - hits, 5);
}

TEST(LazyViews, MarkStepSkipsStaleViewsAndTheyAreRecomputedWhenRead) {
  Tensor x = iota({3, 4}, kLazy);
  Tensor v = x.t();
  mark_step();  // v is materialized
  add_(x, 1);  // now v is stale
  const int64_t nodes = metrics::counter_value("exec.graph_nodes");
  mark_step();
  // Only x's graph ran: x, the ones, alpha and add (v's old transpose was not executed).
  EXPECT_EQ(metrics::counter_value("exec.graph_nodes") - nodes, 4);
  EXPECT_TRUE(equal(v.cpu(), iota({3, 4}, kCPU).add(1).t()));
}

TEST(LazyViews, InPlaceThroughExpandIsRefusedClearly) {
  Tensor x = ones({3, 1}, DType::Float32, kLazy);
  Tensor e = x.expand({3, 4});
  try {
    add_(e, 1);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& err) {
    EXPECT_NE(std::string(err.what()).find("expanded from float32[3, 1]"), std::string::npos)
        << err.what();
    EXPECT_NE(std::string(err.what()).find("clone()"), std::string::npos) << err.what();
  }
  EXPECT_TRUE(equal(x.cpu(), ones({3, 1})));  // nothing was written
  mark_step();
}

// Found by the random programs (random_program.h): writing to an expanded tensor whose elements
// are each their own memory location is allowed, as on the cpu.
TEST(LazyViews, InPlaceThroughAnExpandThatSharesNothingWorks) {
  expect_same_on_both(
      [](const Tensor& x, Device) {
        Tensor none = x.narrow(0, 0, 1).expand({0, 4});  // zero-size: writes nothing
        add_(none, 5);
        Tensor same = x.narrow(0, 1, 1).expand({1, 1, 4});  // only adds a dim of size 1
        add_(same, 2);
        return std::vector<Tensor>{x, none, same};
      },
      {3, 4}, "expand without shared elements");
}

// A select or one-wide slice of an expanded tensor is the base's own elements: writing to it
// writes the base (found by the random programs: select of an expand, then zero_).
TEST(LazyViews, WritesThroughASelectOfAnExpandedTensorReachTheBase) {
  expect_same_on_both(
      [](const Tensor& x, Device) {
        Tensor column = x.narrow(1, 0, 1);          // [3, 1]
        Tensor wide = column.expand({3, 4});
        Tensor picked = wide.select(1, -1);         // [3]: column's elements once each
        add_(picked, 5);
        Tensor slab = x.narrow(0, 2, 1).expand({2, 4}).narrow(0, 1, 1);  // [1, 4]
        add_(slab, 3);
        return std::vector<Tensor>{x, wide, picked, slab};
      },
      {3, 4}, "writes through a select of an expand");
}

// PyTorch lets fill_ and zero_ write to an expanded tensor: every element takes one value.
TEST(LazyViews, FillAndZeroOfAnExpandedTensorReachTheBase) {
  expect_same_on_both(
      [](const Tensor& x, Device) {
        Tensor row = x.narrow(0, 0, 1).expand({3, 4});
        row.fill_(Scalar(7.0));
        Tensor column = x.narrow(1, 2, 1).expand({2, 3, 5});
        column.zero_();
        Tensor lifted = x.narrow(1, 3, 1).expand({3, 2}).unsqueeze(0);  // through another view
        lifted.fill_(Scalar(-1.0));
        return std::vector<Tensor>{x, row, column, lifted};
      },
      {3, 4}, "fill_ and zero_ through expand");
}

TEST(LazyViews, CloneAndViewsOfTemporariesDoNotAlias) {
  expect_same_on_both(
      [](const Tensor& x, Device) {
        Tensor c = x.t().clone();
        c.mul_(Scalar(3.0));  // a copy: x unchanged
        Tensor sum_view = (x + 1).narrow(0, 0, 1);
        sum_view.zero_();  // aliases the temporary x + 1, not x
        return std::vector<Tensor>{x, c, sum_view};
      },
      {4, 5}, "clone and temporaries");
}

TEST(LazyViews, ReadingAViewNeverGrowsTheGraphAcrossSteps) {
  Tensor x = iota({8, 8}, kLazy);
  Tensor row = x.select(0, 3);
  int64_t first = -1;
  for (int step = 0; step < 20; ++step) {
    add_(row, 1);
    x.mul_(Scalar(1.0));
    const int64_t before = metrics::counter_value("exec.graph_nodes");
    mark_step();
    const int64_t nodes = metrics::counter_value("exec.graph_nodes") - before;
    if (first < 0) first = nodes;
    ASSERT_EQ(nodes, first) << "step " << step;
  }
  EXPECT_EQ(x.cpu().select(0, 3).sum().item<float>(), (24 + 31) * 8 / 2 + 8 * 20);
}

}  // namespace
}  // namespace lazygen
