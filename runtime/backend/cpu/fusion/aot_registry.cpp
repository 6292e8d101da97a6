// The cpu AOT kernel registry (aot_registry.h).
#include "backend/cpu/fusion/aot_registry.h"

#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "fusion/aot_lookup.h"
#include "fusion/group_key.h"
#include "fusion/kernel_key.h"
#include "lazygen/metrics.h"

namespace lazygen::cpu::fusion {

// Generated kernels carry kAotIrVersion; the keys they are found by are kernel_key.h's text.
static_assert(kAotIrVersion == ::lazygen::fusion::kKeyVersion);

namespace {

using ::lazygen::fusion::key_hash;
using ::lazygen::fusion::KeyHash;

struct HashOfKey {
  size_t operator()(const KeyHash& h) const { return static_cast<size_t>(h.lo); }
};

struct Registry {
  std::mutex mu;
  std::unordered_map<KeyHash, std::vector<const AotEntry*>, HashOfKey> entries;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: lookups may run during static destruction
  return *r;
}

// An entry is usable only if this runtime would have generated the same call for its key.
bool usable(const AotEntry& e) {
  return e.ir_version == kAotIrVersion && e.fn != nullptr &&
         e.generator_hash == ::lazygen::fusion::ops_fingerprint(e.key) &&
         KeyHash{e.hash_hi, e.hash_lo} == key_hash(e.key);
}

const AotEntry* find_entry(Registry& r, const std::string& key) {
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.entries.find(key_hash(key));
  if (it == r.entries.end()) return nullptr;
  for (const AotEntry* e : it->second) {
    if (key == e->key) return e;  // the full text rules out hash collisions
  }
  return nullptr;
}

}  // namespace

AotRegistration::AotRegistration(const AotEntry* entries, size_t count) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (size_t i = 0; i < count; ++i) r.entries[key_hash(entries[i].key)].push_back(&entries[i]);
}

// Groups without ops (a reduction of an input) have nothing to compile: neither counted nor
// recorded.
AotFn find_aot_kernel(const ::lazygen::fusion::GroupSpec& group) {
  static metrics::Counter& hits = metrics::counter("aot.hit");
  static metrics::Counter& misses = metrics::counter("aot.miss");
  static metrics::Counter& stale = metrics::counter("aot.stale");
  if (group.ops.empty()) return nullptr;
  const std::string key = ::lazygen::fusion::group_key(group);
  if (::lazygen::fusion::aot_recording()) {
    ::lazygen::fusion::record_aot_group(::lazygen::fusion::cuda_group_key(group));
  }
  const AotEntry* e = find_entry(registry(), key);
  if (e != nullptr && usable(*e)) {
    hits.add();
    return e->fn;
  }
  misses.add();
  if (e != nullptr) stale.add();
  ::lazygen::fusion::note_aot_miss(key, e != nullptr);
  return nullptr;
}

}  // namespace lazygen::cpu::fusion
