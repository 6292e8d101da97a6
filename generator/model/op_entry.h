// An ops.yaml entry: a native-function schema plus the lazygen keys that say what is generated
// and what is hand-written (the contract is explicit, never guessed; see docs/ops-yaml.md).
//
//   - func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
//     variants: function, method
//     shape: broadcast
//     pointwise: self + alpha * other
//     derivatives: {self: grad, other: grad * alpha}
//
// Every value keeps the SourceLoc of its YAML node so later stages (validation, the hook
// checker) can point back at ops.yaml.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/diagnostic.h"
#include "model/schema.h"

namespace lazygen::gen {

// How output shapes are computed. Custom and View name a hand-written compute_shape_<op>.
enum class ShapeRule { Same, Broadcast, Reduce, View, Custom };
// The output dtype: result_type of the inputs, bool, result_type made floating, self's, int64.
enum class DTypeRule { Promote, Bool, Float, Self, Index };
// How the PyTorch device serves the op (`torch:`): a generated kernel calling the op API, a
// hand-written adapter lazygen::pytorch::adapters::<op id> with PyTorch's C++ signature, or not
// at all. See Note [Which ops the device registers] in runtime/pytorch/registrar.h.
enum class TorchKernel { Generated, Adapter, None };

std::string_view shape_rule_name(ShapeRule r);
std::string_view dtype_rule_name(DTypeRule r);
std::string_view torch_kernel_name(TorchKernel k);

struct Derivative {
  std::string argument;  // the differentiable input ("self")
  std::string formula;   // a C++ expression over the op API, `grad`, `result` and the arguments
  SourceLoc loc;         // of the formula
  SourceLoc key_loc;     // of the argument key
};

// Which values a tensor input may hold in tests (`domain:`; See Note [Op samples] in samples.h).
struct ValueDomain {
  enum class Kind { Any, Positive, Nonzero, Bool, Index };
  Kind kind = Kind::Any;
  int64_t bound = 0;  // Index: values in [0, bound)
  SourceLoc loc;
};

// One argument's value in a `samples:` entry, checked against the argument's schema type.
struct SampleValue {
  enum class Kind { Tensor, TensorList, None, Int, IntList, Float, Bool, ScalarType, Str };
  Kind kind = Kind::None;
  std::vector<int64_t> sizes;          // Tensor: its sizes; IntList: the ints
  std::optional<ValueDomain> domain;   // Tensor: `{shape: ..., domain: ...}`
  std::vector<SampleValue> tensors;    // TensorList: one Tensor value each
  std::string text;  // Int, Float, Bool (as written), ScalarType (a dtype name), Str (the string)
  SourceLoc loc;
};

struct OpSample {
  std::vector<std::pair<std::string, SampleValue>> values;  // argument name -> value, as written
  SourceLoc loc;
};

struct OpEntry {
  FunctionSchema schema;
  std::string func;  // the schema string exactly as written
  SourceLoc func_loc;
  SourceLoc entry_loc;  // the `- func:` line

  bool function_variant = true;
  bool method_variant = false;
  ShapeRule shape = ShapeRule::Custom;
  SourceLoc shape_loc;
  DTypeRule dtype = DTypeRule::Promote;
  std::optional<std::string> pointwise;
  SourceLoc pointwise_loc;
  bool custom_kernel = false;
  SourceLoc kernel_loc;
  std::vector<Derivative> derivatives;
  std::vector<std::pair<std::string, ValueDomain>> domains;  // `domain:` argument -> domain
  std::vector<OpSample> samples;                              // `samples:`
  // `dtypes:` the dtypes the op computes in (its tensor inputs' promoted dtype; names as PyTorch
  // prints them, without "torch."); empty: every dtype. The op API refuses others, on every device.
  std::vector<std::string> dtypes;
  SourceLoc dtypes_loc;
  TorchKernel torch = TorchKernel::Generated;
  SourceLoc torch_loc;
  // PyTorch's `structured:` or `structured_delegate:` key is present: PyTorch's kernels for the
  // op take Tensor[] as at::ITensorListRef (torchgen's rule), so the PyTorch device's must too.
  bool torch_structured = false;
  // PyTorch's `use_const_ref_for_mutable_tensors: True` (resize_): PyTorch's kernels for the op
  // take and return its written tensors as `const at::Tensor&`, so the PyTorch device's must too.
  bool torch_const_mutable_refs = false;

  bool has_custom_shape() const { return shape == ShapeRule::Custom || shape == ShapeRule::View; }
};

struct OpsFile {
  std::string path;
  std::vector<OpEntry> ops;
  // Entries that are only `torch: adapter` (no `shape:`): PyTorch ops the PyTorch device serves
  // with a hand-written adapter although lazygen has no op of that name (PyTorch's
  // `convolution` served with lazygen's conv2d).
  std::vector<OpEntry> torch_adapters;
};

// Which keys are accepted: lazygen's own files are strict; PyTorch's native_functions.yaml
// carries its own keys (dispatch, structured, ...) which are accepted and ignored.
enum class OpsDialect { Lazygen, Native };

// Loads and validates an ops file. Throws GenError (file:line:col, offending text, hint) on the
// first problem. `select` (Native dialect): schema names to keep, e.g. {"add.Tensor", "mm"}; an
// unknown name is an error. Empty = all.
OpsFile load_ops_file(const std::string& path, OpsDialect dialect,
                      const std::vector<std::string>& select = {});
// Same, from text already in memory (tests); `path` is used in messages only.
OpsFile load_ops_text(const std::string& text, const std::string& path, OpsDialect dialect,
                      const std::vector<std::string>& select = {});

}  // namespace lazygen::gen
