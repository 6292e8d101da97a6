// Tests of the kernel cache's disk helpers (backend/kernel_cache/cache_files.h): the directory
// from the environment, atomic writes, reads of odd files, and oldest-first pruning.
#include "backend/kernel_cache/cache_files.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <string>

#include "temp_dir.h"

namespace lazygen::kernel_cache {
namespace {
namespace fs = std::filesystem;

std::optional<fs::path> dir_for(std::map<std::string, std::string> env) {
  return cache_dir_from_env([&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

std::vector<std::string> file_names(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(CacheDir, LazygenCacheDirWinsAndZeroDisables) {
  EXPECT_EQ(dir_for({{"LAZYGEN_CACHE_DIR", "/c"}, {"XDG_CACHE_HOME", "/x"}, {"HOME", "/h"}}),
            fs::path("/c"));
  EXPECT_EQ(dir_for({{"LAZYGEN_CACHE_DIR", "0"}, {"XDG_CACHE_HOME", "/x"}}), std::nullopt);
}

TEST(CacheDir, FallsBackToXdgCacheHomeThenHome) {
  EXPECT_EQ(dir_for({{"XDG_CACHE_HOME", "/x"}, {"HOME", "/h"}}), fs::path("/x/lazygen/kernels"));
  EXPECT_EQ(dir_for({{"LAZYGEN_CACHE_DIR", ""}, {"XDG_CACHE_HOME", ""}, {"HOME", "/h"}}),
            fs::path("/h/.cache/lazygen/kernels"));
  EXPECT_EQ(dir_for({}), std::nullopt);
}

TEST(CacheFiles, WritesAtomicallyAndLeavesNoTempFile) {
  testing::TempDir tmp;
  const fs::path path = tmp.path() / "a.lgk";
  ASSERT_EQ(write_entry_file(path, "first"), "");
  ASSERT_EQ(write_entry_file(path, "second"), "");  // replaces
  ReadResult read = read_entry_file(path);
  EXPECT_EQ(read.kind, ReadResult::kRead);
  EXPECT_EQ(read.bytes, "second");
  EXPECT_EQ(file_names(tmp.path()), std::vector<std::string>{"a.lgk"});
}

TEST(CacheFiles, ReadsMissingFilesAndDirectoriesAsSuch) {
  testing::TempDir tmp;
  EXPECT_EQ(read_entry_file(tmp.path() / "none.lgk").kind, ReadResult::kMissing);
  fs::create_directory(tmp.path() / "dir.lgk");
  EXPECT_EQ(read_entry_file(tmp.path() / "dir.lgk").kind, ReadResult::kNotAFile);
  remove_entry_file(tmp.path() / "dir.lgk");
  EXPECT_FALSE(fs::exists(tmp.path() / "dir.lgk"));
}

TEST(CacheFiles, WriteIntoAMissingDirectoryFailsWithAReason) {
  testing::TempDir tmp;
  std::string why = write_entry_file(tmp.path() / "no/such/dir/a.lgk", "x");
  EXPECT_NE(why.find("cannot create a file"), std::string::npos) << why;
}

TEST(CacheFiles, PrunesLeastRecentlyWrittenEntriesFirst) {
  testing::TempDir tmp;
  const auto now = fs::file_time_type::clock::now();
  const std::map<std::string, int> age_hours = {{"a.lgk", 1}, {"b.lgk", 3}, {"c.lgk", 2}};
  for (const auto& [name, hours] : age_hours) {
    ASSERT_EQ(write_entry_file(tmp.path() / name, std::string(100, 'x')), "");
    fs::last_write_time(tmp.path() / name, now - std::chrono::hours(hours));
  }
  std::ofstream(tmp.path() / "other.txt") << std::string(1000, 'y');  // not an entry: kept
  EXPECT_EQ(prune(tmp.path(), 300), 0);
  EXPECT_EQ(prune(tmp.path(), 250), 1);  // b, the oldest
  EXPECT_EQ(file_names(tmp.path()), (std::vector<std::string>{"a.lgk", "c.lgk", "other.txt"}));
  EXPECT_EQ(prune(tmp.path(), 0), 2);
  EXPECT_EQ(file_names(tmp.path()), std::vector<std::string>{"other.txt"});
}

TEST(CacheFiles, PruneDeletesStaleTempFilesOnly) {
  testing::TempDir tmp;
  const fs::path stale = tmp.path() / "a.lgk.tmp.1.2.3";
  const fs::path fresh = tmp.path() / "b.lgk.tmp.1.2.3";
  std::ofstream(stale) << "partial";
  std::ofstream(fresh) << "partial";
  fs::last_write_time(stale, fs::file_time_type::clock::now() - std::chrono::hours(2));
  prune(tmp.path(), 1 << 20);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(fresh));
}

}  // namespace
}  // namespace lazygen::kernel_cache
