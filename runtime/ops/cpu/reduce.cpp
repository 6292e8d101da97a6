// sum, mean, amax and amin (custom_kernels.h) over the layouts of reduce_plan.h.
//
// Accumulation: float inputs sum in double and integral or bool inputs in int64, with eight
// independent accumulators per contiguous run (so the loop vectorizes and rounding error grows
// slowly). A reduction to one value splits its run into fixed 64K-element parts summed in
// order, and in the Outer layout each output sums its rows in order, however its outputs are
// split into column chunks: results never depend on the thread count.
#include <algorithm>
#include <limits>
#include <type_traits>

#include "core/tensor/shape_rules.h"
#include "core/tensor/strided_loop.h"
#include "core/tensor/tensor_impl.h"
#include "core/thread_pool.h"
#include "lazygen/generated/shapes/amax.h"
#include "lazygen/generated/shapes/amin.h"
#include "lazygen/kernels/pointwise_math.h"
#include "ops/cpu/custom_kernels.h"
#include "ops/cpu/reduce_plan.h"

namespace lazygen::cpu {
namespace {

constexpr int64_t kWork = 32 * 1024;  // elements per task worth a thread
constexpr int64_t kPart = detail::ReducePlan::kPart;
constexpr int64_t kColumns = 1024;   // the most outputs per task in the Outer layout
constexpr int64_t kMinColumns = 64;  // the fewest, when the outputs are split over the pool

template <class T>
struct SumOp {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  static Acc init() { return 0; }
  static Acc step(Acc a, T v) { return a + static_cast<Acc>(v); }
  static Acc merge(Acc a, Acc b) { return a + b; }
};

// amax (Max) or amin: NaN propagates (kernels::max / min, as torch.maximum / minimum).
template <class T, bool Max>
struct ExtremumOp {
  using Acc = T;
  static Acc init() {
    if constexpr (std::numeric_limits<T>::has_infinity) {
      return Max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    }
    return Max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
  static Acc step(Acc a, T v) {
    return static_cast<T>(Max ? kernels::max(a, v) : kernels::min(a, v));
  }
  static Acc merge(Acc a, Acc b) { return step(a, b); }
};
template <class T>
using MaxOp = ExtremumOp<T, true>;
template <class T>
using MinOp = ExtremumOp<T, false>;

// The eight accumulators of reduce_run merged pairwise, in a fixed tree.
template <class Op>
typename Op::Acc merge_accumulators(const typename Op::Acc* a) {
  return Op::merge(Op::merge(Op::merge(a[0], a[1]), Op::merge(a[2], a[3])),
                   Op::merge(Op::merge(a[4], a[5]), Op::merge(a[6], a[7])));
}

// Op over p[0, n), with eight accumulators so that the loop vectorizes.
template <class Op, class T>
typename Op::Acc reduce_run(const T* p, int64_t n) {
  using Acc = typename Op::Acc;
  Acc a[8];
  std::fill(a, a + 8, Op::init());
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int k = 0; k < 8; ++k) a[k] = Op::step(a[k], p[i + k]);
  }
  for (; i < n; ++i) a[0] = Op::step(a[0], p[i]);
  return merge_accumulators<Op>(a);
}

template <class Op, class T>
void reduce_inner(const detail::ReducePlan& plan, const T* base, typename Op::Acc* out) {
  using Acc = typename Op::Acc;
  const int64_t run = plan.run;
  if (plan.num_outputs == 1 && run > kPart) {
    std::vector<Acc> parts(static_cast<size_t>((run + kPart - 1) / kPart), Op::init());
    const T* p = base + plan.outer_offsets[0];
    parallel_for(0, static_cast<int64_t>(parts.size()), std::max<int64_t>(1, kWork / kPart),
                 [&](int64_t b, int64_t e) {
                   for (int64_t c = b; c < e; ++c) {
                     parts[c] = reduce_run<Op>(p + c * kPart, std::min(kPart, run - c * kPart));
                   }
                 });
    Acc total = Op::init();
    for (Acc part : parts) total = Op::merge(total, part);
    out[0] = total;
    return;
  }
  parallel_for(0, plan.num_outputs, std::max<int64_t>(1, kWork / std::max<int64_t>(run, 1)),
               [&](int64_t b, int64_t e) {
                 for (int64_t o = b; o < e; ++o) {
                   out[o] = reduce_run<Op>(base + plan.outer_offsets[o], run);
                 }
               });
}

// Outputs per task of an Outer plan: at most kColumns, fewer (down to kMinColumns, a multiple of
// 16) when that gives each thread of the pool a task, so that a single row of outputs (a bias
// gradient, x.sum(0) of a [1024, 512] matrix) does not run on one thread. Each output sums its
// rows in order whatever the split, so results do not depend on it.
int64_t outer_columns(int64_t outer, int64_t depth, int64_t run) {
  const int64_t threads = num_threads();
  if (outer >= threads || depth * run < 2 * kWork) return kColumns;
  const int64_t per_thread = (run * outer + threads - 1) / threads;
  return std::clamp((per_thread + 15) / 16 * 16, kMinColumns, kColumns);
}

template <class Op, class T>
void reduce_outer(const detail::ReducePlan& plan, const T* base, typename Op::Acc* out) {
  const auto outer = static_cast<int64_t>(plan.outer_offsets.size());
  const auto depth = static_cast<int64_t>(plan.reduce_offsets.size());
  const int64_t run = plan.run, columns = outer_columns(outer, depth, run);
  const int64_t chunks = (run + columns - 1) / columns;
  const int64_t grain = std::max<int64_t>(1, kWork / std::max<int64_t>(1, depth * columns));
  parallel_for(0, outer * chunks, grain, [&](int64_t b, int64_t e) {
    for (int64_t task = b; task < e; ++task) {
      const int64_t o = task / chunks, j0 = task % chunks * columns;
      const int64_t n = std::min(columns, run - j0);
      typename Op::Acc* acc = out + o * run + j0;
      std::fill(acc, acc + n, Op::init());
      const T* row = base + plan.outer_offsets[o] + j0;
      const int64_t* offsets = plan.reduce_offsets.data();
      int64_t q = 0;
      // Four input rows per pass: a quarter of the accumulator traffic, the same summation order.
      for (; q + 4 <= depth; q += 4) {
        const T *p0 = row + offsets[q], *p1 = row + offsets[q + 1], *p2 = row + offsets[q + 2],
                *p3 = row + offsets[q + 3];
        for (int64_t j = 0; j < n; ++j) {
          acc[j] = Op::step(Op::step(Op::step(Op::step(acc[j], p0[j]), p1[j]), p2[j]), p3[j]);
        }
      }
      for (; q < depth; ++q) {
        const T* p = row + offsets[q];
        for (int64_t j = 0; j < n; ++j) acc[j] = Op::step(acc[j], p[j]);
      }
    }
  });
}

// out[o] = per_output(o) for every output of a Runs or Gathered plan, over the pool.
template <class Acc, class F>
void over_run_outputs(const detail::ReducePlan& plan, Acc* out, const F& per_output) {
  const auto depth = static_cast<int64_t>(plan.reduce_offsets.size());
  const int64_t grain = std::max<int64_t>(1, kWork / std::max<int64_t>(1, depth * plan.run));
  parallel_for(0, plan.num_outputs, grain, [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) out[o] = per_output(o);
  });
}

template <class Op, class T>
void reduce_runs(const detail::ReducePlan& plan, const T* base, typename Op::Acc* out) {
  over_run_outputs(plan, out, [&](int64_t o) {
    typename Op::Acc acc = Op::init();
    for (int64_t offset : plan.reduce_offsets) {
      acc = Op::merge(acc, reduce_run<Op>(base + plan.outer_offsets[o] + offset, plan.run));
    }
    return acc;
  });
}

// Op over the runs [p + offsets[q], + run), q < depth, as reduce_run over their concatenation:
// element i of it goes to accumulator i % 8, the last n % 8 to accumulator 0.
template <class Op, class T>
typename Op::Acc reduce_gathered_runs(const T* p, const int64_t* offsets, int64_t depth,
                                      int64_t run) {
  using Acc = typename Op::Acc;
  Acc a[8];
  std::fill(a, a + 8, Op::init());
  const int64_t full = depth * run / 8 * 8;
  for (int64_t q = 0, i = 0; q < depth; ++q) {
    const T* r = p + offsets[q];
    for (int64_t j = 0; j < run; ++j, ++i) {
      Acc& acc = a[i < full ? (i & 7) : 0];
      acc = Op::step(acc, r[j]);
    }
  }
  return merge_accumulators<Op>(a);
}

template <class Op, class T>
void reduce_gathered(const detail::ReducePlan& plan, const T* base, typename Op::Acc* out) {
  const auto depth = static_cast<int64_t>(plan.reduce_offsets.size());
  over_run_outputs(plan, out, [&](int64_t o) {
    return reduce_gathered_runs<Op>(base + plan.outer_offsets[o], plan.reduce_offsets.data(), depth,
                                    plan.run);
  });
}

// Reduces `x` over `mask` with Op<T> into `acc`, a contiguous tensor of Op's Acc dtype.
template <template <class> class Op>
void reduce_into(const Tensor& x, const std::vector<bool>& mask, const Tensor& acc) {
  const detail::ReducePlan plan = detail::make_reduce_plan(x, mask);
  dispatch_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using Acc = typename Op<T>::Acc;
    const T* base = static_cast<const T*>(plan.input.raw_data());
    Acc* out = acc.data_ptr<Acc>();
    switch (plan.kind) {
      case detail::ReducePlan::Kind::Inner:
        reduce_inner<Op<T>>(plan, base, out);
        break;
      case detail::ReducePlan::Kind::Outer:
        reduce_outer<Op<T>>(plan, base, out);
        break;
      case detail::ReducePlan::Kind::Runs:
        reduce_runs<Op<T>>(plan, base, out);
        break;
      case detail::ReducePlan::Kind::Gathered:
        reduce_gathered<Op<T>>(plan, base, out);
        break;
    }
  });
}

DType sum_acc_dtype(DType t) {
  return is_floating(t) ? DType::Float64 : DType::Int64;
}

// sum (divide == false) or mean of x over mask, into a new tensor of `shape`.
Tensor sum_or_mean(const Tensor& x, const std::vector<bool>& mask, const Shape& shape,
                   bool divide) {
  Tensor out = make_cpu_tensor(shape.sizes, shape.dtype);
  const DType acc_dtype = sum_acc_dtype(x.dtype());
  Tensor acc = acc_dtype == shape.dtype && !divide ? out : make_cpu_tensor(shape.sizes, acc_dtype);
  reduce_into<SumOp>(x, mask, acc);
  if (divide) {
    int64_t count = 1;
    for (int64_t d = 0; d < x.dim(); ++d) count *= mask[static_cast<size_t>(d)] ? x.size(d) : 1;
    double* a = acc.data_ptr<double>();
    for (int64_t i = 0; i < acc.numel(); ++i) a[i] /= static_cast<double>(count);
  }
  if (!acc.is_same(out)) lazygen::detail::copy_into("sum", out, acc);
  return out;
}

// amax or amin (Op) of x over `dim` into a new tensor of `shape` (checked by the shape function).
template <template <class> class Op>
Tensor extremum(const char* op, const Tensor& x, const std::vector<int64_t>& dim,
                const Shape& shape) {
  Tensor out = make_cpu_tensor(shape.sizes, shape.dtype);
  reduce_into<Op>(x, shape_rules::reduced_dims(op, x.dim(), dim), out);
  return out;
}

}  // namespace

Tensor sum(const Tensor& self, std::optional<DType> dtype) {
  return sum_dim_intlist(self, std::nullopt, false, dtype);
}

Tensor sum_dim_intlist(const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                       bool keepdim, std::optional<DType> dtype) {
  const DType out = dtype.value_or(is_floating(self.dtype()) ? self.dtype() : DType::Int64);
  const Shape shape = shape_rules::reduce("sum.dim_IntList", self.shape(), dim, keepdim, out);
  const auto mask = shape_rules::reduced_dims("sum.dim_IntList", self.dim(), dim);
  return sum_or_mean(dtype ? self.to(*dtype) : self, mask, shape, false);
}

Tensor mean_dim(const Tensor& self, const std::optional<std::vector<int64_t>>& dim, bool keepdim,
                std::optional<DType> dtype) {
  const DType out = dtype.value_or(self.dtype());
  if (!is_floating(out)) {
    throw ShapeError("mean.dim",
                     "could not infer output dtype: the input dtype must be floating, "
                     "got " +
                         std::string(dtype_name(out)));
  }
  const Shape shape = shape_rules::reduce("mean.dim", self.shape(), dim, keepdim, out);
  const auto mask = shape_rules::reduced_dims("mean.dim", self.dim(), dim);
  return sum_or_mean(self.to(out), mask, shape, true);
}

Tensor amax(const Tensor& self, const std::vector<int64_t>& dim, bool keepdim) {
  return extremum<MaxOp>("amax", self, dim, compute_shape_amax(self.shape(), dim, keepdim)[0]);
}

Tensor amin(const Tensor& self, const std::vector<int64_t>& dim, bool keepdim) {
  return extremum<MinOp>("amin", self, dim, compute_shape_amin(self.shape(), dim, keepdim)[0]);
}

}  // namespace lazygen::cpu
