// The kernel cache's memory layer, single flight and disk policy (kernel_cache.h).
#include "backend/kernel_cache/kernel_cache.h"

#include <cstdio>
#include <exception>

#include "backend/kernel_cache/cache_files.h"
#include "backend/kernel_cache/digest.h"
#include "backend/kernel_cache/entry_format.h"
#include "lazygen/metrics.h"

namespace lazygen::kernel_cache {
namespace fs = std::filesystem;
namespace {

void append_field(std::string& out, const char* name, const std::string& value) {
  out += name;
  out += '=';
  out += std::to_string(value.size());
  out += ':';
  out += value;
  out += '\n';
}

void warn_on_stderr(const std::string& message) {
  std::fprintf(stderr, "lazygen: warning: %s\n", message.c_str());
}

}  // namespace

std::string KernelKey::text() const {
  std::string out = "lazygen kernel key\n";
  append_field(out, "source_hash", source_hash);
  append_field(out, "toolchain", toolchain);
  append_field(out, "driver", driver);
  append_field(out, "arch", arch);
  append_field(out, "options", options);
  return out;
}

KernelCache::KernelCache(KernelCacheOptions options)
    : dir_(options.dir ? *options.dir : default_cache_dir().value_or(fs::path())),
      max_bytes_(options.max_bytes),
      warn_(options.warn ? std::move(options.warn) : warn_on_stderr),
      on_disk_(!dir_.empty()) {}

bool KernelCache::on_disk() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return on_disk_;
}

fs::path KernelCache::entry_path(const KernelKey& key) const {
  return dir_ / (hex64(digest64(key.text())) + kEntrySuffix);
}

std::string KernelCache::get_or_build(const KernelKey& key, const Build& build) {
  static metrics::Counter& memory_hits = metrics::counter("kernel_cache.memory_hit");
  static metrics::Counter& waits = metrics::counter("kernel_cache.wait");
  const std::string text = key.text();
  std::promise<Payload> promise;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (auto it = memory_.find(text); it != memory_.end()) {
      memory_hits.add();
      return *it->second;
    }
    if (auto it = building_.find(text); it != building_.end()) {
      std::shared_future<Payload> pending = it->second;
      lock.unlock();
      waits.add();
      return *pending.get();  // rethrows the builder's exception
    }
    building_.emplace(text, promise.get_future().share());
  }
  Payload payload;
  try {
    payload = load_or_build(key, text, build);
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      building_.erase(text);
    }
    promise.set_exception(std::current_exception());
    throw;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    memory_.emplace(text, payload);
    building_.erase(text);
  }
  promise.set_value(payload);
  return *payload;
}

KernelCache::Payload KernelCache::load_or_build(const KernelKey& key, const std::string& text,
                                                const Build& build) {
  static metrics::Counter& disk_hits = metrics::counter("kernel_cache.disk_hit");
  static metrics::Counter& misses = metrics::counter("kernel_cache.miss");
  const fs::path path = on_disk() ? entry_path(key) : fs::path();
  if (!path.empty()) {
    if (std::optional<std::string> loaded = load(path, text)) {
      disk_hits.add();
      return std::make_shared<const std::string>(std::move(*loaded));
    }
  }
  misses.add();
  auto payload = std::make_shared<const std::string>(build());
  if (!path.empty()) store(path, text, *payload);
  return payload;
}

std::optional<std::string> KernelCache::load(const fs::path& path, const std::string& text) {
  static metrics::Counter& corrupt = metrics::counter("kernel_cache.corrupt");
  ReadResult file = read_entry_file(path);
  if (file.kind == ReadResult::kMissing) return std::nullopt;
  if (file.kind == ReadResult::kRead) {
    DecodedEntry entry = decode_entry(file.bytes, text);
    if (entry.status == EntryStatus::kOk) {
      touch_entry_file(path);
      return std::string(entry.payload);
    }
  }
  corrupt.add();
  remove_entry_file(path);
  return std::nullopt;
}

void KernelCache::store(const fs::path& path, const std::string& text, const std::string& payload) {
  static metrics::Counter& writes = metrics::counter("kernel_cache.write");
  static metrics::Counter& pruned = metrics::counter("kernel_cache.prune");
  bool ready;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ready = dir_ready_;
  }
  if (!ready) {
    if (std::string why = ensure_directory(dir_); !why.empty()) return fall_back_to_memory(why);
    std::lock_guard<std::mutex> lock(mutex_);
    dir_ready_ = true;
  }
  if (std::string why = write_entry_file(path, encode_entry(text, payload)); !why.empty()) {
    return fall_back_to_memory(why);
  }
  writes.add();
  pruned.add(prune(dir_, max_bytes_));
}

void KernelCache::fall_back_to_memory(const std::string& why) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!on_disk_) return;
    on_disk_ = false;
  }
  warn_("kernel cache directory " + dir_.string() + " is not usable (" + why +
        "); caching kernels in memory only");
}

}  // namespace lazygen::kernel_cache
