// The AOT bookkeeping every backend's registry shares (aot_lookup.h), and the public switches of
// lazygen/aot.h.
#include "fusion/aot_lookup.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

#include "core/env_flag.h"
#include "fusion/kernel_key.h"
#include "fusion/pointwise_facts.h"
#include "lazygen/aot.h"

namespace lazygen::fusion {
namespace {

struct Book {
  std::mutex mu;
  KeySet misses;
  KeySet stale;
  std::string record_path;
  KeySet recorded;  // CUDA keys this process has added to record_path
};

Book& book() {
  static Book* b = [] {
    auto* b = new Book;  // never destroyed: lookups may run during static destruction
    if (const char* path = std::getenv("LAZYGEN_RECORD")) b->record_path = path;
    return b;
  }();
  return *b;
}

EnvSwitch& enabled_flag() {
  static EnvSwitch enabled("LAZYGEN_AOT", EnvSwitch::kOnByDefault);
  return enabled;
}

}  // namespace

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

namespace {

// The facts of the pointwise op named `name`; null when no such op is pointwise.
const PointwiseFacts* facts_by_name(std::string_view name) {
  const PointwiseFacts* facts = pointwise_facts(ir::op_kind(name));
  return facts != nullptr && facts->schema_name == name ? facts : nullptr;
}

}  // namespace

bool aot_kernels_enabled() {
  return enabled_flag().on();
}

bool aot_recording() {
  Book& b = book();
  std::lock_guard<std::mutex> lock(b.mu);
  return !b.record_path.empty();
}

// Both keys of a group (See Note [CUDA group keys]).
void record_aot_group(const std::string& cuda_key) {
  Book& b = book();
  std::lock_guard<std::mutex> lock(b.mu);
  if (b.record_path.empty() || b.recorded.count(cuda_key) != 0) return;
  const KeySet keys = {cuda_key.substr(0, cuda_key.rfind(" cuda=")), cuda_key};
  if (!add_to_manifest_file(b.record_path, keys)) {
    b.record_path.clear();  // warned once; stop trying
    return;
  }
  b.recorded.insert(cuda_key);
}

void note_aot_miss(const std::string& key, bool stale) {
  Book& b = book();
  std::lock_guard<std::mutex> lock(b.mu);
  (stale ? b.stale : b.misses).insert(key);
}

void reset_aot_misses() {
  Book& b = book();
  std::lock_guard<std::mutex> lock(b.mu);
  b.misses.clear();
  b.stale.clear();
}

std::string ops_fingerprint(std::string_view key) {
  std::string out;
  try {
    for (const KeyOp& op : parse_key(key).ops) {
      const PointwiseFacts* facts = facts_by_name(op.name);
      if (facts == nullptr) return "";
      out += out.empty() ? "" : ",";
      out += facts->fingerprint;
    }
  } catch (const KeyError&) {
    return "";  // not a key this runtime reads: never current
  }
  return out;
}

}  // namespace lazygen::fusion

namespace lazygen {

void set_aot_enabled(bool enabled) {
  fusion::enabled_flag().set(enabled);
}

bool aot_enabled() {
  return fusion::aot_kernels_enabled();
}

void set_aot_record_path(const std::string& path) {
  fusion::Book& b = fusion::book();
  std::lock_guard<std::mutex> lock(b.mu);
  b.record_path = path;
  b.recorded.clear();
}

std::string aot_miss_report() {
  fusion::Book& b = fusion::book();
  std::lock_guard<std::mutex> lock(b.mu);
  if (b.misses.empty() && b.stale.empty()) return "";
  std::string text = "# " + std::to_string(b.misses.size() + b.stale.size()) +
                     " fusion group(s) ran on the interpreter; add these kernels to your "
                     "manifest and rebuild its kernels\n";
  for (const std::string& k : b.stale) {
    text += "# stale (built for another IR version or ops.yaml): kernel " + k + "\n";
  }
  fusion::KeySet all = b.misses;
  all.insert(b.stale.begin(), b.stale.end());
  return text + fusion::manifest_text(all);
}

}  // namespace lazygen
