// Shape: what shape inference knows about a tensor before it has data (dtype and sizes).
//
// Shape functions (generated from ops.yaml's `shape:` rules or hand-written `compute_shape_*`)
// map input Shapes to output Shapes. The same functions serve eager kernels (to allocate outputs)
// and lazy tracing (to give IR nodes their shapes), so an op rejects bad shapes the same way on
// every device, at call time. Errors are ShapeError, naming the op and the shapes.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "lazygen/dtype.h"

namespace lazygen {

struct Shape {
  DType dtype = DType::Float32;
  std::vector<int64_t> sizes;

  Shape() = default;
  Shape(DType t, std::vector<int64_t> s) : dtype(t), sizes(std::move(s)) {}
  int64_t dim() const { return static_cast<int64_t>(sizes.size()); }
  int64_t numel() const;
  // Bounds-checked size update; throws std::out_of_range naming the dim and the rank.
  void set_size(int64_t dim, int64_t size);
  std::string str() const;  // "float32[2, 3]"
  friend bool operator==(const Shape&, const Shape&) = default;
};

// A shape function's result of one output: `shape` moved into the list (a braced `return
// {shape};` would copy it, sizes and all, out of the initializer list).
inline std::vector<Shape> single_shape(Shape shape) {
  std::vector<Shape> shapes;
  shapes.push_back(std::move(shape));
  return shapes;
}

// A user error found at trace/call time: wrong shapes, dtypes or arguments for an op.
// what() reads: "add.Tensor: shapes [2, 3] and [4] cannot be broadcast (dim 1: 3 vs 4)".
class ShapeError : public std::invalid_argument {
 public:
  ShapeError(const std::string& op, const std::string& detail);
};

// A dim outside a tensor's range, as wrap_dim finds it: a ShapeError that also keeps the dim and
// the range it missed, so that a front end can raise its own kind of error (the PyTorch device
// raises IndexError with PyTorch's message, as PyTorch does).
class DimError : public ShapeError {
 public:
  // REQUIRES: dim is outside [-max(rank, 1), max(rank, 1)).
  DimError(const std::string& op, int64_t dim, int64_t rank);
  int64_t dim() const { return dim_; }
  int64_t low() const { return -range_; }      // the smallest valid dim
  int64_t high() const { return range_ - 1; }  // the largest valid dim

 private:
  int64_t dim_;
  int64_t range_;
};

std::string sizes_str(const std::vector<int64_t>& sizes);  // "[2, 3]"
// Wraps a possibly negative dim into [0, rank) (a 0-dim tensor takes 0 and -1, as in PyTorch);
// throws DimError naming `op` when out of range.
int64_t wrap_dim(const char* op, int64_t dim, int64_t rank);
// Broadcast two size lists as PyTorch does; throws ShapeError naming `op` and both shapes.
std::vector<int64_t> broadcast_sizes(const char* op, const std::vector<int64_t>& a,
                                     const std::vector<int64_t>& b);
// The product of `sizes` (1 for an empty list); throws ShapeError naming `op` on a negative size.
int64_t checked_numel(const char* op, const std::vector<int64_t>& sizes);

std::ostream& operator<<(std::ostream& os, const Shape& s);  // prints s.str()

}  // namespace lazygen
