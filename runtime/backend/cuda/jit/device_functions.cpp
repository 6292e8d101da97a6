// Lookup tables over the generated device functions and the embedded math header.
#include "backend/cuda/jit/device_functions.h"

#include <unordered_map>

namespace lazygen::cuda {
namespace {

const DeviceFunction kDeviceFunctions[] = {
#define LAZYGEN_DEVICE_FUNCTION(op_id, name, functor, source) \
  {#op_id, ir::op_kind(name), functor, source},
#include "lazygen/generated/cuda_device_functions.inc"
#undef LAZYGEN_DEVICE_FUNCTION
};

const std::unordered_map<ir::OpKind, const DeviceFunction*>& table() {
  static const auto* kTable = [] {
    auto* t = new std::unordered_map<ir::OpKind, const DeviceFunction*>;
    for (const DeviceFunction& f : kDeviceFunctions) t->emplace(f.kind, &f);
    return t;
  }();
  return *kTable;
}

}  // namespace

const DeviceFunction* device_function(ir::OpKind kind) {
  auto it = table().find(kind);
  return it == table().end() ? nullptr : it->second;
}

std::span<const DeviceFunction> device_functions() {
  return kDeviceFunctions;
}

}  // namespace lazygen::cuda
