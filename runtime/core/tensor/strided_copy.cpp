// Elementwise dtype conversion and the strided copy of strided_loop.h.
#include <cstdlib>
#include <cstring>

#include "core/tensor/strided_loop.h"
#include "core/thread_pool.h"

namespace lazygen::detail {
namespace {

template <class S, class D>
void convert_typed(const char* src, int64_t src_stride, char* dst, int64_t dst_stride, int64_t n) {
  if (src_stride == sizeof(S) && dst_stride == sizeof(D)) {
    // The common dense case: a loop the compiler vectorizes.
    const S* s = reinterpret_cast<const S*>(src);
    D* d = reinterpret_cast<D*>(dst);
    for (int64_t i = 0; i < n; ++i) d[i] = static_cast<D>(s[i]);
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    *reinterpret_cast<D*>(dst + i * dst_stride) =
        static_cast<D>(*reinterpret_cast<const S*>(src + i * src_stride));
  }
}

template <class S, class D>
void gather_typed(const char* src, int64_t col_stride, int64_t row_stride, int64_t rows, int64_t n,
                  D* dst) {
  auto at = [&](int64_t r, int64_t i) {
    return static_cast<D>(*reinterpret_cast<const S*>(src + r * row_stride + i * col_stride));
  };
  if (std::abs(row_stride) < std::abs(col_stride)) {
    // A transposed source: walk down its columns, which are its contiguous direction.
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t r = 0; r < rows; ++r) dst[r * n + i] = at(r, i);
    }
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < n; ++i) dst[r * n + i] = at(r, i);
  }
}

}  // namespace

void gather_tile(DType from, const char* src, int64_t col_stride, int64_t row_stride, int64_t rows,
                 int64_t n, DType to, char* dst) {
  dispatch_dtype(from, [&](auto s) {
    dispatch_dtype(to, [&](auto d) {
      using D = decltype(d);
      gather_typed<decltype(s), D>(src, col_stride, row_stride, rows, n, reinterpret_cast<D*>(dst));
    });
  });
}

void convert_elements(DType from, const char* src, int64_t src_stride, DType to, char* dst,
                      int64_t dst_stride, int64_t n) {
  const auto item = static_cast<int64_t>(itemsize(from));
  if (n <= 0) return;  // zero-size tensors may have null data
  if (from == to && src_stride == item && dst_stride == item) {
    std::memmove(dst, src, static_cast<size_t>(n * item));
    return;
  }
  dispatch_dtype(from, [&](auto s) {
    dispatch_dtype(to, [&](auto d) {
      convert_typed<decltype(s), decltype(d)>(src, src_stride, dst, dst_stride, n);
    });
  });
}

void copy_into(const char* op, const Tensor& dst, const Tensor& src) {
  // Elements per thread's share at the least: smaller copies run on the caller alone.
  constexpr int64_t kGrain = 64 * 1024;
  const Tensor inputs[] = {src};
  const StridedPlan plan = make_strided_plan(op, dst, inputs);
  if (plan.numel == 0) return;
  if (plan.dense) {  // one call per thread: memmove or a single conversion loop
    const int64_t in_stride = plan.strides[1][0], out_stride = plan.strides[0][0];
    cpu::parallel_for(0, plan.numel, kGrain, [&](int64_t b, int64_t e) {
      convert_elements(plan.dtypes[1], plan.data[1] + b * in_stride, in_stride, plan.dtypes[0],
                       plan.data[0] + b * out_stride, out_stride, e - b);
    });
    return;
  }
  auto copy_block = [&](const StridedBlock& b) {
    if (b.rows == 1) {
      convert_elements(plan.dtypes[1], b.data[1], b.strides[1], plan.dtypes[0], b.data[0],
                       b.strides[0], b.n);
      return;
    }
    // A tile: gather it (in the source's order) into a buffer, then write rows out.
    alignas(64) char buffer[kMaxBlockElements * sizeof(double)];
    const auto item = static_cast<int64_t>(itemsize(plan.dtypes[0]));
    gather_tile(plan.dtypes[1], b.data[1], b.strides[1], b.row_strides[1], b.rows, b.n,
                plan.dtypes[0], buffer);
    for (int64_t r = 0; r < b.rows; ++r) {
      convert_elements(plan.dtypes[0], buffer + r * b.n * item, item, plan.dtypes[0],
                       b.data[0] + r * b.row_strides[0], b.strides[0], b.n);
    }
  };
  cpu::parallel_for(0, plan.numel, kGrain,
                    [&](int64_t b, int64_t e) { for_each_block(plan, b, e, copy_block); });
}

}  // namespace lazygen::detail
