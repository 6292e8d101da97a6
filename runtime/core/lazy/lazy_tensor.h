// Lazy tensors: the functions generated lazy ops are written with.
//
// A generated lazy op reads its tensor arguments as IR values, its scalar arguments as
// ScalarParam values, asks the trie cache for its node and wraps the node in a new tensor:
//
//   Tensor add_tensor(const Tensor& self, const Tensor& other, const Scalar& alpha) {
//     std::vector<Shape> shapes = compute_shape_add_tensor(self.shape(), other.shape(), alpha);
//     ir::NodePtr node = ir::cached_node<ir::AddTensor>(ir_value(self), ir_value(other),
//                                                       scalar_value(alpha), std::move(shapes));
//     return make_lazy_tensor(node, 0, self.device());
//   }
//
// and an in-place op ends with `set_ir_value(self, ir::Value{node, 0}); return self;`.
// See Note [Lazy tensor state] for the states a lazy tensor goes through.
// Thread safety: tracing uses the calling thread's trie cache; see Note [Trie cache].
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/ir/node.h"
#include "core/lazy/lazy_state.h"
#include "lazygen/device.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"

namespace lazygen::lazy {

// The state of a lazy tensor, recomputed first if it is a stale view (See Note [Lazy views]).
// Throws std::invalid_argument when `t` is undefined or not lazy.
LazyState& lazy_state(const Tensor& t);

// The IR value standing for `t` in an op traced now: its pending value, or a DeviceData node
// feeding its materialized data (reused through the trie; see Note [Trie reuse of input
// nodes]). Throws std::invalid_argument when `t` is not a lazy tensor.
// The result refers into the state (valid while the tensor lives and is not updated).
const ir::Value& ir_value(const Tensor& t);
// An absent value for nullopt (an optional tensor argument passed as None).
ir::Value ir_value(const std::optional<Tensor>& t);
// One value per tensor, for Tensor[] arguments.
std::vector<ir::Value> ir_values(const std::vector<Tensor>& ts);
// The pending values of the lazy tensors among `ts` (what a dump or a plan of them shows);
// undefined, non-lazy and materialized tensors are skipped.
std::vector<ir::Value> pending_values(const std::vector<Tensor>& ts);
// A ScalarParam value carrying `s`: the value is fed at execution, so a new value reuses the
// node and the compiled graph; only the dtype category (bool, integral, floating) matters.
ir::Value scalar_value(const Scalar& s);

// A new pending lazy tensor for output `index` of `node` (sizes and dtype from its shape).
Tensor make_lazy_tensor(ir::NodePtr node, uint32_t index, Device device);
// A new materialized lazy tensor holding `data` (the tensor shares it: no copy).
// REQUIRES: nobody writes `data` afterwards. See Note [Lazy tensor state].
Tensor make_lazy_tensor_from_data(Tensor data, Device device);
// A new in-flight lazy tensor: output `index` of `launch` (See Note [Asynchronous execution]).
Tensor make_lazy_tensor_in_flight(std::shared_ptr<ir::Launch> launch, uint32_t index,
                                  Device device);
// In-place update: `self` becomes pending on `value` and lets go of its data; through a view,
// the update reaches its base and the base's other views (See Note [Lazy views]).
// REQUIRES: value's shape (dtype and sizes) equals self's; throws std::invalid_argument if not.
void set_ir_value(const Tensor& self, ir::Value value);

// Ends the current trace: every live tensor but stale views must be materialized (mark_step
// syncs first; throws std::logic_error otherwise). Unbinds their DeviceData values, releases the
// data the trace's DeviceData nodes held and moves the trie cache back to its root. See Note
// [DeviceData lifetime].
void end_trace();

// The part of end_trace that releases the data of the DeviceData nodes bound in this trace. The
// executor calls it as soon as mark_step has gathered its inputs, so that an input updated in
// place is referenced by the execution alone (See Note [In-place outputs]). REQUIRES: every live
// tensor of the thread is in the graph being synced.
void release_bound_device_data();

}  // namespace lazygen::lazy
