// See lazygen/version.h.
#include "lazygen/version.h"

namespace lazygen {

const char* version() { return LAZYGEN_VERSION; }

}  // namespace lazygen
