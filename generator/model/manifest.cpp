// Kernel manifests (manifest.h).
#include "model/manifest.h"

namespace lazygen::gen {

std::vector<KernelKey> parse_manifest(const std::string& text, const std::string& path) {
  try {
    return fusion::parse_manifest(text, path);
  } catch (const fusion::KeyError& e) {
    throw GenError(source_loc(e.loc()), e.message(), e.hint());
  }
}

}  // namespace lazygen::gen
