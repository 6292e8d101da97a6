// Index maps: how a fusion group reads a value it did not compute, without copying it.
//
// A Layout says where the elements of a value lie in a base buffer (sizes, strides and offset in
// elements). Views are index maps: a chain of view nodes over a materialized value becomes one
// Layout over that value's buffer, and a group reads the buffer through it (See Note [Views as
// index maps]). Broadcasting an operand to a node's sizes is one more index map (stride 0).
//
// Note [Views as index maps]
// The layout of a view is computed by the view's own lowering, the eager view kernel, run at
// compile time on a placeholder tensor that has a layout but no data; so a fused read and an
// eager view of the same value cannot disagree. Layouts assume the base buffer is contiguous,
// which every buffer a plan allocates is; the backend makes any other base contiguous before a
// group reads it (a graph input that is itself a strided view, say).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/ir/node.h"
#include "lazygen/dtype.h"

namespace lazygen::fusion {

struct Layout {
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;  // elements
  int64_t offset = 0;            // elements
  friend bool operator==(const Layout&, const Layout&) = default;
};

// The row-major layout of `sizes` at offset 0.
Layout contiguous_layout(const std::vector<int64_t>& sizes);

// The layout of view node `node` over its operand laid out as `in` (elements of `dtype`); nullopt
// when the view kernel rejects that layout (a `view` across non-contiguous dims), in which case
// the node must run as a library op on a real tensor.
std::optional<Layout> apply_view(const ir::Node& node, const Layout& in, DType dtype);

// `in`'s strides when read at every index of `sizes`, which `in.sizes` broadcast to (aligned at
// the right; new dims and size-1 dims read with stride 0).
std::vector<int64_t> broadcast_strides(const Layout& in, const std::vector<int64_t>& sizes);

// True when reading `in` over `sizes` visits the buffer in order from its start: element i of
// the row-major iteration is element i of the buffer.
bool is_identity(const Layout& in, const std::vector<int64_t>& sizes);

// An iteration space shared by several accesses, simplified: size-1 dims dropped and adjacent
// dims merged wherever every access allows it (stride[d] == stride[d + 1] * size[d + 1]).
// An empty `sizes` after collapsing means one element.
struct Collapsed {
  std::vector<int64_t> sizes;
  std::vector<std::vector<int64_t>> strides;  // per access, one per collapsed dim
};
Collapsed collapse(const std::vector<int64_t>& sizes,
                   const std::vector<std::vector<int64_t>>& strides);

}  // namespace lazygen::fusion
