// NullBackend: a backend that computes nothing and records everything, for executor tests
// (tinygrad's NULL device).
//
// compile() records the graph it was given (hash, node count, input shapes, text dump) and
// returns a token executable; with fail_next_compile() set it throws CompileError instead.
// execute() records its inputs (shapes, and the values of scalar inputs) and returns
// zero-filled cpu tensors of the output shapes. Tests then assert on how often the executor
// compiled and what it fed, without depending on any kernel.
// Thread safety: the records are guarded by a lock.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "backend/backend.h"

namespace lazygen::exec {

class NullBackend final : public Backend {
 public:
  struct CompileRecord {
    ir::hash_t graph_hash = 0;
    size_t num_nodes = 0;
    std::vector<Shape> input_shapes;
    std::string ir_text;
  };
  struct ExecuteRecord {
    std::vector<Shape> input_shapes;
    std::vector<Scalar> scalars;  // values of the scalar inputs, in input order
  };

  std::string name() const override { return "null"; }
  Device device() const override { return kCPU; }
  std::unique_ptr<Executable> compile(const Graph& graph) override;
  std::vector<Tensor> execute(const Executable& executable,
                              const std::vector<Input>& inputs) override;

  // recomputes_cheaply() is true for the kinds named here, false for the others.
  bool recomputes_cheaply(ir::OpKind kind) const override;
  void set_recomputes_cheaply(std::vector<ir::OpKind> kinds);
  // Makes the next compile() throw CompileError.
  void fail_next_compile();
  std::vector<CompileRecord> compiles() const;
  std::vector<ExecuteRecord> executions() const;

 private:
  mutable std::mutex mutex_;
  bool fail_next_compile_ = false;
  std::vector<ir::OpKind> cheap_kinds_;
  std::vector<CompileRecord> compiles_;
  std::vector<ExecuteRecord> executions_;
};

}  // namespace lazygen::exec
