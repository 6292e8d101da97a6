// Switches the environment can turn off (LAZYGEN_FUSION, LAZYGEN_ASYNC, LAZYGEN_AOT,
// LAZYGEN_CHAINS, LAZYGEN_ROW_BANDS, LAZYGEN_DYNAMIC, LAZYGEN_LAPACK) or on (LAZYGEN_WINOGRAD,
// LAZYGEN_ONEDNN).
//
// Thread safety: env_flag_* read the environment; call them while no thread changes it (at
// startup). An EnvSwitch may be read and set from any thread.
#pragma once

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace lazygen {

// True unless the environment sets `name` to "0".
inline bool env_flag_on(const char* name) {
  const char* text = std::getenv(name);
  return text == nullptr || std::strcmp(text, "0") != 0;
}

// True when the environment sets `name` to anything but "0" (an opt-in switch).
inline bool env_flag_set(const char* name) {
  const char* text = std::getenv(name);
  return text != nullptr && std::strcmp(text, "0") != 0;
}

// A process-wide switch: its first value from the environment variable `name` (kOnByDefault: on
// unless it is "0"; kOptIn: on when it is set to anything but "0"), then whatever the program
// sets. Hold it in a function-local static, so that its first use reads the environment.
class EnvSwitch {
 public:
  enum Default { kOnByDefault, kOptIn };
  EnvSwitch(const char* name, Default d)
      : on_(d == kOnByDefault ? env_flag_on(name) : env_flag_set(name)) {}
  bool on() const { return on_.load(std::memory_order_relaxed); }
  void set(bool on) { on_.store(on, std::memory_order_relaxed); }

 private:
  std::atomic<bool> on_;
};

}  // namespace lazygen
