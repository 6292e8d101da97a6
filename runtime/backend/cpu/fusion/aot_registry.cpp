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

// An earlier lookup's answer, found again by the group's signature (group_signature).
struct Answer {
  std::string key;
  const AotEntry* entry = nullptr;
  bool usable = false;
};

struct SignatureHash {
  size_t operator()(const std::vector<uint64_t>& s) const {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (uint64_t v : s) h = (h ^ v) * 0x100000001b3ULL;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

// Lookups answered from the memo print no key (See Note [AOT lookup memo]).
constexpr size_t kMaxAnswers = 4096;

struct Registry {
  std::mutex mu;
  std::unordered_map<KeyHash, std::vector<const AotEntry*>, HashOfKey> entries;
  std::unordered_map<std::vector<uint64_t>, Answer, SignatureHash> answers;
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

// Note [AOT lookup memo]
// Every compile and every specialization looks up each of its groups, and printing a group's key
// took a quarter of a specialization (deciding whether an entry is usable parses its key too).
// So the registry remembers each answer, entry and usability, under the group's
// signature, which names what the key does in numbers (group_signature), and a group seen before
// is answered by comparing signatures; a registration (a library loaded later) forgets them all,
// and so does reaching kMaxAnswers signatures.
AotRegistration::AotRegistration(const AotEntry* entries, size_t count) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (size_t i = 0; i < count; ++i) r.entries[key_hash(entries[i].key)].push_back(&entries[i]);
  r.answers.clear();
}

namespace {

// What find_aot_kernel needs of find_entry's answer for a group: the key only for a miss.
struct Found {
  const AotEntry* entry = nullptr;
  bool usable = false;
  std::string miss_key;
};

Found found(const Answer& a) {
  return {a.entry, a.usable, a.usable ? std::string() : a.key};
}

// find_entry's answer for `group`, from the memo when it holds the group's signature.
Found lookup(Registry& r, const ::lazygen::fusion::GroupSpec& group) {
  std::vector<uint64_t> signature = ::lazygen::fusion::group_signature(group);
  {
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.answers.find(signature);
    if (it != r.answers.end()) return found(it->second);
  }
  Answer a{::lazygen::fusion::group_key(group)};
  a.entry = find_entry(r, a.key);
  a.usable = a.entry != nullptr && usable(*a.entry);
  Found f = found(a);
  std::lock_guard<std::mutex> lock(r.mu);
  if (r.answers.size() >= kMaxAnswers) r.answers.clear();
  r.answers.emplace(std::move(signature), std::move(a));
  return f;
}

}  // namespace

// Groups without ops (a reduction of an input) have nothing to compile: neither counted nor
// recorded.
AotFn find_aot_kernel(const ::lazygen::fusion::GroupSpec& group) {
  static metrics::Counter& hits = metrics::counter("aot.hit");
  static metrics::Counter& misses = metrics::counter("aot.miss");
  static metrics::Counter& stale = metrics::counter("aot.stale");
  if (group.ops.empty()) return nullptr;
  if (::lazygen::fusion::aot_recording()) {
    ::lazygen::fusion::record_aot_group(::lazygen::fusion::cuda_group_key(group));
  }
  const Found f = lookup(registry(), group);
  if (f.usable) {
    hits.add();
    return f.entry->fn;
  }
  misses.add();
  if (f.entry != nullptr) stale.add();
  ::lazygen::fusion::note_aot_miss(f.miss_key, f.entry != nullptr);
  return nullptr;
}

}  // namespace lazygen::cpu::fusion
