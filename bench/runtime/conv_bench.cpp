// Convolution benchmarks: im2col + gemm against Winograd F(4x4, 3x3) (ops/cpu/conv.cpp,
// ops/cpu/winograd.cpp) on the tutorial CNN's two convolutions, forward, input gradient and
// weight gradient, both algorithms timed in the same run, alternating, so machine noise hits both.
// Counters: im2col_gflops and winograd_gflops count direct-convolution flops (2 * n * o * c * 9 *
// oh * ow) per second, so they compare as time does; speedup = im2col time / Winograd time.
// The reported time is Winograd's.
//
//   conv_bench --benchmark_filter=conv2            # the tutorial CNN's conv2 (what the step needs)
//   conv_bench --benchmark_filter=blocks           # Winograd's tile-block size and threading
//   conv_bench --benchmark_filter=resnet18         # ResNet-18's layers on 32x32 images (batch 32),
//                                                  # im2col as the ops run them; flops counted
//                                                  # for the whole kernel (gflops: as PyTorch's)
// (threads:1 times each algorithm's work alone: less disturbed by other processes' load.)
#include <benchmark/benchmark.h>

#include <chrono>
#include <functional>
#include <optional>
#include <vector>

#include "core/thread_pool.h"
#include "lazygen/conv.h"
#include "lazygen/factory.h"
#include "ops/cpu/training_kernels.h"
#include "ops/cpu/winograd.h"

namespace lazygen {
namespace {

enum class Op { kForward, kInput, kWeight };

struct ConvShape {
  int64_t n, c, o, h, w, pad;
  int64_t oh() const { return h + 2 * pad - 2; }
  int64_t ow() const { return w + 2 * pad - 2; }
  double flops() const { return 2.0 * n * o * c * 9 * oh() * ow(); }
};

constexpr ConvShape kConv1{64, 1, 32, 28, 28, 0};
constexpr ConvShape kConv2{64, 32, 64, 26, 26, 0};

struct Operands {
  explicit Operands(const ConvShape& s)
      : x(randn({s.n, s.c, s.h, s.w}, gen)),
        w(randn({s.o, s.c, 3, 3}, gen)),
        b(randn({s.o}, gen)),
        dy(randn({s.n, s.o, s.oh(), s.ow()}, gen)),
        g(conv2d_geometry("bench", x.sizes(), w.sizes(), {1, 1}, {s.pad, s.pad}, {1, 1}, 1)) {}
  Generator gen{0};
  Tensor x, w, b, dy;
  Conv2dGeometry g;
};

void run_im2col(Op op, const Operands& a) {
  const std::vector<int64_t> one{1, 1}, pad{a.g.ph, a.g.pw};
  set_winograd_enabled(false);
  Tensor r = op == Op::kForward ? cpu::conv2d(a.x, a.w, a.b, one, pad, one, 1)
             : op == Op::kInput
                 ? cpu::conv2d_backward_input(a.dy, a.w, a.x.sizes(), one, pad, one, 1)
                 : cpu::conv2d_backward_weight(a.dy, a.x, a.w.sizes(), one, pad, one, 1);
  set_winograd_enabled(true);
  benchmark::DoNotOptimize(r.data_ptr<float>());
}

// Winograd called directly, so conv1's single input channel runs it too.
void run_winograd(Op op, const Operands& a, Tensor& out) {
  const auto& g = a.g;
  if (op == Op::kForward) {
    cpu::winograd_forward(a.x.data_ptr<float>(), a.w.data_ptr<float>(), a.b.data_ptr<float>(),
                          out.data_ptr<float>(), g);
  } else if (op == Op::kInput) {
    cpu::winograd_backward_input(a.dy.data_ptr<float>(), a.w.data_ptr<float>(),
                                 out.data_ptr<float>(), g);
  } else {
    cpu::winograd_backward_weight(a.dy.data_ptr<float>(), a.x.data_ptr<float>(),
                                  out.data_ptr<float>(), g);
  }
  benchmark::DoNotOptimize(out.data_ptr<float>());
}

double seconds(const std::function<void()>& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// args: op (0 forward, 1 input, 2 weight), Winograd block bytes (0: one block, each gemm split
// over the pool), and our pool's threads (2 is the default here; OpenBLAS runs single-threaded,
// Note [One thread pool]).
void compare(benchmark::State& state, ConvShape shape) {
  const Op op = static_cast<Op>(state.range(0));
  const int threads = static_cast<int>(state.range(2));
  cpu::set_num_threads(threads);
  const cpu::WinogradTuning saved = cpu::winograd_tuning();
  cpu::winograd_tuning().pool = state.range(1) != 0;
  if (state.range(1) != 0) cpu::winograd_tuning().block_bytes = state.range(1);
  const Operands a(shape);
  Tensor out = empty(op == Op::kForward ? a.dy.sizes()
                     : op == Op::kInput ? a.x.sizes()
                                        : a.w.sizes());
  run_im2col(op, a);  // warm the allocator's cache
  run_winograd(op, a, out);
  double t_im2col = 0, t_winograd = 0;
  for (auto _ : state) {
    t_im2col += seconds([&] { run_im2col(op, a); });
    const double t = seconds([&] { run_winograd(op, a, out); });
    t_winograd += t;
    state.SetIterationTime(t);
  }
  cpu::winograd_tuning() = saved;
  cpu::set_num_threads(2);
  const double n = static_cast<double>(state.iterations());
  state.counters["im2col_gflops"] = shape.flops() * n / t_im2col * 1e-9;
  state.counters["winograd_gflops"] = shape.flops() * n / t_winograd * 1e-9;
  state.counters["speedup"] = t_im2col / t_winograd;
}

void conv1(benchmark::State& state) {
  compare(state, kConv1);
}
void conv2(benchmark::State& state) {
  compare(state, kConv2);
}
void conv2_blocks(benchmark::State& state) {
  compare(state, kConv2);
}

// torchvision's ResNet-18 on 32x32 images, batch 32: each distinct convolution (in, out,
// kernel, stride, padding, input plane).
struct LayerShape {
  int64_t c, o, k, s, p, hw;
};
constexpr LayerShape kResnet18[] = {
    {3, 64, 7, 2, 3, 32},   {64, 64, 3, 1, 1, 8},   {64, 128, 3, 2, 1, 8},  {64, 128, 1, 2, 0, 8},
    {128, 128, 3, 1, 1, 4}, {128, 256, 3, 2, 1, 4}, {128, 256, 1, 2, 0, 4}, {256, 256, 3, 1, 1, 2},
    {256, 512, 3, 2, 1, 2}, {256, 512, 1, 2, 0, 2}, {512, 512, 3, 1, 1, 1},
};

// args: layer (index into kResnet18), op (0 forward, 1 input gradient, 2 weight gradient).
void resnet18(benchmark::State& state) {
  const LayerShape& l = kResnet18[state.range(0)];
  const Op op = static_cast<Op>(state.range(1));
  Generator gen(0);
  const std::vector<int64_t> stride{l.s, l.s}, pad{l.p, l.p}, one{1, 1};
  const Tensor x = randn({32, l.c, l.hw, l.hw}, gen), w = randn({l.o, l.c, l.k, l.k}, gen);
  const int64_t oh = (l.hw + 2 * l.p - l.k) / l.s + 1;
  const Tensor dy = randn({32, l.o, oh, oh}, gen);
  for (auto _ : state) {
    Tensor r = op == Op::kForward ? cpu::conv2d(x, w, std::nullopt, stride, pad, one, 1)
               : op == Op::kInput
                   ? cpu::conv2d_backward_input(dy, w, x.sizes(), stride, pad, one, 1)
                   : cpu::conv2d_backward_weight(dy, x, w.sizes(), stride, pad, one, 1);
    benchmark::DoNotOptimize(r.data_ptr<float>());
  }
  const double flops = 2.0 * 32 * l.o * l.c * l.k * l.k * oh * oh;
  state.counters["gflops"] = benchmark::Counter(
      flops, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}
BENCHMARK(resnet18)
    ->ArgNames({"layer", "op"})
    ->ArgsProduct({benchmark::CreateDenseRange(0, 10, 1), {0, 1, 2}})
    ->Unit(benchmark::kMillisecond);

constexpr int64_t kDefaultBlock = 1 << 20;  // WinogradTuning::block_bytes

BENCHMARK(conv1)
    ->ArgNames({"op", "block", "threads"})
    ->ArgsProduct({{0, 1, 2}, {kDefaultBlock}, {2}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(conv2)
    ->ArgNames({"op", "block", "threads"})
    ->ArgsProduct({{0, 1, 2}, {kDefaultBlock}, {2}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(conv2_blocks)
    ->ArgNames({"op", "block", "threads"})
    ->ArgsProduct({{0, 1, 2}, {0, 64 << 10, 256 << 10, 1 << 20, 2 << 20}, {1, 2}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace lazygen

BENCHMARK_MAIN();
