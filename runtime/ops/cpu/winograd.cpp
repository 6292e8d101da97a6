// Winograd F(4x4, 3x3) convolution kernels (winograd.h): tiling, blocking, threading and the
// gemms; the transforms themselves are in winograd_transform.h. See Note [Winograd convolution].
#include "ops/cpu/winograd.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "core/tensor/tensor_impl.h"
#include "lazygen/conv.h"
#include "ops/cpu/blas_gemm.h"
#include "ops/cpu/winograd_transform.h"

namespace lazygen::cpu {
namespace {

using winograd::kOut;
using winograd::kPoints;
using winograd::kTile;
using winograd::TileGrid;

// Below this many input or output channels the gemms are too thin to pay for the transforms.
constexpr int64_t kMinChannels = 4;

// A correlation of x [n, cin, h, w] with transformed kernels u [36][cout][cin] into
// y [n, cout, oh, ow] (+ bias), or, for the weight gradient, of x with dy [n, cout, oh, ow].
template <class T>
struct Problem {
  const T* x = nullptr;
  const T* u = nullptr;
  const T* bias = nullptr;
  const T* dy = nullptr;
  T* y = nullptr;
  TileGrid g;
  int64_t cin = 0, cout = 0;
};

// Per-thread scratch for a block of up to `tb` tiles, carved from one cached allocation:
// transformed inputs v [36][cin][tb] and outputs m [36][cout][tb], tiles d and tmp [36][tb], a
// padded input row, and `extra_size` zeros (the weight gradient's accumulator).
template <class T>
struct Workspace {
  Workspace(const Problem<T>& p, int64_t tb, int64_t extra_size) {
    const int64_t v_size = kPoints * p.cin * tb, m_size = kPoints * p.cout * tb;
    const int64_t d_size = kPoints * tb, row_size = kOut * p.g.tiles_x() + 2;
    storage =
        make_cpu_tensor({v_size + m_size + 2 * d_size + row_size + extra_size}, dtype_of<T>());
    v = storage.data_ptr<T>();
    m = v + v_size;
    d = m + m_size;
    tmp = d + d_size;
    row = tmp + d_size;
    extra = row + row_size;
    std::fill_n(extra, extra_size, T(0));
  }
  Tensor storage;
  T *v, *m, *d, *tmp, *row, *extra;
};

// The transform loops are compiled for AVX-512 and AVX2 besides the baseline, picked at load
// time: they are most of Winograd's non-gemm time and vectorize fully.
#define LAZYGEN_VECTOR_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

// Input columns [x0, x0 + width) of row iy of `plane`: the row itself where it lies inside the
// plane, else a copy into buf with zeros outside.
template <class T>
LAZYGEN_TRANSFORM_INLINE const T* input_row(const T* plane, const TileGrid& g, int64_t iy,
                                            int64_t x0, int64_t width, T* buf) {
  if (iy < 0 || iy >= g.h) {
    std::fill_n(buf, width, T(0));
    return buf;
  }
  const T* row = plane + iy * g.w + x0;
  const int64_t lo = std::clamp<int64_t>(-x0, 0, width),
                hi = std::clamp<int64_t>(g.w - x0, 0, width);
  if (lo == 0 && hi == width) return row;
  for (int64_t k = 0; k < lo; ++k) buf[k] = T(0);
  for (int64_t k = lo; k < hi; ++k) buf[k] = row[k];
  for (int64_t k = hi; k < width; ++k) buf[k] = T(0);
  return buf;
}

// The 6x6 input tiles of channel c for tiles [t0, t1) into d [36][ld].
template <class T>
LAZYGEN_TRANSFORM_INLINE void gather_input(const Problem<T>& p, int64_t c, int64_t t0, int64_t t1,
                                           T* d, T* buf) {
  const TileGrid& g = p.g;
  const int64_t ld = t1 - t0;
  winograd::for_each_row_piece(
      g, t0, t1, [&](int64_t img, int64_t ty, int64_t tx0, int64_t tx1, int64_t lane) {
        const T* plane = p.x + (img * p.cin + c) * g.h * g.w;
        const int64_t count = tx1 - tx0, x0 = kOut * tx0 - g.pw;
        for (int64_t r = 0; r < kTile; ++r) {
          const T* src = input_row(plane, g, kOut * ty + r - g.ph, x0, kOut * count + 2, buf);
          T* out = d + r * kTile * ld + lane;
          for (int64_t tx = 0; tx < count; ++tx) {
            for (int64_t s = 0; s < kTile; ++s) out[s * ld + tx] = src[kOut * tx + s];
          }
        }
      });
}

// The 4x4 output-gradient blocks of channel o (zeros past the edge) into d [16][ld].
template <class T>
LAZYGEN_TRANSFORM_INLINE void gather_grad(const Problem<T>& p, int64_t o, int64_t t0, int64_t t1,
                                          T* d) {
  const TileGrid& g = p.g;
  const int64_t ld = t1 - t0;
  winograd::for_each_row_piece(
      g, t0, t1, [&](int64_t img, int64_t ty, int64_t tx0, int64_t tx1, int64_t lane) {
        const T* plane = p.dy + (img * p.cout + o) * g.oh * g.ow;
        for (int64_t i = 0; i < kOut; ++i) {
          const int64_t oy = kOut * ty + i;
          for (int64_t j = 0; j < kOut; ++j) {
            T* out = d + (i * kOut + j) * ld + lane;
            for (int64_t tx = tx0; tx < tx1; ++tx) {
              const int64_t ox = kOut * tx + j;
              out[tx - tx0] = oy < g.oh && ox < g.ow ? plane[oy * g.ow + ox] : T(0);
            }
          }
        }
      });
}

// Output blocks y4 [16][ld] of channel o, plus its bias, into y (dropping what hangs over).
template <class T>
LAZYGEN_TRANSFORM_INLINE void scatter_output(const Problem<T>& p, int64_t o, int64_t t0, int64_t t1,
                                             const T* y4) {
  const TileGrid& g = p.g;
  const int64_t ld = t1 - t0;
  const T b = p.bias != nullptr ? p.bias[o] : T(0);
  winograd::for_each_row_piece(
      g, t0, t1, [&](int64_t img, int64_t ty, int64_t tx0, int64_t tx1, int64_t lane) {
        T* plane = p.y + (img * p.cout + o) * g.oh * g.ow;
        for (int64_t i = 0; i < kOut && kOut * ty + i < g.oh; ++i) {
          T* row = plane + (kOut * ty + i) * g.ow;
          for (int64_t tx = tx0; tx < tx1; ++tx) {
            const int64_t width = std::min(kOut, g.ow - kOut * tx);
            for (int64_t j = 0; j < width; ++j) {
              row[kOut * tx + j] = y4[(i * kOut + j) * ld + lane + tx - tx0] + b;
            }
          }
        }
      });
}

// Transformed inputs of tiles [t0, t1): ws.v [36][cin][n].
template <class T>
LAZYGEN_TRANSFORM_INLINE void transform_inputs_impl(const Problem<T>& p, int64_t t0, int64_t t1,
                                                    Workspace<T>& ws) {
  const int64_t n = t1 - t0;
  for (int64_t c = 0; c < p.cin; ++c) {
    gather_input(p, c, t0, t1, ws.d, ws.row);
    winograd::input_2d(ws.d, ws.tmp, ws.v + c * n, p.cin * n, n, n);
  }
}

// Output blocks of tiles [t0, t1) from ws.m [36][cout][n] into y.
template <class T>
LAZYGEN_TRANSFORM_INLINE void transform_outputs_impl(const Problem<T>& p, int64_t t0, int64_t t1,
                                                     Workspace<T>& ws) {
  const int64_t n = t1 - t0;
  for (int64_t o = 0; o < p.cout; ++o) {
    winograd::output_2d(ws.m + o * n, p.cout * n, ws.tmp, ws.d, n, n);
    scatter_output(p, o, t0, t1, ws.d);
  }
}

// Transformed output gradients of tiles [t0, t1): ws.m [36][cout][n].
template <class T>
LAZYGEN_TRANSFORM_INLINE void transform_grads_impl(const Problem<T>& p, int64_t t0, int64_t t1,
                                                   Workspace<T>& ws) {
  const int64_t n = t1 - t0;
  for (int64_t o = 0; o < p.cout; ++o) {
    gather_grad(p, o, t0, t1, ws.d);
    winograd::grad_2d(ws.d, ws.tmp, ws.m + o * n, p.cout * n, n, n);
  }
}

// The clones themselves: target_clones takes no templates, so one function per dtype.
LAZYGEN_VECTOR_CLONES void transform_inputs(const Problem<float>& p, int64_t t0, int64_t t1,
                                            Workspace<float>& ws) {
  transform_inputs_impl(p, t0, t1, ws);
}
LAZYGEN_VECTOR_CLONES void transform_inputs(const Problem<double>& p, int64_t t0, int64_t t1,
                                            Workspace<double>& ws) {
  transform_inputs_impl(p, t0, t1, ws);
}
LAZYGEN_VECTOR_CLONES void transform_outputs(const Problem<float>& p, int64_t t0, int64_t t1,
                                             Workspace<float>& ws) {
  transform_outputs_impl(p, t0, t1, ws);
}
LAZYGEN_VECTOR_CLONES void transform_outputs(const Problem<double>& p, int64_t t0, int64_t t1,
                                             Workspace<double>& ws) {
  transform_outputs_impl(p, t0, t1, ws);
}
LAZYGEN_VECTOR_CLONES void transform_grads(const Problem<float>& p, int64_t t0, int64_t t1,
                                           Workspace<float>& ws) {
  transform_grads_impl(p, t0, t1, ws);
}
LAZYGEN_VECTOR_CLONES void transform_grads(const Problem<double>& p, int64_t t0, int64_t t1,
                                           Workspace<double>& ws) {
  transform_grads_impl(p, t0, t1, ws);
}

template <class T>
void correlate_block(const Problem<T>& p, int64_t t0, int64_t t1, Workspace<T>& ws) {
  const int64_t n = t1 - t0;
  transform_inputs(p, t0, t1, ws);
  for (int64_t k = 0; k < kPoints; ++k) {
    gemm(Gemm{false, false, p.cout, n, p.cin}, p.u + k * p.cout * p.cin, ws.v + k * p.cin * n, T(0),
         ws.m + k * p.cout * n);
  }
  transform_outputs(p, t0, t1, ws);
}

// Accumulates the block's dU [36][cout][cin] into du.
template <class T>
void weight_grad_block(const Problem<T>& p, int64_t t0, int64_t t1, Workspace<T>& ws, T* du) {
  const int64_t n = t1 - t0;
  transform_inputs(p, t0, t1, ws);
  transform_grads(p, t0, t1, ws);
  for (int64_t k = 0; k < kPoints; ++k) {
    gemm(Gemm{false, true, p.cout, p.cin, n}, ws.m + k * p.cout * n, ws.v + k * p.cin * n, T(1),
         du + k * p.cout * p.cin);
  }
}

// Tiles per block: as many as keep a block's transformed data within block_bytes (at least 16),
// or all tiles when the pool is off. Sets `parallel` when blocks may run on our pool's threads.
template <class T>
int64_t block_tiles(const Problem<T>& p, bool& parallel) {
  const WinogradTuning& tune = winograd_tuning();
  const int64_t total = p.g.total();
  if (!tune.pool) {
    parallel = false;
    return total;
  }
  const int64_t per_tile = kPoints * (p.cin + p.cout) * static_cast<int64_t>(sizeof(T));
  const int64_t tb = std::max<int64_t>(16, tune.block_bytes / per_tile / 16 * 16);
  parallel = p.cin * p.cout * tb <= kBlasSingleThreadMnk;
  return std::min(total, tb);
}

// Runs block_fn(t0, t1, ws) over every block of tiles, then done(ws) once per workspace.
template <class T, class Block, class Done>
void over_blocks(const Problem<T>& p, int64_t extra, const Block& block_fn, const Done& done) {
  bool parallel = false;
  const int64_t total = p.g.total(), tb = block_tiles(p, parallel);
  const int64_t blocks = (total + tb - 1) / tb;
  auto run = [&](int64_t b0, int64_t b1) {
    Workspace<T> ws(p, tb, extra);
    for (int64_t b = b0; b < b1; ++b) block_fn(b * tb, std::min(total, (b + 1) * tb), ws);
    done(ws);
  };
  if (parallel) {
    parallel_over_items(blocks, run);
  } else {
    run(0, blocks);
  }
}

// u [36][cout][cin] of w [cout][cin][3][3], or with flip: of the flipped kernels with the
// channels swapped (u [36][cin][cout]), the input gradient's correlation kernels.
template <class T>
Tensor transform_kernels(const T* w, int64_t cout, int64_t cin, bool flip) {
  Tensor u = make_cpu_tensor({kPoints * cout * cin}, dtype_of<T>());
  T* out = u.data_ptr<T>();
  for (int64_t o = 0; o < cout; ++o) {
    for (int64_t c = 0; c < cin; ++c) {
      const T* g = w + (o * cin + c) * 9;
      if (flip) {
        winograd::kernel_2d(g + 8, -3, -1, out + c * cout + o, cout * cin);
      } else {
        winograd::kernel_2d(g, 3, 1, out + o * cin + c, cout * cin);
      }
    }
  }
  return u;
}

template <class T>
void correlate(const Problem<T>& p) {
  over_blocks(
      p, 0, [&](int64_t t0, int64_t t1, Workspace<T>& ws) { correlate_block(p, t0, t1, ws); },
      [](Workspace<T>&) {});
}

}  // namespace

bool winograd_applies(const Conv2dGeometry& g) {
  return g.kh == 3 && g.kw == 3 && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 &&
         g.groups == 1 && g.c >= kMinChannels && g.o >= kMinChannels;
}

WinogradTuning& winograd_tuning() {
  static WinogradTuning tuning;
  return tuning;
}

template <class T>
void winograd_forward(const T* x, const T* w, const T* bias, T* y, const Conv2dGeometry& g) {
  const Tensor u = transform_kernels(w, g.o, g.c, false);
  Problem<T> p;
  p.x = x, p.u = u.data_ptr<T>(), p.bias = bias, p.y = y, p.cin = g.c, p.cout = g.o;
  p.g = TileGrid{g.n, g.h, g.w, g.oh, g.ow, g.ph, g.pw};
  correlate(p);
}

template <class T>
void winograd_backward_input(const T* dy, const T* w, T* dx, const Conv2dGeometry& g) {
  const Tensor u = transform_kernels(w, g.o, g.c, true);
  Problem<T> p;
  p.x = dy, p.u = u.data_ptr<T>(), p.y = dx, p.cin = g.o, p.cout = g.c;
  p.g = TileGrid{g.n, g.oh, g.ow, g.h, g.w, 2 - g.ph, 2 - g.pw};
  correlate(p);
}

template <class T>
void winograd_backward_weight(const T* dy, const T* x, T* dw, const Conv2dGeometry& g) {
  Problem<T> p;
  p.x = x, p.dy = dy, p.cin = g.c, p.cout = g.o;
  p.g = TileGrid{g.n, g.h, g.w, g.oh, g.ow, g.ph, g.pw};
  const int64_t points = kPoints * g.o * g.c;
  Tensor du = make_cpu_tensor({points}, dtype_of<T>());
  T* sum = du.data_ptr<T>();
  std::fill_n(sum, points, T(0));
  std::mutex mu;
  over_blocks(
      p, points,
      [&](int64_t t0, int64_t t1, Workspace<T>& ws) { weight_grad_block(p, t0, t1, ws, ws.extra); },
      [&](Workspace<T>& ws) {
        std::lock_guard<std::mutex> lock(mu);
        for (int64_t i = 0; i < points; ++i) sum[i] += ws.extra[i];
      });
  for (int64_t i = 0; i < g.o * g.c; ++i) winograd::kernel_grad_2d(sum + i, g.o * g.c, dw + i * 9);
}

template void winograd_forward(const float*, const float*, const float*, float*,
                               const Conv2dGeometry&);
template void winograd_forward(const double*, const double*, const double*, double*,
                               const Conv2dGeometry&);
template void winograd_backward_input(const float*, const float*, float*, const Conv2dGeometry&);
template void winograd_backward_input(const double*, const double*, double*, const Conv2dGeometry&);
template void winograd_backward_weight(const float*, const float*, float*, const Conv2dGeometry&);
template void winograd_backward_weight(const double*, const double*, double*,
                                       const Conv2dGeometry&);

}  // namespace lazygen::cpu

namespace lazygen {
namespace {
std::atomic<bool>& winograd_flag() {
  static std::atomic<bool> flag{[] {
    const char* env = std::getenv("LAZYGEN_WINOGRAD");
    return env == nullptr || std::strcmp(env, "0") != 0;
  }()};
  return flag;
}
}  // namespace

void set_winograd_enabled(bool enabled) {
  winograd_flag().store(enabled, std::memory_order_relaxed);
}

bool winograd_enabled() {
  return winograd_flag().load(std::memory_order_relaxed);
}

}  // namespace lazygen
