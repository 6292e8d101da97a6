// Lazy views: creation, recomputation of stale views and write-back (core/lazy/lazy_view.h).
#include "core/lazy/lazy_view.h"

#include <utility>
#include <vector>

#include "core/lazy/lazy_tensor.h"
#include "core/tensor/tensor_impl.h"
#include "lazygen/factory.h"
#include "lazygen/tls.h"

namespace lazygen::lazy {
namespace {

// Nonzero while this thread replays or writes back a chain (See Note [Lazy views]).
thread_local int replay_depth LAZYGEN_FAST_TLS = 0;

struct ReplayScope {
  ReplayScope() { ++replay_depth; }
  ~ReplayScope() { --replay_depth; }
  ReplayScope(const ReplayScope&) = delete;
  ReplayScope& operator=(const ReplayScope&) = delete;
};

// A handle on the root's state (no autograd history: replays are not differentiated).
// `value` becomes the view's, computed from the root as it is now.
void set_view_value(LazyState& s, ir::Value value) {
  s.set_pending(std::move(value));
  s.view_generation = s.view->root->generation;
}

Tensor root_tensor(const View& v) {
  return Tensor(std::make_shared<TensorImpl>(v.root_shape, v.device, v.root));
}

// The chain from the root's first view to `v`.
std::vector<const View*> chain_of(const View& v) {
  std::vector<const View*> chain;
  for (const View* p = &v; p != nullptr; p = p->parent.get()) chain.push_back(p);
  return {chain.rbegin(), chain.rend()};
}

}  // namespace

const std::shared_ptr<LazyState>& LazyState::view_root() const {
  static const std::shared_ptr<LazyState> none;
  return view ? view->root : none;
}

Tensor make_lazy_view(const Tensor& base, const ir::NodePtr& node, ViewFn step) {
  return make_lazy_view(base, ir::Value{node, 0}, std::move(step));
}

Tensor make_lazy_view(const Tensor& base, const ir::Value& value, ViewFn step) {
  Tensor out = make_lazy_tensor(value.node, value.index, base.device());
  if (replay_depth > 0) return out;
  const std::shared_ptr<LazyState>& base_state = base.impl()->lazy_state();
  auto v = std::make_shared<View>();
  if (base_state->view) {
    v->root = base_state->view->root;
    v->root_shape = base_state->view->root_shape;
    v->device = base_state->view->device;
    v->parent = base_state->view;
  } else {
    v->root = base_state;
    v->root_shape = base.shape();
    v->device = base.device();
  }
  v->step = std::move(step);
  LazyState& s = *out.impl()->lazy_state();
  s.view_generation = v->root->generation;
  s.view = std::move(v);
  return out;
}

void refresh_view(LazyState& s) {
  ReplayScope replaying;
  Tensor t = root_tensor(*s.view);
  for (const View* v : chain_of(*s.view)) t = v->step(t, nullptr);
  set_view_value(s, ir_value(t));
}

void write_back(LazyState& s, ir::Value value) {
  ReplayScope replaying;
  const std::vector<const View*> chain = chain_of(*s.view);
  std::vector<Tensor> bases{root_tensor(*s.view)};  // bases[i]: what chain[i] views
  for (size_t i = 0; i + 1 < chain.size(); ++i) bases.push_back(chain[i]->step(bases[i], nullptr));
  Tensor written = make_lazy_tensor(value.node, value.index, s.view->device);
  for (size_t i = chain.size(); i-- > 0;) written = chain[i]->step(bases[i], &written);
  set_ir_value(bases[0], ir_value(written));  // the root: a new generation
  set_view_value(s, std::move(value));
}

// The chain's steps call the op API, which runs them on the cpu here: no graph, no sync. Each
// step views a contiguous copy, as every lazy tensor is contiguous (a lazy reshape of a transposed
// view aliases where the cpu's view op would refuse).
Tensor view_positions(const LazyState& s) {
  const View& v = *s.view;
  std::vector<int64_t> positions(static_cast<size_t>(v.root_shape.numel()));
  for (size_t i = 0; i < positions.size(); ++i) positions[i] = static_cast<int64_t>(i);
  Tensor t = tensor(positions, v.root_shape.sizes);
  for (const View* p : chain_of(v)) t = p->step(t.contiguous(), nullptr);
  return t.contiguous();
}

}  // namespace lazygen::lazy
