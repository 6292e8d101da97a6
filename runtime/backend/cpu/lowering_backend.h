// LoweringBackend ("cpu-lowering"; "cpu-kernels" over the kernel lowering table,
// exec/kernel_lowering.h): the unfused cpu backend, running a graph node by node through the
// lowering table.
//
// compile() checks that every op has a lowering (CompileError naming the first that does not),
// assigns each node output a slot and records, per slot, the step after which nothing reads it.
// execute() walks the post-order calling one LowerFn per node with its operands' tensors and
// drops each intermediate at its last use, so peak memory is the live set, not the whole graph.
// No fusion: a correct reference that the fused CPU backend (backend/cpu) is checked against.
//
// The lowering lookup is injectable so that tests can run graphs of their own node types.
// Thread safety: stateless after construction; executables are immutable.
#pragma once

#include <string>

#include "backend/backend.h"
#include "exec/lowering.h"

namespace lazygen::cpu {

using LoweringLookup = exec::LowerFn (*)(ir::OpKind kind);

class LoweringBackend final : public exec::Backend {
 public:
  explicit LoweringBackend(LoweringLookup lookup = &exec::lowering_for,
                           std::string name = "cpu-lowering");

  std::string name() const override { return name_; }
  Device device() const override { return kCPU; }
  std::unique_ptr<exec::Executable> compile(const exec::Graph& graph) override;
  std::vector<Tensor> execute(const exec::Executable& executable,
                              const std::vector<exec::Input>& inputs) override;

 private:
  LoweringLookup lookup_;
  std::string name_;
};

}  // namespace lazygen::cpu
