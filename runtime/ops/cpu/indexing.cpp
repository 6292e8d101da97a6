// Indexing kernels (custom_kernels.h): index_select, index_add, gather, scatter_add,
// scatter_reduce, slice_backward and slice_scatter.
//
// Operands are made contiguous first (a no-op for contiguous ones), so each kernel has one
// layout to walk. index_select and index_add see self as [outer, size(dim), inner] and move
// whole inner rows; gather and the scatters walk index's elements with running offsets. Index
// values are checked before anything is written: one out of [0, size(dim)) throws
// std::out_of_range naming the op, the index, the dim and the shapes.
#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/tensor/strided_loop.h"
#include "core/tensor/tensor_impl.h"
#include "lazygen/factory.h"
#include "ops/cpu/custom_kernels.h"
#include "ops/cpu/dim_split.h"
#include "ops/shape/custom_shapes.h"

namespace lazygen::cpu {
namespace {

// index as contiguous int64 values, each checked against [0, size).
Tensor checked_index(const char* op, const Tensor& index, int64_t size, int64_t d,
                     const Tensor& self) {
  Tensor idx = (index.dtype() == DType::Int64 ? index : index.to(DType::Int64)).contiguous();
  const int64_t* p = idx.data_ptr<int64_t>();
  for (int64_t i = 0; i < idx.numel(); ++i) {
    if (p[i] < 0 || p[i] >= size) {
      throw std::out_of_range(
          std::string(op) + ": index " + std::to_string(p[i]) + " is out of bounds for dimension " +
          std::to_string(d) + " with size " + std::to_string(size) + " (self of shape " +
          sizes_str(self.sizes()) + ", index of shape " + sizes_str(index.sizes()) + ")");
    }
  }
  return idx;
}

// Calls f(i, a, b) for element i (row-major) of the space `sizes`, with a and b the offsets of
// that position under strides_a (dim `skip` ignored) and strides_b.
template <class F>
void for_each_offset(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides_a,
                     int64_t skip, const std::vector<int64_t>& strides_b, F&& f) {
  const auto rank = static_cast<int64_t>(sizes.size());
  if (rank == 0) return f(0, 0, 0);
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (numel == 0) return;
  const auto stride_a = [&](int64_t k) { return k == skip ? 0 : strides_a[k]; };
  const int64_t inner = sizes.back(), inner_a = stride_a(rank - 1), inner_b = strides_b.back();
  std::vector<int64_t> pos(static_cast<size_t>(rank), 0);
  int64_t a = 0, b = 0;
  for (int64_t i = 0; i < numel; i += inner) {
    for (int64_t j = 0; j < inner; ++j) f(i + j, a + j * inner_a, b + j * inner_b);
    for (int64_t k = rank - 2; k >= 0; --k) {  // the odometer over the outer dims
      if (++pos[k] < sizes[k]) {
        a += stride_a(k);
        b += strides_b[k];
        break;
      }
      a -= (sizes[k] - 1) * stride_a(k);
      b -= (sizes[k] - 1) * strides_b[k];
      pos[k] = 0;
    }
  }
}

// What scatter_add and scatter_reduce walk: `out`, a contiguous copy of self; `from`, src made
// contiguous; and index's checked values.
struct Scatter {
  Tensor out, from, idx;
  int64_t d = 0;

  // Calls f(a, b) for each element of index, in row-major order: a is the offset in out of the
  // element it names, b the offset in from of the value sent there.
  template <class F>
  void for_each(F&& f) const {
    if (idx.numel() == 0) return;
    // A 0-dim src beside a one-element 1-D index: read its one element at every position.
    const std::vector<int64_t> from_strides =
        from.dim() == idx.dim() ? from.strides() : std::vector<int64_t>(idx.sizes().size(), 0);
    const std::vector<int64_t>& strides = out.strides();
    const int64_t stride_d = out.dim() == 0 ? 0 : strides[d];
    const int64_t* pi = idx.data_ptr<int64_t>();
    // index may be smaller than src: read src at index's positions through src's strides.
    for_each_offset(idx.sizes(), strides, d, from_strides,
                    [&](int64_t i, int64_t a, int64_t b) { f(a + pi[i] * stride_d, b); });
  }
};

// REQUIRES: the op's shape function accepted the shapes.
Scatter scatter_plan(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                     const Tensor& src) {
  Scatter sc;
  sc.d = wrap_dim(op, dim, self.dim());
  const int64_t size = self.dim() == 0 ? 1 : self.size(sc.d);
  sc.idx = checked_index(op, index, size, sc.d, self);
  sc.out = self.contiguous().clone();
  sc.from = src.contiguous();
  return sc;
}

enum class Reduction { Sum, Prod, Mean, Amax, Amin };

// REQUIRES: compute_shape_scatter_reduce_two accepted `name`.
Reduction reduction_named(std::string_view name) {
  if (name == "sum") return Reduction::Sum;
  if (name == "prod") return Reduction::Prod;
  if (name == "mean") return Reduction::Mean;
  return name == "amax" ? Reduction::Amax : Reduction::Amin;
}

// What a position without self's value starts from.
template <class T>
T identity(Reduction r) {
  using limits = std::numeric_limits<T>;
  switch (r) {
    case Reduction::Prod:
      return T(1);
    case Reduction::Amax:
      return limits::has_infinity ? -limits::infinity() : limits::lowest();
    case Reduction::Amin:
      return limits::has_infinity ? limits::infinity() : limits::max();
    default:
      return T(0);
  }
}

template <class T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  return false;
}

// a with b reduced into it; an extremum keeps a NaN, as PyTorch's scatter_reduce does.
template <class T>
T combine(Reduction r, T a, T b) {
  switch (r) {
    case Reduction::Prod:
      return static_cast<T>(a * b);
    case Reduction::Amax:
      return is_nan(b) ? b : std::max(a, b);
    case Reduction::Amin:
      return is_nan(b) ? b : std::min(a, b);
    default:
      return static_cast<T>(a + b);
  }
}

// a / b, rounded down for integers (PyTorch divides scatter_reduce's integer means so).
template <class T>
T divide(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return a / b;
  } else if constexpr (std::is_same_v<T, bool>) {
    return a;  // never called: the shape function refuses a bool mean
  } else {
    const T q = static_cast<T>(a / b);
    return (a % b != 0 && (a < 0) != (b < 0)) ? static_cast<T>(q - 1) : q;
  }
}

}  // namespace

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  const Shape shape = compute_shape_index_select(self.shape(), dim, index.shape())[0];
  const int64_t d = wrap_dim("index_select", dim, self.dim());
  const DimSplit in = split_at_dim(self.sizes(), d);
  const Tensor idx = checked_index("index_select", index, in.size, d, self);
  Tensor out = make_cpu_tensor(shape.sizes, shape.dtype);
  if (out.numel() == 0) return out;
  const Tensor src = self.contiguous();
  const int64_t row = in.inner * static_cast<int64_t>(itemsize(self.dtype()));  // bytes
  const char* ps = static_cast<const char*>(src.raw_data());
  char* po = static_cast<char*>(out.raw_data());
  const int64_t* pi = idx.data_ptr<int64_t>();
  const int64_t n = idx.numel();
  for (int64_t o = 0; o < in.outer; ++o) {
    for (int64_t j = 0; j < n; ++j) {
      std::memcpy(po + (o * n + j) * row, ps + (o * in.size + pi[j]) * row,
                  static_cast<size_t>(row));
    }
  }
  return out;
}

Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha) {
  compute_shape_index_add(self.shape(), dim, index.shape(), source.shape(), alpha);
  const int64_t d = wrap_dim("index_add", dim, self.dim());
  const DimSplit in = split_at_dim(self.sizes(), d);
  const Tensor idx = checked_index("index_add", index, in.size, d, self);
  Tensor out = self.clone();
  if (out.numel() == 0 || idx.numel() == 0) return out;
  const Tensor src = source.contiguous();
  const int64_t* pi = idx.data_ptr<int64_t>();
  const int64_t n = idx.numel();
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T a = alpha.to<T>();
    const T* ps = src.data_ptr<T>();
    T* po = out.data_ptr<T>();
    for (int64_t o = 0; o < in.outer; ++o) {
      for (int64_t j = 0; j < n; ++j) {
        T* dst = po + (o * in.size + pi[j]) * in.inner;
        const T* from = ps + (o * n + j) * in.inner;
        for (int64_t k = 0; k < in.inner; ++k) dst[k] = static_cast<T>(dst[k] + a * from[k]);
      }
    }
  });
  return out;
}

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad) {
  const Shape shape = compute_shape_gather(self.shape(), dim, index.shape(), sparse_grad)[0];
  const int64_t d = wrap_dim("gather", dim, self.dim());
  const int64_t size = self.dim() == 0 ? 1 : self.size(d);
  const Tensor idx = checked_index("gather", index, size, d, self);
  Tensor out = make_cpu_tensor(shape.sizes, shape.dtype);
  if (out.numel() == 0) return out;
  const Tensor src = self.contiguous();
  const std::vector<int64_t>& strides = src.strides();
  const int64_t stride_d = self.dim() == 0 ? 0 : strides[d];
  const int64_t* pi = idx.data_ptr<int64_t>();
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* ps = src.data_ptr<T>();
    T* po = out.data_ptr<T>();
    for_each_offset(idx.sizes(), strides, d, idx.strides(),
                    [&](int64_t i, int64_t a, int64_t) { po[i] = ps[a + pi[i] * stride_d]; });
  });
  return out;
}

Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  compute_shape_scatter_add(self.shape(), dim, index.shape(), src.shape());
  const Scatter sc = scatter_plan("scatter_add", self, dim, index, src);
  dispatch_dtype(sc.out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* ps = sc.from.data_ptr<T>();
    T* po = sc.out.data_ptr<T>();
    sc.for_each([&](int64_t a, int64_t b) { po[a] = static_cast<T>(po[a] + ps[b]); });
  });
  return sc.out;
}

Tensor scatter_reduce_two(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                          std::string_view reduce, bool include_self) {
  compute_shape_scatter_reduce_two(self.shape(), dim, index.shape(), src.shape(), reduce,
                                   include_self);
  const Scatter sc = scatter_plan("scatter_reduce", self, dim, index, src);
  const Reduction r = reduction_named(reduce);
  dispatch_dtype(sc.out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* ps = sc.from.data_ptr<T>();
    T* po = sc.out.data_ptr<T>();
    if (!include_self) sc.for_each([&](int64_t a, int64_t) { po[a] = identity<T>(r); });
    sc.for_each([&](int64_t a, int64_t b) { po[a] = combine(r, po[a], ps[b]); });
    if (r != Reduction::Mean) return;
    // Every position starts from a count of 1 with self (0 without: then 1 if nothing came).
    std::vector<int64_t> count(static_cast<size_t>(sc.out.numel()), include_self ? 1 : 0);
    sc.for_each([&](int64_t a, int64_t) { ++count[static_cast<size_t>(a)]; });
    for (size_t p = 0; p < count.size(); ++p) {
      if (count[p] > 1) po[p] = divide(po[p], static_cast<T>(count[p]));
    }
  });
  return sc.out;
}

Tensor slice_backward(const Tensor& grad_output, const std::vector<int64_t>& input_sizes,
                      int64_t dim, int64_t start, int64_t end, int64_t step) {
  const Shape shape =
      compute_shape_slice_backward(grad_output.shape(), input_sizes, dim, start, end, step)[0];
  Tensor out = zeros(shape.sizes, shape.dtype);
  if (grad_output.numel() == 0) return out;
  const Tensor slice = slice_tensor(out, dim, start, end, step);
  lazygen::detail::copy_into("slice_backward", slice, grad_output);
  return out;
}

Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim,
                     std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  compute_shape_slice_scatter(self.shape(), src.shape(), dim, start, end, step);
  Tensor out = self.clone();
  if (src.numel() == 0) return out;
  lazygen::detail::copy_into("slice_scatter", slice_tensor(out, dim, start, end, step), src);
  return out;
}

}  // namespace lazygen::cpu
