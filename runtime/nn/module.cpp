// nn::Module (lazygen/nn/module.h): the parameter registry, modes and moving between devices.
#include "lazygen/nn/module.h"

#include <stdexcept>

namespace lazygen::nn {

std::vector<Tensor> Module::parameters() const {
  std::vector<Tensor> out;
  for (auto& [name, t] : named_parameters()) out.push_back(t);
  return out;
}

std::vector<std::pair<std::string, Tensor>> Module::named_parameters() const {
  std::vector<std::pair<std::string, Tensor>> out;
  for (const auto& [name, slot] : parameters_) out.emplace_back(name, *slot);
  for (const auto& [prefix, child] : children_) {
    for (auto& [name, t] : child->named_parameters()) out.emplace_back(prefix + "." + name, t);
  }
  return out;
}

std::vector<std::pair<std::string, Tensor>> Module::named_buffers() const {
  std::vector<std::pair<std::string, Tensor>> out;
  for (const auto& [name, slot] : buffers_) out.emplace_back(name, *slot);
  for (const auto& [prefix, child] : children_) {
    for (auto& [name, t] : child->named_buffers()) out.emplace_back(prefix + "." + name, t);
  }
  return out;
}

int64_t Module::parameter_count() const {
  int64_t n = 0;
  for (const Tensor& t : parameters()) n += t.numel();
  return n;
}

void Module::train(bool on) {
  training_ = on;
  for (auto& [name, child] : children_) child->train(on);
}

void Module::to(Device device) {
  for (auto& [name, slot] : parameters_) {
    if (slot->device() == device) continue;
    Tensor moved = slot->detach().to(device);
    moved.requires_grad_();
    *slot = moved;
  }
  for (auto& [name, slot] : buffers_) {
    if (slot->device() != device) *slot = slot->to(device);
  }
  for (auto& [name, child] : children_) child->to(device);
}

void Module::register_parameter(std::string name, Tensor* slot) {
  if (slot == nullptr || !slot->defined()) {
    throw std::invalid_argument("register_parameter(\"" + name + "\"): undefined tensor");
  }
  slot->requires_grad_();
  parameters_.emplace_back(std::move(name), slot);
}

void Module::register_buffer(std::string name, Tensor* slot) {
  if (slot == nullptr || !slot->defined()) {
    throw std::invalid_argument("register_buffer(\"" + name + "\"): undefined tensor");
  }
  buffers_.emplace_back(std::move(name), slot);
}

}  // namespace lazygen::nn
