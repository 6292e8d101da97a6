// Adapters for Python's << and >> on device tensors (ops.yaml, "PyTorch adapters"): PyTorch 1.13
// gives __lshift__, __rshift__ and their in-place forms CPU and CUDA kernels of their own, not a
// composite, so they are served here by ops.yaml's bitwise_left_shift / bitwise_right_shift (a
// Scalar shift promotes as PyTorch's wrapped number does: an int32 tensor stays int32, a bool one
// becomes int64). An in-place form writes the result back in self's dtype (Call::write_back).
#include "lazygen/generated/ops/bitwise_left_shift.h"
#include "lazygen/generated/ops/bitwise_right_shift.h"
#include "lazygen/generated/torch_adapters.h"
#include "pytorch/call.h"

namespace lazygen::pytorch::adapters {

at::Tensor lshift_scalar(const at::Tensor& self, const at::Scalar& other) {
  Call c("__lshift__.Scalar", {&self});
  return c.result(bitwise_left_shift(c.arg(self), c.arg(other)));
}

at::Tensor lshift_tensor(const at::Tensor& self, const at::Tensor& other) {
  Call c("__lshift__.Tensor", {&self, &other});
  return c.result(bitwise_left_shift(c.arg(self), c.arg(other)));
}

at::Tensor& ilshift_scalar(at::Tensor& self, const at::Scalar& other) {
  Call c("__ilshift__.Scalar", {&self});
  return c.write_back(self, bitwise_left_shift(c.arg(self), c.arg(other)));
}

at::Tensor& ilshift_tensor(at::Tensor& self, const at::Tensor& other) {
  Call c("__ilshift__.Tensor", {&self, &other});
  return c.write_back(self, bitwise_left_shift(c.arg(self), c.arg(other)));
}

at::Tensor rshift_scalar(const at::Tensor& self, const at::Scalar& other) {
  Call c("__rshift__.Scalar", {&self});
  return c.result(bitwise_right_shift(c.arg(self), c.arg(other)));
}

at::Tensor rshift_tensor(const at::Tensor& self, const at::Tensor& other) {
  Call c("__rshift__.Tensor", {&self, &other});
  return c.result(bitwise_right_shift(c.arg(self), c.arg(other)));
}

at::Tensor& irshift_scalar(at::Tensor& self, const at::Scalar& other) {
  Call c("__irshift__.Scalar", {&self});
  return c.write_back(self, bitwise_right_shift(c.arg(self), c.arg(other)));
}

at::Tensor& irshift_tensor(at::Tensor& self, const at::Tensor& other) {
  Call c("__irshift__.Tensor", {&self, &other});
  return c.write_back(self, bitwise_right_shift(c.arg(self), c.arg(other)));
}

}  // namespace lazygen::pytorch::adapters
