// The disk side of the kernel cache: where the directory is, reading an entry file, writing one
// atomically, and pruning the directory to a size cap. No knowledge of the entry format beyond the
// file suffix. Nothing here throws on I/O errors: failures are results, so a bad disk can only make
// the cache slower, never crash the program.
//
// Thread and process safety: write_entry_file() writes to a temp file whose name is unique per
// process, thread and call, then rename()s it over the entry, which POSIX makes atomic; readers see
// the old file, the new file or no file, never a partial one. Concurrent writers of one entry are
// safe (the last rename wins; both wrote the same key). prune() may race with writers and readers
// in other processes; a reader that loses a file just rebuilds the entry.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace lazygen::kernel_cache {

inline constexpr const char* kEntrySuffix = ".lgk";

// Reads environment variables; std::getenv in production, a map in tests.
using EnvLookup = std::function<const char*(const char*)>;

// The cache directory the environment asks for; nullopt means "no disk cache":
//   LAZYGEN_CACHE_DIR=0       disabled
//   LAZYGEN_CACHE_DIR=<dir>   <dir>
//   else XDG_CACHE_HOME=<d>   <d>/lazygen/kernels
//   else HOME=<h>             <h>/.cache/lazygen/kernels
//   else                      disabled (nowhere to put it)
// Empty values count as unset.
std::optional<std::filesystem::path> cache_dir_from_env(const EnvLookup& env);
// cache_dir_from_env over the process environment.
std::optional<std::filesystem::path> default_cache_dir();

struct ReadResult {
  enum Kind { kMissing, kRead, kNotAFile } kind = kMissing;
  std::string bytes;  // the file's contents when kind == kRead
};
// Reads the whole file at `path`. A directory or other non-regular file there is kNotAFile; an
// unreadable file is reported as kNotAFile too, so the caller replaces it.
ReadResult read_entry_file(const std::filesystem::path& path);

// Creates `dir` (and parents) if needed. Returns "" on success, else why not.
std::string ensure_directory(const std::filesystem::path& dir);

// Writes `bytes` to `path` through a unique temp file in the same directory and rename().
// Returns "" on success, else why not (the temp file is removed).
std::string write_entry_file(const std::filesystem::path& path, const std::string& bytes);

// Removes whatever is at `path` (a file, or a directory that sits where a file should be).
void remove_entry_file(const std::filesystem::path& path);

// Marks the entry at `path` as just used, for prune()'s oldest-first order. Errors are ignored.
void touch_entry_file(const std::filesystem::path& path);

// Deletes entry files (kEntrySuffix) in `dir`, least recently written or touched first, until
// their total size is at most `max_bytes`; also deletes temp files left by crashed writers more
// than an hour ago. Returns the number of entry files deleted.
int64_t prune(const std::filesystem::path& dir, uint64_t max_bytes);

}  // namespace lazygen::kernel_cache
