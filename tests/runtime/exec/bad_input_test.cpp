// Bad user input on the lazy device: each mistake raises a clear exception when the op is called
// (naming the op and the shapes or values involved), nothing crashes, and the same thread goes on
// tracing and stepping correctly after every error.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "lazygen/composite.h"
#include "lazygen/device.h"
#include "lazygen/dtype.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/add.h"
#include "lazygen/generated/ops/cat.h"
#include "lazygen/generated/ops/index_select.h"
#include "lazygen/generated/ops/mm.h"
#include "lazygen/generated/ops/mul.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"
#include "lazygen/op_info.h"
#include "lazygen/operators.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"

namespace lazygen {
namespace {

struct BadCall {
  std::string name;
  std::function<void()> call;
  std::vector<std::string> message_mentions;  // each must appear in what()
};

Tensor lazy_ones(IntList sizes, DType dtype = DType::Float32) {
  return ones(sizes, dtype, kLazy);
}

std::vector<BadCall> bad_calls() {
  return {
      {"broadcast shape mismatch", [] { add(lazy_ones({2, 3}), lazy_ones({4})); },
       {"add", "[2, 3]", "[4]"}},
      {"matmul inner sizes", [] { mm(lazy_ones({2, 3}), lazy_ones({4, 5})); },
       {"mm", "2x3", "4x5"}},
      {"dtype: where needs a bool condition",
       [] { where(lazy_ones({2}), lazy_ones({2}), lazy_ones({2})); }, {"where", "bool", "float32"}},
      {"in-place result dtype", [] { lazy_ones({2}, DType::Int64).mul_(lazy_ones({2})); },
       {"mul_", "float32", "int64"}},
      {"dim out of range", [] { sum(lazy_ones({2, 3}), std::vector<int64_t>{5}); }, {"sum", "5"}},
      {"negative dim out of range", [] { lazy_ones({2, 3}).transpose(0, -3); },
       {"transpose", "-3"}},
      {"reshape to a different numel", [] { reshape(lazy_ones({2, 3}), {4}); },
       {"reshape", "[2, 3]"}},
      {"narrow past the end", [] { narrow(lazy_ones({4}), 0, 3, 2); }, {"narrow"}},
      {"cat of mismatched shapes", [] { cat({lazy_ones({2, 3}), lazy_ones({2, 4})}, 0); },
       {"cat"}},
      {"tensors on two devices", [] { add(lazy_ones({2}), ones({2})); }, {"add", "cpu", "lazy"}},
      {"an undefined tensor", [] { add(lazy_ones({2}), Tensor()); }, {"add", "undefined"}},
      {"item() of many elements", [] { lazy_ones({3}).item<float>(); }, {"item", "3"}},
      {"wrong argument count by name", [] { call_op("add.Tensor", {lazy_ones({2})}); },
       {"add.Tensor"}},
      {"an op that does not exist", [] { call_op("no_such_op", {}); }, {"no_such_op"}},
  };
}

// A correct step after an error: the trace still works and gives the right numbers.
void expect_a_good_step(const std::string& after) {
  Tensor x = lazy_ones({2, 2});
  Tensor y = add(mul(x, 3.0), 1.0);
  mark_step();
  EXPECT_EQ(y.cpu().data_ptr<float>()[3], 4.0f) << "after: " << after;
}

TEST(LazyBadInput, EachMistakeRaisesAClearErrorAndTracingGoesOn) {
  for (const BadCall& bad : bad_calls()) {
    Tensor pending = add(lazy_ones({2}), 1.0);  // work traced before the mistake survives it
    std::string what;
    try {
      bad.call();
      ADD_FAILURE() << bad.name << ": no exception";
    } catch (const std::exception& e) {
      what = e.what();
    }
    for (const std::string& mention : bad.message_mentions) {
      EXPECT_NE(what.find(mention), std::string::npos)
          << bad.name << ": '" << what << "' does not mention '" << mention << "'";
    }
    mark_step();
    EXPECT_EQ(pending.cpu().data_ptr<float>()[0], 2.0f) << bad.name;
    expect_a_good_step(bad.name);
  }
}

// Index values are data, not shapes: they are checked when the kernel runs, after the sync
// point (on the worker: See Note [Asynchronous execution]). Reading the result raises the error,
// naming the op; the tensors of that graph stay failed (using one raises the error again) and
// the next steps work (See Note [Failed executions]).
TEST(LazyBadInput, AnOutOfRangeIndexRaisesWhenReadAndTheNextStepWorks) {
  Tensor index = tensor<int64_t>({0, 7}, IntList{2}).to(kLazy);
  Tensor picked = index_select(lazy_ones({3, 2}), 0, index);
  try {
    mark_step();  // raises here when execution is synchronous (LAZYGEN_ASYNC=0)
    picked.cpu();
    ADD_FAILURE() << "no exception";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("index_select"), std::string::npos) << e.what();
  }
  expect_a_good_step("index_select out of range");
  expect_a_good_step("index_select out of range, twice");
  try {
    picked.cpu();
    ADD_FAILURE() << "reading a failed tensor did not raise";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("index_select"), std::string::npos) << e.what();
  }
  EXPECT_THROW(add(picked, 1.0), std::exception);  // using it raises at trace time
  expect_a_good_step("using a failed tensor");
}

}  // namespace
}  // namespace lazygen
