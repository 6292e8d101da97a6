// Hand-written hooks for row_max_abs (my_ops.yaml): the largest |x| of each row of a matrix.
#include <cmath>

#include "lazygen/factory.h"
#include "lazygen/generated/cpu_kernels.h"
#include "lazygen/generated/shape_inference.h"

namespace lazygen {

std::vector<Shape> compute_shape_row_max_abs(const Shape& self) {
  if (self.dim() != 2) throw ShapeError("row_max_abs", "expected a matrix, got " + self.str());
  return {Shape(self.dtype, {self.sizes[0]})};
}

namespace cpu {

Tensor row_max_abs(const Tensor& self) {
  std::vector<Shape> shapes = compute_shape_row_max_abs(self.shape());
  Tensor in = self.contiguous().to(DType::Float64);
  Tensor out = empty({shapes[0].sizes}, DType::Float64);
  const double* x = in.data_ptr<double>();
  double* y = out.data_ptr<double>();
  int64_t rows = self.size(0), cols = self.size(1);
  for (int64_t r = 0; r < rows; ++r) {
    double m = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::max(m, std::abs(x[r * cols + c]));
    y[r] = m;
  }
  return out.to(shapes[0].dtype);
}

}  // namespace cpu
}  // namespace lazygen
