// Lazy tensor creation and the IR values of tensors and scalars (core/lazy/lazy_tensor.h).
//
// Note [DeviceData lifetime]
// A DeviceData node holds its data so that pending graphs can run after the tensor that fed it
// was updated in place or destroyed. The trie cache (and cached computations, through their
// nodes) keep DeviceData nodes alive across steps, and with them their last data: after a step
// a parameter's previous buffer would stay alive next to its new one, doubling persistent memory.
// So each thread remembers the DeviceData nodes it bound in the current trace and end_trace()
// releases their data once mark_step has synced every live tensor; the next trace rebinds them.
// Nothing can need the released data: all pending graphs were executed, and executions received
// their inputs as tensors, not nodes.
#include "core/lazy/lazy_tensor.h"

#include <stdexcept>
#include <string>

#include "core/ir/builtin_nodes.h"
#include "core/ir/trie_cache.h"
#include "core/lazy/lazy_view.h"
#include "core/lazy/trace_context.h"
#include "core/tensor/tensor_impl.h"
#include "lazygen/metrics.h"

namespace lazygen::lazy {
namespace {

// The DeviceData nodes this thread (or its trace context) bound since its last end_trace.
std::vector<ir::NodePtr>& bound_device_data() {
  return current_bound_device_data();
}

void bind_device_data(LazyState& s) {
  s.take_launch_if_done();
  if (s.in_flight()) {  // See Note [Asynchronous execution]: the next graph reads it later
    const std::shared_ptr<ir::Launch>& launch = s.launch;
    const uint32_t index = s.launch_index;
    ir::NodePtr node = ir::cached_node<ir::DeviceData>(
        launch, index, [&] { return std::vector<Shape>{launch->shape(index)}; });
    bound_device_data().push_back(node);
    s.value = ir::Value{std::move(node), 0};
    return;
  }
  const Tensor& data = s.materialized();
  ir::NodePtr node =
      ir::cached_node<ir::DeviceData>(data, [&] { return std::vector<Shape>{data.shape()}; });
  bound_device_data().push_back(node);
  s.value = ir::Value{std::move(node), 0};
}

Tensor make_tensor(const Shape& shape, Device device, std::shared_ptr<LazyState> state) {
  if (!device.is_lazy()) {
    throw std::invalid_argument("lazy tensors need a lazy device, got " + device.str());
  }
  static metrics::Counter& created = metrics::counter("lazy.tensor_created");
  created.add();
  return Tensor(std::make_shared<TensorImpl>(shape, device, std::move(state)));
}

}  // namespace

LazyState& lazy_state(const Tensor& t) {
  if (!t.defined()) throw std::invalid_argument("expected a lazy tensor, got an undefined tensor");
  const std::shared_ptr<LazyState>& state = t.impl()->lazy_state();
  if (state == nullptr) {
    throw std::invalid_argument("expected a lazy tensor, got a tensor on " + t.device().str() +
                                " (move it with .to(lazygen::kLazy))");
  }
  if (state->stale()) refresh_view(*state);
  return *state;
}

const ir::Value& ir_value(const Tensor& t) {
  LazyState& s = lazy_state(t);
  if (!s.value.present()) bind_device_data(s);
  return s.value;
}

ir::Value ir_value(const std::optional<Tensor>& t) {
  return t && t->defined() ? ir_value(*t) : ir::Value{};
}

std::vector<ir::Value> ir_values(const std::vector<Tensor>& ts) {
  std::vector<ir::Value> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(ir_value(t));
  return out;
}

std::vector<ir::Value> pending_values(const std::vector<Tensor>& ts) {
  std::vector<ir::Value> roots;
  for (const Tensor& t : ts) {
    if (!t.defined() || !t.device().is_lazy()) continue;
    const LazyState& s = lazy_state(t);
    if (s.value.present()) roots.push_back(s.value);
  }
  return roots;
}

ir::Value scalar_value(const Scalar& s) {
  return ir::Value{ir::cached_node<ir::ScalarParam>(s, [&] { return ir::scalar_param_shapes(s); }),
                   0};
}

Tensor make_lazy_tensor(ir::NodePtr node, uint32_t index, Device device) {
  const Shape& shape = node->shape(index);
  auto state = std::make_shared<LazyState>();
  state->value = ir::Value{std::move(node), index};
  return make_tensor(shape, device, std::move(state));
}

Tensor make_lazy_tensor_from_data(Tensor data, Device device) {
  if (!data.defined()) throw std::invalid_argument("make_lazy_tensor_from_data: undefined data");
  Shape shape = data.shape();
  auto state = std::make_shared<LazyState>();
  state->data = std::move(data);
  return make_tensor(shape, device, std::move(state));
}

Tensor make_lazy_tensor_in_flight(std::shared_ptr<ir::Launch> launch, uint32_t index,
                                  Device device) {
  Shape shape = launch->shape(index);
  auto state = std::make_shared<LazyState>();
  state->launch = std::move(launch);
  state->launch_index = index;
  return make_tensor(shape, device, std::move(state));
}

void set_ir_value(const Tensor& self, ir::Value value) {
  LazyState& s = lazy_state(self);
  if (!value.present() || value.shape() != self.shape()) {
    throw std::invalid_argument("set_ir_value: an in-place update must keep the tensor's shape " +
                                self.shape().str() + ", got " +
                                (value.present() ? value.shape().str() : "an absent value"));
  }
  if (s.view != nullptr) {
    write_back(s, std::move(value));
    return;
  }
  s.set_pending(std::move(value));
  ++s.generation;
}

void end_trace() {
  std::vector<std::shared_ptr<LazyState>> live = live_states();
  for (const auto& s : live) {
    if (s->pending() && !s->stale()) {
      throw std::logic_error("end_trace: a live lazy tensor of shape " + s->value.shape().str() +
                             " is still pending; sync before ending the trace");
    }
  }
  for (const auto& s : live) s->value = ir::Value{};
  release_bound_device_data();
  ir::TrieCache::current().reset_position();
}

void release_bound_device_data() {
  std::vector<ir::NodePtr>& bound = bound_device_data();
  for (const ir::NodePtr& n : bound) static_cast<ir::DeviceData&>(*n).release_data();
  bound.clear();
}

}  // namespace lazygen::lazy
