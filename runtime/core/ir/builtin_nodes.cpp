// DeviceData and ScalarParam (core/ir/builtin_nodes.h).
#include "core/ir/builtin_nodes.h"

#include "core/ir/hash.h"

namespace lazygen::ir {

DeviceData::DeviceData(const Tensor& data, std::vector<Shape> shapes)
    : Node(kKind, {}, std::move(shapes), hash_all(data.device())),
      device_(data.device()),
      data_(data) {}

DeviceData::DeviceData(const std::shared_ptr<Launch>& launch, uint32_t index,
                       std::vector<Shape> shapes)
    : Node(kKind, {}, std::move(shapes), hash_all(launch->device())),
      device_(launch->device()),
      launch_(launch),
      launch_index_(index) {}

bool DeviceData::can_reuse(const std::shared_ptr<Launch>& launch, uint32_t index) const {
  return launch->device() == device_ && launch->shape(index) == shape();
}

bool DeviceData::can_reuse(const Tensor& data) const {
  const Shape& s = shape();
  return data.device() == device_ && data.dtype() == s.dtype && data.sizes() == s.sizes;
}

bool DeviceData::same_structure(const Tensor& data) const {
  const Shape& s = shape();
  return data.device() == device_ && data.dtype() == s.dtype && data.dim() == s.dim();
}

bool DeviceData::same_structure(const std::shared_ptr<Launch>& launch, uint32_t index) const {
  const Shape& s = shape();
  const Shape& other = launch->shape(index);
  return launch->device() == device_ && other.dtype == s.dtype && other.dim() == s.dim();
}

std::string DeviceData::attrs_string() const {
  return "device=" + device_.str();
}

ScalarParam::ScalarParam(const Scalar& value, std::vector<Shape> shapes)
    : Node(kKind, {}, std::move(shapes), hash_all()), value_(value) {}

std::vector<Shape> scalar_param_shapes(const Scalar& value) {
  return {Shape(value.dtype(), {})};
}

}  // namespace lazygen::ir
