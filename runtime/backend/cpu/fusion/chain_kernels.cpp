// Whether the interpreter runs register chains (chain_kernels.h; See Note [Register chains]).
#include "backend/cpu/fusion/chain_kernels.h"

#include <atomic>

#include "core/env_flag.h"
#include "lazygen/lazy.h"

namespace lazygen::cpu {
namespace {

std::atomic<bool>& chains_flag() {
  static std::atomic<bool> enabled{env_flag_on("LAZYGEN_CHAINS")};
  return enabled;
}

}  // namespace

bool register_chains_on() {
  return chains_flag().load(std::memory_order_relaxed);
}

}  // namespace lazygen::cpu

namespace lazygen {

void set_register_chains_enabled(bool enabled) {
  cpu::chains_flag().store(enabled, std::memory_order_relaxed);
}

bool register_chains_enabled() {
  return cpu::register_chains_on();
}

}  // namespace lazygen
