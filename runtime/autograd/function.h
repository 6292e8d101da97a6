// The autograd graph: backward functions, the edges between them, and what the generated op API
// calls to record history (See Note [Autograd recording]).
//
// Note [Autograd recording]: when grad mode is on and an op's differentiable input requires grad,
// the generated op API (generated/src/ops_<shard>.cpp) calls a generated record_<op id>() that
// builds that op's backward function (generated/src/backward_<shard>.cpp, from ops.yaml's
// `derivatives:`): it saves what the formulas need (saved(), which drops autograd history so saving
// a result in its own backward function makes no cycle), points one Edge per tensor argument at the
// inputs' gradient functions (gradient_edge()), and attaches itself to the result (set_history()).
// Backward formulas are written with the op API, so on the lazy device the backward pass is traced
// into the same graph as the forward pass.
//
// Thread safety: one autograd graph must not be used from two threads at once.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include "lazygen/autograd.h"
#include "lazygen/shape.h"
#include "lazygen/tensor.h"

namespace lazygen::autograd {

class Function;

// Where a gradient flows: input `input_nr` of `fn`. A null fn means "no gradient needed".
struct Edge {
  std::shared_ptr<Function> fn;
  uint32_t input_nr = 0;
  bool valid() const { return fn != nullptr; }
};

// A backward function: maps gradients w.r.t. its op's outputs to gradients w.r.t. its inputs.
class Function {
 public:
  virtual ~Function() = default;
  // grads[i]: gradient of output i (undefined when no gradient reached it). Returns one entry per
  // edge (undefined when that input needs none). Runs with grad mode off.
  virtual std::vector<Tensor> apply(std::vector<Tensor>&& grads) = 0;
  virtual const char* name() const = 0;
  // Drops the tensors saved for apply() (after a backward pass without retain_graph). A later
  // apply() on a released function is an error the engine reports.
  virtual void release_saved() {}

  bool needs_input_grad(size_t i) const { return i < next_edges.size() && next_edges[i].valid(); }

  std::vector<Edge> next_edges;     // one per tensor argument, in schema order
  std::vector<Shape> input_shapes;  // gradients are summed to these shapes (broadcasting)
  uint32_t num_outputs = 1;
  uint64_t sequence_nr = 0;  // creation order: later functions run first
  bool released = false;     // release_saved() ran
};

// Grad mode (thread-local, on by default) and NoGradGuard, the scope that turns it off, are
// declared in lazygen/autograd.h (public: users need them) and included above.

// True when grad mode is on and a defined tensor among `tensors` requires grad.
bool needs_grad(std::initializer_list<const Tensor*> tensors);
bool needs_grad(const std::vector<Tensor>& tensors);

// The edge a gradient for `t` must flow along: its grad_fn (for results of recorded ops), its
// gradient accumulator (for leaves that require grad), or an invalid edge.
Edge gradient_edge(const Tensor& t);
// An invalid edge for an absent optional (a `Tensor?` argument passed as None).
Edge gradient_edge(const std::optional<Tensor>& t);
std::vector<Edge> gradient_edges(const std::vector<Tensor>& ts);

// Makes `fn` the history of `result` (output `output_nr` of fn's op): result.requires_grad()
// becomes true. Also stamps fn's sequence number.
void set_history(const Tensor& result, const std::shared_ptr<Function>& fn, uint32_t output_nr);

// For the op API of in-place ops, which record no history: throws std::runtime_error naming
// `op` when grad mode is on and `self` requires grad (a leaf would silently lose its updates'
// effect on gradients, a result would silently feed wrong values to backward functions that
// saved it). Under NoGradGuard (optimizer steps) in-place updates are fine.
void check_inplace(const Tensor& self, const char* op);

// Note [No silent gradient loss]: an op's generated API calls this after running an op when some
// of its tensor inputs have no derivative formula in ops.yaml (none at all, or not for that
// input): if grad mode is on, one of `inputs` requires grad and a result is floating (bool and
// integer results are never differentiable), it throws std::runtime_error "the derivative for
// '<op>' is not implemented", as PyTorch does, instead of returning a result that silently cuts
// the gradient. Inputs declared `non_differentiable` in ops.yaml are not passed here.
void check_differentiable(const char* op, const Tensor& result,
                          std::initializer_list<const Tensor*> inputs);
void check_differentiable(const char* op, const std::vector<Tensor>& results,
                          std::initializer_list<const Tensor*> inputs);
// For ops whose tensors are a Tensor[] argument (cat).
void check_differentiable(const char* op, const Tensor& result, const std::vector<Tensor>& inputs);
template <class... Ts>
void check_differentiable(const char* op, const std::tuple<Ts...>& results,
                          std::initializer_list<const Tensor*> inputs) {
  std::apply([&](const auto&... r) { check_differentiable(op, std::vector<Tensor>{r...}, inputs); },
             results);
}

// A copy of `t` for a backward function to keep: same data (or pending IR value), no autograd
// history. Undefined stays undefined.
Tensor saved(const Tensor& t);
// For `Tensor?` arguments: absent stays absent (so the backward formula passes None on, not an
// undefined tensor).
std::optional<Tensor> saved(const std::optional<Tensor>& t);
// For `Tensor[]` arguments: each element saved.
std::vector<Tensor> saved(const std::vector<Tensor>& ts);

}  // namespace lazygen::autograd
