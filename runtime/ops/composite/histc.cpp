// histc (lazygen/composite.h): PyTorch 1.13's histogram of equal bins, by one scatter_add.
//
// Note [Histograms by scatter_add]
// The range is min..max, or the data's own extremes when min == max (read on the cpu: on the
// lazy device one sync, as PyTorch's CPU kernel reads them too), widened by 1 each way when it is
// still empty. Each element in the range falls in bin trunc((x - lo) * bins / (hi - lo)), the top
// edge in the last bin, computed in the input's dtype with lo, hi and hi - lo rounded to it as
// PyTorch's kernel does, so an element on a bin edge lands where PyTorch puts it; NaN, which
// PyTorch's kernel does not skip, counts in the first bin as there. The elements outside go to
// one extra bin, dropped after a scatter_add of ones into bins + 1 zeros: the whole histogram is
// pointwise ops, a scatter and a narrow, with no data-dependent size.
#include <cmath>
#include <sstream>
#include <string>
#include <tuple>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/clamp.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/isnan.h"
#include "lazygen/generated/ops/logical_and.h"
#include "lazygen/generated/ops/logical_not.h"
#include "lazygen/generated/ops/logical_or.h"
#include "lazygen/generated/ops/lt.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/scatter_add.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/operators.h"
#include "ops/composite/host_extremes.h"

namespace lazygen {
namespace {

// x rounded to dtype t's precision (float32 or float64).
double rounded(double x, DType t) {
  return t == DType::Float32 ? static_cast<double>(static_cast<float>(x)) : x;
}

// PyTorch's text for the range check: doubles as an ostream writes them ("1", "inf", "-nan").
std::string range_text(double lo, double hi) {
  std::ostringstream s;
  s << "[" << lo << ", " << hi << "]";
  return s.str();
}

}  // namespace

Tensor histc(const Tensor& self, int64_t bins, double min, double max) {
  if (!is_floating(self.dtype())) {
    throw ShapeError("histc",
                     "expected a floating tensor, got " + std::string(dtype_name(self.dtype())));
  }
  if (bins <= 0) {
    throw ShapeError("histc", "torch.histogram(): bins must be > 0, but got " +
                                  std::to_string(bins) + " for dimension 0");
  }
  double lo = min, hi = max;
  if (lo == hi && self.numel() > 0) std::tie(lo, hi) = host_extremes<double>(self);
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  if (!std::isfinite(lo) || !std::isfinite(hi)) {
    throw ShapeError("histc", "torch.histc: range of " + range_text(lo, hi) + " is not finite");
  }
  if (!(lo < hi)) throw ShapeError("histc", "torch.histc: max must be larger than min");
  const DType t = self.dtype();
  lo = rounded(lo, t);
  hi = rounded(hi, t);
  const double width = rounded(hi - lo, t);  // as the kernel subtracts them in t
  const Tensor x = reshape(self, {-1});
  // PyTorch's kernel skips an element below lo or above hi, which a NaN is not: it counts NaN in
  // the first bin.
  const Tensor nan = isnan(x);
  const Tensor inside = logical_not(logical_or(lt(x, Scalar(lo)), gt(x, Scalar(hi))));
  // Positions of NaN and of elements outside are 0 before the cast, so that it is defined.
  const Tensor position =
      where(logical_and(inside, logical_not(nan)), (x - lo) * static_cast<double>(bins) / width,
            zeros({}, t, x.device()));
  const Tensor bin =
      clamp(position, std::nullopt, Scalar(static_cast<double>(bins - 1))).to(DType::Int64);
  const Tensor slot = where(inside, bin, full({}, Scalar(bins), DType::Int64, x.device()));
  const Tensor counts = scatter_add(zeros({bins + 1}, t, x.device()), 0, slot, ones_like(x));
  return narrow(counts, 0, 0, bins);
}

}  // namespace lazygen
