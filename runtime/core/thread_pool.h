// A small persistent pool of worker threads for splitting cpu kernels over a range.
//
// parallel_for(begin, end, grain, fn) calls fn(b, e) on disjoint sub-ranges covering
// [begin, end), each at least `grain` long (except when the whole range is shorter), on up to
// num_threads() threads: the caller runs one chunk and the pool's workers the others. It returns
// when every chunk is done and rethrows the first exception a chunk threw.
// Ranges shorter than 2 * grain, calls from inside a pool task (nesting) and calls made while
// another thread is using the pool run serially on the caller, so parallel_for never deadlocks
// and never oversubscribes.
// Threads: LAZYGEN_NUM_THREADS when set to a positive integer, else 2 (what these kernels are
// tuned for; capped by the hardware); changeable with set_num_threads before or between
// parallel sections.
#pragma once

#include <cstdint>

namespace lazygen::cpu {

int num_threads();
// REQUIRES: n >= 1 and no parallel_for running.
void set_num_threads(int n);

namespace detail {
using RangeFn = void (*)(void* ctx, int64_t begin, int64_t end);
void parallel_for_impl(int64_t begin, int64_t end, int64_t grain, RangeFn fn, void* ctx);
}  // namespace detail

template <class F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& fn) {
  if (end - begin < 2 * grain || num_threads() == 1) {
    if (begin < end) fn(begin, end);
    return;
  }
  detail::parallel_for_impl(
      begin, end, grain,
      [](void* ctx, int64_t b, int64_t e) { (*static_cast<const F*>(ctx))(b, e); },
      const_cast<F*>(&fn));
}

// parallel_for over `count` items (samples, tile blocks, matrices of a batch): fn(b, e) gets item
// ranges. The pool aligns chunk edges to 64 range elements, so the items are spaced 64 apart to
// split evenly.
template <class F>
void parallel_over_items(int64_t count, const F& fn) {
  constexpr int64_t kSpacing = 64;
  parallel_for(0, count * kSpacing, kSpacing,
               [&](int64_t b, int64_t e) { fn(b / kSpacing, e / kSpacing); });
}

}  // namespace lazygen::cpu
