// The CUDA AOT kernel registry (cuda_aot_registry.h; See Note [CUDA AOT kernels]).
#include "backend/cuda/aot/cuda_aot_registry.h"

#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "fusion/aot_lookup.h"
#include "fusion/kernel_key.h"
#include "lazygen/metrics.h"

namespace lazygen::cuda {
namespace {

static_assert(kCudaAotIrVersion == fusion::kKeyVersion,
              "CUDA keys share the cpu keys' grammar and version");

using fusion::KeyHash;

struct HashOfKey {
  size_t operator()(const KeyHash& h) const { return static_cast<size_t>(h.lo); }
};

struct Registry {
  std::mutex mu;
  std::unordered_map<KeyHash, std::vector<const CudaAotEntry*>, HashOfKey> entries;
};

Registry& registry() {
  static auto* r = new Registry;  // never destroyed: lookups may run during static destruction
  return *r;
}

const CudaAotEntry* find_entry(Registry& r, const std::string& key) {
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.entries.find(fusion::key_hash(key));
  if (it == r.entries.end()) return nullptr;
  for (const CudaAotEntry* e : it->second) {
    if (key == e->key) return e;  // the full text rules out hash collisions
  }
  return nullptr;
}

// Whether this runtime's JIT would compile exactly the entry's kernel for `kernel`.
bool usable(const CudaAotEntry& e, const GroupKernel& kernel) {
  return e.ir_version == kCudaAotIrVersion && e.index32 != nullptr && e.index64 != nullptr &&
         e.generator_hash == fusion::ops_fingerprint(e.key) &&
         KeyHash{e.hash_hi, e.hash_lo} == fusion::key_hash(e.key) &&
         KeyHash{e.source_hi, e.source_lo} == fusion::key_hash(kernel.source);
}

}  // namespace

CudaAotRegistration::CudaAotRegistration(const CudaAotEntry* entries, size_t count) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (size_t i = 0; i < count; ++i) {
    r.entries[fusion::key_hash(entries[i].key)].push_back(&entries[i]);
  }
}

const CudaAotEntry* find_cuda_aot_kernel(const GroupKernel& kernel) {
  static metrics::Counter& hits = metrics::counter("cuda.aot.hit");
  static metrics::Counter& misses = metrics::counter("cuda.aot.miss");
  static metrics::Counter& stale = metrics::counter("cuda.aot.stale");
  if (kernel.key.find(" op=") == std::string::npos) return nullptr;
  fusion::record_aot_group(kernel.key);
  const CudaAotEntry* e = find_entry(registry(), kernel.key);
  if (e != nullptr && usable(*e, kernel)) {
    hits.add();
    return e;
  }
  misses.add();
  if (e != nullptr) stale.add();
  fusion::note_aot_miss(kernel.key, e != nullptr);
  return nullptr;
}

}  // namespace lazygen::cuda
