// See dispatch.h.
#include "core/dispatch.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include <functional>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "core/tensor/shape_rules.h"
#include "core/tensor/tensor_impl.h"
#include "lazygen/factory.h"

namespace lazygen::detail {
namespace {

struct KernelKey {
  DeviceType type;
  std::string_view op;
  friend bool operator==(const KernelKey&, const KernelKey&) = default;
};
struct KernelKeyHash {
  size_t operator()(const KernelKey& k) const {
    return std::hash<std::string_view>()(k.op) * 31 + static_cast<size_t>(k.type);
  }
};
struct KernelEntry {
  void (*fn)();
  const std::type_info* signature;
};

// Never destroyed: kernels may be looked up during static destruction.
struct KernelTable {
  std::shared_mutex mutex;
  std::unordered_map<KernelKey, KernelEntry, KernelKeyHash> kernels;
};
KernelTable& kernel_table() {
  static auto* table = new KernelTable();
  return *table;
}

// How messages name a device's kernels: "CUDA", else the type's name.
std::string kernel_device_name(DeviceType type) {
  return type == DeviceType::CUDA ? "CUDA" : device_type_name(type);
}

}  // namespace

void register_device_kernel_erased(DeviceType type, std::string_view op, void (*fn)(),
                                   const std::type_info& signature) {
  KernelTable& table = kernel_table();
  std::unique_lock lock(table.mutex);
  table.kernels[KernelKey{type, op}] = KernelEntry{fn, &signature};
}

bool has_device_kernel(DeviceType type, std::string_view op) {
  KernelTable& table = kernel_table();
  std::shared_lock lock(table.mutex);
  return table.kernels.count(KernelKey{type, op}) != 0;
}

void (*find_device_kernel_erased(DeviceType type, std::string_view op,
                                 const std::type_info& signature))() {
  KernelTable& table = kernel_table();
  std::shared_lock lock(table.mutex);
  auto it = table.kernels.find(KernelKey{type, op});
  if (it == table.kernels.end()) {
    throw std::runtime_error(std::string(op) + ": no " + kernel_device_name(type) +
                             " kernel; move the tensors to cpu (t.cpu()) to run it there");
  }
  if (*it->second.signature != signature) {
    throw std::logic_error(std::string(op) + ": the " + kernel_device_name(type) +
                           " kernel was registered with another signature");
  }
  return it->second.fn;
}

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

namespace {

// The dtype `inputs` and `scalars` compute in (PyTorch's result_type; null or undefined inputs
// skipped), or nullopt when no input is defined.
std::optional<DType> compute_dtype(std::initializer_list<const Tensor*> inputs,
                                   std::initializer_list<const Scalar*> scalars) {
  if (std::none_of(inputs.begin(), inputs.end(), [](const Tensor* t) { return t != nullptr && t->defined(); })) {
    return std::nullopt;
  }
  return shape_rules::tensors_result_type(inputs, scalars);
}

}  // namespace

void check_dtypes(const char* op, std::initializer_list<DType> allowed,
                  std::initializer_list<const Tensor*> inputs, std::initializer_list<const Scalar*> scalars) {
  const std::optional<DType> maybe_computed = compute_dtype(inputs, scalars);
  if (!maybe_computed) return;
  const DType computed = *maybe_computed;
  if (std::find(allowed.begin(), allowed.end(), computed) != allowed.end()) return;
  std::string names;
  for (DType a : allowed) names += (names.empty() ? "" : ", ") + std::string(dtype_name(a));
  throw ShapeError(op, "not implemented for " + std::string(dtype_name(computed)) +
                           " tensors (it takes " + names + ")");
}

namespace {

template <class T>
bool fits(const Scalar& value) {
  if constexpr (std::is_floating_point_v<T>) {
    if (!value.is_floating()) return true;
    const double v = value.to<double>();
    return !std::isfinite(v) || (v >= std::numeric_limits<T>::lowest() && v <= std::numeric_limits<T>::max());
  } else if constexpr (std::is_same_v<T, bool>) {
    return true;
  } else if (value.is_floating()) {
    const double v = value.to<double>();
    return v >= static_cast<double>(std::numeric_limits<T>::min()) &&
           v < -static_cast<double>(std::numeric_limits<T>::min());  // below 2^(bits-1)
  } else {
    const int64_t v = value.to<int64_t>();
    return v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max();
  }
}

}  // namespace

void check_fits(const char* op, const Scalar& value, DType dtype) {
  const bool ok = dispatch_dtype(dtype, [&](auto tag) { return fits<decltype(tag)>(value); });
  if (!ok) {
    throw ShapeError(op, "value " + value.str() + " cannot be converted to type " +
                             std::string(dtype_name(dtype)) + " without overflow");
  }
}

namespace {

// Whether `inputs` and `scalars` compute in bool or an integral dtype (no defined input: no).
bool computes_integral(std::initializer_list<const Tensor*> inputs, std::initializer_list<const Scalar*> scalars) {
  const std::optional<DType> computed = compute_dtype(inputs, scalars);
  return computed && !is_floating(*computed);
}

bool any_empty(std::initializer_list<const Tensor*> inputs) {
  return std::any_of(inputs.begin(), inputs.end(),
                     [](const Tensor* t) { return t != nullptr && t->defined() && t->numel() == 0; });
}

template <class T>
bool has_zero(const Tensor& host) {
  const T* data = host.data_ptr<T>();
  return std::find(data, data + host.numel(), T(0)) != data + host.numel();
}

}  // namespace

void check_integral_divisor(const char* op, const Scalar& divisor, std::initializer_list<const Tensor*> inputs,
                            std::initializer_list<const Scalar*> scalars) {
  if (!computes_integral(inputs, scalars) || any_empty(inputs)) return;
  if (divisor.to<int64_t>() == 0) throw ShapeError(op, "ZeroDivisionError");
}

void check_integral_divisor(const char* op, const Tensor& divisor, std::initializer_list<const Tensor*> inputs,
                            std::initializer_list<const Scalar*> scalars) {
  if (!computes_integral(inputs, scalars) || any_empty(inputs)) return;
  const Tensor host = divisor.cpu().contiguous();
  const bool zero = dispatch_dtype(host.dtype(), [&](auto tag) { return has_zero<decltype(tag)>(host); });
  if (zero) throw ShapeError(op, "ZeroDivisionError");
}

void check_integral_exponent(const char* op, const Scalar& exponent, std::initializer_list<const Tensor*> inputs,
                             std::initializer_list<const Scalar*> scalars) {
  if (computes_integral(inputs, scalars) && exponent.to<int64_t>() < 0) {
    throw ShapeError(op, "Integers to negative integer powers are not allowed.");
  }
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
