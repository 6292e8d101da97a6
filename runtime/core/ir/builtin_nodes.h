// The two IR node kinds that are not ops from ops.yaml: the inputs of every graph.
//
// DeviceData holds a materialized tensor (a lazy tensor's data, or the result of an earlier
// execution) and ScalarParam holds a Scalar passed to an op. Neither value is part of a node's
// hash: a graph is keyed by structure and input shapes, and the executor feeds the current
// values at run time, so new data or a new scalar value reuses the compiled computation.
//
// Both are reused through the trie cache like op nodes (see Note [Trie reuse of input nodes] in
// trie_cache.h): can_reuse() matches on shape / dtype category only and rebind() installs the new
// value in the reused node. A DeviceData node may also stand for an output of a launch that has
// not finished yet (See Note [Asynchronous execution]); it hashes and reuses the same either way,
// so a graph fed by data and the same graph fed by a launch share one compiled computation.
#pragma once

#include <string>
#include <vector>

#include "core/ir/launch.h"
#include "core/ir/node.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"

namespace lazygen::ir {

class DeviceData final : public Node {
 public:
  static constexpr OpKind kKind = op_kind("device_data");

  // REQUIRES: data is defined and shapes == {data's shape}. The node shares `data` (no copy).
  DeviceData(const Tensor& data, std::vector<Shape> shapes);

  // Output `index` of `launch`, which may not have finished. REQUIRES: shapes == {its shape}.
  DeviceData(const std::shared_ptr<Launch>& launch, uint32_t index, std::vector<Shape> shapes);

  // Same shape, dtype and device: the node can stand for `data` once rebound to it.
  bool can_reuse(const Tensor& data) const;
  bool can_reuse(const std::shared_ptr<Launch>& launch, uint32_t index) const;
  // Same dtype, device and rank: the input at other sizes (See Note [Trie reuse across sizes]).
  bool same_structure(const Tensor& data) const;
  bool same_structure(const std::shared_ptr<Launch>& launch, uint32_t index) const;
  void rebind(const Tensor& data) {
    data_ = data;
    launch_ = nullptr;
  }
  void rebind(const std::shared_ptr<Launch>& launch, uint32_t index) {
    data_ = Tensor();
    launch_ = launch;
    launch_index_ = index;
  }
  // The data, or an undefined tensor when the node is bound to a launch or was released. See
  // Note [DeviceData lifetime].
  const Tensor& data() const { return data_; }
  // The launch whose output `launch_index()` the node stands for, or null.
  const std::shared_ptr<Launch>& launch() const { return launch_; }
  uint32_t launch_index() const { return launch_index_; }
  void release_data() {
    data_ = Tensor();
    launch_ = nullptr;
  }

  std::string attrs_string() const override;

 private:
  Device device_;
  Tensor data_;
  std::shared_ptr<Launch> launch_;
  uint32_t launch_index_ = 0;
};

class ScalarParam final : public Node {
 public:
  static constexpr OpKind kKind = op_kind("scalar_param");

  // REQUIRES: shapes == scalar_param_shapes(value).
  ScalarParam(const Scalar& value, std::vector<Shape> shapes);

  // Same dtype category (bool, integral, floating): the category drives type promotion, the
  // value does not.
  bool can_reuse(const Scalar& value) const { return value.dtype() == value_.dtype(); }
  void rebind(const Scalar& value) { value_ = value; }
  const Scalar& value() const { return value_; }

  std::string attrs_string() const override { return "value=" + value_.str(); }

 private:
  Scalar value_;
};

// {0-dim Shape of the scalar's dtype category}: the output shapes of a ScalarParam.
std::vector<Shape> scalar_param_shapes(const Scalar& value);

}  // namespace lazygen::ir
