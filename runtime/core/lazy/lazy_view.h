// Lazy views: view ops on the lazy device return tensors that alias their base, as on the cpu.
//
// Note [Lazy views]
// On the cpu a view shares its base's storage, so an in-place op through a view (`x.t().mul_(2)`,
// `x.narrow(0, 1, 2).copy_(y)`) changes the base and every other view of it. A lazy tensor has
// no storage to share: each holds its own IR value. So the lazy device functionalizes, as
// PyTorch's functionalization pass does, but while tracing:
//   - A view op's result records its View: the root it aliases (the first tensor of the chain
//     that is not a view; a view of a view records its parent view too) and a ViewFn: the op
//     again with its arguments (to recompute the view from a new base) or its inverse (to write
//     a new value of the view back into the base: lazy::view_inverse::<op id>, hand-written in
//     runtime/ops/lazy/view_inverse.cpp, e.g. slice_scatter for a slice).
//   - An in-place op on a view (set_ir_value) writes back: the view's new value goes through the
//     inverses of its chain, innermost first, each applied to the base recomputed from the root,
//     and becomes the root's new value. The view takes the new value directly.
//   - Every in-place update of a root bumps its `generation`. A view remembers the generation its
//     value came from; once they differ the view is stale, and lazy_state() recomputes it from
//     the root (the chain's ops again) before anything reads it. Stale views are skipped by
//     mark_step: nobody may ever read them, and a read recomputes them anyway.
// So an update through any alias reaches all of them, the graph holds one value per tensor
// (the write-back is a few IR nodes: scatter, permute, reshape), and tensors never written
// through views pay one small allocation per view op. While a chain is replayed or written
// back, the view ops it traces make plain tensors (no View).
// Differences from the cpu: reshape and flatten always alias on the lazy device (every lazy
// tensor is contiguous, as with PyTorch's lazy tensors), where the cpu copies when the strides
// do not allow a view; in-place ops through expand() are refused (several elements share one
// location; PyTorch refuses them too).
//
// Thread safety: as LazyState's (one writer at a time; views are traced by the tracing thread).
#pragma once

#include <functional>
#include <memory>

#include "core/ir/node.h"
#include "core/lazy/lazy_state.h"
#include "lazygen/device.h"
#include "lazygen/shape.h"
#include "lazygen/tensor.h"

namespace lazygen::lazy {

// One view op with its arguments bound (generated for each view op in lazy_ops_<shard>.cpp): with
// `value` null, the view of `base`, the op again through the op API (traced for a lazy `base`,
// run for a cpu one); else `base` with `*value`, a new value of the view, written back through it
// (the op's inverse). One function for both, so that the op's arguments are captured once.
using ViewFn = std::function<Tensor(const Tensor& base, const Tensor* value)>;

// A view's chain, immutable and shared by the views of a view.
struct View {
  std::shared_ptr<LazyState> root;     // never a view
  Shape root_shape;                    // in-place updates keep it
  Device device;                       // the root's
  std::shared_ptr<const View> parent;  // the view this one views; null when its base is the root
  ViewFn step;
};

// The lazy tensor for output `index` of `node`, a view op's result on `base`, aliasing `base`'s
// root through `step`. While a chain is replayed or written back, a plain lazy tensor.
Tensor make_lazy_view(const Tensor& base, const ir::NodePtr& node, ViewFn step);
// The same for output `value` of a node already traced: a view whose value is computed by other
// ops (a composite: the PyTorch device's diagonal and unfold views copy by gathering).
Tensor make_lazy_view(const Tensor& base, const ir::Value& value, ViewFn step);

// Recomputes a stale view's value from its root (and drops its data). REQUIRES: s.stale().
void refresh_view(LazyState& s);

// set_ir_value for a view: writes `value` back into the root through the chain (See Note [Lazy
// views]) and makes it the view's value. Throws std::invalid_argument for a chain through
// expand(). REQUIRES: s.view != nullptr, s not stale, value's shape equals the view's.
void write_back(LazyState& s, ir::Value value);

// The position in its root (the row-major index of the root's element) of every element of view
// `s`, as a contiguous cpu int64 tensor of the view's sizes: the root's positions put through the
// view's chain on the cpu (no graph runs, nothing syncs). REQUIRES: s.view != nullptr.
Tensor view_positions(const LazyState& s);

}  // namespace lazygen::lazy
