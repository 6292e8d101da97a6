// Layouts of views and broadcasts, and iteration-space collapsing (index_map.h).
#include "fusion/index_map.h"

#include <stdexcept>

#include "core/tensor/tensor_impl.h"
#include "exec/lowering.h"
#include "lazygen/generated/cpu/view.h"
#include "lazygen/types.h"

namespace lazygen::fusion {

Layout contiguous_layout(const std::vector<int64_t>& sizes) {
  return Layout{sizes, contiguous_strides(sizes), 0};
}

namespace {

// reshape and flatten copy where no strides express their sizes, and so does view's lowering
// (Note [Lazy view lowering] in generator/dest/lowering.cpp); a copy would read the placeholder's
// memory, which it does not have. Their index map is the eager cpu view kernel's of the same
// sizes; where that rejects the layout, the node runs as a library op (and copies).
bool copies_when_strided(ir::OpKind kind) {
  return kind == ir::op_kind("view") || kind == ir::op_kind("reshape") ||
         kind == ir::op_kind("flatten.using_ints");
}

}  // namespace

// See Note [Views as index maps]: the placeholder has a storage object (view kernels require
// one) over no memory, and view kernels only compute metadata.
std::optional<Layout> apply_view(const ir::Node& node, const Layout& in, DType dtype) {
  exec::LowerFn lower = exec::lowering_for(node.op());
  if (lower == nullptr) return std::nullopt;
  static const std::shared_ptr<Storage> placeholder_storage = Storage::wrap(nullptr, 0);
  Tensor placeholder(
      std::make_shared<TensorImpl>(placeholder_storage, in.sizes, in.strides, in.offset, dtype));
  try {
    std::vector<Tensor> out = copies_when_strided(node.op())
                                  ? std::vector<Tensor>{cpu::view(placeholder, node.shape(0).sizes)}
                                  : lower(node, {placeholder});
    if (out.size() != 1 || !out[0].defined()) return std::nullopt;
    return Layout{out[0].sizes(), out[0].strides(), out[0].storage_offset()};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::vector<int64_t> broadcast_strides(const Layout& in, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 0);
  const size_t lead = sizes.size() - in.sizes.size();
  for (size_t d = 0; d < in.sizes.size(); ++d) {
    if (in.sizes[d] == sizes[lead + d]) strides[lead + d] = in.strides[d];
  }
  return strides;
}

bool is_identity(const Layout& in, const std::vector<int64_t>& sizes) {
  if (in.offset != 0 || in.sizes.size() > sizes.size()) return false;
  const std::vector<int64_t> strides = broadcast_strides(in, sizes);
  int64_t expected = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

Collapsed collapse(const std::vector<int64_t>& sizes,
                   const std::vector<std::vector<int64_t>>& strides) {
  Collapsed c;
  c.strides.resize(strides.size());
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    bool merge = !c.sizes.empty();
    for (size_t a = 0; a < strides.size() && merge; ++a) {
      merge = c.strides[a].back() == strides[a][d] * sizes[d];
    }
    if (merge) {
      c.sizes.back() *= sizes[d];
      for (size_t a = 0; a < strides.size(); ++a) c.strides[a].back() = strides[a][d];
    } else {
      c.sizes.push_back(sizes[d]);
      for (size_t a = 0; a < strides.size(); ++a) c.strides[a].push_back(strides[a][d]);
    }
  }
  return c;
}

}  // namespace lazygen::fusion
