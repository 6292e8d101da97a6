// The autograd engine (autograd/engine.h): one GraphTask per backward pass.
#include "autograd/engine.h"

#include <algorithm>
#include <memory>
#include <queue>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "autograd/accumulate_grad.h"
#include "autograd/function.h"
#include "autograd/sum_to.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/add.h"

namespace lazygen::autograd {
namespace {

using FunctionPtr = std::shared_ptr<Function>;

// What a function waits for: its input gradients, one slot per output of its op, and how many
// edges have yet to deliver.
struct PendingFunction {
  std::vector<Tensor> grads;
  int dependencies = 0;
};

struct LaterFirst {
  bool operator()(const FunctionPtr& a, const FunctionPtr& b) const {
    return a->sequence_nr < b->sequence_nr;
  }
};

void check_not_released(const Function& fn) {
  if (!fn.released) return;
  throw std::runtime_error(
      std::string("Trying to backward through the graph a second time (or directly access saved "
                  "tensors after they have already been freed): ") +
      fn.name() +
      " was released by an earlier backward(). Saved tensors are freed when backward() runs "
      "without retain_graph; pass retain_graph=true to the first backward() to backward through "
      "the graph again.");
}

bool any_defined(const std::vector<Tensor>& ts) {
  return std::any_of(ts.begin(), ts.end(), [](const Tensor& t) { return t.defined(); });
}

// `grad`, the gradient `fn` computed for its input `i`, made to match that input: summed over
// the dims broadcasting added, cast to its dtype.
Tensor match_input(const Function& fn, size_t i, Tensor grad) {
  if (i >= fn.input_shapes.size()) return grad;
  const Shape& input = fn.input_shapes[i];
  if (grad.sizes() != input.sizes) {
    try {
      grad = sum_to(grad, input.sizes);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(std::string(fn.name()) + " returned a gradient for input " +
                               std::to_string(i) + " that does not match it: " + e.what());
    }
  }
  return grad.dtype() == input.dtype ? grad : grad.to(input.dtype);
}

// The gradient the pass starts from: `gradient`, or 1 for a one-element root.
Tensor root_gradient(const Tensor& root, const Tensor& gradient) {
  if (!gradient.defined()) {
    if (root.numel() != 1) {
      throw std::runtime_error(
          "grad can be implicitly created only for scalar outputs (the root "
          "has " +
          std::to_string(root.numel()) + " elements; pass a gradient of its shape to backward())");
    }
    return ones_like(root);
  }
  if (gradient.sizes() != root.sizes() || gradient.device() != root.device()) {
    throw std::runtime_error("Mismatch in shape: grad_output has a shape of " +
                             sizes_str(gradient.sizes()) + " on " + gradient.device().str() +
                             " and output has a shape of " + sizes_str(root.sizes()) + " on " +
                             root.device().str());
  }
  return gradient.dtype() == root.dtype() ? gradient : gradient.to(root.dtype());
}

class GraphTask {
 public:
  explicit GraphTask(bool retain_graph) : retain_graph_(retain_graph) {}

  void run(const Edge& root, Tensor gradient) {
    count_dependencies(root.fn);
    pending_[root.fn.get()].dependencies += 1;  // the root's gradient is its one delivery
    deliver(root, std::move(gradient));
    while (!ready_.empty()) {
      FunctionPtr fn = ready_.top();
      ready_.pop();
      execute(fn);
    }
  }

 private:
  // Step 1 of engine.h: dependencies of every function reachable from `root`.
  void count_dependencies(const FunctionPtr& root) {
    std::vector<Function*> stack{root.get()};
    std::unordered_set<Function*> seen{root.get()};
    while (!stack.empty()) {
      Function* fn = stack.back();
      stack.pop_back();
      check_not_released(*fn);
      for (const Edge& edge : fn->next_edges) {
        if (!edge.valid()) continue;
        pending_[edge.fn.get()].dependencies += 1;
        if (seen.insert(edge.fn.get()).second) stack.push_back(edge.fn.get());
      }
    }
  }

  // Adds `grad` (undefined: nothing to add) into input `edge.input_nr` of edge.fn.
  void deliver(const Edge& edge, Tensor grad) {
    PendingFunction& pending = pending_[edge.fn.get()];
    if (grad.defined()) {
      if (edge.input_nr >= edge.fn->num_outputs) {
        throw std::logic_error(std::string("an edge points at output ") +
                               std::to_string(edge.input_nr) + " of " + edge.fn->name() +
                               ", which has " + std::to_string(edge.fn->num_outputs));
      }
      pending.grads.resize(edge.fn->num_outputs);
      Tensor& slot = pending.grads[edge.input_nr];
      slot = slot.defined() ? add(slot, grad) : std::move(grad);
    }
    if (--pending.dependencies == 0) ready_.push(edge.fn);
  }

  void execute(const FunctionPtr& fn) {
    std::vector<Tensor> grads = std::move(pending_[fn.get()].grads);
    pending_.erase(fn.get());
    std::vector<Tensor> outputs;
    if (any_defined(grads)) {
      outputs = fn->apply(std::move(grads));
      if (outputs.size() != fn->next_edges.size()) {
        throw std::logic_error(std::string(fn->name()) + " returned " +
                               std::to_string(outputs.size()) + " gradients for " +
                               std::to_string(fn->next_edges.size()) + " inputs");
      }
    }
    release(*fn);
    for (size_t i = 0; i < fn->next_edges.size(); ++i) {
      const Edge& edge = fn->next_edges[i];
      if (!edge.valid()) continue;
      Tensor grad = i < outputs.size() ? std::move(outputs[i]) : Tensor();
      if (grad.defined()) grad = match_input(*fn, i, std::move(grad));
      deliver(edge, std::move(grad));
    }
  }

  // Step 5 of engine.h.
  void release(Function& fn) {
    if (retain_graph_ || dynamic_cast<AccumulateGrad*>(&fn) != nullptr) return;
    fn.release_saved();
    fn.released = true;
  }

  bool retain_graph_;
  std::unordered_map<Function*, PendingFunction> pending_;
  std::priority_queue<FunctionPtr, std::vector<FunctionPtr>, LaterFirst> ready_;
};

}  // namespace

void run_backward(const Tensor& root, const Tensor& gradient, bool retain_graph) {
  if (!root.defined()) throw std::invalid_argument("backward(): the root is an undefined tensor");
  Edge edge = gradient_edge(root);
  if (!edge.valid()) {
    throw std::runtime_error(
        "element 0 of tensors does not require grad and does not have a "
        "grad_fn (backward() needs a root computed from tensors that "
        "require grad, with grad mode on)");
  }
  NoGradGuard no_grad;
  GraphTask(retain_graph).run(edge, root_gradient(root, gradient));
}

}  // namespace lazygen::autograd
