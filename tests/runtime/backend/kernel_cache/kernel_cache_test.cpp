// Tests of the persistent kernel cache (backend/kernel_cache/kernel_cache.h): memory and disk
// hits, every kind of damaged entry deleted and rebuilt with the right answer, memory-only
// fallback with one warning, the size cap, LAZYGEN_CACHE_DIR=0, and threads racing on one key.
#include "backend/kernel_cache/kernel_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <latch>
#include <stdexcept>
#include <thread>
#include <vector>

#include "backend/kernel_cache/cache_files.h"
#include "backend/kernel_cache/digest.h"
#include "backend/kernel_cache/entry_format.h"
#include "lazygen/metrics.h"
#include "temp_dir.h"

namespace lazygen::kernel_cache {
namespace {
namespace fs = std::filesystem;

KernelKey key_for(const std::string& source) {
  return {source_digest(source), "test-toolchain 1.0", "none", "compute_90", "--std=c++17"};
}

int64_t count(const char* name) {
  return metrics::counter_value(std::string("kernel_cache.") + name);
}

// A builder that returns `payload` and counts its calls.
struct CountingBuild {
  std::string payload;
  std::atomic<int> calls{0};
  KernelCache::Build fn() {
    return [this] {
      ++calls;
      return payload;
    };
  }
};

KernelCache disk_cache(const fs::path& dir,
                       uint64_t max_bytes = KernelCacheOptions::kDefaultMaxBytes) {
  KernelCacheOptions options;
  options.dir = dir;
  options.max_bytes = max_bytes;
  return KernelCache(options);
}

fs::path entry_of(const fs::path& dir, const std::string& source) {
  return disk_cache(dir).entry_path(key_for(source));
}

std::string read_bytes(const fs::path& path) {
  return read_entry_file(path).bytes;
}
void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

TEST(KernelCache, BuildsOnceThenHitsMemory) {
  metrics::reset();
  testing::TempDir tmp;
  KernelCache cache = disk_cache(tmp.path());
  CountingBuild build{"ptx-A"};
  EXPECT_EQ(cache.get_or_build(key_for("A"), build.fn()), "ptx-A");
  EXPECT_EQ(cache.get_or_build(key_for("A"), build.fn()), "ptx-A");
  EXPECT_EQ(build.calls, 1);
  EXPECT_EQ(count("miss"), 1);
  EXPECT_EQ(count("memory_hit"), 1);
  EXPECT_EQ(count("write"), 1);
}

TEST(KernelCache, AFreshCacheOnTheSameDirectoryHitsTheDisk) {
  metrics::reset();
  testing::TempDir tmp;
  CountingBuild build{"ptx-A"};
  disk_cache(tmp.path()).get_or_build(key_for("A"), build.fn());
  EXPECT_EQ(disk_cache(tmp.path()).get_or_build(key_for("A"), build.fn()), "ptx-A");
  EXPECT_EQ(build.calls, 1);
  EXPECT_EQ(count("disk_hit"), 1);
  EXPECT_EQ(decode_entry(read_bytes(entry_of(tmp.path(), "A")), key_for("A").text()).status,
            EntryStatus::kOk);
}

TEST(KernelCache, KeysDifferingInAnyFieldAreDifferentEntries) {
  testing::TempDir tmp;
  KernelCache cache = disk_cache(tmp.path());
  KernelKey base = key_for("A");
  std::vector<KernelKey> keys(5, base);
  keys[0].source_hash = source_digest("B");
  keys[1].toolchain = "test-toolchain 1.1";
  keys[2].driver = "13000";
  keys[3].arch = "compute_80";
  keys[4].options = "--std=c++20";
  cache.get_or_build(base, [] { return std::string("base"); });
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(cache.get_or_build(keys[i], [i] { return std::to_string(i); }), std::to_string(i));
  }
  EXPECT_EQ(cache.get_or_build(base, [] { return std::string("rebuilt"); }), "base");
}

// Damages the entry file at `path` in one way.
struct Damage {
  const char* name;
  std::function<void(const fs::path&)> apply;
};

void edit_bytes(const fs::path& path, const std::function<void(std::string&)>& edit) {
  std::string bytes = read_bytes(path);
  edit(bytes);
  write_bytes(path, bytes);
}

const std::vector<Damage>& damages() {
  static const std::vector<Damage> kAll = {
      {"BadMagic", [](const fs::path& p) { edit_bytes(p, [](std::string& b) { b[0] = 'X'; }); }},
      {"WrongVersion", [](const fs::path& p) { edit_bytes(p, [](std::string& b) { b[8] += 1; }); }},
      {"TruncatedHeader",
       [](const fs::path& p) { edit_bytes(p, [](std::string& b) { b.resize(20); }); }},
      {"TruncatedPayload",
       [](const fs::path& p) { edit_bytes(p, [](std::string& b) { b.resize(b.size() - 3); }); }},
      {"TrailingBytes",
       [](const fs::path& p) { edit_bytes(p, [](std::string& b) { b += "junk"; }); }},
      {"FlippedPayloadByte",
       [](const fs::path& p) { edit_bytes(p, [](std::string& b) { b.back() ^= 0x01; }); }},
      {"KeyMismatch",
       [](const fs::path& p) {
         write_bytes(p, encode_entry(key_for("other").text(), "ptx-other"));
       }},
      {"ZeroLength", [](const fs::path& p) { write_bytes(p, ""); }},
      {"DirectoryInItsPlace",
       [](const fs::path& p) {
         fs::remove(p);
         fs::create_directories(p / "inner");
       }},
  };
  return kAll;
}

class DamagedEntry : public ::testing::TestWithParam<size_t> {};

TEST_P(DamagedEntry, IsDeletedAndRebuiltWithTheRightAnswer) {
  const Damage& damage = damages()[GetParam()];
  testing::TempDir tmp;
  const fs::path path = entry_of(tmp.path(), "A");
  CountingBuild build{"ptx-A"};
  disk_cache(tmp.path()).get_or_build(key_for("A"), build.fn());
  damage.apply(path);
  metrics::reset();
  EXPECT_EQ(disk_cache(tmp.path()).get_or_build(key_for("A"), build.fn()), "ptx-A");
  EXPECT_EQ(build.calls, 2) << "the damaged entry must be rebuilt, not used";
  EXPECT_EQ(count("corrupt"), 1);
  EXPECT_EQ(count("disk_hit"), 0);
  EXPECT_EQ(count("write"), 1);
  // The rebuilt entry is sound: the next fresh cache hits it.
  EXPECT_EQ(decode_entry(read_bytes(path), key_for("A").text()).status, EntryStatus::kOk);
  EXPECT_EQ(disk_cache(tmp.path()).get_or_build(key_for("A"), build.fn()), "ptx-A");
  EXPECT_EQ(build.calls, 2);
}

INSTANTIATE_TEST_SUITE_P(KernelCache, DamagedEntry, ::testing::Range<size_t>(0, damages().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return std::string(damages()[info.param].name);
                         });

TEST(KernelCache, AnotherKeysEntryUnderTheSameFileNameIsNeverReturned) {
  // Simulates a digest collision: key B's file holds a valid entry for key A.
  metrics::reset();
  testing::TempDir tmp;
  disk_cache(tmp.path()).get_or_build(key_for("A"), [] { return std::string("ptx-A"); });
  fs::copy_file(entry_of(tmp.path(), "A"), entry_of(tmp.path(), "B"));
  EXPECT_EQ(disk_cache(tmp.path()).get_or_build(key_for("B"), [] { return std::string("ptx-B"); }),
            "ptx-B");
  EXPECT_EQ(count("corrupt"), 1);
}

// Memory-only with one warning, whatever the reason the directory cannot be used.
void expect_memory_only_with_one_warning(const fs::path& dir) {
  std::vector<std::string> warnings;
  KernelCacheOptions options;
  options.dir = dir;
  options.warn = [&warnings](const std::string& w) { warnings.push_back(w); };
  KernelCache cache(options);
  CountingBuild a{"ptx-A"}, b{"ptx-B"};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(cache.get_or_build(key_for("A"), a.fn()), "ptx-A");
    EXPECT_EQ(cache.get_or_build(key_for("B"), b.fn()), "ptx-B");
  }
  EXPECT_EQ(a.calls, 1);
  EXPECT_EQ(b.calls, 1);
  EXPECT_FALSE(cache.on_disk());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find(dir.string()), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("memory only"), std::string::npos) << warnings[0];
}

TEST(KernelCache, AnUncreatableDirectoryMeansMemoryOnlyWithOneWarning) {
  testing::TempDir tmp;
  write_bytes(tmp.path() / "a_file", "x");  // even root cannot create a directory under a file
  expect_memory_only_with_one_warning(tmp.path() / "a_file" / "kernels");
}

TEST(KernelCache, AReadOnlyDirectoryMeansMemoryOnlyWithOneWarning) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only directories";
  testing::TempDir tmp;
  const fs::path dir = tmp.path() / "ro";
  fs::create_directory(dir);
  fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
  expect_memory_only_with_one_warning(dir);
  fs::permissions(dir, fs::perms::owner_all);
}

TEST(KernelCache, SizeCapPrunesTheOldestEntriesFirst) {
  metrics::reset();
  testing::TempDir tmp;
  const std::string payload(1000, 'p');
  const uint64_t entry_bytes = encode_entry(key_for("A").text(), payload).size();
  KernelCache cache = disk_cache(tmp.path(), 3 * entry_bytes + entry_bytes / 2);
  const auto now = fs::file_time_type::clock::now();
  const std::vector<std::pair<std::string, int>> age_hours = {{"A", 1}, {"B", 3}, {"C", 2}};
  for (const auto& [source, hours] : age_hours) {
    cache.get_or_build(key_for(source), [&] { return payload; });
    fs::last_write_time(entry_of(tmp.path(), source), now - std::chrono::hours(hours));
  }
  EXPECT_EQ(count("prune"), 0);
  cache.get_or_build(key_for("D"), [&] { return payload; });
  EXPECT_EQ(count("prune"), 1);
  EXPECT_FALSE(fs::exists(entry_of(tmp.path(), "B")));
  for (const char* kept : {"A", "C", "D"}) EXPECT_TRUE(fs::exists(entry_of(tmp.path(), kept)));
}

TEST(KernelCache, ADiskHitMakesAnEntryRecent) {
  testing::TempDir tmp;
  const fs::path path = entry_of(tmp.path(), "A");
  disk_cache(tmp.path()).get_or_build(key_for("A"), [] { return std::string("ptx-A"); });
  const auto old = fs::file_time_type::clock::now() - std::chrono::hours(5);
  fs::last_write_time(path, old);
  disk_cache(tmp.path()).get_or_build(key_for("A"), [] { return std::string("unused"); });
  EXPECT_GT(fs::last_write_time(path), old + std::chrono::hours(4));
}

TEST(KernelCache, LazygenCacheDirZeroDisablesTheDisk) {
  testing::TempDir tmp;
  ::setenv("XDG_CACHE_HOME", tmp.path().c_str(), 1);
  ::setenv("LAZYGEN_CACHE_DIR", "0", 1);
  KernelCache cache;
  ::unsetenv("LAZYGEN_CACHE_DIR");
  EXPECT_FALSE(cache.on_disk());
  EXPECT_TRUE(cache.dir().empty());
  CountingBuild build{"ptx-A"};
  EXPECT_EQ(cache.get_or_build(key_for("A"), build.fn()), "ptx-A");
  EXPECT_EQ(cache.get_or_build(key_for("A"), build.fn()), "ptx-A");
  EXPECT_EQ(build.calls, 1);
  EXPECT_TRUE(fs::is_empty(tmp.path()));
  EXPECT_EQ(KernelCache().dir(), tmp.path() / "lazygen/kernels");  // without the 0
}

TEST(KernelCache, ThreadsOfOneCacheShareOneBuild) {
  metrics::reset();
  testing::TempDir tmp;
  KernelCache cache = disk_cache(tmp.path());
  std::atomic<int> calls{0};
  std::latch start(8);
  std::vector<std::string> results(8);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      results[t] = cache.get_or_build(key_for("A"), [&] {
        ++calls;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        return std::string("ptx-A");
      });
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(calls, 1);
  for (const std::string& r : results) EXPECT_EQ(r, "ptx-A");
  EXPECT_EQ(count("miss"), 1);
  EXPECT_EQ(count("write"), 1);
}

TEST(KernelCache, TwoCachesRacingToStoreOneKeyLeaveOneSoundEntry) {
  // Two cache objects on one directory stand for two processes.
  testing::TempDir tmp;
  for (int round = 0; round < 20; ++round) {
    const std::string source = "K" + std::to_string(round);
    KernelCache first = disk_cache(tmp.path());
    KernelCache second = disk_cache(tmp.path());
    std::latch start(2);
    auto race = [&](KernelCache& cache, std::string* out) {
      start.arrive_and_wait();
      *out = cache.get_or_build(key_for(source), [&] { return "ptx-" + source; });
    };
    std::string a, b;
    std::thread t1(race, std::ref(first), &a);
    std::thread t2(race, std::ref(second), &b);
    t1.join();
    t2.join();
    EXPECT_EQ(a, "ptx-" + source);
    EXPECT_EQ(b, "ptx-" + source);
    const std::string bytes = read_bytes(entry_of(tmp.path(), source));
    DecodedEntry entry = decode_entry(bytes, key_for(source).text());
    EXPECT_EQ(entry.status, EntryStatus::kOk);
    EXPECT_EQ(entry.payload, "ptx-" + source);
  }
  for (const auto& e : fs::directory_iterator(tmp.path())) {
    EXPECT_TRUE(e.path().string().ends_with(kEntrySuffix)) << "left behind: " << e.path();
  }
}

TEST(KernelCache, AFailedBuildIsRethrownToEveryWaiterAndNotCached) {
  testing::TempDir tmp;
  KernelCache cache = disk_cache(tmp.path());
  std::latch start(4);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      start.arrive_and_wait();
      try {
        cache.get_or_build(key_for("A"), []() -> std::string {
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
          throw std::runtime_error("compile failed");
        });
      } catch (const std::runtime_error& e) {
        if (std::string(e.what()) == "compile failed") ++failures;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures, 4);
  EXPECT_FALSE(fs::exists(entry_of(tmp.path(), "A")));
  EXPECT_EQ(cache.get_or_build(key_for("A"), [] { return std::string("ptx-A"); }), "ptx-A");
}

}  // namespace
}  // namespace lazygen::kernel_cache
