// The op kinds lazygen knows without registration: every op of ops.yaml (from the generated op
// list) and the IR's own leaves. Kept out of node.cpp so that adding an op recompiles only
// builtin_kinds.cpp (See Note [Op shards] in the generator).
#pragma once

#include <span>

#include "core/ir/node.h"

namespace lazygen::ir {

struct KindNames {
  OpKind kind;
  const char* name;        // the schema name, e.g. "add.Tensor"
  const char* class_name;  // the IR node class, e.g. "AddTensor"
};

// Every built-in kind once; their OpKinds are distinct (checked at compile time).
std::span<const KindNames> builtin_kinds();

}  // namespace lazygen::ir
