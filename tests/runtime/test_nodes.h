// IR node types for runtime tests and benchmarks, shaped like the generated ones
// (generated/include/lazygen/generated/ir_nodes.h) but on extension op kinds, so that the IR,
// trie cache and executor are tested without depending on ops.yaml.
//
//   TestLeaf(id)              no operands; `id` tells leaves apart (a stand-in for inputs)
//   TestUnary(x)              one operand
//   TestBinary(x, y, alpha)   like add.Tensor: two tensors and a ScalarParam operand
//   TestOptional(x, b?, w?)   optional operands, like f(input, bias=None, weight=None)
//   TestFloatAttr(x, v)       a double attribute, compared bitwise
//   TestTwoOutputs(x)         two outputs, like max.dim (values, indices)
//
// test_lowering() lowers them with plain loops over contiguous float32 data; lazy_zeros and
// trace_binary build lazy tensors on them the way generated ops do.
#pragma once

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/ir/hash.h"
#include "core/ir/node.h"
#include "exec/lowering.h"
#include "lazygen/tensor.h"

namespace lazygen::testing {

using ir::Node;
using ir::OpKind;
using ir::Value;

class TestLeaf final : public Node {
 public:
  static inline const OpKind kKind = ir::register_op_kind("test.leaf", "TestLeaf");
  TestLeaf(int64_t id, std::vector<Shape> shapes)
      : Node(kKind, {}, std::move(shapes), ir::hash_all(id)), id(id) {}
  bool can_reuse(int64_t other_id) const { return id == other_id; }
  std::string attrs_string() const override { return "id=" + std::to_string(id); }
  const int64_t id;
};

class TestUnary final : public Node {
 public:
  static inline const OpKind kKind = ir::register_op_kind("test.unary", "TestUnary");
  TestUnary(const Value& x, std::vector<Shape> shapes)
      : Node(kKind, {x}, std::move(shapes), ir::hash_all()) {}
  bool can_reuse(const Value& x) const { return operands_match(x); }
};

class TestBinary final : public Node {
 public:
  static inline const OpKind kKind = ir::register_op_kind("test.binary", "TestBinary");
  TestBinary(const Value& x, const Value& y, const Value& alpha, std::vector<Shape> shapes)
      : Node(kKind, {x, y, alpha}, std::move(shapes), ir::hash_all()) {}
  bool can_reuse(const Value& x, const Value& y, const Value& alpha) const {
    return operands_match(x, y, alpha);
  }
};

class TestOptional final : public Node {
 public:
  static inline const OpKind kKind = ir::register_op_kind("test.optional", "TestOptional");
  TestOptional(const Value& x, const Value& bias, const Value& weight, std::vector<Shape> shapes)
      : Node(kKind, {x, bias, weight}, std::move(shapes), ir::hash_all()) {}
  bool can_reuse(const Value& x, const Value& bias, const Value& weight) const {
    return operands_match(x, bias, weight);
  }
};

class TestFloatAttr final : public Node {
 public:
  static inline const OpKind kKind = ir::register_op_kind("test.float_attr", "TestFloatAttr");
  TestFloatAttr(const Value& x, double v, std::vector<Shape> shapes)
      : Node(kKind, {x}, std::move(shapes), ir::hash_all(v)), v(v) {}
  bool can_reuse(const Value& x, double other) const {
    return operands_match(x) && std::memcmp(&v, &other, sizeof v) == 0;
  }
  std::string attrs_string() const override { return "v=" + std::to_string(v); }
  const double v;
};

class TestTwoOutputs final : public Node {
 public:
  static inline const OpKind kKind = ir::register_op_kind("test.two_outputs", "TestTwoOutputs");
  TestTwoOutputs(const Value& x, std::vector<Shape> shapes)
      : Node(kKind, {x}, std::move(shapes), ir::hash_all()) {}
  bool can_reuse(const Value& x) const { return operands_match(x); }
};

inline Shape f32(std::vector<int64_t> sizes) {
  return Shape(DType::Float32, std::move(sizes));
}

// Lowerings over contiguous float32 data: unary x+1, binary x + alpha*y (same sizes), optional
// x + bias (when present) + 2*weight (when present), two outputs (2x, 3x).
exec::LowerFn test_lowering(OpKind kind);

// A materialized float32 lazy tensor of zeros.
Tensor lazy_zeros(const std::vector<int64_t>& sizes);
// x + alpha * y on TestBinary, traced like a generated op (shapes: x's).
Tensor trace_binary(const Tensor& x, const Tensor& y, const Scalar& alpha);

}  // namespace lazygen::testing
