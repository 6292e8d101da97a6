// The blocked vector interpreter (interpreter.h; See Note [Blocked vector interpreter]).
#include "backend/cpu/fusion/interpreter.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <type_traits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "backend/cpu/fusion/aot_registry.h"
#include "backend/cpu/thread_pool.h"
#include "core/tensor/strided_loop.h"
#include "lazygen/kernels/pointwise_math.h"

namespace lazygen::cpu::fusion {
namespace {

constexpr int64_t kWorkPerThread = 16 * 1024;  // element-ops worth handing to another thread
constexpr int64_t kBlock = 32 * 1024;          // elements a thread takes at a time
constexpr int64_t kPart = 64 * 1024;           // elements per partial sum of a full reduction

// Per-thread scratch memory, 64-byte aligned; grows, never shrinks.
class Scratch {
 public:
  ~Scratch() { release(); }
  char* get(size_t bytes) {
    if (bytes > capacity_) {
      release();
      data_ = static_cast<char*>(::operator new (bytes, std::align_val_t{64}));
      capacity_ = bytes;
    }
    return data_;
  }

 private:
  void release() {
    if (data_ != nullptr) ::operator delete (data_, std::align_val_t{64});
    data_ = nullptr;
    capacity_ = 0;
  }
  char* data_ = nullptr;
  size_t capacity_ = 0;
};

size_t align64(size_t n) {
  return (n + 63) / 64 * 64;
}

// memcpy with non-temporal stores where dst is 16-byte aligned (See Note [Streaming groups]).
void stream_copy(char* dst, const char* src, int64_t bytes) {
#if defined(__SSE2__)
  const auto misaligned = static_cast<int64_t>(reinterpret_cast<uintptr_t>(dst) & 15);
  const int64_t head = std::min<int64_t>(bytes, (16 - misaligned) & 15);
  std::memcpy(dst, src, static_cast<size_t>(head));
  int64_t i = head;
  for (; i + 16 <= bytes; i += 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
  }
  std::memcpy(dst + i, src + i, static_cast<size_t>(bytes - i));
#else
  std::memcpy(dst, src, static_cast<size_t>(bytes));
#endif
}

// Non-temporal stores are weakly ordered: each thread fences its own before it reports done.
void fence_streams(const GroupProgram& p) {
#if defined(__SSE2__)
  for (const GroupProgram::Output& o : p.outputs) {
    if (o.streamed) {
      _mm_sfence();
      return;
    }
  }
#else
  (void)p;
#endif
}

// Runs the tiles of ranges of a group's iteration; keeps its position between consecutive ranges.
class TileRunner {
 public:
  TileRunner(const GroupProgram& p, const GroupBindings& b);

  // Runs elements [begin, end) of the row-major iteration, calling fold(location pointer, n)
  // after each tile when the group reduces.
  template <class Fold>
  void run(int64_t begin, int64_t end, Fold&& fold) {
    if (begin != pos_) seek(begin);
    const int64_t inner = p_.dims.back();
    while (pos_ < end) {
      const int64_t n = std::min({p_.tile, inner - col_, end - pos_});
      aot_ ? run_aot_tile(n) : run_tile(n);
      if (p_.has_reduction) fold(reduced(), n);
      pos_ += n;
      col_ += n;
      if (col_ == inner) next_row();
    }
  }

 private:
  int64_t load_stride(size_t a, size_t d) const { return p_.load_strides[a * p_.dims.size() + d]; }
  void seek(int64_t pos);
  void next_row();
  void load(size_t a, int64_t n);
  void run_tile(int64_t n);
  void run_aot_tile(int64_t n);
  const char* reduced() const {
    return aot_ && p_.reduce_from >= p_.loads.size() ? staging(num_staged_ - 1)
                                                     : ptr_[p_.reduce_from];
  }
  char* staging(size_t s) const { return regs_ + s * tile_bytes_; }
  void store(int16_t output, const char* value, int64_t n);
  void prefetch_slice(int64_t k, int64_t n);

  const GroupProgram& p_;
  const GroupBindings& b_;
  size_t t_size_;
  size_t tile_bytes_;
  bool aot_;               // runs p_.aot instead of the op list (See Note [AOT kernels])
  size_t num_staged_ = 0;  // AOT: staging tiles, one per non-direct output (+ the reduced value)
  char* regs_ = nullptr;   // the first tile register (or staging tile)
  const void** aot_in_ = nullptr;  // AOT: per load, its tile
  void** aot_out_ = nullptr;       // AOT: per output, where the kernel writes it
  char** ptr_;                     // per location, this tile
  int64_t* stride_;                // per location, elements
  char* gathered_[kMaxGroupInputs] = {};
  int64_t row_off_[kMaxGroupInputs] = {};
  int64_t idx_[kMaxGroupDims] = {};  // outer dim indices
  int64_t pos_ = -1;
  int64_t col_ = 0;
};

TileRunner::TileRunner(const GroupProgram& p, const GroupBindings& b)
    : p_(p),
      b_(b),
      t_size_(itemsize(p.dtype)),
      tile_bytes_(align64(static_cast<size_t>(p.tile) * t_size_)),
      aot_(p.aot != nullptr && aot_kernels_enabled()) {
  thread_local Scratch scratch;
  if (aot_) {
    for (const GroupProgram::Output& o : p.outputs) num_staged_ += o.direct ? 0 : 1;
    num_staged_ += p.has_reduction && p.reduce_from >= p.loads.size() ? 1 : 0;
  }
  const size_t nloc = p.num_locations();
  const size_t aot_at = nloc * (sizeof(char*) + sizeof(int64_t));
  const size_t head = align64(aot_at + (p.loads.size() + p.outputs.size()) * sizeof(void*));
  const size_t regs = std::max<size_t>(p.num_regs, num_staged_);
  char* s = scratch.get(head + (p.num_gathered + regs) * tile_bytes_);
  ptr_ = reinterpret_cast<char**>(s);
  stride_ = reinterpret_cast<int64_t*>(s + nloc * sizeof(char*));
  aot_in_ = reinterpret_cast<const void**>(s + aot_at);
  aot_out_ = reinterpret_cast<void**>(s + aot_at + p.loads.size() * sizeof(void*));
  char* buffer = s + head;
  for (size_t a = 0; a < p.loads.size(); ++a) {
    if (!p.loads[a].in_place) {
      gathered_[a] = buffer;
      buffer += tile_bytes_;
    }
  }
  regs_ = buffer;
  for (uint16_t l = p.first_reg; l < nloc; ++l) {
    ptr_[l] = buffer;
    stride_[l] = 1;
    buffer += tile_bytes_;
  }
  for (const GroupProgram::Output& o : p.outputs) {
    if (o.direct) stride_[o.location] = 1;
  }
}

void TileRunner::seek(int64_t pos) {
  pos_ = pos;
  const int64_t inner = p_.dims.back();
  col_ = pos % inner;
  int64_t row = pos / inner;
  for (size_t a = 0; a < p_.loads.size(); ++a) row_off_[a] = p_.loads[a].offset;
  for (size_t d = p_.dims.size() - 1; d-- > 0;) {
    idx_[d] = row % p_.dims[d];
    row /= p_.dims[d];
    for (size_t a = 0; a < p_.loads.size(); ++a) row_off_[a] += idx_[d] * load_stride(a, d);
  }
}

void TileRunner::next_row() {
  col_ = 0;
  for (size_t d = p_.dims.size() - 1; d-- > 0;) {
    for (size_t a = 0; a < p_.loads.size(); ++a) row_off_[a] += load_stride(a, d);
    if (++idx_[d] < p_.dims[d]) return;
    for (size_t a = 0; a < p_.loads.size(); ++a) row_off_[a] -= p_.dims[d] * load_stride(a, d);
    idx_[d] = 0;
  }
}

void TileRunner::load(size_t a, int64_t n) {
  const GroupProgram::Load& l = p_.loads[a];
  const int64_t inner = load_stride(a, p_.dims.size() - 1);
  const auto size = static_cast<int64_t>(itemsize(l.dtype));
  const char* src = b_.inputs[l.input] + (row_off_[a] + col_ * inner) * size;
  if (l.in_place) {
    ptr_[a] = const_cast<char*>(src);  // read-only: inputs are never an op's out location
    stride_[a] = inner;
    return;
  }
  lazygen::detail::convert_elements(l.dtype, src, inner * size, p_.dtype, gathered_[a],
                                    static_cast<int64_t>(t_size_), inner == 0 ? 1 : n);
  ptr_[a] = gathered_[a];
  stride_[a] = inner == 0 ? 0 : 1;
}

void TileRunner::run_tile(int64_t n) {
  for (size_t a = 0; a < p_.loads.size(); ++a) load(a, n);
  for (size_t j = 0; j < p_.outputs.size(); ++j) {
    if (p_.outputs[j].direct) ptr_[p_.outputs[j].location] = b_.outputs[j] + pos_ * t_size_;
  }
  TileArgs args;
  args.n = n;
  for (const GroupProgram::Op& op : p_.ops) {
    args.out = ptr_[op.out];
    for (int k = 0; k < op.num_in; ++k) {
      args.in[k] = ptr_[op.in[k]];
      args.stride[k] = stride_[op.in[k]];
    }
    for (int k = 0; k < op.num_scalars; ++k) args.scalars[k] = b_.scalars[op.scalar[k]];
    op.fn(args);
    if (op.store >= 0) store(op.store, ptr_[op.out], n);
    if (p_.prefetch) prefetch_slice(static_cast<int64_t>(&op - p_.ops.data()), n);
  }
}

// One call of the group's AOT kernel instead of its op list; outputs that are not direct are
// staged in T and converted or streamed out afterwards, as the op list's stores do.
void TileRunner::run_aot_tile(int64_t n) {
  for (size_t a = 0; a < p_.loads.size(); ++a) {
    load(a, n);
    aot_in_[a] = ptr_[a];
  }
  size_t staged = 0;
  for (size_t j = 0; j < p_.outputs.size(); ++j) {
    aot_out_[j] = p_.outputs[j].direct ? b_.outputs[j] + pos_ * t_size_ : staging(staged++);
  }
  if (p_.prefetch) {
    for (int64_t k = 0; k < static_cast<int64_t>(p_.ops.size()); ++k) prefetch_slice(k, n);
  }
  AotTileArgs args;
  args.n = n;
  args.in = aot_in_;
  args.out = aot_out_;
  args.reduce = num_staged_ > staged ? staging(staged) : nullptr;
  args.scalars = b_.scalars;
  p_.aot(args);
  for (size_t j = 0; j < p_.outputs.size(); ++j) {
    if (!p_.outputs[j].direct)
      store(static_cast<int16_t>(j), static_cast<const char*>(aot_out_[j]), n);
  }
}

void TileRunner::store(int16_t output, const char* value, int64_t n) {
  const GroupProgram::Output& o = p_.outputs[static_cast<size_t>(output)];
  const auto size = static_cast<int64_t>(itemsize(o.dtype));
  char* dst = b_.outputs[static_cast<size_t>(output)] + pos_ * size;
  if (o.streamed) {
    stream_copy(dst, value, n * size);
  } else {
    lazygen::detail::convert_elements(p_.dtype, value, static_cast<int64_t>(t_size_), o.dtype, dst,
                                      size, n);
  }
}

// After op k of a tile, slice k of the next tile of each contiguous input (Note [Streaming
// groups]): spread over the ops so that the prefetches never queue up behind each other.
void TileRunner::prefetch_slice(int64_t k, int64_t n) {
  const int64_t ops = static_cast<int64_t>(p_.ops.size());
  const int64_t slice = (n * static_cast<int64_t>(t_size_) + ops - 1) / ops;
  for (size_t a = 0; a < p_.loads.size(); ++a) {
    if (!p_.loads[a].in_place || stride_[a] != 1) continue;
    const char* next = ptr_[a] + n * static_cast<int64_t>(t_size_) + k * slice;
    for (int64_t b = 0; b < slice; b += 64) __builtin_prefetch(next + b, 0, 3);
  }
}

// Runs body(runner, item) for items [0, count), each costing about `work` element-ops. Threads
// take items one at a time from a shared counter, so a thread the OS delays (these cores are
// shared) does fewer of them instead of holding everyone up; each thread keeps one TileRunner.
template <class Body>
void run_items(const GroupProgram& p, const GroupBindings& b, int64_t count, int64_t work,
               const Body& body) {
  const int threads = num_threads();
  if (threads == 1 || count < 2 || count * work < 2 * kWorkPerThread) {
    TileRunner runner(p, b);
    for (int64_t i = 0; i < count; ++i) body(runner, i);
    fence_streams(p);
    return;
  }
  std::atomic<int64_t> next{0};
  parallel_for(0, threads, 1, [&](int64_t, int64_t) {  // one chunk per thread
    TileRunner runner(p, b);
    for (int64_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < count;) body(runner, i);
    fence_streams(p);
  });
}

int64_t op_cost(const GroupProgram& p) {
  return std::max<int64_t>(1, p.ops.size());
}

void run_elementwise(const GroupProgram& p, const GroupBindings& b) {
  const int64_t blocks = (p.numel + kBlock - 1) / kBlock;
  run_items(p, b, blocks, kBlock * op_cost(p), [&](TileRunner& runner, int64_t i) {
    runner.run(i * kBlock, std::min(p.numel, (i + 1) * kBlock), [](const char*, int64_t) {});
  });
}

template <class T>
struct SumFold {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  static Acc init() { return 0; }
  static Acc merge(Acc a, Acc b) { return a + b; }
  // Eight accumulators, so that the loop vectorizes and rounding error grows slowly.
  static Acc tile(const T* p, int64_t n) {
    Acc a[8] = {};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      for (int k = 0; k < 8; ++k) a[k] += static_cast<Acc>(p[i + k]);
    }
    for (; i < n; ++i) a[0] += static_cast<Acc>(p[i]);
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
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

// Several values, each over its own run of consecutive elements; items of whole outputs.
template <class F, class T>
void reduce_rows(const GroupProgram& p, const GroupBindings& b) {
  using Acc = typename F::Acc;
  const int64_t run = p.reduce_run, outputs = p.numel / run;
  const int64_t per_item = std::max<int64_t>(1, kBlock / run);
  T* out = reinterpret_cast<T*>(b.reduction);
  const int64_t items = (outputs + per_item - 1) / per_item;
  run_items(p, b, items, per_item * run * op_cost(p), [&](TileRunner& runner, int64_t item) {
    for (int64_t o = item * per_item; o < std::min(outputs, (item + 1) * per_item); ++o) {
      Acc acc = F::init();
      runner.run(o * run, (o + 1) * run, [&](const char* x, int64_t n) {
        acc = F::merge(acc, F::tile(reinterpret_cast<const T*>(x), n));
      });
      out[o] = finish<F, T>(p, acc);
    }
  });
}

template <class T>
void reduce_typed(const GroupProgram& p, const GroupBindings& b) {
  const bool all = p.reduce_run == p.numel;
  if (p.reduce_op == ReduceOp::Amax) {
    all ? reduce_all<MaxFold<T>, T>(p, b) : reduce_rows<MaxFold<T>, T>(p, b);
  } else {
    all ? reduce_all<SumFold<T>, T>(p, b) : reduce_rows<SumFold<T>, T>(p, b);
  }
}

void run_reduction(const GroupProgram& p, const GroupBindings& b) {
  switch (p.dtype) {
    case DType::Float32:
      return reduce_typed<float>(p, b);
    case DType::Float64:
      return reduce_typed<double>(p, b);
    case DType::Int64:
      return reduce_typed<int64_t>(p, b);
    case DType::Int32:
      return reduce_typed<int32_t>(p, b);
    case DType::Bool:
      break;
  }
  throw std::logic_error("fusion: a bool group cannot reduce");
}

}  // namespace

int64_t num_partials(const GroupProgram& p) {
  if (!p.has_reduction || p.reduce_run != p.numel) return 0;
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
