// Tracing cost on the lazy device: what one op costs while a training loop runs with a warm trie
// cache, and what the executor adds per step. Goal: <= 0.1 us per traced op (LTC: ~3 us).
//
//   node_warm            cached_node<TestBinary> + its ScalarParam, warm trie, shape inference
//                        skipped on hits (cached_node with a shape callable)
//   node_warm_eager_shapes   the same with the shape vector built before the lookup, as the
//                        generated ops do today
//   node_warm_list_match the same with can_reuse through operands_match(operand_list(...)), as
//                        the generated node classes do today (a vector per probe)
//   node_cold            a fresh trie every iteration: node construction and hashing
//   tensor_warm          a whole lazy op: IR values, trie, a new lazy Tensor (TensorImpl,
//                        LazyState, live registry), shapes built up front like generated ops
//   tensor_warm_lazy_shapes  the same with shapes built only on a trie miss
//   generated_add_warm   the generated lazy::add_tensor as emitted today (ops.yaml's add.Tensor)
//   generated_add_new_size   generated_add_warm with the input's size new every iteration (a
//                        batch size that changes; See Note [Dynamic shapes] in backend/graph.h):
//                        each op builds its node and infers its shape, in the trie position of
//                        the same op at the previous size (Note [Trie reuse across sizes])
//   generated_add_three_sizes   the same with the size cycling through three values: every
//                        node is reused (the trie keeps up to kMaxVariants sizes per position)
//   generated_add_many_sizes    the same with the size drawn from 24 values (a sequence length
//                        that varies): once each was traced, every node is reused
//   mark_step_hit        executor overhead per step for a chain graph (null backend, cache hit)
// Each benchmark traces a chain of kOps ops per iteration; items/s is ops/s (time per op =
// 1 / items_per_second).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "backend/null/null_backend.h"
#include "core/ir/attrs.h"
#include "core/ir/builtin_nodes.h"
#include "core/ir/trie_cache.h"
#include "core/lazy/lazy_tensor.h"
#include "exec/graph_executor.h"
#include "lazygen/factory.h"
#include "lazygen/generated/lazy/add_tensor.h"
#include "lazygen/generated/lazy/view.h"
#include "test_nodes.h"

namespace lazygen {
namespace {

using testing::TestBinary;

constexpr int kOps = 1000;

// TestBinary with the generated classes' current reuse test (builds an operand vector).
class ListMatchBinary final : public ir::Node {
 public:
  static inline const ir::OpKind kKind = ir::register_op_kind("bench.list_match", "ListMatch");
  ListMatchBinary(const ir::Value& x, const ir::Value& y, const ir::Value& a, std::vector<Shape> s)
      : Node(kKind, ir::operand_list(x, y, a), std::move(s), ir::hash_all()) {}
  bool can_reuse(const ir::Value& x, const ir::Value& y, const ir::Value& a) const {
    return operands_match(ir::operand_list(x, y, a));
  }
};

template <class NodeT, bool kEagerShapes>
ir::Value trace_chain(const ir::Value& x) {
  ir::Value v = x;
  for (int i = 0; i < kOps; ++i) {
    ir::Value alpha = lazy::scalar_value(0.5);
    if constexpr (kEagerShapes) {
      std::vector<Shape> shapes{v.shape()};
      v = ir::Value{ir::cached_node<NodeT>(v, x, alpha, std::move(shapes)), 0};
    } else {
      v = ir::Value{
          ir::cached_node<NodeT>(v, x, alpha, [&] { return std::vector<Shape>{v.shape()}; }), 0};
    }
  }
  return v;
}

template <class NodeT, bool kEagerShapes>
void warm_nodes(benchmark::State& state) {
  ir::TrieCache& trie = ir::TrieCache::current();
  trie.reset();
  ir::Value x{std::make_shared<testing::TestLeaf>(0, std::vector<Shape>{testing::f32({64})}), 0};
  trace_chain<NodeT, kEagerShapes>(x);  // warm up the trie
  for (auto _ : state) {
    trie.reset_position();
    benchmark::DoNotOptimize(trace_chain<NodeT, kEagerShapes>(x));
  }
  state.SetItemsProcessed(state.iterations() * kOps);
  trie.reset();
}

void node_warm(benchmark::State& state) {
  warm_nodes<TestBinary, false>(state);
}
void node_warm_eager_shapes(benchmark::State& state) {
  warm_nodes<TestBinary, true>(state);
}
void node_warm_list_match(benchmark::State& state) {
  warm_nodes<ListMatchBinary, true>(state);
}

void node_cold(benchmark::State& state) {
  ir::TrieCache& trie = ir::TrieCache::current();
  ir::Value x{std::make_shared<testing::TestLeaf>(0, std::vector<Shape>{testing::f32({64})}), 0};
  for (auto _ : state) {
    trie.reset();
    benchmark::DoNotOptimize(trace_chain<TestBinary, true>(x));
  }
  state.SetItemsProcessed(state.iterations() * kOps);
  trie.reset();
}

// Traced like a generated op: shapes computed up front (kEagerShapes) or only on a trie miss.
template <bool kEagerShapes = true>
Tensor lazy_add(const Tensor& x, const Tensor& y, const Scalar& alpha) {
  ir::NodePtr node;
  if constexpr (kEagerShapes) {
    std::vector<Shape> shapes{x.shape()};
    node = ir::cached_node<TestBinary>(lazy::ir_value(x), lazy::ir_value(y),
                                       lazy::scalar_value(alpha), std::move(shapes));
  } else {
    node =
        ir::cached_node<TestBinary>(lazy::ir_value(x), lazy::ir_value(y), lazy::scalar_value(alpha),
                                    [&] { return std::vector<Shape>{x.shape()}; });
  }
  return lazy::make_lazy_tensor(node, 0, x.device());
}

// Traces kOps chained tensor ops `op(v, x)` per iteration with a warm trie; mark_step between
// iterations (untimed) only ends the trace, as nothing live is pending.
template <class Op>
void warm_tensors(benchmark::State& state, Op op) {
  ir::TrieCache::current().reset();
  exec::GraphExecutor executor(std::make_shared<exec::NullBackend>());
  Tensor x = testing::lazy_zeros({64});
  auto trace = [&] {
    Tensor v = x;
    for (int i = 0; i < kOps; ++i) v = op(v, x);
    return v;
  };
  trace();
  executor.mark_step();
  for (auto _ : state) {
    Tensor v = trace();
    state.PauseTiming();
    v = Tensor();
    executor.mark_step();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * kOps);
  ir::TrieCache::current().reset();
}

void tensor_warm(benchmark::State& state) {
  warm_tensors(state, [](const Tensor& v, const Tensor& x) { return lazy_add<true>(v, x, 0.5); });
}
void tensor_warm_lazy_shapes(benchmark::State& state) {
  warm_tensors(state, [](const Tensor& v, const Tensor& x) { return lazy_add<false>(v, x, 0.5); });
}
void generated_add_warm(benchmark::State& state) {
  warm_tensors(state, [](const Tensor& v, const Tensor& x) { return lazy::add_tensor(v, x, 0.5); });
}
// A view op: the node as for add, plus the view's chain (See Note [Lazy views]).
void generated_view_warm(benchmark::State& state) {
  warm_tensors(state, [](const Tensor& v, const Tensor&) { return lazy::view(v, {64}); });
}

// generated_add_warm where every iteration's input has a size not traced before (cycle 0) or
// one of `cycle` sizes: each once per `cycle` iterations, in an order shuffled every round.
void generated_add_sizes(benchmark::State& state, int64_t cycle) {
  ir::TrieCache::current().reset();
  exec::GraphExecutor executor(std::make_shared<exec::NullBackend>());
  std::vector<int64_t> order(static_cast<size_t>(cycle));
  std::iota(order.begin(), order.end(), int64_t{64});
  std::mt19937 rng(7);
  int64_t step = 0;
  for (auto _ : state) {
    state.PauseTiming();
    ++step;
    if (cycle > 0 && step % cycle == 0) std::shuffle(order.begin(), order.end(), rng);
    Tensor x =
        testing::lazy_zeros({cycle == 0 ? 64 + step : order[static_cast<size_t>(step % cycle)]});
    state.ResumeTiming();
    Tensor v = x;
    for (int i = 0; i < kOps; ++i) v = lazy::add_tensor(v, x, 0.5);
    state.PauseTiming();
    v = Tensor();
    x = Tensor();
    executor.mark_step();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * kOps);
  ir::TrieCache::current().reset();
}

void mark_step_hit(benchmark::State& state) {
  ir::TrieCache::current().reset();
  auto backend = std::make_shared<exec::NullBackend>();
  exec::GraphExecutor executor(backend);
  Tensor w = testing::lazy_zeros({64});
  const auto ops = state.range(0);
  for (auto _ : state) {
    state.PauseTiming();
    for (int64_t i = 0; i < ops; ++i) lazy::set_ir_value(w, lazy::ir_value(lazy_add(w, w, 0.5)));
    state.ResumeTiming();
    executor.mark_step();
  }
  state.counters["compiles"] = static_cast<double>(backend->compiles().size());
  state.SetItemsProcessed(state.iterations() * ops);
  ir::TrieCache::current().reset();
}

BENCHMARK(node_warm);
BENCHMARK(node_warm_eager_shapes);
BENCHMARK(node_warm_list_match);
BENCHMARK(node_cold);
BENCHMARK(tensor_warm);
BENCHMARK(tensor_warm_lazy_shapes);
BENCHMARK(generated_add_warm);
BENCHMARK(generated_view_warm);
void generated_add_new_size(benchmark::State& state) {
  generated_add_sizes(state, 0);
}
void generated_add_three_sizes(benchmark::State& state) {
  generated_add_sizes(state, 3);
}
void generated_add_many_sizes(benchmark::State& state) {
  generated_add_sizes(state, 24);
}

BENCHMARK(generated_add_three_sizes);
BENCHMARK(generated_add_many_sizes);
// Last: the nodes it builds and drops leave the heap fragmented, which slows the next
// benchmarks' node reuse (three sizes ran at 1.5x warm right after it, 1.05x before it).
BENCHMARK(generated_add_new_size);
BENCHMARK(mark_step_hit)->Arg(10)->Arg(100)->Arg(1000);

}  // namespace
}  // namespace lazygen

BENCHMARK_MAIN();
