// All name derivation, in one place (See Note [Op identity] in names.cpp):
//   add.Tensor  -> op id add_tensor          -> class AddTensor        -> compute_shape_add_tensor
//   add_.Tensor -> op id add_inplace_tensor  -> class AddInplaceTensor -> API name add_
//   relu        -> op id relu                -> class Relu
#pragma once

#include <string>
#include <vector>

#include "model/op_entry.h"
#include "model/schema.h"

namespace lazygen::gen::api {

std::string op_id(const OperatorName& name);           // add_inplace_tensor
std::string class_name(const OperatorName& name);      // AddInplaceTensor
std::string shape_fn_name(const OperatorName& name);   // compute_shape_add_inplace_tensor
std::string functor_name(const OperatorName& name);    // AddInplaceTensor (in lazygen::kernels)
// The op API's function name: add, add_ (in-place), add_out (out= variants, as in PyTorch's C++).
std::string api_name(const FunctionSchema& schema);

// The functional op an in-place or out= entry computes, found among `ops`: for add_.Tensor the
// entry add.Tensor; for add.out the entry with the same base name whose arguments are add.out's
// minus its out arguments. nullptr when the file does not list one.
const OpEntry* find_functional(const OpEntry& op, const std::vector<OpEntry>& ops);

// Throws GenError when two entries derive the same op id (e.g. `foo_bar` and `foo.bar`).
void check_unique_ids(const std::vector<OpEntry>& ops);

}  // namespace lazygen::gen::api
