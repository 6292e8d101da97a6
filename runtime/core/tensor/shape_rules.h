// The shape rules that generated shape functions are built from (ops.yaml `shape:` and `dtype:`).
//
// A generated compute_shape_<op> calls these with the op's schema name, so every error is a
// ShapeError naming the op ("add.Tensor: shapes [2, 3] and [4] cannot be broadcast (dim 1: 3 vs
// 4)"). Pointers in the initializer lists may be null: an absent optional tensor, skipped.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <vector>

#include "lazygen/dtype.h"
#include "lazygen/scalar.h"
#include "lazygen/shape.h"
#include "lazygen/tensor.h"

namespace lazygen::shape_rules {

// PyTorch's result_type over tensors and scalars. Categories are bool < integral < floating.
// Tensors with dims take part fully (promote_types); zero-dim tensors, then scalars, only raise
// the category: int scalar + float32 tensor -> float32; float scalar + int64 tensor -> float32
// (the default dtype); zero-dim float64 + float32 tensor -> float32. Float32 when given nothing.
DType result_type(std::initializer_list<const Shape*> tensors,
                  std::initializer_list<const Scalar*> scalars = {});
// The same over tensors gathered at run time (null entries skipped).
DType result_type(const std::vector<const Shape*>& tensors, std::initializer_list<const Scalar*> scalars = {});
// result_type of tensors' dtypes (null or undefined ones take no part), without copying their shapes: the op
// API's dtype guards call it on every op.
DType tensors_result_type(std::initializer_list<const Tensor*> tensors, std::initializer_list<const Scalar*> scalars);

// The dtype a computation on `scalars` alone runs in: Float64 if one is floating, else Int64 if
// one is integral, else Bool (Float64 for none): their full width, unlike result_type's wrapped
// numbers.
DType scalar_dtype(std::initializer_list<const Scalar*> scalars);

// The sizes all `tensors` broadcast to (PyTorch's rules); ShapeError names `op` and the shapes.
std::vector<int64_t> broadcast(const char* op, std::initializer_list<const Shape*> tensors);

// An in-place (or out=) op's result must fit the written tensor `self`: the broadcast sizes must
// be self's, and the computed dtype must cast to self's under PyTorch's rule (no floating ->
// integral, no number -> bool); else ShapeError naming the shapes or dtypes.
void check_inplace(const char* op, const Shape& self, const std::vector<int64_t>& result_sizes,
                   DType result_dtype);
// The cast half of check_inplace, for an output of `out_dtype` and `out_sizes` (also a `dtype:
// self` op of several tensors, whose output takes self's dtype as PyTorch's mish_backward's does).
void check_cast(const char* op, DType result_dtype, DType out_dtype, const std::vector<int64_t>& out_sizes);

// PyTorch's alpha_check for a scaling Scalar (`alpha`, `beta`) of an op computing in `dtype`: a
// bool alpha needs a bool result, a floating alpha a floating one; else ShapeError naming `op`.
void check_alpha(const char* op, DType dtype, const Scalar& alpha);

// PyTorch's sub_check: subtraction refuses any bool operand (a bool tensor among `tensors`, or a
// bool Scalar among `scalars`), whatever the result type; else ShapeError naming `op`.
void check_subtraction(const char* op, std::initializer_list<const Shape*> tensors,
                       std::initializer_list<const Scalar*> scalars);
// PyTorch's addcdiv check: tensor1 / tensor2 of two integral (or bool) tensors is refused, whatever
// self's dtype; else ShapeError naming `op`.
void check_addcdiv(const char* op, const Shape& tensor1, const Shape& tensor2);

// The shape of reducing `self` over `dims` (nullopt or empty: every dim) with dtype `out`.
// Negative dims wrap; a dim out of range or repeated is a ShapeError naming `op`.
Shape reduce(const char* op, const Shape& self, const std::optional<std::vector<int64_t>>& dims,
             bool keepdim, DType out);

// Which dims `reduce` reduces: a mask of self.dim() entries (all true for nullopt or empty).
std::vector<bool> reduced_dims(const char* op, int64_t rank,
                               const std::optional<std::vector<int64_t>>& dims);

}  // namespace lazygen::shape_rules
