// The cpu AOT kernel registry (aot_registry.h).
#include "backend/cpu/fusion/aot_registry.h"

#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
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
  std::unordered_map<const AotEntry*, bool> usable;  // usable_entry's answers, once per entry
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

// The entry registered for `key` and whether it is usable (which parses the entry's key: asked
// once per entry, since every compile and specialization looks its groups up).
std::pair<const AotEntry*, bool> find_entry(Registry& r, const std::string& key) {
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.entries.find(key_hash(key));
  if (it == r.entries.end()) return {nullptr, false};
  for (const AotEntry* e : it->second) {
    if (key != e->key) continue;  // the full text rules out hash collisions
    auto [known, added] = r.usable.try_emplace(e, false);
    if (added) known->second = usable(*e);
    return {e, known->second};
  }
  return {nullptr, false};
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
  const auto [e, is_usable] = find_entry(registry(), key);
  if (is_usable) {
    hits.add();
    return e->fn;
  }
  misses.add();
  if (e != nullptr) stale.add();
  ::lazygen::fusion::note_aot_miss(key, e != nullptr);
  return nullptr;
}

}  // namespace lazygen::cpu::fusion
