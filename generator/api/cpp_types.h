// Schema types -> C++ types, for each place a value appears in generated code.
//
//   schema        Api (op API, kernels)                 ShapeFn                      Member (IR node)
//   Tensor        const Tensor&   (Tensor& if written)  const Shape&                  operand
//   Tensor?       const std::optional<Tensor>&          const std::optional<Shape>&   operand (presence kept)
//   Tensor[]      const std::vector<Tensor>&            const std::vector<Shape>&     operands
//   int, SymInt   int64_t                               same as Api                  int64_t
//   int[], int[N] const std::vector<int64_t>&           ...                          std::vector<int64_t>
//   float/bool    double / bool                                                      double / bool
//   str           std::string_view                                                   std::string
//   Scalar        const Scalar&                                                      operand (ScalarParam)
//   ScalarType    DType                                                              DType
//   Layout, MemoryFormat, Device, Stream  by value (Layout, ...)                       same
//   Generator     const Generator&                                                   Generator
//   Dimname       const std::string&                                                 std::string
//   Storage       const std::shared_ptr<Storage>&                                    std::shared_ptr<Storage>
//   QScheme, ConstQuantizerPtr   no mapping (quantized ops are not supported): GenError
//   T?            std::optional<T> (by const& when T is not trivially small)
#pragma once

#include <string>

#include "model/op_entry.h"
#include "model/schema.h"

namespace lazygen::gen::api {

enum class TypeUse { Api, ShapeFn, Member };

// The C++ parameter type of `arg` for `use`. Throws GenError (at `loc`) for types with no mapping.
std::string cpp_type(const Argument& arg, TypeUse use, const SourceLoc& loc = {});
// The C++ return type of an op: Tensor, Tensor& (in-place/out), std::tuple<...>, void, ...
std::string cpp_return_type(const FunctionSchema& schema, const SourceLoc& loc = {});
// The C++ spelling of a schema default for `arg` ("1", "std::nullopt", "{0, 1}"), or "" if none.
std::string cpp_default(const Argument& arg, const SourceLoc& loc = {});

// Arguments that become IR operands (tensors, optional tensors, tensor lists, Scalars) vs
// attributes (everything else, stored as node members).
bool is_operand(const Argument& arg);
bool is_scalar(const Argument& arg);  // a non-list Scalar (a ScalarParam operand in the IR)

}  // namespace lazygen::gen::api
