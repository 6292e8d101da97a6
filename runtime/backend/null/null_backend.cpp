// The recording null backend (backend/null/null_backend.h).
#include "backend/null/null_backend.h"

#include <algorithm>

#include "core/ir/dump.h"
#include "exec/lowering.h"
#include "lazygen/factory.h"

namespace lazygen::exec {
namespace {

struct NullExecutable final : Executable {
  std::vector<Shape> output_shapes;
};

}  // namespace

std::unique_ptr<Executable> NullBackend::compile(const Graph& graph) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (fail_next_compile_) {
    fail_next_compile_ = false;
    throw CompileError("null backend: compile failure requested by the test");
  }
  compiles_.push_back(
      {graph.hash(), graph.nodes().size(), graph.input_shapes(), ir::dump_text(graph.roots())});
  auto exe = std::make_unique<NullExecutable>();
  for (const ir::Value& root : graph.roots()) exe->output_shapes.push_back(root.shape());
  return exe;
}

std::vector<Tensor> NullBackend::execute(const Executable& executable,
                                         const std::vector<Input>& inputs) {
  ExecuteRecord record;
  for (const Input& in : inputs) {
    if (in.is_scalar()) {
      record.input_shapes.push_back(Shape(in.scalar.dtype(), {}));
      record.scalars.push_back(in.scalar);
    } else {
      record.input_shapes.push_back(in.tensor.shape());
    }
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    executions_.push_back(std::move(record));
  }
  std::vector<Tensor> outputs;
  for (const Shape& s : static_cast<const NullExecutable&>(executable).output_shapes) {
    outputs.push_back(zeros(s.sizes, s.dtype));
  }
  return outputs;
}

bool NullBackend::recomputes_cheaply(ir::OpKind kind) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::find(cheap_kinds_.begin(), cheap_kinds_.end(), kind) != cheap_kinds_.end();
}

void NullBackend::set_recomputes_cheaply(std::vector<ir::OpKind> kinds) {
  std::lock_guard<std::mutex> lock(mutex_);
  cheap_kinds_ = std::move(kinds);
}

void NullBackend::fail_next_compile() {
  std::lock_guard<std::mutex> lock(mutex_);
  fail_next_compile_ = true;
}

std::vector<NullBackend::CompileRecord> NullBackend::compiles() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return compiles_;
}

std::vector<NullBackend::ExecuteRecord> NullBackend::executions() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return executions_;
}

}  // namespace lazygen::exec
