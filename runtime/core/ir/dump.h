// IR dumps: the graph behind some values, as text (for logs and tests) or Graphviz dot.
//
// Text, one node per line in post-order, operands as %N (%N.i for output i of a multi-output
// node, None for an absent optional operand), then attributes, then output shapes:
//
//   IR {
//     %0 = DeviceData(device=cpu) : float32[2, 3]
//     %1 = ScalarParam(value=1) : int64[]
//     %2 = AddTensor(%0, %0, %1) : float32[2, 3]  # root 0
//   }
//
// The dot form draws the same graph (operand edges labelled with the operand position, roots
// bold): `dot -Tsvg ir.dot > ir.svg`. Node numbering is deterministic for a given graph.
#pragma once

#include <string>
#include <vector>

#include "core/ir/node.h"

namespace lazygen::ir {

std::string dump_text(const std::vector<Value>& roots);
std::string dump_dot(const std::vector<Value>& roots);

}  // namespace lazygen::ir
