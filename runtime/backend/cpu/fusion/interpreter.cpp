// The blocked vector interpreter (interpreter.h; See Note [Blocked vector interpreter]).
#include "backend/cpu/fusion/interpreter.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "backend/cpu/fusion/tile_runner.h"
#include "core/vector_clones.h"
#include "lazygen/kernels/pointwise_math.h"

namespace lazygen::cpu::fusion {
namespace {

constexpr int64_t kBlock = 32 * 1024;  // elements a thread takes at a time
// The parts of folded reductions (See Note [Leading reduction parts]).
constexpr int64_t kPart = ::lazygen::fusion::kReducePart;
constexpr int64_t kColumns = ::lazygen::fusion::kLeadingColumns;

int64_t op_cost(const GroupProgram& p) {
  return std::max<int64_t>(1, p.ops.size());
}

void run_elementwise(const GroupProgram& p, const GroupBindings& b) {
  const int64_t blocks = (p.numel + kBlock - 1) / kBlock;
  run_items(p, b, blocks, kBlock * op_cost(p), [&](TileRunner& runner, int64_t i) {
    runner.run(i * kBlock, std::min(p.numel, (i + 1) * kBlock), [](const char*, int64_t) {});
  });
}

// The sum of an integral tile in eight accumulators, so that the loop vectorizes.
template <class Acc, class T>
inline Acc sum_tile(const T* p, int64_t n) {
  Acc a[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int k = 0; k < 8; ++k) a[k] += static_cast<Acc>(p[i + k]);
  }
  for (; i < n; ++i) a[0] += static_cast<Acc>(p[i]);
  return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

constexpr int kWideLanes = 32;

// A floating tile's sum in double over kWideLanes accumulators, added pairwise at the end: eight
// vector chains, enough to hide the adds' latency (with eight lanes the fold was latency-bound at
// two floats a cycle, slower than reading them). Compiled per ISA (the baseline converts two
// floats at a time); every clone adds in the same order.
template <class T>
inline double sum_tile_wide(const T* p, int64_t n) {
  constexpr int kLanes = kWideLanes;
  double a[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int k = 0; k < kLanes; ++k) a[k] += static_cast<double>(p[i + k]);
  }
  for (; i < n; ++i) a[0] += static_cast<double>(p[i]);
  for (int width = kLanes / 2; width >= 1; width /= 2) {
    for (int k = 0; k < width; ++k) a[k] += a[k + width];
  }
  return a[0];
}

LAZYGEN_VECTOR_CLONES double sum_tile_float(const float* p, int64_t n) { return sum_tile_wide(p, n); }
LAZYGEN_VECTOR_CLONES double sum_tile_double(const double* p, int64_t n) { return sum_tile_wide(p, n); }

template <class T>
struct SumFold {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  static Acc init() { return 0; }
  static Acc merge(Acc a, Acc b) { return a + b; }
  static Acc tile(const T* p, int64_t n) {
    if constexpr (std::is_floating_point_v<T>) {
      // Shorter than one pass of sum_tile_wide's accumulators, every element goes to its first
      // one in order and the others add +0.0 (a sum from +0.0 is never -0.0): the same bits
      // without the call through the clone resolver, which cost ~35 ns an output when a fold
      // has runs of one (a mean over 1x1 planes).
      if (n < kWideLanes) {
        double sum = 0;
        for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(p[i]);
        return sum;
      }
    }
    if constexpr (std::is_same_v<T, float>) {
      return sum_tile_float(p, n);
    } else if constexpr (std::is_same_v<T, double>) {
      return sum_tile_double(p, n);
    } else {
      return sum_tile<Acc>(p, n);
    }
  }
  // acc[j] += x[j]: one row of a Leading reduction.
  static void columns(Acc* __restrict acc, const T* __restrict x, int64_t n) {
    for (int64_t j = 0; j < n; ++j) acc[j] += static_cast<Acc>(x[j]);
  }
};

template <class T>
struct MaxFold {
  using Acc = T;
  static Acc init() {
    if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
    return std::numeric_limits<T>::lowest();
  }
  static Acc merge(Acc a, Acc b) { return static_cast<T>(kernels::max(a, b)); }  // NaN wins
  static Acc tile(const T* p, int64_t n) {
    Acc a[8];
    std::fill(a, a + 8, init());
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      for (int k = 0; k < 8; ++k) a[k] = merge(a[k], p[i + k]);
    }
    for (; i < n; ++i) a[0] = merge(a[0], p[i]);
    return merge(merge(merge(a[0], a[1]), merge(a[2], a[3])),
                 merge(merge(a[4], a[5]), merge(a[6], a[7])));
  }
  static void columns(Acc* __restrict acc, const T* __restrict x, int64_t n) {
    for (int64_t j = 0; j < n; ++j) acc[j] = merge(acc[j], x[j]);
  }
};

template <class F, class T>
T finish(const GroupProgram& p, typename F::Acc acc) {
  if constexpr (std::is_floating_point_v<T>) {
    if (p.reduce_op == ReduceOp::Mean) {
      return static_cast<T>(static_cast<double>(acc) / static_cast<double>(p.reduce_run));
    }
  }
  return static_cast<T>(acc);
}

// One value: fixed parts summed in order (See Note [Blocked vector interpreter]).
template <class F, class T>
void reduce_all(const GroupProgram& p, const GroupBindings& b) {
  using Acc = typename F::Acc;
  const int64_t parts = num_partials(p);
  Acc* partial = static_cast<Acc*>(b.partials);
  run_items(p, b, parts, kPart * op_cost(p), [&](TileRunner& runner, int64_t part) {
    Acc acc = F::init();
    runner.run(part * kPart, std::min(p.numel, (part + 1) * kPart), [&](const char* x, int64_t n) {
      acc = F::merge(acc, F::tile(reinterpret_cast<const T*>(x), n));
    });
    partial[part] = acc;
  });
  Acc total = F::init();
  for (int64_t part = 0; part < parts; ++part) total = F::merge(total, partial[part]);
  *reinterpret_cast<T*>(b.reduction) = finish<F, T>(p, total);
}

// Outputs [o0, o1) of a Trailing reduction, each over its own run of consecutive elements.
template <class F, class T>
void fold_outputs(TileRunner& runner, const GroupProgram& p, const GroupBindings& b, int64_t o0,
                  int64_t o1) {
  using Acc = typename F::Acc;
  const int64_t run = p.reduce_run;
  T* out = reinterpret_cast<T*>(b.reduction);
  if (runner.walks_whole_runs(run)) {  // one walk over all the outputs, folded run by run
    Acc acc = F::init();
    int64_t o = o0, got = 0;
    runner.run(o0 * run, o1 * run, [&](const char* x, int64_t n) {
      for (const T* v = reinterpret_cast<const T*>(x); n > 0;) {
        const int64_t take = std::min(n, run - got);
        acc = F::merge(acc, F::tile(v, take));
        v += take, n -= take, got += take;
        if (got < run) continue;
        out[o++] = finish<F, T>(p, acc);
        acc = F::init();
        got = 0;
      }
    });
    return;
  }
  for (int64_t o = o0; o < o1; ++o) {
    Acc acc = F::init();
    runner.run(o * run, (o + 1) * run, [&](const char* x, int64_t n) {
      acc = F::merge(acc, F::tile(reinterpret_cast<const T*>(x), n));
    });
    out[o] = finish<F, T>(p, acc);
  }
}

// Several values, each over its own run of consecutive elements; items of whole outputs.
template <class F, class T>
void reduce_rows(const GroupProgram& p, const GroupBindings& b) {
  const int64_t run = p.reduce_run, outputs = p.numel / run;
  const int64_t per_item = std::max<int64_t>(1, kBlock / run);
  const int64_t items = (outputs + per_item - 1) / per_item;
  run_items(p, b, items, per_item * run * op_cost(p), [&](TileRunner& runner, int64_t item) {
    fold_outputs<F, T>(runner, p, b, item * per_item, std::min(outputs, (item + 1) * per_item));
  });
}

// How a Leading reduction splits its work; a function of the shape only (See Note [Leading
// reduction parts] in interpreter.h).
struct LeadingSplit {
  int64_t rows = 1;    // elements per output
  int64_t parts = 1;   // row ranges, each with its own partial vector
  int64_t blocks = 1;  // column blocks of kColumns outputs
};

LeadingSplit leading_split(const GroupProgram& p) {
  LeadingSplit s;
  s.rows = p.reduce_run;
  s.blocks = (p.reduce_inner + kColumns - 1) / kColumns;
  s.parts = leading_parts(p.numel, s.rows, p.reduce_inner);
  return s;
}

// Folds rows [r0, r1) of outputs [c0, c1) into acc[c0, c1), which starts over unless
// `accumulate`. Whole rows run as one range, so tiles may span rows (short rows wrap); a column
// block runs row by row.
template <class F, class T>
void fold_rows(TileRunner& runner, const GroupProgram& p, typename F::Acc* acc, int64_t r0,
               int64_t r1, int64_t c0, int64_t c1, bool accumulate = false) {
  const int64_t inner = p.reduce_inner;
  if (!accumulate) std::fill(acc + c0, acc + c1, F::init());
  int64_t col = c0;
  auto fold = [&](const char* tile, int64_t n) {
    const T* x = reinterpret_cast<const T*>(tile);
    while (n > 0) {
      const int64_t m = std::min(n, c1 - col);
      F::columns(acc + col, x, m);
      x += m;
      n -= m;
      col = col + m == c1 ? c0 : col + m;
    }
  };
  if (c1 - c0 == inner) {
    runner.run(r0 * inner, r1 * inner, fold);
    return;
  }
  for (int64_t r = r0; r < r1; ++r) runner.run(r * inner + c0, r * inner + c1, fold);
}

// Merges the partial vectors into the first in part order, then writes the outputs.
template <class F, class T>
void combine_parts(const GroupProgram& p, typename F::Acc* partial, int64_t parts, T* out) {
  const int64_t inner = p.reduce_inner;
  for (int64_t k = 1; k < parts; ++k) {
    const typename F::Acc* next = partial + k * inner;
    for (int64_t c = 0; c < inner; ++c) partial[c] = F::merge(partial[c], next[c]);
  }
  for (int64_t c = 0; c < inner; ++c) out[c] = finish<F, T>(p, partial[c]);
}

// Output e % inner of each element e; items of (row part, column block).
template <class F, class T>
void reduce_leading(const GroupProgram& p, const GroupBindings& b) {
  using Acc = typename F::Acc;
  const LeadingSplit s = leading_split(p);
  const int64_t inner = p.reduce_inner;
  Acc* partial = static_cast<Acc*>(b.partials);
  const int64_t work = (s.rows / s.parts) * std::min(inner, kColumns) * op_cost(p);
  run_items(p, b, s.parts * s.blocks, work, [&](TileRunner& runner, int64_t item) {
    const int64_t part = item / s.blocks, c0 = item % s.blocks * kColumns;
    fold_rows<F, T>(runner, p, partial + part * inner, part * s.rows / s.parts,
                    (part + 1) * s.rows / s.parts, c0, std::min(inner, c0 + kColumns));
  });
  combine_parts<F, T>(p, partial, s.parts, reinterpret_cast<T*>(b.reduction));
}

template <class F, class T>
void reduce_with(const GroupProgram& p, const GroupBindings& b) {
  if (p.reduce_layout == ReduceLayout::Leading) {
    reduce_leading<F, T>(p, b);
  } else if (p.reduce_run == p.numel) {
    reduce_all<F, T>(p, b);
  } else {
    reduce_rows<F, T>(p, b);
  }
}

// Calls f(fold, dtype tag): the group's fold (SumFold or MaxFold of T) and a T, its dtype.
template <class Fn>
void with_fold(const GroupProgram& p, Fn&& f) {
  auto typed = [&](auto tag) {
    using T = decltype(tag);
    if (p.reduce_op == ReduceOp::Amax) {
      f(MaxFold<T>{}, tag);
    } else {
      f(SumFold<T>{}, tag);
    }
  };
  switch (p.dtype) {
    case DType::Float32:
      return typed(float{});
    case DType::Float64:
      return typed(double{});
    case DType::Int64:
      return typed(int64_t{});
    case DType::Int32:
      return typed(int32_t{});
    case DType::Bool:
      break;
  }
  throw std::logic_error("fusion: a bool group cannot reduce");
}

void run_reduction(const GroupProgram& p, const GroupBindings& b) {
  with_fold(p, [&](auto fold, auto tag) { reduce_with<decltype(fold), decltype(tag)>(p, b); });
}

// Where a band's block goes (See run_band).
struct BandItem {
  int64_t part = 0;         // the part it belongs to
  bool first_block = true;  // the part's first block (its Leading partials start over)
};

// Rows [r0, r1) of a reducing band member, for the fold F over T: Trailing outputs whole, or a
// Leading fold (one reduction row per band row) into the part's own partial vector.
template <class F, class T>
void fold_band_rows(TileRunner& runner, const BandMember& m, int64_t rows, int64_t r0, int64_t r1,
                    BandItem item) {
  const GroupProgram& p = *m.program;
  if (p.reduce_layout == ReduceLayout::Leading) {
    auto* acc = static_cast<typename F::Acc*>(m.bindings.partials) + item.part * p.reduce_inner;
    fold_rows<F, T>(runner, p, acc, r0, r1, 0, p.reduce_inner, !item.first_block);
    return;
  }
  const int64_t per_row = p.numel / p.reduce_run / rows;  // outputs per band row
  fold_outputs<F, T>(runner, p, m.bindings, r0 * per_row, r1 * per_row);
}

// Rows [r0, r1) of a band member (See run_band) on the calling thread.
void run_rows(const BandMember& m, int64_t rows, int64_t r0, int64_t r1, BandItem item) {
  const GroupProgram& p = *m.program;
  TileRunner runner(p, m.bindings);
  if (!p.has_reduction) {
    const int64_t per_row = p.numel / rows;
    runner.run(r0 * per_row, r1 * per_row, [](const char*, int64_t) {});
    return;
  }
  with_fold(p, [&](auto fold, auto tag) {
    fold_band_rows<decltype(fold), decltype(tag)>(runner, m, rows, r0, r1, item);
  });
}

// A Leading member's outputs from its parts' partial vectors, added in part order.
void finish_leading(const BandMember& m, int64_t parts) {
  with_fold(*m.program, [&](auto fold, auto tag) {
    using F = decltype(fold);
    using T = decltype(tag);
    combine_parts<F, T>(*m.program, static_cast<typename F::Acc*>(m.bindings.partials), parts,
                        reinterpret_cast<T*>(m.bindings.reduction));
  });
}

bool leading(const GroupProgram& p) {
  return p.has_reduction && p.reduce_layout == ReduceLayout::Leading;
}

}  // namespace

// Items are blocks, or parts of blocks when a member folds a Leading reduction: the parts of
// its unbanded fold (Note [Leading reduction parts]), so that each output adds the same rows in
// the same order and the band's sums equal the unbanded ones bit for bit.
void run_band(const BandMember* members, size_t count, int64_t rows, int64_t rows_per_block,
              int64_t parts) {
  const int64_t items = parts > 0 ? parts : (rows + rows_per_block - 1) / rows_per_block;
  auto run_item = [&](int64_t item) {
    const int64_t begin = parts > 0 ? item * rows / parts : item * rows_per_block;
    const int64_t end = parts > 0 ? (item + 1) * rows / parts : std::min(rows, begin + rows_per_block);
    for (int64_t r0 = begin; r0 < end; r0 += rows_per_block) {
      const int64_t r1 = std::min(end, r0 + rows_per_block);
      for (size_t k = 0; k < count; ++k) run_rows(members[k], rows, r0, r1, BandItem{item, r0 == begin});
    }
  };
  deal_items(items, items >= 2, [&](const auto& take) {
    for (int64_t item; (item = take()) >= 0;) run_item(item);
    for (size_t k = 0; k < count; ++k) fence_streams(*members[k].program);
  });
  for (size_t k = 0; k < count; ++k) {
    if (leading(*members[k].program)) finish_leading(members[k], parts);
  }
}

int64_t num_partials(const GroupProgram& p) {
  if (!p.has_reduction) return 0;
  if (p.reduce_layout == ReduceLayout::Leading) return leading_split(p).parts * p.reduce_inner;
  if (p.reduce_run != p.numel) return 0;
  return (p.numel + kPart - 1) / kPart;
}

void run_group(const GroupProgram& p, const GroupBindings& b) {
  if (p.numel == 0) return;
  if (p.has_reduction) {
    run_reduction(p, b);
  } else {
    run_elementwise(p, b);
  }
}

}  // namespace lazygen::cpu::fusion
