// The recording half of autograd (autograd/function.h, See Note [Autograd recording]): grad mode,
// the autograd slot, the edges a recorded op points along, and attaching history to results.
// The engine that walks what is recorded here is engine.cpp.
#include "autograd/function.h"

#include <atomic>
#include <stdexcept>
#include <string>

#include "autograd/accumulate_grad.h"
#include "autograd/autograd_meta.h"
#include "core/tensor/tensor_impl.h"
#include "lazygen/tls.h"

namespace lazygen::autograd {
namespace {

bool& grad_mode() {
  thread_local bool enabled LAZYGEN_FAST_TLS = true;
  return enabled;
}

// Sequence numbers start at 1: 0 marks a function not yet attached by set_history.
std::atomic<uint64_t> next_sequence_nr{1};

}  // namespace

bool grad_mode_enabled() {
  return grad_mode();
}
void set_grad_mode_enabled(bool enabled) {
  grad_mode() = enabled;
}

NoGradGuard::NoGradGuard() : previous_(grad_mode()) {
  grad_mode() = false;
}
NoGradGuard::~NoGradGuard() {
  grad_mode() = previous_;
}

AutogradMeta* autograd_meta(const Tensor& t) {
  return t.defined() ? t.impl()->autograd_meta().get() : nullptr;
}

AutogradMeta& ensure_autograd_meta(const Tensor& t) {
  TensorImpl& impl = *t.impl();
  if (!impl.autograd_meta()) impl.set_autograd_meta(std::make_shared<AutogradMeta>());
  return *impl.autograd_meta();
}

bool needs_grad(std::initializer_list<const Tensor*> tensors) {
  if (!grad_mode_enabled()) return false;
  for (const Tensor* t : tensors) {
    if (t != nullptr && t->defined() && t->requires_grad()) return true;
  }
  return false;
}

bool needs_grad(const std::vector<Tensor>& tensors) {
  if (!grad_mode_enabled()) return false;
  for (const Tensor& t : tensors) {
    if (t.defined() && t.requires_grad()) return true;
  }
  return false;
}

namespace {

[[noreturn]] void no_derivative(const char* op) {
  throw std::runtime_error(std::string("the derivative for '") + op + "' is not implemented");
}

bool any_floating(const std::vector<Tensor>& results) {
  bool floating = false;
  for (const Tensor& r : results) floating |= r.defined() && is_floating(r.dtype());
  return floating;
}

}  // namespace

void check_differentiable(const char* op, const std::vector<Tensor>& results,
                          std::initializer_list<const Tensor*> inputs) {
  if (any_floating(results) && needs_grad(inputs)) no_derivative(op);
}

void check_differentiable(const char* op, const Tensor& result, const std::vector<Tensor>& inputs) {
  if (any_floating({result}) && needs_grad(inputs)) no_derivative(op);
}

void check_differentiable(const char* op, const Tensor& result,
                          std::initializer_list<const Tensor*> inputs) {
  check_differentiable(op, std::vector<Tensor>{result}, inputs);
}

Edge gradient_edge(const Tensor& t) {
  const AutogradMeta* meta = autograd_meta(t);
  if (meta == nullptr) return Edge{};
  if (meta->grad_fn) return Edge{meta->grad_fn, meta->output_nr};
  if (meta->requires_grad) return Edge{grad_accumulator(t), 0};
  return Edge{};
}

Edge gradient_edge(const std::optional<Tensor>& t) {
  return t.has_value() ? gradient_edge(*t) : Edge{};
}

std::vector<Edge> gradient_edges(const std::vector<Tensor>& ts) {
  std::vector<Edge> edges;
  edges.reserve(ts.size());
  for (const Tensor& t : ts) edges.push_back(gradient_edge(t));
  return edges;
}

void set_history(const Tensor& result, const std::shared_ptr<Function>& fn, uint32_t output_nr) {
  if (!result.defined()) return;  // an optional output the op did not produce
  AutogradMeta& meta = ensure_autograd_meta(result);
  if (meta.requires_grad && !meta.grad_fn) {
    throw std::runtime_error(std::string("a leaf tensor that requires grad is being used in an "
                                         "in-place operation (") +
                             fn->name() + ")");
  }
  meta.grad_fn = fn;
  meta.output_nr = output_nr;
  meta.requires_grad = false;
  if (fn->sequence_nr == 0) fn->sequence_nr = next_sequence_nr.fetch_add(1);
}

void check_inplace(const Tensor& self, const char* op) {
  if (!grad_mode_enabled() || !self.defined() || !self.requires_grad()) return;
  const bool leaf = self.grad_fn() == nullptr;
  throw std::runtime_error(std::string(op) + ": " +
                           (leaf ? "a leaf tensor that requires grad"
                                 : "a tensor computed by " + std::string(self.grad_fn()->name())) +
                           " is being used in an in-place operation, which records no gradient "
                           "history; use the out-of-place op, or wrap the update in NoGradGuard");
}

Tensor saved(const Tensor& t) {
  return t.defined() ? t.detach() : Tensor();
}

std::optional<Tensor> saved(const std::optional<Tensor>& t) {
  if (!t || !t->defined()) return std::nullopt;  // absent stays absent
  return saved(*t);
}

std::vector<Tensor> saved(const std::vector<Tensor>& ts) {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(saved(t));
  return out;
}

}  // namespace lazygen::autograd
