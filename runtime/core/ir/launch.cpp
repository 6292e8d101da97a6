// See core/ir/launch.h.
#include "core/ir/launch.h"

#include <stdexcept>
#include <utility>

namespace lazygen::ir {

Launch::Launch(Device device, std::vector<Shape> shapes)
    : device_(device), shapes_(std::move(shapes)) {}

void Launch::finish(std::vector<Tensor> outputs) {
  if (outputs.size() != shapes_.size()) throw std::logic_error("Launch::finish: wrong output count");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    outputs_ = std::move(outputs);
    done_ = true;
  }
  cv_.notify_all();
}

void Launch::fail(std::exception_ptr error, std::string message) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    exception_ = std::move(error);
    message_ = std::make_shared<const std::string>(std::move(message));
    done_ = true;
  }
  cv_.notify_all();
}

bool Launch::done() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_;
}

void Launch::wait() const {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [this] { return done_; });
}

}  // namespace lazygen::ir
