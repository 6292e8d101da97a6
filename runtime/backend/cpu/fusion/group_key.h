// The canonical key of a compiled fusion group: one line of text that names exactly what an AOT
// kernel's code depends on (See Note [AOT kernels]), and its 128-bit hash.
//
// Note [Group keys]
// The key lists, in the program's own order:
//   T=<dtype>                      the compute dtype every op runs in
//   load=<dtype>:<class>           per load: its dtype and innermost stride class, `c` (stride
//                                  1, read in place), `b` (stride 0, broadcast along the row) or
//                                  `s` (any other stride: gathered by the interpreter)
//   op=<schema name>(<args>)       per op: the op's stable name from ops.yaml and its operands:
//                                  l<k> load k, v<k> the value of op k, s<k> Scalar k
//   out=v<k>:<dtype>               per output: the value it stores and its dtype
//   reduce=<sum|mean|amax>(<ref>)  the folded reduction, if any, over trailing dims; with
//                                  `.lead` (reduce=sum.lead(v2)) over leading dims (See Note
//                                  [Folded reduction layouts]). A kernel computes the same for
//                                  both, but the interpreter around it folds differently.
// Extents, outer strides, offsets, tile sizes and streaming are left out: they are the
// interpreter's business, so one key (and one kernel) covers every shape of a structure; the
// stride classes are the group's shape class. Op values are numbered by op, not by tile
// register, so the key does not depend on register allocation. The generator parses and prints
// the same grammar (generator/model/manifest.h); the two agree byte for byte, which the AOT tests
// check end to end.
// The hash is two independent 64-bit hashes of the text (FNV-1a with different offset bases,
// each finished with a 64-bit mixer); lookups compare the full text as well, so a collision can
// only cost a miss, never a wrong kernel.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "backend/cpu/fusion/group_program.h"

namespace lazygen::cpu::fusion {

struct KeyHash {
  uint64_t hi = 0;
  uint64_t lo = 0;
  bool operator==(const KeyHash&) const = default;
  std::string hex() const;  // 32 lowercase hex digits, hi first
};

std::string group_key(const GroupProgram& program);
KeyHash key_hash(std::string_view key);

}  // namespace lazygen::cpu::fusion
