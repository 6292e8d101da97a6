// Reading the ops.yaml keys that describe an op's test inputs: `domain:` and `samples:`.
//
// Note [Op samples]: the consistency suite (tests/runtime/consistency) runs every op eager and
// lazy on inputs it builds from the op's record. For `shape: same|broadcast|reduce` it makes the
// inputs itself (0-size, one-element, 0-dim, broadcast, non-contiguous and two-thread-sized
// shapes); other ops, whose inputs must fit together in op-specific ways (mm, conv2d, cat), list
// them:
//
//   - func: mm(Tensor self, Tensor mat2) -> Tensor
//     samples:
//       - {self: [2, 3], mat2: [3, 4]}
//       - {self: [0, 3], mat2: [3, 2]}
//
// A sample maps argument names to values: a Tensor is its sizes (`[2, 3]`) or
// `{shape: [2, 3], domain: positive}`, a Tensor[] a list of those, `None` an absent optional,
// and int, int[], float, bool, Scalar and ScalarType (`float32`) arguments are plain values.
// Arguments a sample leaves out take their schema default; out= tensors may be left out (the
// suite makes them). `domain:` says which values a tensor argument may hold, for generated and
// listed samples alike: any (the default), positive, nonzero, bool (a bool tensor) or index<N>
// (int64 in [0, N)):
//
//   - func: log(Tensor self) -> Tensor
//     domain: {self: positive}
//
// Both are checked against the schema here, with file:line:col errors.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "model/op_entry.h"

namespace lazygen::gen {

// Reads `domain:` and `samples:` of `entry` into op.domains and op.samples. REQUIRES: op.schema
// is parsed. Throws GenError on the first problem.
void read_test_inputs(const std::string& path, const YAML::Node& entry, OpEntry& op);

}  // namespace lazygen::gen
