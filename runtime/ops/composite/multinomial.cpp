// multinomial (lazygen/composite.h): PyTorch 1.13's two sampling algorithms over lazygen's
// uniform draws, with PyTorch's argument and value checks.
//
// Note [Sampling categories]
// Without replacement, or for one sample, each category gets an exponential key q ~ Exp(1) and
// the samples are the categories of the largest p / q (argmax for one, topk for several): the
// Gumbel-max trick in the form PyTorch's CPU kernel uses (argmax of log p - log q is argmax of
// p / q), which draws without replacement in proportion to p; q is kept above 0, so a zero
// weight's key is 0. With replacement, each sample is the first category whose normalized
// cumulative probability exceeds a uniform u, i.e. the count of cumulative probabilities at or
// below u (searchsorted, right), clamped to the last category against rounding. (PyTorch's
// kernel takes the first that reaches u, the same draw but for u equal to a cumulative
// probability, where it can pick a zero weight.) Both are a handful of fusable ops on the device;
// the draws come from lazygen's Philox generator, so the categories differ from PyTorch's for the
// same seed, as for every random op. The value checks need the probabilities: they read a cpu copy
// (on the lazy device a sync, as PyTorch's own checks sync a GPU) and raise PyTorch's messages in
// PyTorch's order.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/argmax.h"
#include "lazygen/generated/ops/clamp.h"
#include "lazygen/generated/ops/cumsum.h"
#include "lazygen/generated/ops/log1p.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/generated/ops/neg.h"
#include "lazygen/generated/ops/topk.h"
#include "lazygen/operators.h"

namespace lazygen {
namespace {

constexpr int64_t kMaxCategories = int64_t{1} << 24;  // PyTorch: FLOAT32_MAX_CONSECUTIVE_INT

void check_arguments(const Tensor& self, int64_t num_samples, bool replacement) {
  if (!is_floating(self.dtype())) {
    throw ShapeError("multinomial",
                     "multinomial only supports floating-point dtypes for input, got: " +
                         std::string(dtype_name(self.dtype())));
  }
  if (num_samples <= 0) throw ShapeError("multinomial", "cannot sample n_sample <= 0 samples");
  const int64_t categories = self.dim() > 0 ? self.sizes().back() : 0;
  if (!replacement && num_samples > categories) {
    throw ShapeError("multinomial",
                     "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  }
  if (self.dim() < 1 || self.dim() > 2) {
    throw ShapeError("multinomial", "prob_dist must be 1 or 2 dim, got " + sizes_str(self.sizes()));
  }
  if (categories > kMaxCategories) {
    throw ShapeError("multinomial", "number of categories cannot exceed 2^24");
  }
}

// The rows of self's values as float64, read on the cpu.
std::vector<double> cpu_values(const Tensor& self) {
  const Tensor cpu = self.to(DType::Float64).cpu().contiguous();
  const auto* p = static_cast<const double*>(cpu.raw_data());
  return std::vector<double>(p, p + cpu.numel());
}

// PyTorch's fast path (no replacement, or one sample): every value finite and >= 0, then no row
// summing to 0.
void check_for_keys(const std::vector<double>& v, int64_t rows, int64_t categories) {
  for (double x : v) {
    if (!(x >= 0 && x < INFINITY)) {
      throw ShapeError("multinomial",
                       "probability tensor contains either `inf`, `nan` or element < 0");
    }
  }
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < categories; ++c) sum += v[r * categories + c];
    if (sum == 0) {
      throw ShapeError("multinomial",
                       "invalid multinomial distribution (sum of probabilities <= 0)");
    }
  }
}

// PyTorch's sampling kernel (with replacement): row by row, each value >= 0 and finite, then the
// row's sum > 0.
void check_for_cumulative(const std::vector<double>& v, int64_t rows, int64_t categories) {
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < categories; ++c) {
      const double x = v[r * categories + c];
      if (!(x >= 0)) {
        throw ShapeError("multinomial",
                         "invalid multinomial distribution (encountering probability entry < 0)");
      }
      if (!std::isfinite(x)) {
        throw ShapeError("multinomial",
                         "invalid multinomial distribution (encountering probability "
                         "entry = infinity or NaN)");
      }
      sum += x;
    }
    if (!(sum > 0)) {
      throw ShapeError("multinomial",
                       "invalid multinomial distribution (sum of probabilities <= 0)");
    }
  }
}

// The smallest positive normal value of floating dtype t.
double smallest_normal(DType t) {
  return t == DType::Float32 ? std::numeric_limits<float>::min()
                             : std::numeric_limits<double>::min();
}

// Uniform draws on [0, 1) in self's dtype and on its device.
Tensor uniform(const IntList& sizes, const Tensor& like, Generator& generator) {
  return rand(sizes, generator, like.dtype(), like.device());
}

}  // namespace

Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement,
                   Generator& generator) {
  check_arguments(self, num_samples, replacement);
  const int64_t categories = self.sizes().back();
  const int64_t rows = self.dim() == 2 ? self.sizes()[0] : 1;
  const std::vector<double> v = cpu_values(self);
  if (!replacement || num_samples == 1) {
    check_for_keys(v, rows, categories);
    // Exp(1) keys, kept above 0: a draw of u = 0 would give a zero-weight category the key
    // 0 / 0 (NaN, which argmax and topk take as largest).
    const Tensor q = clamp(neg(log1p(neg(uniform(self.sizes(), self, generator)))),
                           Scalar(smallest_normal(self.dtype())));
    const Tensor keys = self / q;
    if (num_samples == 1) return argmax(keys, -1, true);
    return std::get<1>(topk(keys, num_samples));
  }
  check_for_cumulative(v, rows, categories);
  IntList draws = self.sizes();
  draws.back() = num_samples;
  const Tensor cumulative = cumsum(self, -1);
  const Tensor total = narrow(cumulative, -1, categories - 1, 1);
  // The count of cumulative probabilities at or below u: the first category whose cumulative
  // probability exceeds u, never one of zero weight (its cumulative probability is its
  // predecessor's), also for u = 0.
  const Tensor at_or_below =
      searchsorted(cumulative / total, uniform(draws, self, generator), false, true);
  return clamp(at_or_below, std::nullopt, Scalar(categories - 1));
}

Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement) {
  return multinomial(self, num_samples, replacement, default_generator());
}

}  // namespace lazygen
