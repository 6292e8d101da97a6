// The shape rules of shape_rules.h.
#include "core/tensor/shape_rules.h"

#include <string>

namespace lazygen::shape_rules {
namespace {

// The promotion state of one participant class (dimensioned, zero-dim or scalar).
struct Category {
  std::optional<DType> dtype;
  void add(DType t) { dtype = dtype ? promote_types(*dtype, t) : t; }
};

// PyTorch's combine_categories: `lower` only matters when it is of a higher category.
std::optional<DType> combine(std::optional<DType> higher, std::optional<DType> lower) {
  if (!higher) return lower;
  if (!lower || is_floating(*higher)) return higher;
  if (*higher == DType::Bool || is_floating(*lower)) return promote_types(*higher, *lower);
  return higher;
}

DType wrapped_number_dtype(const Scalar& s) {
  // A Python float is a double, but as a wrapped number it counts as the default dtype.
  return s.is_floating() ? DType::Float32 : s.dtype();
}

// What promotion reads of a tensor: its dtype and whether it is zero-dim; null or undefined
// tensors take no part.
bool takes_part(const Shape* t) { return t != nullptr; }
bool takes_part(const Tensor* t) { return t != nullptr && t->defined(); }
DType dtype_of(const Shape* t) { return t->dtype; }
DType dtype_of(const Tensor* t) { return t->dtype(); }

template <class Tensors, class Scalars>
DType promote(const Tensors& tensors, const Scalars& scalars) {
  Category dimensioned, zero_dim, wrapped;
  for (const auto* t : tensors) {
    if (!takes_part(t)) continue;
    (t->dim() > 0 ? dimensioned : zero_dim).add(dtype_of(t));
  }
  for (const Scalar* s : scalars) {
    if (s != nullptr) wrapped.add(wrapped_number_dtype(*s));
  }
  return combine(dimensioned.dtype, combine(zero_dim.dtype, wrapped.dtype))
      .value_or(DType::Float32);
}

}  // namespace

DType result_type(std::initializer_list<const Shape*> tensors,
                  std::initializer_list<const Scalar*> scalars) {
  return promote(tensors, scalars);
}

DType result_type(const std::vector<const Shape*>& tensors, std::initializer_list<const Scalar*> scalars) {
  return promote(tensors, scalars);
}

DType tensors_result_type(std::initializer_list<const Tensor*> tensors, std::initializer_list<const Scalar*> scalars) {
  return promote(tensors, scalars);
}

DType scalar_dtype(std::initializer_list<const Scalar*> scalars) {
  if (scalars.size() == 0) return DType::Float64;
  DType out = DType::Bool;
  for (const Scalar* s : scalars) out = promote_types(out, s->dtype());
  return out;
}

std::vector<int64_t> broadcast(const char* op, std::initializer_list<const Shape*> tensors) {
  const Shape* first = nullptr;
  bool same = true;  // every tensor has first's sizes: the common case, one copy
  for (const Shape* t : tensors) {
    if (t == nullptr) continue;
    if (first == nullptr) first = t;
    same = same && t->sizes == first->sizes;
  }
  if (first == nullptr) return {};
  if (same) return first->sizes;
  std::vector<int64_t> out = first->sizes;
  for (const Shape* t : tensors) {
    if (t != nullptr && t != first) out = broadcast_sizes(op, out, t->sizes);
  }
  return out;
}

void check_inplace(const char* op, const Shape& self, const std::vector<int64_t>& result_sizes,
                   DType result_dtype) {
  if (self.sizes != result_sizes) {
    throw ShapeError(op, "output with shape " + sizes_str(self.sizes) +
                             " doesn't match the broadcast shape " + sizes_str(result_sizes));
  }
  check_cast(op, result_dtype, self.dtype, self.sizes);
}

void check_cast(const char* op, DType result_dtype, DType out_dtype, const std::vector<int64_t>& out_sizes) {
  const bool narrowing = (is_floating(result_dtype) && !is_floating(out_dtype)) ||
                         (result_dtype != DType::Bool && out_dtype == DType::Bool);
  if (narrowing) {
    throw ShapeError(op, "result type " + std::string(dtype_name(result_dtype)) +
                             " can't be cast to the desired output type " +
                             std::string(dtype_name(out_dtype)) + " (output of shape " +
                             sizes_str(out_sizes) + ")");
  }
}

void check_alpha(const char* op, DType dtype, const Scalar& alpha) {
  if (alpha.is_bool() && dtype != DType::Bool) {
    throw ShapeError(op, "Boolean alpha only supported for Boolean results.");
  }
  if (alpha.is_floating() && !is_floating(dtype)) {
    throw ShapeError(op, "For integral input tensors, argument alpha must not be a floating point number.");
  }
}

void check_subtraction(const char* op, std::initializer_list<const Shape*> tensors,
                       std::initializer_list<const Scalar*> scalars) {
  bool any_bool = false;
  for (const Shape* t : tensors) any_bool = any_bool || t->dtype == DType::Bool;
  for (const Scalar* s : scalars) any_bool = any_bool || s->is_bool();
  if (any_bool) {
    throw ShapeError(op, "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                         "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  }
}

void check_addcdiv(const char* op, const Shape& tensor1, const Shape& tensor2) {
  if (!is_floating(tensor1.dtype) && !is_floating(tensor2.dtype)) {
    throw ShapeError(op, "Integer division with addcdiv is no longer supported, and in a future release addcdiv "
                         "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
                         "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
                         "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
                         "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
                         "for all dtypes.");
  }
}

std::vector<bool> reduced_dims(const char* op, int64_t rank,
                               const std::optional<std::vector<int64_t>>& dims) {
  std::vector<bool> mask(static_cast<size_t>(rank), !dims || dims->empty());
  if (!dims) return mask;
  for (int64_t d : *dims) {
    const int64_t w = wrap_dim(op, d, rank);
    if (rank == 0) continue;  // dim 0 / -1 of a zero-dim tensor reduces nothing further
    if (mask[static_cast<size_t>(w)]) {
      throw ShapeError(op,
                       "dim " + std::to_string(w) + " appears multiple times in the list of dims");
    }
    mask[static_cast<size_t>(w)] = true;
  }
  return mask;
}

Shape reduce(const char* op, const Shape& self, const std::optional<std::vector<int64_t>>& dims,
             bool keepdim, DType out) {
  const auto mask = reduced_dims(op, self.dim(), dims);
  Shape result(out, {});
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!mask[static_cast<size_t>(d)]) {
      result.sizes.push_back(self.sizes[static_cast<size_t>(d)]);
    } else if (keepdim) {
      result.sizes.push_back(1);
    }
  }
  return result;
}

}  // namespace lazygen::shape_rules
