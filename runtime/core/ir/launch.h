// Launch: the results of a graph handed to the executor's worker, before they exist.
//
// Lazy tensors synced asynchronously and the DeviceData nodes that feed them to the next graph
// refer to (launch, output index) until the worker finishes the launch; reading the data waits
// for it. See Note [Asynchronous execution] in exec/graph_executor.h.
//
// Thread safety: finish/fail are called once, by the thread that executes; every other method
// may be called from any thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "lazygen/device.h"
#include "lazygen/shape.h"
#include "lazygen/tensor.h"

namespace lazygen::ir {

class Launch {
 public:
  // `shapes`: of each output, known before execution; `device`: where the outputs will be.
  Launch(Device device, std::vector<Shape> shapes);

  Device device() const { return device_; }
  const Shape& shape(uint32_t output) const { return shapes_.at(output); }

  // Publishes the outputs (one per shape) and wakes the waiters.
  void finish(std::vector<Tensor> outputs);
  // Publishes a failure (the exception and its message) and wakes the waiters.
  void fail(std::exception_ptr error, std::string message);

  bool done() const;
  // Blocks until finish or fail.
  void wait() const;
  // After wait(): output `i`, or null `error()` when the launch failed.
  const Tensor& output(uint32_t i) const { return outputs_.at(i); }
  // After wait(): moves output `i` out, leaving it undefined. REQUIRES: the caller owns the only
  // reference to this launch, so that nobody can read that output any more.
  Tensor take_output(uint32_t i) { return std::move(outputs_.at(i)); }
  const std::shared_ptr<const std::string>& error() const { return message_; }
  const std::exception_ptr& exception() const { return exception_; }

 private:
  const Device device_;
  const std::vector<Shape> shapes_;
  mutable std::mutex mutex_;
  mutable std::condition_variable cv_;
  bool done_ = false;
  std::vector<Tensor> outputs_;
  std::shared_ptr<const std::string> message_;
  std::exception_ptr exception_;
};

}  // namespace lazygen::ir
