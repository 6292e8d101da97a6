// torch.diag and torch.linalg.cross (lazygen/composite.h), from the diagonal views' copies and
// scatters, roll and pointwise ops.
#include <string>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/operators.h"

namespace lazygen {

Tensor diag(const Tensor& self, int64_t diagonal) {
  if (self.dim() == 2) return diagonal_copy(self, diagonal, 0, 1);
  if (self.dim() != 1) {
    throw ShapeError("diag", "expected a matrix or a vector, got " + sizes_str(self.sizes()));
  }
  const int64_t side = self.size(0) + (diagonal < 0 ? -diagonal : diagonal);
  return diagonal_scatter(zeros({side, side}, self.dtype(), self.device()), self, diagonal, 0, 1);
}

// Component j of the cross product is a[j + 1] b[j + 2] - a[j + 2] b[j + 1] (indices mod 3):
// rolling by -1 brings element j + 1 to position j.
Tensor linalg_cross(const Tensor& self, const Tensor& other, int64_t dim) {
  if (self.dim() != other.dim()) {
    throw ShapeError("linalg_cross", "expected inputs of the same number of dims, got " +
                                         sizes_str(self.sizes()) + " and " +
                                         sizes_str(other.sizes()));
  }
  const int64_t d = wrap_dim("linalg_cross", dim, self.dim());
  if (self.size(d) != 3 || other.size(d) != 3) {
    throw ShapeError("linalg_cross", "expected dim " + std::to_string(dim) + " of " +
                                         sizes_str(self.sizes()) + " and " +
                                         sizes_str(other.sizes()) + " to have size 3");
  }
  broadcast_sizes("linalg_cross", self.sizes(), other.sizes());
  const auto r = [d](const Tensor& t, int64_t shift) { return roll(t, {shift}, {d}); };
  return r(self, -1) * r(other, -2) - r(self, -2) * r(other, -1);
}

}  // namespace lazygen
