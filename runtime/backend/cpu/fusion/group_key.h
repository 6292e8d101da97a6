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
// Note [CUDA group keys]
// A CUDA group kernel (See Note [JIT group kernels]) depends on more than the group key: per
// load, how it is read over the whole collapsed iteration space, and that space's rank (the
// kernel's argument block holds sizes[rank] and the strided loads' strides). The access letters:
//   C  contiguous: element i of the iteration is element i of the buffer
//   B  broadcast: every stride 0, one element for all
//   S  strided: anything else (views, row or column broadcasts), per-dim strides at launch
// (the group key's classes see only the innermost stride: a row broadcast is `c` there, S
// here). A CUDA key is the group key followed by ` cuda=<rank>:<letters>`, e.g.
//   T=float32 load=float32:c load=float32:b op=mul.Tensor(l0,l1) out=v0:float32 cuda=1:CB
// It is a manifest key like any other: recording writes both keys of every group, so a manifest
// recorded on the cpu yields CUDA kernels too (the CUDA backend plans with the same planner);
// `lazygen --kernels` builds the cpu kernel of its group key part.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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

// How a load with per-dim `strides` over `dims` is read: 'C', 'B' or 'S' (See Note [CUDA group
// keys]). REQUIRES: strides.size() == dims.size().
char load_access(const std::vector<int64_t>& strides, const std::vector<int64_t>& dims);
// group_key(program) + " cuda=<rank>:<letters>" (See Note [CUDA group keys]).
std::string cuda_group_key(const GroupProgram& program);

}  // namespace lazygen::cpu::fusion
