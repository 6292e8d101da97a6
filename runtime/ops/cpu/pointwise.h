// The eager cpu pointwise engine: runs a generated scalar functor over broadcast, strided,
// mixed-dtype tensors. Every `pointwise:` op's eager cpu kernel is one call of run_pointwise.
//
// Contract of run_pointwise<Fn>(op, out, inputs, scalars, compute):
//   - Fn has `static constexpr int kTensors` (0..4) and `kScalars`, and a const
//     `template <class T> auto operator()(T...)` taking the tensor inputs in order, then the
//     scalars, all of the compute type T (see AddTensor in pointwise_test.cpp). It is called as
//     fn.template operator()<T>(...), so T must be its first template parameter (then a functor
//     without arguments, like zero_'s, still learns T).
//   - T is the C++ type of `compute`; inputs of other dtypes are converted on load, scalars once.
//   - The result (maybe bool, or a wider type) is static_cast to out's dtype on store.
//   - Inputs broadcast to out's sizes; any input may be non-contiguous; out may be strided and
//     may be one of the inputs (in-place ops: out is self). out is written, never resized: the
//     caller allocates it from the op's shape function.
//   - Errors (wrong counts, non-cpu operands, bad broadcast) are ShapeError naming `op`.
// Paths: if every operand is dense with the same layout and the inputs already have dtype T, one
// flat loop the compiler vectorizes (build kernel TUs with -O3); otherwise blocks along the
// innermost dim (core/tensor/strided_loop.h), inputs read in place when they are dense T and
// converted into T buffers otherwise; a transposed input makes the blocks 2-D tiles, gathered
// along the input's own fast direction. Both paths split the range over the cpu thread pool from
// kParallelThreshold elements. Results never depend on the thread count.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <utility>

#include "core/tensor/strided_loop.h"
#include "core/thread_pool.h"
#include "lazygen/kernels/pointwise_math.h"
#include "lazygen/scalar.h"
#include "lazygen/shape.h"
#include "lazygen/tensor.h"

namespace lazygen::cpu {

inline constexpr int64_t kParallelThreshold = 32 * 1024;  // elements

namespace detail {

using lazygen::detail::kMaxBlockElements;
using lazygen::detail::StridedBlock;
using lazygen::detail::StridedPlan;

// The storable type of a functor result: bool, int32_t, int64_t, float or double.
template <class R>
using Stored =
    std::conditional_t<std::is_same_v<R, bool>, bool,
                       std::conditional_t<std::is_floating_point_v<R>,
                                          std::conditional_t<(sizeof(R) <= 4), float, double>,
                                          std::conditional_t<(sizeof(R) <= 4), int32_t, int64_t>>>;

template <class T, size_t>
using Repeat = T;
template <class Fn, class T, size_t... K, size_t... J>
auto result_of(std::index_sequence<K...>, std::index_sequence<J...>)
    -> decltype(std::declval<const Fn&>().template operator()<T>(Repeat<T, K>()...,
                                                                 Repeat<T, J>()...));
// What Fn returns for compute type T, made storable.
template <class Fn, class T>
using Result = Stored<decltype(result_of<Fn, T>(std::make_index_sequence<Fn::kTensors>(),
                                                std::make_index_sequence<Fn::kScalars>()))>;

// Throws ShapeError naming `op` unless the counts match the functor's.
void check_counts(const char* op, size_t tensors, size_t scalars, int want_tensors,
                  int want_scalars);
// Throws ShapeError naming `op`: its kernel is not instantiated for `compute` (See Note [Kernel
// dtypes] in generator/model/kernel_dtypes.h; the op API refuses such inputs first).
[[noreturn]] void no_kernel_for(const char* op, DType compute);
// True when every input (operands 1..) has `dtype`.
bool inputs_have_dtype(const StridedPlan& plan, DType dtype);

// The dense path: out[i] = fn(in_k[i]..., s...) for i in [begin, end).
template <class Fn, class T, class O, size_t... K, size_t... J>
void dense_loop(const StridedPlan& plan, const std::array<T, sizeof...(J)>& s, int64_t begin,
                int64_t end, std::index_sequence<K...>, std::index_sequence<J...>) {
  const Fn fn{};
  O* out = reinterpret_cast<O*>(plan.data[0]);
  // One named pointer per input (not an array) so that they stay in registers.
  [&](const auto*... in) {
    for (int64_t i = begin; i < end; ++i)
      out[i] = static_cast<O>(fn.template operator()<T>(in[i]..., s[J]...));
  }(reinterpret_cast<const T*>(plan.data[K + 1])...);
}

// Where block input k is read as T: in place when it already is T along each row, otherwise
// converted (rows == 1) or gathered tile-wise (rows > 1) into `buffer`. Returns the first row
// and sets `row_step` to the bytes between rows.
template <class T>
const char* load_input(const StridedBlock& b, int k, DType dtype, T* buffer, int64_t& row_step) {
  if (dtype == dtype_of<T>() && b.strides[k] == static_cast<int64_t>(sizeof(T))) {
    row_step = b.row_strides[k];
    return b.data[k];
  }
  row_step = b.n * static_cast<int64_t>(sizeof(T));
  char* out = reinterpret_cast<char*>(buffer);
  if (b.rows == 1) {
    lazygen::detail::convert_elements(dtype, b.data[k], b.strides[k], dtype_of<T>(), out, sizeof(T),
                                      b.n);
  } else {
    lazygen::detail::gather_tile(dtype, b.data[k], b.strides[k], b.row_strides[k], b.rows, b.n,
                                 dtype_of<T>(), out);
  }
  return out;
}

// One block of the general path: inputs loaded as T (load_input), then each row computed, with
// results going straight to out when it is R along the row and converted on store otherwise.
template <class Fn, class T, size_t... K, size_t... J>
void run_block(const StridedBlock& b, const StridedPlan& plan, const std::array<T, sizeof...(J)>& s,
               std::index_sequence<K...>, std::index_sequence<J...>) {
  using R = Result<Fn, T>;
  const Fn fn{};
  alignas(64) T buffers[sizeof...(K) + 1][kMaxBlockElements];
  const char* in[sizeof...(K) + 1] = {};
  int64_t step[sizeof...(K) + 1] = {};
  ((in[K] = load_input<T>(b, K + 1, plan.dtypes[K + 1], buffers[K], step[K])), ...);
  (void)buffers, (void)in, (void)step;  // unused by functors without tensor inputs
  alignas(64) R results[kMaxBlockElements];
  const bool direct =
      plan.dtypes[0] == dtype_of<R>() && b.strides[0] == static_cast<int64_t>(sizeof(R));
  const int64_t n = b.n;
  for (int64_t r = 0; r < b.rows; ++r) {
    R* res = direct ? reinterpret_cast<R*>(b.data[0] + r * b.row_strides[0]) : results;
    [&](const auto*... p) {
      for (int64_t i = 0; i < n; ++i)
        res[i] = static_cast<R>(fn.template operator()<T>(p[i]..., s[J]...));
    }(reinterpret_cast<const T*>(in[K] + r * step[K])...);
    if (!direct) {
      lazygen::detail::convert_elements(dtype_of<R>(), reinterpret_cast<const char*>(results),
                                        sizeof(R), plan.dtypes[0], b.data[0] + r * b.row_strides[0],
                                        b.strides[0], n);
    }
  }
}

template <class Fn, class T>
void run_typed(const StridedPlan& plan, const std::array<T, Fn::kScalars>& s) {
  using R = Result<Fn, T>;
  constexpr auto ks = std::make_index_sequence<Fn::kTensors>();
  constexpr auto js = std::make_index_sequence<Fn::kScalars>();
  constexpr int64_t grain = kParallelThreshold / 2;
  if (plan.dense && inputs_have_dtype(plan, dtype_of<T>())) {
    if (plan.dtypes[0] == dtype_of<T>()) {
      parallel_for(0, plan.numel, grain,
                   [&](int64_t b, int64_t e) { dense_loop<Fn, T, T>(plan, s, b, e, ks, js); });
      return;
    }
    if (plan.dtypes[0] == dtype_of<R>()) {
      parallel_for(0, plan.numel, grain,
                   [&](int64_t b, int64_t e) { dense_loop<Fn, T, R>(plan, s, b, e, ks, js); });
      return;
    }
  }
  parallel_for(0, plan.numel, grain, [&](int64_t b, int64_t e) {
    auto block = [&](const StridedBlock& blk) { run_block<Fn, T>(blk, plan, s, ks, js); };
    lazygen::detail::for_each_block(plan, b, e, block);
  });
}

}  // namespace detail

template <class Fn>
void run_pointwise(const char* op, const Tensor& out, std::initializer_list<Tensor> inputs,
                   std::initializer_list<Scalar> scalars, DType compute) {
  detail::check_counts(op, inputs.size(), scalars.size(), Fn::kTensors, Fn::kScalars);
  const auto plan = lazygen::detail::make_strided_plan(
      op, out, std::span<const Tensor>(inputs.begin(), inputs.size()));
  if (plan.numel == 0) return;
  dispatch_dtype(compute, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (kComputesIn<Fn, T>) {
      std::array<T, Fn::kScalars> s{};
      size_t j = 0;
      for (const Scalar& v : scalars) s[j++] = v.to<T>();
      detail::run_typed<Fn, T>(plan, s);
    } else {
      detail::no_kernel_for(op, compute);
    }
  });
}

}  // namespace lazygen::cpu
