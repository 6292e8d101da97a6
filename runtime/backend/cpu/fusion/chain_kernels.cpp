// Whether the interpreter runs register chains (chain_kernels.h; See Note [Register chains]).
#include "backend/cpu/fusion/chain_kernels.h"

#include "core/env_flag.h"
#include "lazygen/lazy.h"

namespace lazygen::cpu {
namespace {

EnvSwitch& chains_flag() {
  static EnvSwitch enabled("LAZYGEN_CHAINS", EnvSwitch::kOnByDefault);
  return enabled;
}

}  // namespace

bool register_chains_on() {
  return chains_flag().on();
}

}  // namespace lazygen::cpu

namespace lazygen {

void set_register_chains_enabled(bool enabled) {
  cpu::chains_flag().set(enabled);
}

bool register_chains_enabled() {
  return cpu::register_chains_on();
}

}  // namespace lazygen
