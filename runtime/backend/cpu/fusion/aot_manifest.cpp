// Kernel manifests (aot_manifest.h; See Note [Canonical manifests]).
#include "backend/cpu/fusion/aot_manifest.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "backend/cpu/fusion/aot_kernel.h"

namespace lazygen::cpu::fusion {
namespace {

constexpr const char* kHeader = "lazygen-manifest ";
constexpr const char* kKernel = "kernel ";

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

}  // namespace

KeySet manifest_keys(const std::string& text, bool* stale) {
  KeySet keys;
  std::istringstream in(text);
  bool current = true;
  for (std::string line; std::getline(in, line);) {
    if (starts_with(line, kHeader)) {
      current = line.substr(std::string(kHeader).size()) == std::to_string(kAotIrVersion);
    } else if (starts_with(line, kKernel) && current) {
      keys.insert(line.substr(std::string(kKernel).size()));
    }
  }
  if (stale != nullptr) *stale = !current;
  return current ? keys : KeySet{};
}

std::string manifest_text(const KeySet& keys) {
  std::string text =
      "# lazygen kernel manifest: fusion groups to compile ahead of time (lazygen --kernels)\n";
  text += kHeader + std::to_string(kAotIrVersion) + "\n";
  for (const std::string& k : keys) text += kKernel + k + "\n";
  return text;
}

std::string merge_manifests(const std::vector<std::string>& texts) {
  KeySet all;
  for (const std::string& t : texts) all.merge(manifest_keys(t));
  return manifest_text(all);
}

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
