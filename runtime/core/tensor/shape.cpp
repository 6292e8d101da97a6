// Shape, ShapeError and the size helpers every shape function uses (lazygen/shape.h).
#include "lazygen/shape.h"

#include <algorithm>
#include <ostream>

namespace lazygen {

int64_t Shape::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

void Shape::set_size(int64_t dim, int64_t size) {
  if (dim < 0 || dim >= this->dim()) {
    throw std::out_of_range("Shape::set_size: dim " + std::to_string(dim) +
                            " is out of range for a shape of rank " + std::to_string(this->dim()));
  }
  sizes[static_cast<size_t>(dim)] = size;
}

std::string Shape::str() const {
  return std::string(dtype_name(dtype)) + sizes_str(sizes);
}

std::ostream& operator<<(std::ostream& os, const Shape& s) {
  return os << s.str();
}

ShapeError::ShapeError(const std::string& op, const std::string& detail)
    : std::invalid_argument(op + ": " + detail) {}

std::string sizes_str(const std::vector<int64_t>& sizes) {
  std::string out = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(sizes[i]);
  }
  return out + "]";
}

namespace {

int64_t dim_range(int64_t rank) {  // Zero-dim tensors accept dim 0 and -1, as in PyTorch
  return rank == 0 ? 1 : rank;     // (maybe_wrap_dim with wrap_scalar).
}

}  // namespace

DimError::DimError(const std::string& op, int64_t dim, int64_t rank)
    : ShapeError(op, "dim " + std::to_string(dim) + " is out of range for a tensor of rank " +
                         std::to_string(rank) + " (expected to be in range of [" +
                         std::to_string(-dim_range(rank)) + ", " +
                         std::to_string(dim_range(rank) - 1) + "])"),
      dim_(dim),
      range_(dim_range(rank)) {}

int64_t wrap_dim(const char* op, int64_t dim, int64_t rank) {
  const int64_t n = dim_range(rank);
  if (dim < -n || dim >= n) throw DimError(op, dim, rank);
  return dim < 0 ? dim + n : dim;
}

std::vector<int64_t> broadcast_sizes(const char* op, const std::vector<int64_t>& a,
                                     const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Align from the right: dims missing from the shorter list act as size 1.
    const int64_t sa = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t sb = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (sa != sb && sa != 1 && sb != 1) {
      throw ShapeError(op, "shapes " + sizes_str(a) + " and " + sizes_str(b) +
                               " cannot be broadcast (dim " + std::to_string(i) + ": " +
                               std::to_string(sa) + " vs " + std::to_string(sb) + ")");
    }
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

int64_t checked_numel(const char* op, const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    if (s < 0) throw ShapeError(op, "negative size in " + sizes_str(sizes));
    n *= s;
  }
  return n;
}

}  // namespace lazygen
