// Kernel cache directory and file I/O (cache_files.h).
#include "backend/kernel_cache/cache_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <system_error>
#include <thread>
#include <vector>

namespace lazygen::kernel_cache {
namespace fs = std::filesystem;
namespace {

constexpr auto kStaleTempAge = std::chrono::hours(1);

const char* non_empty(const EnvLookup& env, const char* name) {
  const char* v = env(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

std::string errno_message(const char* what) {
  return std::string(what) + ": " + std::error_code(errno, std::generic_category()).message();
}

// "<entry>.tmp.<pid>.<thread>.<n>": unique per process, thread and call.
fs::path temp_path_for(const fs::path& path) {
  static std::atomic<uint64_t> next{0};
  const size_t thread = std::hash<std::thread::id>{}(std::this_thread::get_id());
  std::ostringstream name;
  name << path.filename().string() << ".tmp." << ::getpid() << '.' << std::hex << thread << '.'
       << next.fetch_add(1, std::memory_order_relaxed);
  return path.parent_path() / name.str();
}

// Writes all of `bytes` to a new file at `path`. Returns "" or why not.
std::string write_new_file(const fs::path& path, const std::string& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return errno_message("cannot create a file");
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string why = errno_message("cannot write");
      ::close(fd);
      return why;
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) return errno_message("cannot close");
  return "";
}

bool is_entry_name(const std::string& name) {
  return name.ends_with(kEntrySuffix);
}
bool is_temp_name(const std::string& name) {
  return name.find(std::string(kEntrySuffix) + ".tmp.") != std::string::npos;
}

struct EntryFile {
  fs::path path;
  uint64_t bytes;
  fs::file_time_type written;
};

// The entry files in `dir`; deletes stale temp files on the way.
std::vector<EntryFile> list_entries(const fs::path& dir) {
  std::vector<EntryFile> out;
  std::error_code ec;
  const auto stale_before = fs::file_time_type::clock::now() - kStaleTempAge;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    std::error_code entry_ec;
    if (!e.is_regular_file(entry_ec)) continue;
    const fs::file_time_type written = e.last_write_time(entry_ec);
    if (entry_ec) continue;  // removed meanwhile
    if (is_temp_name(name) && written < stale_before) fs::remove(e.path(), entry_ec);
    if (!is_entry_name(name)) continue;
    const uint64_t size = e.file_size(entry_ec);
    if (!entry_ec) out.push_back({e.path(), size, written});
  }
  return out;
}

}  // namespace

std::optional<fs::path> cache_dir_from_env(const EnvLookup& env) {
  if (const char* dir = non_empty(env, "LAZYGEN_CACHE_DIR")) {
    if (std::string_view(dir) == "0") return std::nullopt;
    return fs::path(dir);
  }
  if (const char* xdg = non_empty(env, "XDG_CACHE_HOME")) return fs::path(xdg) / "lazygen/kernels";
  if (const char* home = non_empty(env, "HOME")) return fs::path(home) / ".cache/lazygen/kernels";
  return std::nullopt;
}

std::optional<fs::path> default_cache_dir() {
  return cache_dir_from_env([](const char* name) { return std::getenv(name); });
}

ReadResult read_entry_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) return {};
  if (!in || !fs::is_regular_file(status)) return {ReadResult::kNotAFile, {}};
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return {ReadResult::kNotAFile, {}};
  return {ReadResult::kRead, std::move(bytes).str()};
}

std::string ensure_directory(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return "cannot create " + dir.string() + ": " + ec.message();
  if (!fs::is_directory(dir, ec)) return dir.string() + " is not a directory";
  return "";
}

std::string write_entry_file(const fs::path& path, const std::string& bytes) {
  const fs::path temp = temp_path_for(path);
  std::string why = write_new_file(temp, bytes);
  std::error_code ec;
  if (why.empty() && std::rename(temp.c_str(), path.c_str()) != 0) {
    why = errno_message("cannot rename the temp file");
  }
  if (!why.empty()) fs::remove(temp, ec);
  return why.empty() ? why : why + " (" + path.string() + ")";
}

void remove_entry_file(const fs::path& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}

void touch_entry_file(const fs::path& path) {
  std::error_code ec;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ec);
}

int64_t prune(const fs::path& dir, uint64_t max_bytes) {
  std::vector<EntryFile> entries = list_entries(dir);
  uint64_t total = 0;
  for (const EntryFile& e : entries) total += e.bytes;
  if (total <= max_bytes) return 0;
  std::sort(entries.begin(), entries.end(), [](const EntryFile& a, const EntryFile& b) {
    return a.written != b.written ? a.written < b.written : a.path < b.path;
  });
  int64_t pruned = 0;
  for (const EntryFile& e : entries) {
    if (total <= max_bytes) break;
    std::error_code ec;
    if (fs::remove(e.path, ec)) ++pruned;
    total -= e.bytes;  // also when another process removed it first
  }
  return pruned;
}

}  // namespace lazygen::kernel_cache
