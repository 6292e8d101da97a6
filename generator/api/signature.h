// C++ signatures of generated functions, built once from a schema and printed as declarations
// (with defaults), definitions (without) and call argument lists (MLIR ODS's idea: one signature
// object renders both).
#pragma once

#include <string>
#include <vector>

#include "api/cpp_types.h"
#include "model/op_entry.h"

namespace lazygen::gen::api {

struct CppParam {
  std::string type;
  std::string name;
  std::string default_value;  // "" = none
  const Argument* arg = nullptr;
};

struct CppSignature {
  std::string return_type;
  std::string name;
  std::vector<CppParam> params;
  std::string suffix;  // " const" for methods

  std::string declaration() const;  // "Tensor add(const Tensor& self, ..., const Scalar& alpha = 1);"
  std::string definition(const std::string& qualifier = "") const;  // no defaults, no ';'
  std::string call_args() const;    // "self, other, alpha"
  // The same signature with no default arguments (for kernels, hooks and other non-API functions).
  CppSignature without_defaults() const;
};

// The op's signature for the API and kernels (Api types) or for its shape function (ShapeFn
// types, returning std::vector<Shape>). Defaults are kept only where every later parameter has
// one too (C++'s rule), so keyword-only arguments after `*` stay optional.
CppSignature op_signature(const OpEntry& op, const std::string& name, TypeUse use);
// As a Tensor method: `self` dropped, " const" added.
CppSignature method_signature(const OpEntry& op);

// The hand-written inverse of a view op, lazy::view_inverse::<op id>(base, mutated_view, <the
// op's other arguments>): `base` with `mutated_view` (a new value of the view) written back
// through the view. REQUIRES: op.schema.viewed_argument() != nullptr.
CppSignature view_inverse_signature(const OpEntry& op);

// Identifiers that are C++ keywords or would shadow lazygen names get a trailing '_'.
std::string cpp_name(const std::string& schema_name);

}  // namespace lazygen::gen::api
