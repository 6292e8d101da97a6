// Switches the environment can turn off (LAZYGEN_FUSION, LAZYGEN_ASYNC, LAZYGEN_AOT,
// LAZYGEN_CHAINS, LAZYGEN_DYNAMIC) or on (LAZYGEN_WINOGRAD).
//
// Thread safety: reads the environment; call it while no thread changes it (at startup).
#pragma once

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

}  // namespace lazygen
