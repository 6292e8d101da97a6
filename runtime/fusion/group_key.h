// The canonical key of a fusion group: one line of text that names exactly what an AOT
// kernel's code depends on (See Note [AOT kernels]), and its 128-bit hash. The key's text is
// fusion/kernel_key.h's (See Note [Group keys]), which the generator reads with the same code.
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

#include "fusion/group_spec.h"
#include "fusion/kernel_key.h"

namespace lazygen::fusion {

// The key of `group` (See Note [Group keys]).
std::string group_key(const GroupSpec& group);

// What group_key(group) prints, as numbers: groups with equal signatures have equal keys. It
// costs a fraction of group_key, whose text is built from many small strings, so a lookup that
// only needs to tell keys apart (the AOT registry's memo of earlier answers) compares signatures.
std::vector<uint64_t> group_signature(const GroupSpec& group);

// An operand as keys name it: l<k> for load k, v<k> for op k's value (s<k> are Scalars). Kernel
// text generated from a GroupSpec names its values the same way (the CUDA group kernels).
KeyRef key_ref(const GroupSpec::Ref& ref);

// How a load with per-dim `strides` over `dims` is read: 'C', 'B' or 'S' (See Note [CUDA group
// keys]). REQUIRES: strides.size() == dims.size().
char load_access(const std::vector<int64_t>& strides, const std::vector<int64_t>& dims);
// group_key(group) + " cuda=<rank>:<letters>" (See Note [CUDA group keys]).
std::string cuda_group_key(const GroupSpec& group);

}  // namespace lazygen::fusion
