// The exit wait (exit_wait.h, Note [Finishing asynchronous work at exit]).
#include "core/exit_wait.h"

#include <atomic>
#include <cstdlib>

namespace lazygen {
namespace {

std::atomic<void (*)()> g_wait{nullptr};

void call_wait() {
  if (void (*wait)() = g_wait.load()) wait();
}

}  // namespace

void set_exit_wait(void (*wait)()) {
  g_wait.store(wait);
  wait_at_exit();
}

void wait_at_exit() {
  std::atexit(call_wait);
}

}  // namespace lazygen
