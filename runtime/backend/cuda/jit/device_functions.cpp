// Lookup tables over the generated device functions and the embedded math header.
#include "backend/cuda/jit/device_functions.h"

#include <unordered_map>

namespace lazygen::cuda {
namespace {

const std::unordered_map<ir::OpKind, DeviceFunction>& table() {
  static const auto* kTable = new std::unordered_map<ir::OpKind, DeviceFunction>{
#define LAZYGEN_DEVICE_FUNCTION(op_id, name, functor, source) \
  {ir::op_kind(name), {functor, source}},
#include "lazygen/generated/cuda_device_functions.inc"
#undef LAZYGEN_DEVICE_FUNCTION
  };
  return *kTable;
}

}  // namespace

const DeviceFunction* device_function(ir::OpKind kind) {
  auto it = table().find(kind);
  return it == table().end() ? nullptr : &it->second;
}

}  // namespace lazygen::cuda
