// See dispatch.h.
#include "core/dispatch.h"

namespace lazygen::detail {

std::optional<Device> device_of(const std::vector<Tensor>& ts) {
  for (const Tensor& t : ts) {
    if (t.defined()) return t.device();
  }
  return std::nullopt;
}

DeviceType op_device(const char* op, std::initializer_list<std::optional<Device>> devices) {
  std::optional<Device> found;
  for (const auto& d : devices) {
    if (!d) continue;
    if (found && found->type != d->type) {
      throw ShapeError(op, "expected all tensors on one device, got " + found->str() + " and " + d->str());
    }
    if (!found) found = d;
  }
  if (!found) throw ShapeError(op, "needs at least one defined tensor");
  return found->type;
}

Device device_of(const Tensor& t, const char* op, const char* arg) {
  if (!t.defined()) {
    throw ShapeError(op, std::string("argument '") + arg + "' is an undefined tensor");
  }
  return t.device();
}

std::vector<Shape> shapes_of(const std::vector<Tensor>& ts) {
  std::vector<Shape> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(t.shape());
  return out;
}

Device first_device(const std::vector<Tensor>& ts) {
  if (ts.empty()) throw ShapeError("(tensor list)", "expected at least one tensor");
  return ts.front().device();
}

}  // namespace lazygen::detail
