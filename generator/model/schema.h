// The operator schema model: PyTorch's native-function schema grammar, parsed and printed.
//
//   add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
//   max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
//   add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
//
// parse_schema() builds a FunctionSchema; print_schema() writes it back in PyTorch's canonical
// form, so print_schema(parse_schema(s)) == s for every `func:` string of the real
// native_functions.yaml (a test checks all of them). This layer knows nothing about C++ output
// (that is generator/api) nor about YAML (that is ops_yaml.h). Values are plain data; copying is
// cheap enough for the generator's sizes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/diagnostic.h"

namespace lazygen::gen {

// The base types that occur in native_functions.yaml.
enum class BaseType {
  Tensor,
  Int,
  SymInt,
  Float,
  Bool,
  Str,
  Scalar,
  ScalarType,
  Layout,
  Device,
  MemoryFormat,
  Generator,
  Dimname,
  Storage,
  Stream,
  QScheme,
  ConstQuantizerPtr,
};

// Spelling of a base type as written in schemas ("Tensor", "int", "SymInt", ...).
std::string_view base_type_name(BaseType t);

// A possibly-optional, possibly-list type: `Tensor?`, `int[2]`, `Tensor?[]`, `float[]?`.
// Optional-ness applies at two levels: element (`Tensor?[]`) and whole list (`int[]?`).
struct Type {
  BaseType base = BaseType::Tensor;
  bool elem_optional = false;       // `Tensor?` (non-list) or `Tensor?[]` (list of optionals)
  bool is_list = false;             // `[]` or `[N]`
  std::optional<int> list_size;     // N in `int[N]`
  bool list_optional = false;       // `int[]?`

  bool is_tensor_like() const { return base == BaseType::Tensor; }
  // True for `T?` and `T[]?`: the argument may be absent (None).
  bool is_optional() const { return is_list ? list_optional : elem_optional; }
  friend bool operator==(const Type&, const Type&) = default;
};

// An alias annotation: `(a)`, `(a!)`, `(a -> *)`, `(a! -> a|b)`.
struct Annotation {
  std::vector<std::string> alias_sets;        // before the arrow: "a" or "a|b"
  bool is_write = false;                      // `!`
  std::vector<std::string> alias_sets_after;  // after `->`: "*" etc.; empty when no arrow
  friend bool operator==(const Annotation&, const Annotation&) = default;
};

// A default value, kept as written (canonical spelling) and classified.
struct DefaultValue {
  enum class Kind { None, Bool, Int, Float, String, Identifier, List };
  Kind kind = Kind::None;
  std::string text;  // exactly as printed in the schema: `None`, `True`, `1e-05`, `"mean"`, `[0,1]`, `Mean`
  friend bool operator==(const DefaultValue&, const DefaultValue&) = default;
};

struct Argument {
  std::string name;
  Type type;
  std::optional<Annotation> annotation;  // written between the base type and the list suffix
  std::optional<DefaultValue> default_value;
  bool kwarg_only = false;  // appears after `*`

  bool is_write() const { return annotation && annotation->is_write; }
  friend bool operator==(const Argument&, const Argument&) = default;
};

struct Return {
  std::string name;  // empty when unnamed
  Type type;
  std::optional<Annotation> annotation;
  friend bool operator==(const Return&, const Return&) = default;
};

// How an operator relates to its inputs; derived from the name and the annotations.
enum class SchemaKind {
  Functional,  // add.Tensor: no argument is written
  Inplace,     // add_.Tensor: name ends in `_`, writes `self`
  Out,         // add.out: kwarg-only `(a!)` out arguments that are returned
  Mutable,     // _foo_mutable / any other op that writes an argument
};

std::string_view schema_kind_name(SchemaKind k);

struct OperatorName {
  std::string base;          // "add" or "add_" (the trailing underscore is kept)
  std::string overload;      // "Tensor", "out", "" when none
  bool is_inplace() const;   // base ends in a single `_` (not a dunder like `__and__`)
  std::string str() const;   // "add.Tensor" or "add"
  friend bool operator==(const OperatorName&, const OperatorName&) = default;
};

struct FunctionSchema {
  OperatorName name;
  std::vector<Argument> arguments;  // in order; kwarg_only marks those after `*`
  std::vector<Return> returns;      // empty for `-> ()`

  SchemaKind kind() const;
  std::vector<const Argument*> tensor_arguments() const;  // every Tensor-typed argument
  std::vector<const Argument*> out_arguments() const;     // kwarg-only written arguments
  const Argument* find_argument(std::string_view name) const;
  // A view op's aliased input: the non-written Tensor argument whose alias set the single
  // returned Tensor shares (`transpose.int(Tensor(a) self, ...) -> Tensor(a)`), or null.
  const Argument* viewed_argument() const;
  // How derivative formulas name the outputs, with the output index of each: `result` (output
  // 0), `result0`, `result1`, ... and the names of named returns.
  std::vector<std::pair<std::string, int>> result_names() const;
  friend bool operator==(const FunctionSchema&, const FunctionSchema&) = default;
};

// Parses one schema string. `loc` is where the string starts in its file: errors point at the
// exact column of the offending character (loc.col + offset) and say what was expected.
// Throws GenError.
FunctionSchema parse_schema(std::string_view text, const SourceLoc& loc = {});

// Canonical printing, identical to PyTorch's: print_schema(parse_schema(s)) == s for canonical s.
std::string print_schema(const FunctionSchema& schema);
std::string print_type(const Type& type);
std::string print_argument(const Argument& arg);

}  // namespace lazygen::gen
