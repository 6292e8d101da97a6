// The tile walk of the blocked vector interpreter (tile_runner.h; See Note [Blocked vector
// interpreter], Note [Tile registers] and Note [Streaming groups]).
#include "backend/cpu/fusion/tile_runner.h"

#include <cstring>
#include <new>

#include "backend/cpu/fusion/aot_registry.h"
#include "backend/cpu/fusion/stream_copy.h"
#include "core/tensor/strided_loop.h"
#include "fusion/aot_lookup.h"
#include "lazygen/metrics.h"

namespace lazygen::cpu::fusion {
namespace {

// `n` copies of the element at `value` (a bit pattern of U's size) into `out`.
template <class U>
void splat_fill(char* out, const char* value, int64_t n) {
  U bits;
  std::memcpy(&bits, value, sizeof bits);
  U* o = reinterpret_cast<U*>(out);
  for (int64_t i = 0; i < n; ++i) o[i] = bits;
}

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

// n elements of U's size, `step` apart (0: one value repeated), into dense dst: a row of a row
// tile (See Note [Row tiles]), a few elements long, so a plain loop.
template <class U>
void copy_row(char* dst, const char* src, int64_t step, int64_t n) {
  if (step == 0) return splat_fill<U>(dst, src, n);
  U* d = reinterpret_cast<U*>(dst);
  const U* s = reinterpret_cast<const U*>(src);
  for (int64_t i = 0; i < n; ++i) d[i] = s[i * step];
}

size_t align64(size_t n) {
  return (n + 63) / 64 * 64;
}

}  // namespace

void fence_streams(const GroupProgram& p) {
  for (const GroupProgram::Output& o : p.outputs) {
    if (o.streamed) {
      stream_fence();
      return;
    }
  }
}

TileRunner::TileRunner(const GroupProgram& p, const GroupBindings& b)
    : p_(p),
      b_(b),
      t_size_(itemsize(p.dtype)),
      tile_bytes_(align64(static_cast<size_t>(p.tile) * t_size_)),
      aot_(p.aot != nullptr && aot_kernels_enabled()),
      tile_(aot_ ? std::min(p.tile, kAotTile) : p.tile),
      chains_(p.chain != nullptr && !aot_ && register_chains_on()),
      strip_(p.dtype == DType::Float64 ? kChainStrip<double> : kChainStrip<float>) {
  thread_local Scratch scratch;
  if (aot_) {
    for (const GroupProgram::Output& o : p.outputs) num_staged_ += o.direct ? 0 : 1;
    num_staged_ += p.has_reduction && p.reduce_from >= p.loads.size() ? 1 : 0;
  }
  const size_t nloc = p.num_locations();
  const size_t aot_at = nloc * (sizeof(char*) + sizeof(int64_t));
  const size_t head = align64(aot_at + (p.loads.size() + p.outputs.size()) * sizeof(void*));
  const size_t regs = std::max<size_t>(p.num_regs, num_staged_);
  // Chain steps and splat buffers go last, so that tiles keep their place (See Note [Tile
  // registers]).
  const size_t splats_at = head + (p.num_gathered + regs) * tile_bytes_;
  const size_t steps_at = splats_at + (chains_ ? p.num_splats * strip_ * t_size_ : 0);
  const size_t expanded_at = align64(steps_at + (chains_ ? p.ops.size() * sizeof(ChainStep) : 0));
  bool expand[kMaxGroupInputs] = {};
  const size_t num_expanded = plan_row_tiles(expand);
  const size_t periodic_at = expanded_at + num_expanded * tile_bytes_;
  char* s = scratch.get(periodic_at + plan_periodic(expand));
  for (size_t a = 0, k = 0; a < p.loads.size(); ++a) {
    if (expand[a]) expanded_[a] = s + expanded_at + k++ * tile_bytes_;
  }
  for (size_t a = 0, at = periodic_at; a < p.loads.size() && periodic_; ++a) {
    if (period_[a] == 0) continue;
    repeated_[a] = s + at;
    at += repeated_bytes(a);
  }
  steps_ = reinterpret_cast<ChainStep*>(s + steps_at);
  splats_ = s + splats_at;
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

// Note [Row tiles]
// ~~~~~~~~~~~~~~~~
// A tile never crosses a row of the iteration's innermost dim, so a group over [n, c, h, w] with
// per-channel operands (batch norm, its backward) on 2x2 planes ran tiles of 4 elements, each
// through every op's kernel call: ResNet-18's late stages spent most of their elementwise time
// in per-tile overhead. When rows are shorter than half a tile, a tile instead spans whole rows:
// a load that is contiguous across rows (dense over the whole iteration) or constant (all
// strides 0) is read in place as before; any other load is gathered row by row into a tile
// buffer of its own, per-channel values repeated along their rows. Outputs are dense over the
// iteration, so they span rows as they are. A Trailing reduction whose outputs are whole rows
// (ResNet's average pool over 1x1 planes) folds a row tile row by row: the same pieces in the
// same order as row-bounded tiles, so its sums keep their bits (TileRunner::walks_whole_runs).
// Other reductions and AOT kernels keep row-bounded tiles. The arithmetic per element is
// unchanged.
bool TileRunner::load_is_dense(size_t a) const {
  const size_t dims = p_.dims.size();
  bool dense = load_stride(a, dims - 1) == 1;
  for (size_t d = dims - 1; d-- > 0;) {
    dense = dense && load_stride(a, d) == load_stride(a, d + 1) * p_.dims[d + 1];
  }
  return dense;
}

size_t TileRunner::plan_row_tiles(bool* expand) {
  const int64_t inner = p_.dims.back();
  const size_t dims = p_.dims.size();
  if (aot_ || inner * 2 > tile_ || dims < 2) return 0;
  // A reduction folds row by row: Trailing outputs of whole rows only, read from a tile.
  if (p_.has_reduction && (p_.reduce_layout != ReduceLayout::Trailing ||
                           p_.reduce_run % inner != 0 || p_.reduce_from < p_.loads.size())) {
    return 0;
  }
  size_t count = 0;
  for (size_t a = 0; a < p_.loads.size(); ++a) {
    const bool dense = p_.loads[a].in_place && load_is_dense(a);
    bool constant = p_.loads[a].in_place;
    for (size_t d = 0; d < dims; ++d) constant = constant && load_stride(a, d) == 0;
    expand[a] = !dense && !constant;
    count += expand[a] ? 1 : 0;
  }
  rows_per_tile_ = tile_ / inner;
  return count;
}

// Note [Repeating loads]
// ~~~~~~~~~~~~~~~~~~~~~~
// Row tiles (See Note [Row tiles]) still gather a per-channel operand row by row: on ResNet's
// 2x2 planes, a copy of 4 elements and a step of every outer index per row, which left batch
// norm's groups at about 10 ns an element. But such a load does not depend on the outer dims at
// all (its strides there are 0): along the iteration it repeats with a period of B elements, the
// product of the dims it does vary over ([c, h, w] for a per-channel operand of [n, c, h, w]).
// So when every load that row tiles would gather repeats with a period of at most
// kMaxRepeatPeriod, and the range a runner walks is worth it (at least kRepeatsWorthIt periods),
// the runner writes each such load's period once, followed by its first tile again (B + tile
// elements), and then runs plain tiles across rows: element e reads buffer[e % B], and a tile of
// n elements from e reads [e % B, e % B + n) in place. Dense loads are read in place (or
// converted) at their flat position, constant ones as a stride-0 value. Groups that reduce keep
// row tiles (their folds rely on row-bounded pieces); the arithmetic per element is unchanged.

size_t TileRunner::plan_periodic(const bool* expand) {
  if (rows_per_tile_ <= 1 || p_.has_reduction) return 0;
  const size_t dims = p_.dims.size();
  size_t bytes = 0;
  for (size_t a = 0; a < p_.loads.size(); ++a) {
    dense_[a] = load_is_dense(a);
    if (!expand[a] || dense_[a]) continue;
    size_t first = 0;  // the period's first dim: the load's strides before it are 0
    while (first < dims && load_stride(a, first) == 0) ++first;
    int64_t period = 1;
    for (size_t d = first; d < dims; ++d) period *= p_.dims[d];
    if (period > kMaxRepeatPeriod) return 0;  // also when it varies over the outermost dim
    period_[a] = period;
    period_dim_[a] = first;
    max_period_ = std::max(max_period_, period);
    bytes += repeated_bytes(a);
  }
  periodic_ = true;
  return bytes;
}

// Writes each repeating load's period, then its first tile again (See Note [Repeating loads]).
void TileRunner::fill_repeated() {
  static metrics::Counter& repeated = metrics::counter("fusion.repeated_loads");
  for (size_t a = 0; a < p_.loads.size(); ++a) {
    if (period_[a] == 0) continue;
    fill_repeated(a);
    repeated.add();
  }
  filled_ = true;
}

void TileRunner::fill_repeated(size_t a) {
  const GroupProgram::Load& l = p_.loads[a];
  const size_t dims = p_.dims.size();
  const int64_t period = period_[a], size = static_cast<int64_t>(t_size_);
  const auto src_size = static_cast<int64_t>(itemsize(l.dtype));
  const int64_t run = period_dim_[a] == dims ? 1 : p_.dims.back();  // elements per copied run
  const int64_t step = period_dim_[a] == dims ? 0 : load_stride(a, dims - 1);
  for (int64_t r = 0; r < period / run; ++r) {
    int64_t offset = l.offset, rest = r;
    for (size_t d = dims - 1; d-- > period_dim_[a];) {
      offset += rest % p_.dims[d] * load_stride(a, d);
      rest /= p_.dims[d];
    }
    lazygen::detail::convert_elements(l.dtype, b_.inputs[l.input] + offset * src_size,
                                      step * src_size, p_.dtype, repeated_[a] + r * run * size,
                                      size, run);
  }
  for (int64_t done = period; done < period + tile_;) {  // the first tile again, period by period
    const int64_t n = std::min(period, period + tile_ - done);
    std::memcpy(repeated_[a] + done * size, repeated_[a], static_cast<size_t>(n * size));
    done += n;
  }
}

// A tile of n elements from pos_ (See Note [Repeating loads]).
void TileRunner::run_periodic_tile(int64_t n) {
  const auto size = static_cast<int64_t>(t_size_);
  for (size_t a = 0; a < p_.loads.size(); ++a) {
    const GroupProgram::Load& l = p_.loads[a];
    const char* base = b_.inputs[l.input];
    if (period_[a] != 0) {
      ptr_[a] = repeated_[a] + pos_ % period_[a] * size;
      stride_[a] = 1;
    } else if (dense_[a] && l.in_place) {
      ptr_[a] = const_cast<char*>(base) + (l.offset + pos_) * size;
      stride_[a] = 1;
    } else if (dense_[a]) {
      const auto src_size = static_cast<int64_t>(itemsize(l.dtype));
      lazygen::detail::convert_elements(l.dtype, base + (l.offset + pos_) * src_size, src_size,
                                        p_.dtype, gathered_[a], size, n);
      ptr_[a] = gathered_[a];
      stride_[a] = 1;
    } else {  // constant and in place (plan_row_tiles gathers every other load)
      ptr_[a] = const_cast<char*>(base) + l.offset * size;
      stride_[a] = 0;
    }
  }
  rows_tile_ = true;
  run_tile(n, /*loaded=*/true);
  rows_tile_ = false;
}

// A tile of `rows` whole rows from the row start the runner is at; leaves it at the next row.
void TileRunner::run_rows_tile(int64_t rows) {
  const int64_t inner = p_.dims.back();
  const auto size = static_cast<int64_t>(t_size_);
  for (size_t a = 0; a < p_.loads.size(); ++a) {
    if (expanded_[a] != nullptr) continue;
    ptr_[a] = const_cast<char*>(b_.inputs[p_.loads[a].input]) + row_off_[a] * size;
    stride_[a] = load_stride(a, p_.dims.size() - 1);
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (size_t a = 0; a < p_.loads.size(); ++a) {
      if (expanded_[a] == nullptr) continue;
      const GroupProgram::Load& l = p_.loads[a];
      const int64_t step = load_stride(a, p_.dims.size() - 1);
      const auto src_size = static_cast<int64_t>(itemsize(l.dtype));
      const char* src = b_.inputs[l.input] + row_off_[a] * src_size;
      char* dst = expanded_[a] + r * inner * size;
      if (l.dtype == p_.dtype && size == 4) {
        copy_row<uint32_t>(dst, src, step, inner);
      } else if (l.dtype == p_.dtype && size == 8) {
        copy_row<uint64_t>(dst, src, step, inner);
      } else {
        lazygen::detail::convert_elements(l.dtype, src, step * src_size, p_.dtype, dst, size,
                                          inner);
      }
    }
    next_row();
  }
  for (size_t a = 0; a < p_.loads.size(); ++a) {
    if (expanded_[a] == nullptr) continue;
    ptr_[a] = expanded_[a];
    stride_[a] = 1;
  }
  rows_tile_ = true;
  run_tile(rows * inner, /*loaded=*/true);
  rows_tile_ = false;
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

void TileRunner::run_tile(int64_t n, bool loaded) {
  if (!loaded) {
    for (size_t a = 0; a < p_.loads.size(); ++a) load(a, n);
  }
  for (size_t j = 0; j < p_.outputs.size(); ++j) {
    if (p_.outputs[j].direct) ptr_[p_.outputs[j].location] = b_.outputs[j] + pos_ * t_size_;
  }
  for (size_t k = 0; k < p_.ops.size();) {
    const GroupProgram::Op& op = p_.ops[k];
    const size_t end = chains_ && op.chain_end != 0 ? op.chain_end : k + 1;
    int64_t stored = 0;  // elements of the last op's output already written
    if (end > k + 1) {
      stored = run_chain(k, end, n);
    } else {
      run_op(op, 0, n);
      if (p_.prefetch) prefetch_slice(static_cast<int64_t>(k), n);
    }
    const GroupProgram::Op& last = p_.ops[end - 1];
    if (last.store >= 0 && stored < n) store(last.store, ptr_[last.out], n, stored);
    k = end;
  }
}

// Elements [offset, offset + n) of op's tile through its per-op tile kernel.
void TileRunner::run_op(const GroupProgram::Op& op, int64_t offset, int64_t n) {
  const auto bytes = offset * static_cast<int64_t>(t_size_);
  TileArgs args;
  args.n = n;
  args.out = ptr_[op.out] + bytes;
  for (int k = 0; k < op.num_in; ++k) {
    args.in[k] = ptr_[op.in[k]] + bytes * stride_[op.in[k]];
    args.stride[k] = stride_[op.in[k]];
  }
  // (The first bound always holds; it spares GCC -O3 a false -Wstringop-overflow.)
  for (int k = 0; k < kMaxTileScalars && k < op.num_scalars; ++k) {
    args.scalars[k] = b_.scalars[op.scalar[k]];
  }
  op.fn(args);
}

// A chain operand's tile: in place when contiguous, else its value repeated over the next splat
// buffer (stride 0).
const void* TileRunner::chain_operand(uint16_t location, int64_t& stride, size_t& splat) {
  stride = stride_[location];
  if (stride == 1) return ptr_[location];
  char* buffer = splats_ + splat++ * static_cast<size_t>(strip_) * t_size_;
  switch (t_size_) {  // typed fills: a memcpy of t_size_ bytes per element is a libc call each
    case 8:
      splat_fill<uint64_t>(buffer, ptr_[location], strip_);
      break;
    case 4:
      splat_fill<uint32_t>(buffer, ptr_[location], strip_);
      break;
    default:
      for (int64_t i = 0; i < strip_; ++i)
        std::memcpy(buffer + i * static_cast<int64_t>(t_size_), ptr_[location], t_size_);
  }
  return buffer;
}

// Ops [first, end) of a chain over a tile: whole strips by the chain kernel, the rest op by op.
// Returns how many elements of the last op's output it streamed there itself (See
// chain_output); the rest is left in the last op's location.
int64_t TileRunner::run_chain(size_t first, size_t end, int64_t n) {
  const int64_t whole = n - n % strip_;
  int64_t stored = 0;
  if (whole > 0) {
    size_t splat = 0;
    ChainArgs a;
    a.n = whole;
    a.first = chain_operand(p_.ops[first].in[0], a.first_stride, splat);
    for (size_t k = first; k < end; ++k) set_chain_step(steps_[k - first], p_.ops[k], splat);
    a.steps = steps_;
    a.num_steps = static_cast<int>(end - first);
    stored = chain_output(first, end, a) ? whole : 0;
    for (size_t l = 0; l < p_.loads.size() && p_.prefetch; ++l) {
      if (!streams_in(l) || a.num_prefetch == kMaxTileInputs) continue;
      a.prefetch[static_cast<size_t>(a.num_prefetch++)] = ptr_[l];
    }
    a.ahead = n * static_cast<int64_t>(t_size_);
    p_.chain(a);
  }
  for (size_t k = first; k < end && whole < n; ++k) run_op(p_.ops[k], whole, n - whole);
  return stored;
}

// Op's generated case, operands and Scalars (converted to T) for this tile.
void TileRunner::set_chain_step(ChainStep& s, const GroupProgram::Op& op, size_t& splat) {
  s.kernel = static_cast<int16_t>(op.chain + op.chain_slot);
  for (int j = 0; j < op.num_in; ++j) {
    s.in[j] = ptr_[op.out];  // the accumulator's slot: never read, but a valid address
    s.stride[j] = 0;
    if (j != op.chain_slot) s.in[j] = chain_operand(op.in[j], s.stride[j], splat);
  }
  for (int j = 0; j < op.num_scalars; ++j) {
    const TileScalar& v = b_.scalars[op.scalar[j]];
    if (p_.dtype == DType::Float64) {
      s.set_scalar(j, v.to<double>());
    } else {
      s.set_scalar(j, v.to<float>());
    }
  }
}

// Where the chain's strips go: the last op's location, or, for a streamed output no op reads
// at a vector-aligned address, the output itself with non-temporal stores (no pass through a
// register; See Note [Register chains]). Returns whether it streams.
bool TileRunner::chain_output(size_t first, size_t end, ChainArgs& a) const {
  const GroupProgram::Op& last = p_.ops[end - 1];
  a.out = ptr_[last.out];
  if (!p_.ops[first].chain_value_dead || last.store < 0 ||
      !p_.outputs[static_cast<size_t>(last.store)].streamed) {
    return false;
  }
  char* dst = output_at(last.store, 0);
  if (reinterpret_cast<uintptr_t>(dst) % fusion::kLaneBytes != 0) return false;
  a.out = dst;
  a.stream = true;
  return true;
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
  AotTileArgs args;
  args.n = n;
  args.in = aot_in_;
  args.out = aot_out_;
  args.reduce = num_staged_ > staged ? staging(staged) : nullptr;
  args.scalars = b_.scalars;
  if (p_.prefetch) {
    run_aot_chunks(args);
    return;
  }
  p_.aot(args);
  for (size_t j = 0; j < p_.outputs.size(); ++j) {
    if (!p_.outputs[j].direct)
      store(static_cast<int16_t>(j), static_cast<const char*>(aot_out_[j]), n);
  }
}

char* TileRunner::output_at(int16_t output, int64_t offset) const {
  const GroupProgram::Output& o = p_.outputs[static_cast<size_t>(output)];
  return b_.outputs[static_cast<size_t>(output)] +
         (pos_ + offset) * static_cast<int64_t>(itemsize(o.dtype));
}

// A streaming group's AOT kernel over its tile in chunks, each after the prefetch of the same
// chunk of the next tile (prefetches spread over the tile like the chain kernels', See Note
// [Register chains], not bunched ahead of it), each chunk's staged outputs stored right after
// it, while they are in L1. Advances the kernel's pointers chunk by chunk (run_aot_tile sets
// them afresh for each tile; the fold reads the reduced value from its staging tile).
void TileRunner::run_aot_chunks(AotTileArgs& args) {
  const int64_t n = args.n;
  const auto t = static_cast<int64_t>(t_size_);
  for (int64_t done = 0; done < n;) {
    const int64_t m = std::min(kAotChunk, n - done);
    for (size_t a = 0; a < p_.loads.size(); ++a) {
      if (!streams_in(a)) continue;
      const char* next = static_cast<const char*>(aot_in_[a]) + n * t;
      for (int64_t b = 0; b < m * t; b += 64) __builtin_prefetch(next + b, 0, 3);
    }
    args.n = m;
    p_.aot(args);
    for (size_t j = 0; j < p_.outputs.size(); ++j) {
      if (!p_.outputs[j].direct) {
        const char* tile = static_cast<const char*>(aot_out_[j]) - done * t;
        store(static_cast<int16_t>(j), tile, done + m, done);
      }
    }
    for (size_t a = 0; a < p_.loads.size(); ++a)
      aot_in_[a] = static_cast<const char*>(aot_in_[a]) + m * t * stride_[a];
    for (size_t j = 0; j < p_.outputs.size(); ++j)
      aot_out_[j] = static_cast<char*>(aot_out_[j]) + m * t;
    if (args.reduce != nullptr) args.reduce = static_cast<char*>(args.reduce) + m * t;
    done += m;
  }
}

void TileRunner::store(int16_t output, const char* value, int64_t n, int64_t from) {
  const GroupProgram::Output& o = p_.outputs[static_cast<size_t>(output)];
  const auto size = static_cast<int64_t>(itemsize(o.dtype));
  char* dst = output_at(output, from);
  value += from * static_cast<int64_t>(t_size_);
  if (o.streamed) {
    stream_copy(dst, value, (n - from) * size);
  } else {
    lazygen::detail::convert_elements(p_.dtype, value, static_cast<int64_t>(t_size_), o.dtype, dst,
                                      size, n - from);
  }
}

// After op k of a tile, slice k of the next tile of each contiguous input (Note [Streaming
// groups]): spread over the ops so that the prefetches never queue up behind each other.
void TileRunner::prefetch_slice(int64_t k, int64_t n) {
  const int64_t ops = static_cast<int64_t>(p_.ops.size());
  const int64_t slice = (n * static_cast<int64_t>(t_size_) + ops - 1) / ops;
  for (size_t a = 0; a < p_.loads.size(); ++a) {
    if (!streams_in(a)) continue;
    const char* next = ptr_[a] + n * static_cast<int64_t>(t_size_) + k * slice;
    for (int64_t b = 0; b < slice; b += 64) __builtin_prefetch(next + b, 0, 3);
  }
}

}  // namespace lazygen::cpu::fusion
