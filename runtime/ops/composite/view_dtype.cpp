// view_copy with a dtype (lazygen/composite.h): self's bytes read as another dtype.
#include <cstring>
#include <string>

#include "autograd/function.h"
#include "lazygen/composite.h"
#include "lazygen/factory.h"

namespace lazygen {

Tensor view_copy(const Tensor& self, DType dtype) {
  const auto from = static_cast<int64_t>(itemsize(self.dtype())),
             to = static_cast<int64_t>(itemsize(dtype));
  if (dtype == DType::Bool && self.dtype() != DType::Bool) {
    throw ShapeError("view_copy.dtype", "lazygen's bool holds 0 or 1: viewing the bytes of a " +
                                            std::string(dtype_name(self.dtype())) +
                                            " tensor as bool is refused");
  }
  std::vector<int64_t> sizes = self.sizes();
  if (from != to) {
    if (self.dim() == 0 || (sizes.back() * from) % to != 0) {
      throw ShapeError("view_copy.dtype",
                       "self of shape " + sizes_str(self.sizes()) + " and dtype " +
                           std::string(dtype_name(self.dtype())) + " cannot be viewed as " +
                           std::string(dtype_name(dtype)) +
                           ": the last dim's bytes must divide into the new element size");
    }
    sizes.back() = sizes.back() * from / to;
  }
  // The bytes are a value's on the host: the lazy device computes self first (a sync).
  const Tensor bytes = self.cpu().contiguous();
  Tensor out = empty(sizes, dtype);
  if (bytes.numel() > 0)
    std::memcpy(out.raw_data(), bytes.raw_data(), static_cast<size_t>(bytes.numel() * from));
  out = out.to(self.device());
  // Reinterpreted bytes have no derivative: a floating result of an input that requires grad
  // raises rather than cutting the gradient silently (Note [No silent gradient loss]).
  autograd::check_differentiable("view_copy.dtype", out, {&self});
  return out;
}

}  // namespace lazygen
