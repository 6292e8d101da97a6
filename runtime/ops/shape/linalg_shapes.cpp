// Shape functions of the LAPACK ops _lapack_getrf, _lapack_potrf, _lapack_trsm, _lapack_syevd,
// _lapack_gesdd, _lapack_geqrf and _lapack_gels (custom_shapes.h): batches of matrices.
#include <algorithm>
#include <string>
#include <string_view>

#include "ops/shape/custom_shapes.h"

namespace lazygen {
namespace {

// REQUIRES-checks that `s` is a batch of square matrices [b, n, n].
void require_square_batch(const char* op, const Shape& s) {
  if (s.dim() != 3 || s.sizes[1] != s.sizes[2]) {
    throw ShapeError(
        op, "self must be a batch of square matrices [b, n, n], got " + sizes_str(s.sizes));
  }
}

// REQUIRES-checks that `s` is a batch of matrices [b, m, n].
void require_batch(const char* op, const Shape& s) {
  if (s.dim() != 3) {
    throw ShapeError(op, "self must be a batch of matrices [b, m, n], got " + sizes_str(s.sizes));
  }
}

// REQUIRES-checks that B is a batch of right-hand sides [b, m, k] for self [b, m, n], of
// self's dtype.
void require_right_hand_side(const char* op, const Shape& self, const Shape& B) {
  if (B.dim() != 3 || B.sizes[0] != self.sizes[0] || B.sizes[1] != self.sizes[1]) {
    throw ShapeError(op, "expected B [" + std::to_string(self.sizes[0]) + ", " +
                             std::to_string(self.sizes[1]) + ", k] for self of shape " +
                             sizes_str(self.sizes) + ", got " + sizes_str(B.sizes));
  }
  if (B.dtype != self.dtype) {
    throw ShapeError(op, "expected self and B of one dtype, got " +
                             std::string(dtype_name(self.dtype)) + " and " +
                             std::string(dtype_name(B.dtype)));
  }
}

}  // namespace

std::vector<Shape> compute_shape__lapack_getrf(const Shape& self) {
  require_batch("_lapack_getrf", self);
  const int64_t b = self.sizes[0], k = std::min(self.sizes[1], self.sizes[2]);
  return {self, Shape(DType::Int32, {b, k}), Shape(DType::Int32, {b})};
}

std::vector<Shape> compute_shape__lapack_potrf(const Shape& self, bool upper) {
  (void)upper;
  require_square_batch("_lapack_potrf", self);
  return {self, Shape(DType::Int32, {self.sizes[0]})};
}

std::vector<Shape> compute_shape__lapack_trsm(const Shape& self, const Shape& B, bool upper,
                                              bool unitriangular) {
  (void)upper;
  (void)unitriangular;
  require_square_batch("_lapack_trsm", self);
  require_right_hand_side("_lapack_trsm", self, B);
  return {B};
}

std::vector<Shape> compute_shape__lapack_syevd(const Shape& self, bool upper, bool compute_v) {
  (void)upper;
  require_square_batch("_lapack_syevd", self);
  const int64_t b = self.sizes[0], n = self.sizes[1];
  return {Shape(self.dtype, {b, n}), compute_v ? self : Shape(self.dtype, {0}),
          Shape(DType::Int32, {b})};
}

std::vector<Shape> compute_shape__lapack_gesdd(const Shape& self, bool full_matrices,
                                               bool compute_uv) {
  require_batch("_lapack_gesdd", self);
  const int64_t b = self.sizes[0], m = self.sizes[1], n = self.sizes[2], k = std::min(m, n);
  const Shape none(self.dtype, {0});
  return {compute_uv ? Shape(self.dtype, {b, m, full_matrices ? m : k}) : none,
          Shape(self.dtype, {b, k}),
          compute_uv ? Shape(self.dtype, {b, full_matrices ? n : k, n}) : none,
          Shape(DType::Int32, {b})};
}

std::vector<Shape> compute_shape__lapack_geqrf(const Shape& self, bool complete, bool compute_q) {
  require_batch("_lapack_geqrf", self);
  const int64_t b = self.sizes[0], m = self.sizes[1], n = self.sizes[2], k = std::min(m, n);
  return {compute_q ? Shape(self.dtype, {b, m, complete ? m : k}) : Shape(self.dtype, {0}),
          Shape(self.dtype, {b, complete ? m : k, n})};
}

std::vector<Shape> compute_shape__lapack_gels(const Shape& self, const Shape& B,
                                              std::string_view driver,
                                              std::optional<double> rcond) {
  (void)rcond;
  require_batch("_lapack_gels", self);
  require_right_hand_side("_lapack_gels", self, B);
  const int64_t b = self.sizes[0], m = self.sizes[1], n = self.sizes[2];
  if (driver != "gels" && driver != "gelsy" && driver != "gelsd" && driver != "gelss") {
    throw ShapeError("_lapack_gels", "driver must be one of gels, gelsy, gelsd, gelss, got '" +
                                         std::string(driver) + "'");
  }
  const bool svd = driver == "gelsd" || driver == "gelss";
  return {Shape(self.dtype, {b, std::max(m, n), B.sizes[2]}),
          driver == "gels" ? Shape(DType::Int64, {0}) : Shape(DType::Int64, {b}),
          svd ? Shape(self.dtype, {b, std::min(m, n)}) : Shape(self.dtype, {0}),
          Shape(DType::Int32, {b})};
}

}  // namespace lazygen
