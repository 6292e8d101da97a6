// The lazygen version, for banners and compatibility checks of on-disk artifacts.
#pragma once

namespace lazygen {

// "0.1.0": the project version this runtime was built as.
const char* version();

}  // namespace lazygen
