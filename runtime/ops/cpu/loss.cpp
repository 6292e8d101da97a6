// nll_loss and nll_loss_backward (training_kernels.h).
//
// Sums accumulate in double. nll_loss's two passes (forward and backward) share one walk over
// the targets (for_each_target), so they agree on which samples count and on the total weight.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/tensor/tensor_impl.h"
#include "core/thread_pool.h"
#include "lazygen/factory.h"
#include "ops/cpu/training_kernels.h"
#include "ops/shape/training_shapes.h"

namespace lazygen::cpu {

namespace {

// nll_loss's operands as plain arrays: self [batch, classes], target [batch], weight [classes].
template <class T>
struct NllOperands {
  Tensor self, target, weight;  // contiguous; weight undefined when absent
  int64_t batch = 1, classes = 0;

  NllOperands(const Tensor& s, const Tensor& t, const std::optional<Tensor>& w)
      : self(s.contiguous()), target(t.contiguous()) {
    if (w && w->defined()) weight = w->contiguous();
    batch = s.dim() == 2 ? s.size(0) : 1;
    classes = s.size(-1);
  }
  T weight_of(int64_t cls) const { return weight.defined() ? weight.data_ptr<T>()[cls] : T(1); }
};

// Calls fn(i, cls, w) for each sample i whose target cls is not ignore_index (w: its class
// weight); returns the sum of those weights. Throws std::out_of_range for a bad target.
template <class T, class Fn>
double for_each_target(const char* op, const NllOperands<T>& v, int64_t ignore_index, Fn fn) {
  const int64_t* t = v.target.template data_ptr<int64_t>();
  double total = 0;
  for (int64_t i = 0; i < v.batch; ++i) {
    const int64_t cls = t[i];
    if (cls == ignore_index) continue;
    if (cls < 0 || cls >= v.classes) {
      throw std::out_of_range(std::string(op) + ": target " + std::to_string(cls) +
                              " is out of bounds for " + std::to_string(v.classes) + " classes");
    }
    const T w = v.weight_of(cls);
    total += w;
    fn(i, cls, w);
  }
  return total;
}

template <class T>
void nll_forward(const NllOperands<T>& v, int64_t reduction, int64_t ignore_index, T* out) {
  const T* x = v.self.template data_ptr<T>();
  if (reduction == kReductionNone) std::fill_n(out, v.batch, T(0));
  double sum = 0;
  const double total =
      for_each_target<T>("nll_loss", v, ignore_index, [&](int64_t i, int64_t cls, T w) {
        const T loss = -w * x[i * v.classes + cls];
        if (reduction == kReductionNone) out[i] = loss;
        sum += loss;
      });
  if (reduction == kReductionSum) out[0] = static_cast<T>(sum);
  if (reduction == kReductionMean) out[0] = static_cast<T>(sum / total);
}

}  // namespace

Tensor nll_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                int64_t reduction, int64_t ignore_index) {
  const bool has_weight = weight && weight->defined();
  const Shape shape = compute_shape_nll_loss(
      self.shape(), target.shape(), has_weight ? std::optional(weight->shape()) : std::nullopt,
      reduction, ignore_index)[0];
  Tensor out = make_cpu_tensor(shape.sizes, shape.dtype);
  dispatch_dtype(shape.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      nll_forward(NllOperands<T>(self, target, weight), reduction, ignore_index, out.data_ptr<T>());
    }
  });
  return out;
}

Tensor nll_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                         const std::optional<Tensor>& weight, int64_t reduction,
                         int64_t ignore_index) {
  const bool has_weight = weight && weight->defined();
  compute_shape_nll_loss_backward(grad_output.shape(), self.shape(), target.shape(),
                                  has_weight ? std::optional(weight->shape()) : std::nullopt,
                                  reduction, ignore_index);
  Tensor out = zeros(self.sizes(), self.dtype());
  const Tensor dy = grad_output.contiguous();
  dispatch_dtype(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const NllOperands<T> v(self, target, weight);
      const T* g = dy.data_ptr<T>();
      T* dx = out.data_ptr<T>();
      // The mean's divisor first (a walk that writes nothing), then the gradients.
      const double total =
          reduction == kReductionMean
              ? for_each_target<T>("nll_loss_backward", v, ignore_index, [](int64_t, int64_t, T) {})
              : 1.0;
      for_each_target<T>("nll_loss_backward", v, ignore_index, [&](int64_t i, int64_t cls, T w) {
        const T gi = reduction == kReductionNone ? g[i] : g[0];
        dx[i * v.classes + cls] = static_cast<T>(-w * gi / total);
      });
    }
  });
  return out;
}

}  // namespace lazygen::cpu
