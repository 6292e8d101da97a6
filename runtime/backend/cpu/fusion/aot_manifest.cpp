// Kernel manifest files (aot_manifest.h; See Note [Canonical manifests]).
#include "backend/cpu/fusion/aot_manifest.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace lazygen::cpu::fusion {

bool add_to_manifest_file(const std::string& path, const KeySet& keys) {
  std::ostringstream old;
  if (std::ifstream in(path); in) old << in.rdbuf();
  bool stale = false;
  KeySet all = manifest_keys(old.str(), &stale);
  if (stale)
    std::fprintf(stderr, "lazygen: %s has another IR version; rewriting it\n", path.c_str());
  all.insert(keys.begin(), keys.end());
  const std::string tmp = path + ".tmp";
  std::ofstream out(tmp, std::ios::trunc);
  out << manifest_text(all);
  out.close();
  if (!out || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::fprintf(stderr, "lazygen: cannot write the kernel manifest %s\n", path.c_str());
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace lazygen::cpu::fusion
