// Iterative depth-first post-order (core/ir/post_order.h). An explicit stack instead of recursion
// keeps deep graphs (long traces of chained ops) from overflowing the native stack.
#include "core/ir/post_order.h"

#include <unordered_map>

namespace lazygen::ir {
namespace {

enum class Mark : uint8_t { kVisiting, kDone };

struct Frame {
  const Node* node;
  size_t next_operand;
};

// "AddTensor() -> MulTensor() -> AddTensor()": the stack from the node that closes the cycle.
[[noreturn]] void throw_cycle(const std::vector<Frame>& stack, const Node* again) {
  std::string path;
  bool on_cycle = false;
  for (const Frame& f : stack) {
    on_cycle = on_cycle || f.node == again;
    if (on_cycle) path += f.node->to_string() + " -> ";
  }
  path += again->to_string();
  throw IrCycleError("IR graph has a cycle through node " + again->to_string() + ": " + path);
}

void visit(const Node* root, std::unordered_map<const Node*, Mark>& marks,
           std::vector<const Node*>& out) {
  if (marks.count(root)) return;
  std::vector<Frame> stack{{root, 0}};
  marks.emplace(root, Mark::kVisiting);
  while (!stack.empty()) {
    Frame& top = stack.back();
    const std::vector<Value>& operands = top.node->operands();
    if (top.next_operand == operands.size()) {
      marks[top.node] = Mark::kDone;
      out.push_back(top.node);
      stack.pop_back();
      continue;
    }
    const Node* next = operands[top.next_operand++].node.get();
    if (next == nullptr) continue;  // absent optional operand
    auto [it, inserted] = marks.emplace(next, Mark::kVisiting);
    if (inserted) {
      stack.push_back({next, 0});
    } else if (it->second == Mark::kVisiting) {
      throw_cycle(stack, next);
    }
  }
}

}  // namespace

std::vector<const Node*> post_order(const std::vector<const Node*>& roots) {
  std::unordered_map<const Node*, Mark> marks;
  std::vector<const Node*> out;
  for (const Node* root : roots) {
    if (root != nullptr) visit(root, marks, out);
  }
  return out;
}

std::vector<const Node*> post_order(const std::vector<Value>& roots) {
  std::vector<const Node*> nodes;
  nodes.reserve(roots.size());
  for (const Value& v : roots) nodes.push_back(v.node.get());
  return post_order(nodes);
}

}  // namespace lazygen::ir
