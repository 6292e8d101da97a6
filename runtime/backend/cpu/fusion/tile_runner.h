// The tile walk of the blocked vector interpreter (interpreter.h): a TileRunner runs the tiles of
// ranges of a group's row-major iteration on one thread, and run_items hands items of work to
// the pool's threads. The interpreter's elementwise and reduction drivers are built on both.
//
// Thread safety: a TileRunner belongs to one thread (it uses that thread's scratch memory);
// run_items calls body concurrently, on distinct items, from up to num_threads() threads.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "backend/cpu/fusion/interpreter.h"
#include "core/thread_pool.h"

namespace lazygen::cpu::fusion {

inline constexpr int64_t kWorkPerThread = 16 * 1024;  // element-ops worth another thread
inline constexpr int64_t kAotChunk = 256;  // elements per AOT kernel call in streaming groups
// Repeating loads (See Note [Repeating loads] in tile_runner.cpp): the longest period written
// out, and how many periods a walk must span to be worth writing them.
inline constexpr int64_t kMaxRepeatPeriod = 16 * 1024;
inline constexpr int64_t kRepeatsWorthIt = 2;

// Non-temporal stores are weakly ordered: each thread fences its own before it reports done.
void fence_streams(const GroupProgram& p);

// Runs the tiles of ranges of a group's iteration; keeps its position between consecutive ranges.
class TileRunner {
 public:
  TileRunner(const GroupProgram& p, const GroupBindings& b);

  // Runs elements [begin, end) of the row-major iteration, calling fold(location pointer, n)
  // after each tile when the group reduces (per row of a row tile: See Note [Row tiles]). An
  // elementwise group with repeating loads runs plain tiles across rows once the range is worth
  // writing their periods (See Note [Repeating loads] in tile_runner.cpp).
  template <class Fold>
  void run(int64_t begin, int64_t end, Fold&& fold) {
    if (periodic_ && (filled_ || end - begin >= kRepeatsWorthIt * max_period_)) {
      if (!filled_) fill_repeated();
      for (pos_ = begin; pos_ < end;) {  // no reduction: fold is never called
        const int64_t n = std::min(tile_, end - pos_);
        run_periodic_tile(n);
        pos_ += n;
      }
      pos_ = -1;  // the row walk's position is not kept: the next row walk seeks
      return;
    }
    if (begin != pos_) seek(begin);
    const int64_t inner = p_.dims.back();
    while (pos_ < end) {
      if (rows_per_tile_ > 1 && col_ == 0 && end - pos_ >= 2 * inner) {
        const int64_t rows = std::min(rows_per_tile_, (end - pos_) / inner);
        run_rows_tile(rows);
        for (int64_t r = 0; p_.has_reduction && r < rows; ++r) {
          fold(reduced() + r * inner * static_cast<int64_t>(t_size_), inner);
        }
        pos_ += rows * inner;
        continue;
      }
      const int64_t n = std::min({tile_, inner - col_, end - pos_});
      aot_ ? run_aot_tile(n) : run_tile(n);
      if (p_.has_reduction) fold(reduced(), n);
      pos_ += n;
      col_ += n;
      if (col_ == inner) next_row();
    }
  }

  // Whether one walk over many runs of `run` consecutive elements (the outputs of a Trailing
  // reduction) hands its fold the same pieces as a walk per run: each run whole, in one piece
  // (rows within a tile, or row tiles folded row by row: See Note [Row tiles]), so that sums
  // keep their bits.
  bool walks_whole_runs(int64_t run) const {
    const int64_t inner = p_.dims.back();
    return rows_per_tile_ > 1 || (run * 2 <= tile_ && inner % run == 0 && tile_ % run == 0);
  }

 private:
  int64_t load_stride(size_t a, size_t d) const { return p_.load_strides[a * p_.dims.size() + d]; }
  // Whether load a reads the iteration's elements in order, one after the other (row-major,
  // innermost stride 1), whatever its dtype.
  bool load_is_dense(size_t a) const;
  // Whether load a is read in place and contiguous this tile: the inputs streaming groups
  // prefetch (See Note [Streaming groups]).
  bool streams_in(size_t a) const {
    return p_.loads[a].in_place && stride_[a] == 1 && !(rows_tile_ && expanded_[a] != nullptr);
  }
  void seek(int64_t pos);
  void next_row();
  void load(size_t a, int64_t n);
  void run_tile(int64_t n, bool loaded = false);

  // Sets rows_per_tile_ and which loads are gathered into tile buffers for row tiles; returns
  // how many are.
  size_t plan_row_tiles(bool* expand);
  void run_rows_tile(int64_t rows);
  // Repeating loads (See Note [Repeating loads]): whether the runner may run plain tiles across
  // rows, with each load row tiles would gather written once as its period; returns the bytes
  // the buffers take (0 when it may not).
  size_t plan_periodic(const bool* expand);
  size_t repeated_bytes(size_t a) const {
    return (static_cast<size_t>(period_[a] + tile_) * t_size_ + 63) / 64 * 64;
  }
  void fill_repeated();  // every repeating load's buffer; counts fusion.repeated_loads
  void fill_repeated(size_t a);
  void run_periodic_tile(int64_t n);
  void run_op(const GroupProgram::Op& op, int64_t offset, int64_t n);
  int64_t run_chain(size_t first, size_t end, int64_t n);
  void set_chain_step(ChainStep& s, const GroupProgram::Op& op, size_t& splat);
  bool chain_output(size_t first, size_t end, ChainArgs& a) const;
  const void* chain_operand(uint16_t location, int64_t& stride, size_t& splat);
  void run_aot_tile(int64_t n);
  void run_aot_chunks(AotTileArgs& args);
  const char* reduced() const {
    return aot_ && p_.reduce_from >= p_.loads.size() ? staging(num_staged_ - 1)
                                                     : ptr_[p_.reduce_from];
  }
  char* staging(size_t s) const { return regs_ + s * tile_bytes_; }
  // Elements [from, n) of the tile's `value` into output `output`.
  void store(int16_t output, const char* value, int64_t n, int64_t from = 0);
  char* output_at(int16_t output, int64_t offset) const;
  void prefetch_slice(int64_t k, int64_t n);

  const GroupProgram& p_;
  const GroupBindings& b_;
  size_t t_size_;
  size_t tile_bytes_;
  bool aot_;               // runs p_.aot instead of the op list (See Note [AOT kernels])
  int64_t tile_;           // elements per tile (See Note [Streaming groups])
  bool chains_;            // runs the op list's register chains (See Note [Register chains])
  int64_t strip_;          // elements per chain strip
  size_t num_staged_ = 0;  // AOT: staging tiles, one per non-direct output (+ the reduced value)
  char* regs_ = nullptr;   // the first tile register (or staging tile)
  const void** aot_in_ = nullptr;  // AOT: per load, its tile
  void** aot_out_ = nullptr;       // AOT: per output, where the kernel writes it
  char** ptr_;                     // per location, this tile
  int64_t* stride_;                // per location, elements
  ChainStep* steps_ = nullptr;     // chains: one per op of the longest
  char* splats_ = nullptr;         // chains: num_splats strip-long buffers
  char* gathered_[kMaxGroupInputs] = {};
  // Row tiles (See Note [Row tiles]): rows per tile (0: off); per load, the tile buffer rows
  // are gathered into, or null when the load is read in place across rows.
  int64_t rows_per_tile_ = 0;
  bool rows_tile_ = false;  // the tile being run spans rows
  char* expanded_[kMaxGroupInputs] = {};
  int64_t row_off_[kMaxGroupInputs] = {};
  // Repeating loads: per load, its period in elements (0: none), the dim it starts at, and its
  // buffer; whether the runner may use them, and whether they are written.
  int64_t period_[kMaxGroupInputs] = {};
  size_t period_dim_[kMaxGroupInputs] = {};
  char* repeated_[kMaxGroupInputs] = {};
  bool dense_[kMaxGroupInputs] = {};
  int64_t max_period_ = 0;
  bool periodic_ = false;
  bool filled_ = false;
  int64_t idx_[kMaxGroupDims] = {};  // outer dim indices
  int64_t pos_ = -1;
  int64_t col_ = 0;
};

// Calls thread_body(take) on one thread, or on each of the pool's threads when `parallel` (and
// there is more than one): take() returns the next item of [0, count) from a shared counter, -1
// once all are taken. So a thread the OS delays (these cores are shared) takes fewer items
// instead of holding up the rest.
template <class ThreadBody>
void deal_items(int64_t count, bool parallel, const ThreadBody& thread_body) {
  std::atomic<int64_t> next{0};
  auto take = [&]() -> int64_t {
    const int64_t item = next.fetch_add(1, std::memory_order_relaxed);
    return item < count ? item : -1;
  };
  if (!parallel || num_threads() == 1) {
    thread_body(take);
    return;
  }
  // A chunk per thread.
  parallel_for(0, num_threads(), 1, [&](int64_t, int64_t) { thread_body(take); });
}

// Runs body(runner, item) for items [0, count), each costing about `work` element-ops, dealt
// out to the pool's threads once the work is worth them (deal_items); each thread keeps one
// TileRunner.
template <class Body>
void run_items(const GroupProgram& p, const GroupBindings& b, int64_t count, int64_t work,
               const Body& body) {
  deal_items(count, count >= 2 && count * work >= 2 * kWorkPerThread, [&](const auto& take) {
    TileRunner runner(p, b);
    for (int64_t item; (item = take()) >= 0;) body(runner, item);
    fence_streams(p);
  });
}

}  // namespace lazygen::cpu::fusion
