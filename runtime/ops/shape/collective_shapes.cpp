// Shape functions of the collectives (ops.yaml, "collectives"). They run at trace time, so a
// collective traced before distributed::init, on a bool tensor or with an unknown reduce op
// raises there, naming the op, on every device.
#include <string>

#include "core/tensor/shape_rules.h"
#include "lazygen/distributed/communicator.h"
#include "lazygen/generated/shapes/all_gather.h"
#include "lazygen/generated/shapes/all_reduce.h"
#include "lazygen/generated/shapes/broadcast.h"

namespace lazygen {
namespace {

// Throws unless a communicator is installed and self can be summed.
void check_collective(const char* op, const Shape& self) {
  distributed::communicator(op);
  if (self.dtype == DType::Bool) {
    throw ShapeError(op, "bool tensors cannot be reduced or exchanged; convert to an integral "
                         "dtype first (got " + self.str() + ")");
  }
}

}  // namespace

std::vector<Shape> compute_shape_all_reduce(const Shape& self, std::string_view reduce_op) {
  check_collective("all_reduce", self);
  if (reduce_op != "sum" && reduce_op != "mean") {
    throw ShapeError("all_reduce", "reduce_op must be 'sum' or 'mean', got '" +
                                       std::string(reduce_op) + "'");
  }
  if (reduce_op == "mean" && !is_floating(self.dtype)) {
    throw ShapeError("all_reduce", "reduce_op 'mean' needs a floating dtype, got " +
                                       std::string(dtype_name(self.dtype)));
  }
  return {self};
}

std::vector<Shape> compute_shape_all_gather(const Shape& self) {
  check_collective("all_gather", self);
  std::vector<int64_t> sizes = self.sizes;
  const int64_t world = distributed::world_size();
  if (sizes.empty()) {
    sizes = {world};
  } else {
    sizes[0] *= world;
  }
  return {Shape(self.dtype, sizes)};
}

std::vector<Shape> compute_shape_broadcast(const Shape& self, int64_t src) {
  check_collective("broadcast", self);
  const int64_t world = distributed::world_size();
  if (src < 0 || src >= world) {
    throw ShapeError("broadcast", "src " + std::to_string(src) + " is not a rank of a world of " +
                                      std::to_string(world));
  }
  return {self};
}

}  // namespace lazygen
