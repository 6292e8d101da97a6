// The AOT kernel registry (aot_registry.h) and the public switches of lazygen/aot.h.
#include "backend/cpu/fusion/aot_registry.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "backend/cpu/fusion/aot_manifest.h"
#include "backend/cpu/fusion/group_key.h"
#include "backend/cpu/fusion/tile_kernels.h"
#include "core/env_flag.h"
#include "fusion/kernel_key.h"
#include "lazygen/aot.h"
#include "lazygen/metrics.h"

namespace lazygen::cpu::fusion {

// Generated kernels carry kAotIrVersion; the keys they are found by are kernel_key.h's text.
static_assert(kAotIrVersion == ::lazygen::fusion::kKeyVersion);

namespace {

struct HashOfKey {
  size_t operator()(const KeyHash& h) const { return static_cast<size_t>(h.lo); }
};

struct Registry {
  std::mutex mu;
  std::unordered_map<KeyHash, std::vector<const AotEntry*>, HashOfKey> entries;
  KeySet misses;
  KeySet stale;
  std::string record_path;
  KeySet recorded;  // keys this process has added to record_path
};

Registry& registry() {
  static Registry* r = [] {
    auto* r = new Registry;  // never destroyed: lookups may run during static destruction
    if (const char* path = std::getenv("LAZYGEN_RECORD")) r->record_path = path;
    return r;
  }();
  return *r;
}

std::atomic<bool>& enabled_flag() {
  static std::atomic<bool> enabled{env_flag_on("LAZYGEN_AOT")};
  return enabled;
}

// An entry is usable only if this runtime would have generated the same call for its key.
bool usable(const AotEntry& e) {
  return e.ir_version == kAotIrVersion && e.fn != nullptr &&
         e.generator_hash == ops_fingerprint(e.key) &&
         KeyHash{e.hash_hi, e.hash_lo} == key_hash(e.key);
}

// The facts of the pointwise op named `name`; null when no such op is pointwise.
const PointwiseFacts* facts_by_name(std::string_view name) {
  const PointwiseFacts* facts = pointwise_facts(ir::op_kind(name));
  return facts != nullptr && facts->schema_name == name ? facts : nullptr;
}

const AotEntry* find_entry(Registry& r, const std::string& key) {
  auto it = r.entries.find(key_hash(key));
  if (it == r.entries.end()) return nullptr;
  for (const AotEntry* e : it->second) {
    if (key == e->key) return e;  // the full text rules out hash collisions
  }
  return nullptr;
}

// Both keys of a group (See Note [CUDA group keys]). REQUIRES: r.mu held.
void record(Registry& r, const std::string& cuda_key) {
  if (r.record_path.empty() || r.recorded.count(cuda_key) != 0) return;
  const KeySet keys = {cuda_key.substr(0, cuda_key.rfind(" cuda=")), cuda_key};
  if (!add_to_manifest_file(r.record_path, keys)) {
    r.record_path.clear();  // warned once; stop trying
    return;
  }
  r.recorded.insert(cuda_key);
}

// REQUIRES: r.mu held.
void note_miss(Registry& r, const std::string& key, bool stale) {
  (stale ? r.stale : r.misses).insert(key);
}

}  // namespace

std::string ops_fingerprint(std::string_view key) {
  std::string out;
  try {
    for (const ::lazygen::fusion::KeyOp& op : ::lazygen::fusion::parse_key(key).ops) {
      const PointwiseFacts* facts = facts_by_name(op.name);
      if (facts == nullptr) return "";
      out += out.empty() ? "" : ",";
      out += facts->fingerprint;
    }
  } catch (const ::lazygen::fusion::KeyError&) {
    return "";  // not a key this runtime reads: never current
  }
  return out;
}

AotRegistration::AotRegistration(const AotEntry* entries, size_t count) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (size_t i = 0; i < count; ++i) r.entries[key_hash(entries[i].key)].push_back(&entries[i]);
}

// Groups without ops (a reduction of an input) have nothing to compile: neither counted nor
// recorded.
AotFn find_aot_kernel(const GroupProgram& program) {
  static metrics::Counter& hits = metrics::counter("aot.hit");
  static metrics::Counter& misses = metrics::counter("aot.miss");
  static metrics::Counter& stale = metrics::counter("aot.stale");
  if (program.ops.empty()) return nullptr;
  const std::string key = group_key(program);
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!r.record_path.empty()) record(r, cuda_group_key(program));
  const AotEntry* e = find_entry(r, key);
  if (e != nullptr && usable(*e)) {
    hits.add();
    return e->fn;
  }
  misses.add();
  if (e != nullptr) stale.add();
  note_miss(r, key, e != nullptr);
  return nullptr;
}

void record_aot_group(const std::string& cuda_key) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  record(r, cuda_key);
}

void note_aot_miss(const std::string& key, bool stale) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  note_miss(r, key, stale);
}

bool aot_kernels_enabled() {
  return enabled_flag().load(std::memory_order_relaxed);
}

void reset_aot_misses() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.misses.clear();
  r.stale.clear();
}

}  // namespace lazygen::cpu::fusion

namespace lazygen {

void set_aot_enabled(bool enabled) {
  cpu::fusion::enabled_flag().store(enabled, std::memory_order_relaxed);
}

bool aot_enabled() {
  return cpu::fusion::aot_kernels_enabled();
}

void set_aot_record_path(const std::string& path) {
  cpu::fusion::Registry& r = cpu::fusion::registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.record_path = path;
  r.recorded.clear();
}

std::string aot_miss_report() {
  cpu::fusion::Registry& r = cpu::fusion::registry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (r.misses.empty() && r.stale.empty()) return "";
  std::string text = "# " + std::to_string(r.misses.size() + r.stale.size()) +
                     " fusion group(s) ran on the interpreter; add these kernels to your "
                     "manifest and rebuild its kernels\n";
  for (const std::string& k : r.stale) {
    text += "# stale (built for another IR version or ops.yaml): kernel " + k + "\n";
  }
  cpu::fusion::KeySet all = r.misses;
  all.insert(r.stale.begin(), r.stale.end());
  return text + cpu::fusion::manifest_text(all);
}

}  // namespace lazygen
