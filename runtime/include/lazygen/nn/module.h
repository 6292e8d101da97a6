// nn::Module: the base of neural-network layers and models, as in PyTorch's torch.nn.Module.
//
// A module owns its parameters (leaf tensors that require grad) as members and registers them,
// and its sub-modules, by name in its constructor:
//
//   class Net : public nn::Module {
//    public:
//     Net() { register_module("fc", fc_); }
//     Tensor forward(const Tensor& x) { return fc_->forward(x); }
//    private:
//     std::shared_ptr<nn::Linear> fc_ = std::make_shared<nn::Linear>(784, 10);
//   };
//
// parameters() walks the tree in registration order. Buffers are state that is not trained
// (batch norm's running statistics): registered the same way, moved with the parameters, never
// requiring grad. to(device) moves every parameter (a new leaf on the device, still requiring
// grad; the registered member is updated in place, so layers keep working) and buffer,
// train()/eval() set the mode of the whole tree (dropout and batch norm read it).
// Modules are neither copyable nor movable: the registry points at their members.
// Thread safety: none; use a module from one thread at a time.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lazygen/device.h"
#include "lazygen/tensor.h"

namespace lazygen::nn {

class Module {
 public:
  Module() = default;
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // Every parameter of this module and its sub-modules, in registration order. The tensors
  // share data (and autograd state) with the module's: update them in place.
  std::vector<Tensor> parameters() const;
  // The same with dotted names ("conv1.weight").
  std::vector<std::pair<std::string, Tensor>> named_parameters() const;
  // The total number of parameter elements.
  int64_t parameter_count() const;

  // Training mode (the default) or evaluation mode, for this module and every sub-module.
  void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }

  // Every buffer of this module and its sub-modules with dotted names, in registration order.
  std::vector<std::pair<std::string, Tensor>> named_buffers() const;

  // Moves every parameter and buffer to `device`; gradients accumulated so far are dropped.
  void to(Device device);

 protected:
  // Registers `*slot` (a member of the derived module) as a parameter named `name`: it becomes
  // a leaf that requires grad. REQUIRES: *slot is a defined floating tensor.
  void register_parameter(std::string name, Tensor* slot);
  // Registers `*slot` as a buffer named `name`. REQUIRES: *slot is defined.
  void register_buffer(std::string name, Tensor* slot);
  // Registers a sub-module; returns it for chaining.
  template <class M>
  std::shared_ptr<M> register_module(std::string name, std::shared_ptr<M> module) {
    children_.emplace_back(std::move(name), module);
    return module;
  }

 private:
  std::vector<std::pair<std::string, Tensor*>> parameters_;
  std::vector<std::pair<std::string, Tensor*>> buffers_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
  bool training_ = true;
};

}  // namespace lazygen::nn
