// Post-order traversal of IR graphs: every node after all of its operands, each node once.
//
// This is the order in which the executor builds, hashes and lowers a pending graph, so it is
// deterministic: roots are visited in the order given, operands left to right, and a node shared
// by several users (a diamond) appears once, at its first completion.
//
// The IR is acyclic by construction (operands exist before their users); a cycle can only come
// from a bug or from a test that builds one on purpose. post_order detects it and throws
// IrCycleError, whose message names the nodes on the cycle.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "core/ir/node.h"

namespace lazygen::ir {

class IrCycleError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// The nodes reachable from `roots`, operands first. Absent roots are skipped.
// The result borrows the nodes: the caller keeps `roots` (and so the graph) alive.
std::vector<const Node*> post_order(const std::vector<const Node*>& roots);
std::vector<const Node*> post_order(const std::vector<Value>& roots);

}  // namespace lazygen::ir
