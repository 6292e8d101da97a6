// Winograd F(4x4, 3x3) convolution kernels (winograd.h): tiling, blocking, threading and the
// gemms; the transforms themselves are in winograd_transform.h. See Note [Winograd convolution].
#include "ops/cpu/winograd.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "core/env_flag.h"
#include "core/tensor/tensor_impl.h"
#include "core/vector_clones.h"
#include "lazygen/conv.h"
#include "ops/cpu/blas_gemm.h"
#include "ops/cpu/winograd_transform.h"

namespace lazygen::cpu {
namespace {

using winograd::kLanes;
using winograd::kOut;
using winograd::kPoints;
using winograd::kTile;
using winograd::round_up_lanes;
using winograd::RowPiece;
using winograd::TileGrid;
using winograd::Vec;

// Below this many input or output channels the gemms are too thin to pay for the transforms.
constexpr int64_t kMinChannels = 4;

// A correlation of x [n, cin, h, w] with transformed kernels u [36][cin_p][cout_p] into
// y [n, cout, oh, ow] (+ bias), or, for the weight gradient, of x with dy [n, cout, oh, ow].
// Channel counts are padded to whole vectors (cin_p, cout_p) in every transformed operand; the
// padding holds zeros.
template <class T>
struct Problem {
  const T* x = nullptr;
  const T* u = nullptr;
  const T* bias = nullptr;
  const T* dy = nullptr;
  T* y = nullptr;
  TileGrid g;
  int64_t cin = 0, cout = 0;
  int64_t cin_p() const { return round_up_lanes(cin); }
  int64_t cout_p() const { return round_up_lanes(cout); }
};

// Elements from one transform point to the next in a block's transformed operand of n tiles and
// `channels` (padded) channels: the point's [n][channels] rows plus one cache line. Without the
// line, a tile's 36 points lie a multiple of 4 KiB apart, all in one L1 set, and the transforms
// that read or write them miss L1 (measured 1.2x slower overall on conv2).
template <class T>
int64_t point_stride(int64_t n, int64_t channels) {
  return n * channels + 64 / static_cast<int64_t>(sizeof(T));
}

// Per-thread scratch for a block of up to `tb` tiles, carved from one cached allocation:
// transformed inputs v [36][tiles][cin_p] and outputs m [36][tiles][cout_p] (the gemms'
// operands), the channel-vector rows of one tile row (winograd::pack_rows), and `extra_size`
// zeros (the weight gradient's accumulator).
template <class T>
struct Workspace {
  Workspace(const Problem<T>& p, int64_t tb, int64_t extra_size) {
    const int64_t v_size = kPoints * point_stride<T>(tb, p.cin_p());
    const int64_t m_size = kPoints * point_stride<T>(tb, p.cout_p());
    const int64_t rows_size = kTile * round_up_lanes(kOut * p.g.tiles_x() + 2) * kLanes;
    storage = make_cpu_tensor({v_size + m_size + rows_size + extra_size}, dtype_of<T>());
    v = storage.data_ptr<T>();
    m = v + v_size;
    rows = m + m_size;
    extra = rows + rows_size;
    std::fill_n(rows, rows_size + extra_size, T(0));
  }
  Tensor storage;
  T *v, *m, *rows, *extra;
};

// The transform loops are compiled for AVX-512 and AVX2 besides the baseline
// (LAZYGEN_VECTOR_CLONES): they are most of Winograd's non-gemm time and vectorize fully.

// Input channels [c0, c0 + kLanes) of a piece: its 6 input rows packed into channel vectors,
// then transformed into ws.v [36][n][cin_p] (n: the block's tiles).
struct InputPiece {
  template <class T>
  static int64_t channels(const Problem<T>& p) {
    return p.cin;
  }
  template <class T>
  static LAZYGEN_TRANSFORM_INLINE void run(const Problem<T>& p, const RowPiece& pc, int64_t c0,
                                           int64_t n, Workspace<T>& ws) {
    const TileGrid& g = p.g;
    const int64_t width = kOut * pc.count() + 2, row_len = round_up_lanes(width) * kLanes;
    const int64_t cin_p = p.cin_p();
    winograd::pack_rows(p.x + (pc.image * p.cin + c0) * g.h * g.w, g.h * g.w,
                        std::min(kLanes, p.cin - c0), g.h, g.w, kOut * pc.ty - g.ph, kTile,
                        kOut * pc.tx0 - g.pw, width, ws.rows);
    for (int64_t t = 0; t < pc.count(); ++t) {
      winograd::input_tile(ws.rows + kOut * t * kLanes, row_len, ws.v + (pc.lane + t) * cin_p + c0,
                           point_stride<T>(n, cin_p));
    }
  }
};

// Output channels [o0, o0 + kLanes) of a piece: its 4x4 blocks from ws.m [36][n][cout_p] plus
// the bias into channel-vector rows, unpacked into y (dropping what hangs over the edge).
struct OutputPiece {
  template <class T>
  static int64_t channels(const Problem<T>& p) {
    return p.cout;
  }
  template <class T>
  static LAZYGEN_TRANSFORM_INLINE void run(const Problem<T>& p, const RowPiece& pc, int64_t o0,
                                           int64_t n, Workspace<T>& ws) {
    const TileGrid& g = p.g;
    const int64_t width = kOut * pc.count(), row_len = round_up_lanes(width) * kLanes;
    const int64_t cout_p = p.cout_p(), channels = std::min(kLanes, p.cout - o0);
    Vec<T> bias{};
    for (int64_t k = 0; k < channels && p.bias != nullptr; ++k) bias[k] = p.bias[o0 + k];
    for (int64_t t = 0; t < pc.count(); ++t) {
      winograd::output_tile(ws.m + (pc.lane + t) * cout_p + o0, point_stride<T>(n, cout_p), bias,
                            ws.rows + kOut * t * kLanes, row_len);
    }
    winograd::unpack_rows(ws.rows, kOut, width, p.y + (pc.image * p.cout + o0) * g.oh * g.ow,
                          g.oh * g.ow, channels, g.oh, g.ow, kOut * pc.ty, kOut * pc.tx0);
  }
};

// Output channels [o0, o0 + kLanes) of a piece: its 4x4 output-gradient blocks (zeros past the
// edge) packed into channel vectors and transformed into ws.m [36][n][cout_p].
struct GradPiece {
  template <class T>
  static int64_t channels(const Problem<T>& p) {
    return p.cout;
  }
  template <class T>
  static LAZYGEN_TRANSFORM_INLINE void run(const Problem<T>& p, const RowPiece& pc, int64_t o0,
                                           int64_t n, Workspace<T>& ws) {
    const TileGrid& g = p.g;
    const int64_t width = kOut * pc.count(), row_len = round_up_lanes(width) * kLanes;
    const int64_t cout_p = p.cout_p();
    winograd::pack_rows(p.dy + (pc.image * p.cout + o0) * g.oh * g.ow, g.oh * g.ow,
                        std::min(kLanes, p.cout - o0), g.oh, g.ow, kOut * pc.ty, kOut,
                        kOut * pc.tx0, width, ws.rows);
    for (int64_t t = 0; t < pc.count(); ++t) {
      winograd::grad_tile(ws.rows + kOut * t * kLanes, row_len, ws.m + (pc.lane + t) * cout_p + o0,
                          point_stride<T>(n, cout_p));
    }
  }
};

// Piece::run(p, piece, c0, n, ws) over the pieces of tiles [t0, t1) and their channel vectors.
// The channel vectors are the outer loop, so that 8 planes at a time are walked down the block
// (few memory streams for the hardware prefetcher); pieces outside measured the same within this
// machine's noise. The lambda is forced inline so that it, too, is compiled for the calling
// clone's ISA.
template <class Piece, class T>
LAZYGEN_TRANSFORM_INLINE void over_pieces(const Problem<T>& p, int64_t t0, int64_t t1,
                                          Workspace<T>& ws) {
  for (int64_t c0 = 0; c0 < Piece::channels(p); c0 += kLanes) {
    winograd::for_each_row_piece(p.g, t0, t1,
                                 [&](const RowPiece& pc) LAZYGEN_TRANSFORM_INLINE_LAMBDA {
                                   Piece::run(p, pc, c0, t1 - t0, ws);
                                 });
  }
}

// The clones themselves: target_clones takes no templates, so one function per dtype.
LAZYGEN_VECTOR_CLONES void transform_inputs(const Problem<float>& p, int64_t t0, int64_t t1,
                                            Workspace<float>& ws) {
  over_pieces<InputPiece>(p, t0, t1, ws);
}
LAZYGEN_VECTOR_CLONES void transform_inputs(const Problem<double>& p, int64_t t0, int64_t t1,
                                            Workspace<double>& ws) {
  over_pieces<InputPiece>(p, t0, t1, ws);
}
LAZYGEN_VECTOR_CLONES void transform_outputs(const Problem<float>& p, int64_t t0, int64_t t1,
                                             Workspace<float>& ws) {
  over_pieces<OutputPiece>(p, t0, t1, ws);
}
LAZYGEN_VECTOR_CLONES void transform_outputs(const Problem<double>& p, int64_t t0, int64_t t1,
                                             Workspace<double>& ws) {
  over_pieces<OutputPiece>(p, t0, t1, ws);
}
LAZYGEN_VECTOR_CLONES void transform_grads(const Problem<float>& p, int64_t t0, int64_t t1,
                                           Workspace<float>& ws) {
  over_pieces<GradPiece>(p, t0, t1, ws);
}
LAZYGEN_VECTOR_CLONES void transform_grads(const Problem<double>& p, int64_t t0, int64_t t1,
                                           Workspace<double>& ws) {
  over_pieces<GradPiece>(p, t0, t1, ws);
}

template <class T>
void correlate_block(const Problem<T>& p, int64_t t0, int64_t t1, Workspace<T>& ws) {
  const int64_t n = t1 - t0;
  const int64_t cin_p = p.cin_p(), cout_p = p.cout_p();
  transform_inputs(p, t0, t1, ws);
  for (int64_t k = 0; k < kPoints; ++k) {
    gemm(Gemm{false, false, n, cout_p, cin_p}, ws.v + k * point_stride<T>(n, cin_p),
         p.u + k * cin_p * cout_p, T(0), ws.m + k * point_stride<T>(n, cout_p));
  }
  transform_outputs(p, t0, t1, ws);
}

// Accumulates the block's dU [36][cout_p][cin_p] into du.
template <class T>
void weight_grad_block(const Problem<T>& p, int64_t t0, int64_t t1, Workspace<T>& ws, T* du) {
  const int64_t n = t1 - t0, cin_p = p.cin_p(), cout_p = p.cout_p();
  transform_inputs(p, t0, t1, ws);
  transform_grads(p, t0, t1, ws);
  for (int64_t k = 0; k < kPoints; ++k) {
    gemm(Gemm{true, false, cout_p, cin_p, n}, ws.m + k * point_stride<T>(n, cout_p),
         ws.v + k * point_stride<T>(n, cin_p), T(1), du + k * cout_p * cin_p);
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

// u [36][cin_p][cout_p] of w [cout][cin][3][3] (zeros for the padding channels), or with flip:
// of the flipped kernels with the channels swapped (u [36][cout_p][cin_p]), the input
// gradient's correlation kernels.
template <class T>
Tensor transform_kernels(const T* w, int64_t cout, int64_t cin, bool flip) {
  const int64_t cin_p = round_up_lanes(cin), cout_p = round_up_lanes(cout);
  Tensor u = make_cpu_tensor({kPoints * cin_p * cout_p}, dtype_of<T>());
  T* out = u.data_ptr<T>();
  std::fill_n(out, kPoints * cin_p * cout_p, T(0));
  for (int64_t o = 0; o < cout; ++o) {
    for (int64_t c = 0; c < cin; ++c) {
      const T* g = w + (o * cin + c) * 9;
      if (flip) {
        winograd::kernel_2d(g + 8, -3, -1, out + o * cin_p + c, cout_p * cin_p);
      } else {
        winograd::kernel_2d(g, 3, 1, out + c * cout_p + o, cout_p * cin_p);
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
  const int64_t points = kPoints * p.cout_p() * p.cin_p();
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
  for (int64_t o = 0; o < g.o; ++o) {
    for (int64_t c = 0; c < g.c; ++c) {
      winograd::kernel_grad_2d(sum + o * p.cin_p() + c, p.cout_p() * p.cin_p(),
                               dw + (o * g.c + c) * 9);
    }
  }
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
EnvSwitch& winograd_flag() {
  static EnvSwitch flag("LAZYGEN_WINOGRAD", EnvSwitch::kOptIn);  // opt-in: See lazygen/conv.h
  return flag;
}
}  // namespace

void set_winograd_enabled(bool enabled) {
  winograd_flag().set(enabled);
}

bool winograd_enabled() {
  return winograd_flag().on();
}

}  // namespace lazygen
