// Inputs for the consistency suite, built from an op's OpInfo record (lazygen/op_info.h): the
// cases one op is run on, eager and lazy. See Note [Op samples] in generator/model/samples.h for
// what ops.yaml says and op_inputs.cpp for the generated shapes.
//
// Values are deterministic (seeded by op, case and argument) and drawn from small grids: floats
// are multiples of 1/8 in [-2, 2], integers lie in [-4, 4] (positive/nonzero domains move away
// from 0), so sums and products are exact in every dtype, comparisons meet ties, and eager and
// lazy results differ only where an op's evaluation order or kernel truly differs.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "lazygen/op_info.h"
#include "lazygen/tensor.h"

namespace lazygen::testing {

// One tensor input: values made once on the cpu; make() builds a fresh tensor on a device with
// the requested layout, applying the view through the op API (so on the lazy device the view is
// traced, as a user's would be).
class InputTensor {
 public:
  enum class Layout { Contiguous, Transposed, Sliced, Expanded };
  // `values`: cpu, contiguous. Expanded: `values` has size-1 dims that expand to `expand_to`.
  InputTensor(const Tensor& values, Layout layout, std::vector<int64_t> expand_to = {});
  // `base`, if given, receives the tensor the view is taken of (the result itself when contiguous).
  Tensor make(Device device, Tensor* base = nullptr) const;
  Layout layout() const { return layout_; }
  const Tensor& values() const { return values_; }  // cpu, contiguous, before the layout
  const std::vector<int64_t>& expand_to() const { return expand_to_; }
  std::string str() const;  // "float32[3, 4] transposed"

 private:
  Tensor storage_;  // cpu: what make() copies (for Transposed/Sliced, laid out for the view)
  Tensor values_;
  Layout layout_;
  std::vector<int64_t> expand_to_;
};

using InputValue = std::variant<InputTensor, std::vector<InputTensor>, Arg>;

struct OpCase {
  std::string label;  // "broadcast", "sample 2 non-contiguous", ...
  // Schema order. nullopt: an out= tensor the runner makes (from the functional op's result).
  std::vector<std::optional<InputValue>> args;
};

// The cases of `op` with tensor dtypes `dtypes` (cycled over the tensor inputs whose dtype no
// domain fixes). `large`: include the samples sized to use both threads. Throws
// std::runtime_error, saying what to add to ops.yaml, when the op's inputs cannot be generated
// (shape: custom/view without `samples:`, or an argument with no default and no rule).
std::vector<OpCase> make_cases(const OpInfo& op, const std::vector<DType>& dtypes, bool large);

// True when the op has two or more tensor inputs whose dtypes can be mixed.
// The dtype every op must compute in (a case list rejected entirely tests nothing): float32 if
// `op` takes it (OpInfo::dtypes), else the first it takes ("int64" for bitwise_and).
std::string primary_dtype(const OpInfo& op);

bool has_mixable_inputs(const OpInfo& op);

// The dtype sets the suites run each op in: a label ("float32", ..., "bool", and "mixed" for
// ops with mixable inputs) with the dtypes cycled over the tensor inputs, one case list each.
struct DTypeSets {
  std::string label;
  std::vector<std::vector<DType>> sets;
};
std::vector<DTypeSets> dtype_sets(const OpInfo& op);

// "" when the cpu tensors `actual` and `expected` have equal dtypes, sizes and values (NaN equal
// to NaN; within atol + rtol * |expected| unless `exact`), else what differs first, calling the
// reference `expected_name` ("eager", "cpu"). The suites' one comparison.
std::string value_difference(const Tensor& expected, const Tensor& actual, bool exact, double rtol,
                             double atol, std::string_view expected_name);

}  // namespace lazygen::testing
