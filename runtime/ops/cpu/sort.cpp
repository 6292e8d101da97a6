// sort, topk and cumsum (custom_kernels.h): row by row along one dim, rows split over the cpu
// thread pool. Each row is gathered into a buffer of (value, index) pairs or accumulated in
// place, whatever self's strides.
#include <algorithm>
#include <numeric>
#include <type_traits>
#include <vector>

#include "core/tensor/shape_rules.h"
#include "core/tensor/tensor_impl.h"
#include "core/thread_pool.h"
#include "lazygen/generated/shapes/cumsum.h"
#include "lazygen/generated/shapes/sort.h"
#include "lazygen/generated/shapes/topk.h"
#include "lazygen/kernels/pointwise_math.h"
#include "ops/cpu/custom_kernels.h"
#include "ops/cpu/reduce_plan.h"

namespace lazygen::cpu {
namespace {

constexpr int64_t kWork = 32 * 1024;

// A row of `x` along dim d: where each row starts in x and in a contiguous output of `out_sizes`.
struct Rows {
  std::vector<int64_t> in, out;
  int64_t length = 1, in_stride = 0, out_stride = 0;
};

Rows rows_of(const Tensor& x, int64_t d, const std::vector<int64_t>& out_sizes) {
  Rows r;
  if (x.dim() == 0) {
    r.in = r.out = {0};
    return r;
  }
  std::vector<int64_t> in_sizes = x.sizes(), out_row_sizes = out_sizes;
  r.length = in_sizes[d];
  r.in_stride = x.stride(d);
  const std::vector<int64_t> out_strides = contiguous_strides(out_sizes);
  r.out_stride = out_strides[d];
  in_sizes[d] = out_row_sizes[d] = 1;  // enumerate the other dims only
  r.in = detail::enumerate_offsets(in_sizes, x.strides());
  r.out = detail::enumerate_offsets(out_row_sizes, out_strides);
  return r;
}

// Strict "a orders before b" for an ascending (or, with descending, a descending) sort: NaN
// is above every number and equal to itself, as PyTorch orders them.
template <class T>
bool before(T a, T b, bool descending) {
  const bool nan_a = kernels::isnan(a), nan_b = kernels::isnan(b);
  if (nan_a || nan_b) return descending ? nan_a && !nan_b : !nan_a && nan_b;
  return descending ? a > b : a < b;
}

// The first `keep` of each row sorted (stably), written as values and int64 indices.
template <class T>
void sort_rows(const Tensor& x, int64_t d, bool descending, int64_t keep, const Tensor& values,
               const Tensor& indices) {
  const Rows r = rows_of(x, d, values.sizes());
  const T* in = x.data_ptr<T>();
  T* v = values.data_ptr<T>();
  int64_t* ix = indices.data_ptr<int64_t>();
  const int64_t grain = std::max<int64_t>(1, kWork / std::max<int64_t>(r.length, 1));
  parallel_for(0, static_cast<int64_t>(r.in.size()), grain, [&](int64_t b, int64_t e) {
    std::vector<int64_t> order(static_cast<size_t>(r.length));
    for (int64_t row = b; row < e; ++row) {
      const T* p = in + r.in[static_cast<size_t>(row)];
      std::iota(order.begin(), order.end(), int64_t{0});
      auto cmp = [&](int64_t i, int64_t j) {
        return before(p[i * r.in_stride], p[j * r.in_stride], descending);
      };
      if (keep < r.length) {
        std::partial_sort(
            order.begin(), order.begin() + keep, order.end(), [&](int64_t i, int64_t j) {
              return cmp(i, j) ||
                     (!cmp(j, i) && i < j);  // ties in index order: a strict total order
            });
      } else {
        std::stable_sort(order.begin(), order.end(), cmp);
      }
      const int64_t o = r.out[static_cast<size_t>(row)];
      for (int64_t k = 0; k < keep; ++k) {
        v[o + k * r.out_stride] = p[order[static_cast<size_t>(k)] * r.in_stride];
        ix[o + k * r.out_stride] = order[static_cast<size_t>(k)];
      }
    }
  });
}

// Running sums along d of x (already in the output's dtype's category) into out, accumulated in
// Acc.
template <class T, class Out, class Acc>
void cumsum_rows(const Tensor& x, int64_t d, const Tensor& out) {
  const Rows r = rows_of(x, d, out.sizes());
  const T* in = x.data_ptr<T>();
  Out* o = out.data_ptr<Out>();
  const int64_t grain = std::max<int64_t>(1, kWork / std::max<int64_t>(r.length, 1));
  parallel_for(0, static_cast<int64_t>(r.in.size()), grain, [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const T* p = in + r.in[static_cast<size_t>(row)];
      Out* q = o + r.out[static_cast<size_t>(row)];
      Acc acc = 0;
      for (int64_t i = 0; i < r.length; ++i) {
        acc += static_cast<Acc>(p[i * r.in_stride]);
        q[i * r.out_stride] = static_cast<Out>(acc);
      }
    }
  });
}

}  // namespace

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  const auto shapes = compute_shape_sort(self.shape(), dim, descending);
  Tensor values = make_cpu_tensor(shapes[0].sizes, shapes[0].dtype);
  Tensor indices = make_cpu_tensor(shapes[1].sizes, shapes[1].dtype);
  const int64_t d = wrap_dim("sort", dim, self.dim());
  const int64_t n = self.dim() ? self.size(d) : 1;
  if (self.numel() > 0) {
    dispatch_dtype(self.dtype(), [&](auto tag) {
      sort_rows<decltype(tag)>(self, d, descending, n, values, indices);
    });
  }
  return {values, indices};
}

std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest,
                                bool sorted) {
  const auto shapes = compute_shape_topk(self.shape(), k, dim, largest, sorted);
  Tensor values = make_cpu_tensor(shapes[0].sizes, shapes[0].dtype);
  Tensor indices = make_cpu_tensor(shapes[1].sizes, shapes[1].dtype);
  const int64_t d = wrap_dim("topk", dim, self.dim());
  if (values.numel() > 0) {
    dispatch_dtype(self.dtype(), [&](auto tag) {
      sort_rows<decltype(tag)>(self, d, largest, k, values, indices);
    });
  }
  return {values, indices};
}

Tensor cumsum(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  const Shape shape = compute_shape_cumsum(self.shape(), dim, dtype)[0];
  Tensor out = make_cpu_tensor(shape.sizes, shape.dtype);
  if (out.numel() == 0) return out;
  const int64_t d = wrap_dim("cumsum", dim, self.dim());
  const Tensor x =
      self.dtype() == shape.dtype || !is_floating(shape.dtype) ? self : self.to(shape.dtype);
  dispatch_dtype(x.dtype(), [&](auto in_tag) {
    using T = decltype(in_tag);
    dispatch_dtype(shape.dtype, [&](auto out_tag) {
      using Out = decltype(out_tag);
      using Acc = std::conditional_t<std::is_floating_point_v<Out>, double, int64_t>;
      cumsum_rows<T, Out, Acc>(x, d, out);
    });
  });
  return out;
}

}  // namespace lazygen::cpu
