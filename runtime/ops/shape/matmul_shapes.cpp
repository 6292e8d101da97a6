// Shape functions of mm, addmm and bmm (custom_shapes.h).
#include <string>

#include "ops/shape/custom_shapes.h"

namespace lazygen {
namespace {

std::string dims_str(const Shape& s) {  // "2x3"
  std::string out;
  for (size_t i = 0; i < s.sizes.size(); ++i) out += (i ? "x" : "") + std::to_string(s.sizes[i]);
  return out;
}

void require_rank(const char* op, const Shape& s, const char* name, int64_t rank) {
  if (s.dim() != rank) {
    throw ShapeError(op, std::string(name) + " must be a " + std::to_string(rank) +
                             "-D tensor, got shape " + sizes_str(s.sizes));
  }
}

void require_same_dtype(const char* op, const Shape& a, const Shape& b) {
  if (a.dtype != b.dtype) {
    throw ShapeError(op, "expected both operands to have the same dtype, but got: " +
                             std::string(dtype_name(a.dtype)) +
                             " != " + std::string(dtype_name(b.dtype)));
  }
}

// [n, k] x [k, m] -> [n, m], checked.
Shape matrix_product(const char* op, const Shape& a, const Shape& b) {
  require_rank(op, a, "mat1", 2);
  require_rank(op, b, "mat2", 2);
  require_same_dtype(op, a, b);
  if (a.sizes[1] != b.sizes[0]) {
    throw ShapeError(op, "mat1 and mat2 shapes cannot be multiplied (" + dims_str(a) + " and " +
                             dims_str(b) + ")");
  }
  return Shape(a.dtype, {a.sizes[0], b.sizes[1]});
}

}  // namespace

std::vector<Shape> compute_shape_mm(const Shape& self, const Shape& mat2) {
  return {matrix_product("mm", self, mat2)};
}

std::vector<Shape> compute_shape_addmm(const Shape& self, const Shape& mat1, const Shape& mat2,
                                       const Scalar& beta, const Scalar& alpha) {
  Shape out = matrix_product("addmm", mat1, mat2);
  require_same_dtype("addmm", self, mat1);
  // self broadcasts to the product's shape (and must not make it larger).
  if (broadcast_sizes("addmm", self.sizes, out.sizes) != out.sizes) {
    throw ShapeError("addmm", "self of shape " + sizes_str(self.sizes) +
                                  " cannot be expanded to the product's shape " +
                                  sizes_str(out.sizes));
  }
  return {out};
}

std::vector<Shape> compute_shape_bmm(const Shape& self, const Shape& mat2) {
  require_rank("bmm", self, "batch1", 3);
  require_rank("bmm", mat2, "batch2", 3);
  require_same_dtype("bmm", self, mat2);
  if (self.sizes[0] != mat2.sizes[0] || self.sizes[2] != mat2.sizes[1]) {
    throw ShapeError("bmm", "batch1 and batch2 shapes cannot be multiplied (" + dims_str(self) +
                                " and " + dims_str(mat2) + ")");
  }
  return {Shape(self.dtype, {self.sizes[0], self.sizes[1], mat2.sizes[2]})};
}

}  // namespace lazygen
