// grid_sampler_2d (lazygen/composite.h): PyTorch's grid sampling with bilinear or nearest
// interpolation and zeros, border or reflection padding, from pointwise ops and gather.
//
// Note [Grid sampling by gather]
// Each output point reads input at coordinates computed from the grid: (x, y) in [-1, 1] are
// unnormalized to pixel coordinates (align_corners: -1 and 1 are the corner pixels' centres; else
// their outer edges), reflected or clamped as padding_mode says, and the 4 (bilinear) or 1
// (nearest) pixels around them are gathered from input viewed as [N, C, H*W] with one index per
// output point expanded over the channels; a tap outside the plane reads 0 (zeros padding). The
// interpolation weights are linear in the coordinates, so autograd gives the gradient of the grid
// as well as of input (through gather's scatter_add), as PyTorch's grid_sampler_2d_backward.
#include <cmath>
#include <string>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/clamp.h"
#include "lazygen/generated/ops/eq.h"
#include "lazygen/generated/ops/expand.h"
#include "lazygen/generated/ops/floor.h"
#include "lazygen/generated/ops/fmod.h"
#include "lazygen/generated/ops/gather.h"
#include "lazygen/generated/ops/ge.h"
#include "lazygen/generated/ops/isnan.h"
#include "lazygen/generated/ops/le.h"
#include "lazygen/generated/ops/logical_and.h"
#include "lazygen/generated/ops/remainder.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/round.h"
#include "lazygen/generated/ops/select.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/operators.h"

namespace lazygen {
namespace {

constexpr int64_t kBilinear = 0, kNearest = 1, kBicubic = 2;
constexpr int64_t kZeros = 0, kBorder = 1, kReflection = 2;

// Pixel coordinates from normalized ones along an axis of `size` pixels.
Tensor unnormalize(const Tensor& coord, int64_t size, bool align_corners) {
  const auto n = static_cast<double>(size);
  return align_corners ? (coord + 1.0) * ((n - 1) / 2) : ((coord + 1.0) * n - 1.0) / 2;
}

// PyTorch's reflect_coordinates: coord reflected into [twice_low / 2, twice_high / 2].
Tensor reflect(const Tensor& coord, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return zeros_like(coord);
  const double low = static_cast<double>(twice_low) / 2,
               span = static_cast<double>(twice_high - twice_low) / 2;
  const Tensor distance = abs(coord - low);
  const Tensor extra = fmod(distance, span);
  const Tensor flips = floor(distance / span);
  return where(eq(remainder(flips, 2.0), 0), extra + low, (span - extra) + low);
}

// Coordinates after padding_mode (border and reflection keep them inside the plane).
Tensor padded(const Tensor& coord, int64_t size, int64_t padding_mode, bool align_corners) {
  if (padding_mode == kZeros) return coord;
  Tensor c = coord;
  if (padding_mode == kReflection) {
    c = align_corners ? reflect(c, 0, 2 * (size - 1)) : reflect(c, -1, 2 * size - 1);
  }
  return clamp(c, 0.0, static_cast<double>(size - 1));
}

struct Plane {
  Tensor flat;  // input as [N, C, H * W]
  int64_t n, c, h, w, points;
};

// input's values at integer pixel coordinates (ix, iy) [N, Ho, Wo] as [N, C, Ho * Wo], 0 outside
// (NaN coordinates included).
Tensor tap(const Plane& p, const Tensor& ix_maybe_nan, const Tensor& iy_maybe_nan) {
  const Tensor outside = full({}, -1.0, ix_maybe_nan.dtype(), ix_maybe_nan.device());
  const Tensor ix = where(isnan(ix_maybe_nan), outside, ix_maybe_nan);
  const Tensor iy = where(isnan(iy_maybe_nan), outside, iy_maybe_nan);
  const Tensor inside = logical_and(logical_and(ge(ix, 0.0), le(ix, static_cast<double>(p.w - 1))),
                                    logical_and(ge(iy, 0.0), le(iy, static_cast<double>(p.h - 1))));
  const Tensor x = clamp(ix, 0.0, static_cast<double>(p.w - 1)).to(DType::Int64);
  const Tensor y = clamp(iy, 0.0, static_cast<double>(p.h - 1)).to(DType::Int64);
  const Tensor index = expand(reshape(y * p.w + x, {p.n, 1, p.points}), {p.n, p.c, p.points});
  const Tensor values = gather(p.flat, 2, index);
  return where(expand(reshape(inside, {p.n, 1, p.points}), {p.n, p.c, p.points}), values,
               zeros({}, values.dtype(), values.device()));
}

void check(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
           int64_t padding_mode) {
  if (input.dim() != 4 || grid.dim() != 4 || grid.size(0) != input.size(0) || grid.size(3) != 2) {
    throw ShapeError("grid_sampler_2d",
                     "expected input [N, C, H, W] and grid [N, H_out, W_out, 2], got " +
                         sizes_str(input.sizes()) + " and " + sizes_str(grid.sizes()));
  }
  if (input.dtype() != grid.dtype() || !is_floating(input.dtype())) {
    throw ShapeError("grid_sampler_2d", "expected input and grid of one floating dtype");
  }
  if (interpolation_mode == kBicubic) {
    throw ShapeError("grid_sampler_2d", "bicubic interpolation is not implemented by lazygen");
  }
  if (interpolation_mode != kBilinear && interpolation_mode != kNearest) {
    throw ShapeError("grid_sampler_2d",
                     "interpolation_mode must be 0 (bilinear) or 1 (nearest), got " +
                         std::to_string(interpolation_mode));
  }
  if (padding_mode < kZeros || padding_mode > kReflection) {
    throw ShapeError("grid_sampler_2d",
                     "padding_mode must be 0 (zeros), 1 (border) or 2 (reflection), got " +
                         std::to_string(padding_mode));
  }
}

}  // namespace

Tensor grid_sampler_2d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                       int64_t padding_mode, bool align_corners) {
  check(input, grid, interpolation_mode, padding_mode);
  const int64_t n = input.size(0), c = input.size(1), h = input.size(2), w = input.size(3);
  const int64_t ho = grid.size(1), wo = grid.size(2);
  const Plane p{reshape(input, {n, c, h * w}), n, c, h, w, ho * wo};
  const Tensor ix =
      padded(unnormalize(select(grid, 3, 0), w, align_corners), w, padding_mode, align_corners);
  const Tensor iy =
      padded(unnormalize(select(grid, 3, 1), h, align_corners), h, padding_mode, align_corners);
  Tensor out;
  if (interpolation_mode == kNearest) {
    out = tap(p, round(ix), round(iy));  // half to even, as PyTorch's nearbyint
  } else {
    const Tensor x0 = floor(ix), y0 = floor(iy);
    const Tensor x1 = x0 + 1.0, y1 = y0 + 1.0;
    auto weight = [&](const Tensor& wx, const Tensor& wy) {
      return reshape(wx * wy, {n, 1, p.points});
    };
    out = tap(p, x0, y0) * weight(x1 - ix, y1 - iy) + tap(p, x1, y0) * weight(ix - x0, y1 - iy) +
          tap(p, x0, y1) * weight(x1 - ix, iy - y0) + tap(p, x1, y1) * weight(ix - x0, iy - y0);
  }
  return reshape(out, {n, c, ho, wo});
}

}  // namespace lazygen
