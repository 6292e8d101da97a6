// Value and data conversions between PyTorch and lazygen (pytorch/convert.h).
#include "pytorch/convert.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/from_blob.h>
#include <c10/util/Exception.h>

#include <memory>

#include "core/lazy/lazy_tensor.h"
#include "core/tensor/tensor_impl.h"

namespace lazygen::pytorch {

bool has_dtype(c10::ScalarType t) {
  switch (t) {
    case c10::ScalarType::Bool:
    case c10::ScalarType::Int:
    case c10::ScalarType::Long:
    case c10::ScalarType::Float:
    case c10::ScalarType::Double:
      return true;
    default:
      return false;
  }
}

std::string python_name(c10::ScalarType t) {
  switch (t) {
    case c10::ScalarType::Byte: return "torch.uint8";
    case c10::ScalarType::Char: return "torch.int8";
    case c10::ScalarType::Short: return "torch.int16";
    case c10::ScalarType::Half: return "torch.float16";
    case c10::ScalarType::BFloat16: return "torch.bfloat16";
    case c10::ScalarType::ComplexHalf: return "torch.complex32";
    case c10::ScalarType::ComplexFloat: return "torch.complex64";
    case c10::ScalarType::ComplexDouble: return "torch.complex128";
    default: return std::string("torch.") + c10::toString(t);
  }
}

bool is_lazygen_dtype(c10::ScalarType t) {
  return t == c10::ScalarType::Bool || t == c10::ScalarType::Int || t == c10::ScalarType::Long ||
         t == c10::ScalarType::Float || t == c10::ScalarType::Double;
}

DType to_dtype(c10::ScalarType t, const char* what) {
  switch (t) {
    case c10::ScalarType::Bool: return DType::Bool;
    case c10::ScalarType::Int: return DType::Int32;
    case c10::ScalarType::Long: return DType::Int64;
    case c10::ScalarType::Float: return DType::Float32;
    case c10::ScalarType::Double: return DType::Float64;
    default: break;
  }
  TORCH_CHECK_TYPE(false, what, ": dtype ", python_name(t),
                   " is not supported on the lazygen device (it has torch.bool, torch.int32, "
                   "torch.int64, torch.float32 and torch.float64); convert the tensor first, "
                   "e.g. t.float()");
}

c10::ScalarType to_scalar_type(DType t) {
  switch (t) {
    case DType::Bool: return c10::ScalarType::Bool;
    case DType::Int32: return c10::ScalarType::Int;
    case DType::Int64: return c10::ScalarType::Long;
    case DType::Float32: return c10::ScalarType::Float;
    case DType::Float64: break;
  }
  return c10::ScalarType::Double;
}

Scalar to_scalar(const c10::Scalar& s) {
  if (s.isBoolean()) return Scalar(s.toBool());
  if (s.isIntegral(false)) return Scalar(s.toLong());
  TORCH_CHECK_TYPE(s.isFloatingPoint(), "lazygen: complex scalars are not supported (got ", s,
                   ")");
  return Scalar(s.toDouble());
}

c10::Scalar to_torch_scalar(const Scalar& s) {
  if (s.is_bool()) return c10::Scalar(s.to<bool>());
  if (s.is_integral()) return c10::Scalar(s.to<int64_t>());
  return c10::Scalar(s.to<double>());
}

std::vector<int64_t> to_ints(c10::IntArrayRef ints) {
  return std::vector<int64_t>(ints.begin(), ints.end());
}

std::optional<MemoryFormat> to_memory_format(const c10::optional<c10::MemoryFormat>& f) {
  if (!f) return std::nullopt;
  switch (*f) {
    case c10::MemoryFormat::Contiguous: return MemoryFormat::Contiguous;
    case c10::MemoryFormat::Preserve: return MemoryFormat::Preserve;
    case c10::MemoryFormat::ChannelsLast: return MemoryFormat::ChannelsLast;
    case c10::MemoryFormat::ChannelsLast3d: return MemoryFormat::ChannelsLast3d;
    default: break;
  }
  TORCH_CHECK(false, "lazygen: unsupported memory format ", *f);
}

at::Tensor cpu_view(const Tensor& t) {
  TORCH_INTERNAL_ASSERT(t.device().is_cpu(), "cpu_view of a tensor on ", t.device().str());
  std::shared_ptr<Storage> keep = t.impl()->storage();
  auto options = at::TensorOptions().dtype(to_scalar_type(t.dtype())).device(c10::kCPU);
  if (t.numel() == 0) return at::empty(t.sizes(), options);
  return at::from_blob(
      t.raw_data(), t.sizes(), t.strides(), [keep](void*) mutable { keep.reset(); }, options);
}

Tensor lazygen_cpu_view(const at::Tensor& t) {
  TORCH_INTERNAL_ASSERT(t.device().is_cpu(), "lazygen_cpu_view of a tensor on ", t.device());
  const DType dtype = to_dtype(t.scalar_type());
  if (t.numel() == 0) return make_cpu_tensor(t.sizes().vec(), dtype);
  const size_t item = itemsize(dtype);
  char* base = static_cast<char*>(t.data_ptr()) - t.storage_offset() * static_cast<int64_t>(item);
  const size_t nbytes = t.storage().nbytes();
  std::shared_ptr<Storage> storage(new Storage(base, nbytes, nbytes, kCPU, nullptr),
                                   [keep = t](Storage* s) { delete s; });
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), t.sizes().vec(),
                                             t.strides().vec(), t.storage_offset(), dtype));
}

Tensor to_device(const at::Tensor& cpu) {
  TORCH_CHECK(cpu.device().is_cpu(), "lazygen: cannot move a tensor on ", cpu.device(),
              " to the lazygen device (move it to the cpu first)");
  return lazy::make_lazy_tensor_from_data(lazygen_cpu_view(cpu).clone(), kLazy);
}

at::Tensor to_cpu(const Tensor& t) {
  return cpu_view(t.cpu());  // cpu() of a lazy tensor is a copy the caller owns
}

}  // namespace lazygen::pytorch
