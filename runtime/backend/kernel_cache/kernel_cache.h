// A persistent cache of JIT artifacts (PTX, cubin, ...): in memory per cache object, and on disk
// one file per entry so that later processes skip the compile. Needs no CUDA; the NVRTC compiler
// (backend/cuda/jit/nvrtc_compiler.h) is its first user.
//
//   KernelCache cache;  // directory from the environment, see cache_dir_from_env()
//   std::string ptx = cache.get_or_build(key, [&] { return compile(source); });
//
// Lookup order: memory, then disk, then build(). Disk entries are validated on load (see Note
// [Kernel cache entry format]); an invalid one (corrupt, truncated, another version, another key
// under the same file name, a directory in its place) is deleted and rebuilt, never used. If the
// directory cannot be created or written, the cache warns once and keeps entries in memory only.
// After each write the directory is pruned to `max_bytes`, least recently used first (a disk hit
// refreshes the file's time).
//
// Metrics (counters): kernel_cache.memory_hit, kernel_cache.disk_hit, kernel_cache.miss (build()
// ran), kernel_cache.corrupt (an invalid entry deleted), kernel_cache.write (entries written),
// kernel_cache.prune (entries deleted by the size cap), kernel_cache.wait (callers that waited
// for another thread's build of their key).
//
// Thread safety: get_or_build may be called from any thread. build() runs once per key per cache
// object: threads asking for a key that is being built wait for that build (single flight) and
// get its result or its exception. Separate objects and processes may share a directory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace lazygen::kernel_cache {

// Everything an artifact depends on. Two keys are equal when their text() is.
struct KernelKey {
  std::string source_hash;  // source_digest(source)
  std::string toolchain;    // compiler and version, e.g. "nvrtc 13.0"
  std::string driver;       // driver version, or "none" when there is no driver
  std::string arch;         // target architecture, e.g. "compute_90"
  std::string options;      // compiler options, in order
  // An unambiguous text of all fields (each value length-prefixed); stored in the entry file.
  std::string text() const;
};

struct KernelCacheOptions {
  static constexpr uint64_t kDefaultMaxBytes = uint64_t{256} << 20;
  // nullopt: default_cache_dir(); an empty path: memory only.
  std::optional<std::filesystem::path> dir;
  uint64_t max_bytes = kDefaultMaxBytes;
  // Receives the (single) warning about falling back to memory; null: stderr.
  std::function<void(const std::string&)> warn;
};

class KernelCache {
 public:
  using Build = std::function<std::string()>;

  explicit KernelCache(KernelCacheOptions options = {});
  KernelCache(const KernelCache&) = delete;
  KernelCache& operator=(const KernelCache&) = delete;

  // The artifact for `key`: cached, or build()'s result (then cached). Rethrows build()'s
  // exception, caching nothing.
  std::string get_or_build(const KernelKey& key, const Build& build);

  // Whether entries go to disk (false when disabled or after falling back to memory).
  bool on_disk() const;
  // The directory (empty when disabled) and the file an entry for `key` would live in.
  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path entry_path(const KernelKey& key) const;

 private:
  using Payload = std::shared_ptr<const std::string>;

  Payload load_or_build(const KernelKey& key, const std::string& text, const Build& build);
  std::optional<std::string> load(const std::filesystem::path& path, const std::string& text);
  void store(const std::filesystem::path& path, const std::string& text,
             const std::string& payload);
  void fall_back_to_memory(const std::string& why);

  std::filesystem::path dir_;
  uint64_t max_bytes_;
  std::function<void(const std::string&)> warn_;

  mutable std::mutex mutex_;
  bool on_disk_;            // guarded by mutex_
  bool dir_ready_ = false;  // guarded by mutex_: ensure_directory() succeeded
  std::unordered_map<std::string, Payload> memory_;  // key text -> payload
  std::unordered_map<std::string, std::shared_future<Payload>> building_;
};

}  // namespace lazygen::kernel_cache
