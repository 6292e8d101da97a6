// FusedBackend ("cpu-fused"): the lazy device's default backend. It runs a graph as fusion
// groups in the blocked vector interpreter and everything else through the lowering table.
//
// compile(graph): plans fusion (fusion_plan.h), compiles each group into a GroupProgram
// (group_program.h), plans memory (memory_plan.h) and flattens it all into arrays of steps:
// a group step knows where each of its inputs and outputs is (a tensor slot or an arena
// offset) and which inputs hold its scalars; a lowered step is one LowerFn call (library ops
// such as mm stay on OpenBLAS, views needed as tensors alias their base). Metrics: see
// record_plan_metrics.
// specialize(compiled, graph): compile's result for a graph of another size, from compiled's
// fusion plan (See Note [Specializing a fusion plan] in specialize.h).
// execute(executable, inputs): walks the steps. It allocates only the outputs, the tensors that
// lowered steps read, and one arena block, all from the caching allocator; tensors are dropped
// after their last use (See Note [Memory across executions]). A tensor a group reads must be
// contiguous (See Note [Views as index maps]); any other is copied first (counter
// fusion.input_copies).
//
// The results equal the cpu-lowering backend's bit for bit for pointwise chains (See Note [Fused
// compute dtype]); folded reductions sum in another order than the eager kernels (per tile, then
// per part), so they agree to rounding.
// Thread safety: compile and execute may be called from any thread; one executable's
// executions are serialized (the executor guarantees it; a concurrent one would use fresh
// scratch rather than race).
#pragma once

#include <memory>
#include <string>

#include "backend/backend.h"
#include "fusion/fusion_plan.h"
#include "fusion/node_traits.h"

namespace lazygen::cpu::fusion {

// The fusion layer's plans, node traits and op facts (runtime/fusion), which this backend's
// programs are built from, go by their short names here.
using namespace ::lazygen::fusion;

class FusedBackend final : public exec::Backend {
 public:
  explicit FusedBackend(Budgets budgets = {}) : budgets_(budgets) {}

  std::string name() const override { return "cpu-fused"; }
  Device device() const override { return kCPU; }
  std::unique_ptr<exec::Executable> compile(const exec::Graph& graph) override;
  // See Note [Specializing a fusion plan] in specialize.h.
  std::unique_ptr<exec::Executable> specialize(const exec::Executable& compiled,
                                               const exec::Graph& graph) override;
  std::vector<Tensor> execute(const exec::Executable& executable,
                              const std::vector<exec::Input>& inputs) override;
  bool recomputes_cheaply(ir::OpKind kind) const override {
    return ::lazygen::fusion::recomputes_cheaply(kind);
  }

  const Budgets& budgets() const { return budgets_; }

 private:
  Budgets budgets_;
};

}  // namespace lazygen::cpu::fusion
