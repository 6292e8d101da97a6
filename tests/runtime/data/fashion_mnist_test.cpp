// Tests for the Fashion-MNIST reader and loader (runtime/data/fashion_mnist.cpp) on small IDX.gz
// files the tests write (good ones and corrupt ones), plus one reading the real dataset when
// dataset-fashion-mnist is installed.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>

#include "lazygen/data/fashion_mnist.h"
#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen::data {
namespace {

namespace fs = std::filesystem;
using testing::values;

std::vector<uint8_t> idx_bytes(const std::vector<uint32_t>& dims, const std::vector<uint8_t>& data,
                               uint8_t type = 0x08) {
  std::vector<uint8_t> out = {0, 0, type, static_cast<uint8_t>(dims.size())};
  for (uint32_t d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(d >> shift));
  }
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

void write_gz(const fs::path& path, const std::vector<uint8_t>& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  ASSERT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())),
            static_cast<int>(bytes.size()));
  gzclose(f);
}

// A directory with both splits of a tiny dataset: n_train / n_test images whose pixels are all
// the image's index, labelled index % 10.
class FashionMnistFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("lazygen_fmnist_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::create_directories(dir_);
    write_split("train", 25);
    write_split("t10k", 7);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write_split(const std::string& prefix, uint32_t n) {
    std::vector<uint8_t> pixels, labels;
    for (uint32_t i = 0; i < n; ++i) {
      pixels.insert(pixels.end(), 28 * 28, static_cast<uint8_t>(i));
      labels.push_back(static_cast<uint8_t>(i % 10));
    }
    write_gz(dir_ / (prefix + "-images-idx3-ubyte.gz"), idx_bytes({n, 28, 28}, pixels));
    write_gz(dir_ / (prefix + "-labels-idx1-ubyte.gz"), idx_bytes({n}, labels));
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

TEST_F(FashionMnistFiles, ReadsIdxDimsAndPayload) {
  const IdxArray a = read_idx_gz(path("t10k-labels-idx1-ubyte.gz"));
  EXPECT_EQ(a.dims, (std::vector<int64_t>{7}));
  EXPECT_EQ(a.data, (std::vector<uint8_t>{0, 1, 2, 3, 4, 5, 6}));
}

TEST_F(FashionMnistFiles, NormalizesImagesAndBatchesEverySampleOncePerEpoch) {
  FashionMnist train(Split::Train, dir_.string());
  EXPECT_EQ(train.size(), 25);
  DataLoader loader(train, 10, /*shuffle=*/true, /*seed=*/3);
  ASSERT_EQ(loader.num_batches(), 3);
  std::multiset<int64_t> seen;
  for (int64_t i = 0; i < 3; ++i) {
    const Batch b = loader.batch(i);
    const int64_t n = i < 2 ? 10 : 5;
    EXPECT_EQ(b.images.sizes(), (std::vector<int64_t>{n, 1, 28, 28}));
    EXPECT_EQ(b.images.dtype(), DType::Float32);
    EXPECT_EQ(b.targets.dtype(), DType::Int64);
    const auto px = values<float>(b.images);
    const auto labels = values<int64_t>(b.targets);
    for (int64_t k = 0; k < n; ++k) {
      const int64_t index = loader.order()[i * 10 + k];
      seen.insert(index);
      EXPECT_EQ(labels[k], index % 10);
      EXPECT_NEAR(px[k * 784 + 400], (index / 255.0 - 0.2860) / 0.3530, 1e-5);
    }
  }
  EXPECT_EQ(seen.size(), 25u);
  EXPECT_EQ(std::set<int64_t>(seen.begin(), seen.end()).size(), 25u);
}

TEST_F(FashionMnistFiles, ShufflesBySeedAndEpoch) {
  FashionMnist train(Split::Train, dir_.string());
  DataLoader a(train, 5, true, 1), b(train, 5, true, 1), c(train, 5, true, 2),
      plain(train, 5, false);
  EXPECT_EQ(a.order(), b.order());
  EXPECT_NE(a.order(), c.order());
  const auto first = a.order();
  a.next_epoch();
  EXPECT_NE(a.order(), first);
  std::vector<int64_t> identity(25);
  for (int64_t i = 0; i < 25; ++i) identity[i] = i;
  EXPECT_EQ(plain.order(), identity);
  EXPECT_EQ(DataLoader(train, 10, false, 0, /*drop_last=*/true).num_batches(), 2);
  EXPECT_THROW(a.batch(5), std::out_of_range);
}

// The message of the DataError that `fn` throws.
template <class Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const DataError& e) {
    return e.what();
  }
  return "(no DataError)";
}

TEST_F(FashionMnistFiles, NamesTheFileAndTheProblemOnCorruption) {
  const std::string bad = path("bad.gz");
  write_gz(bad, idx_bytes({3}, {1, 2, 3}, 0x0D));  // float elements
  EXPECT_NE(error_of([&] { read_idx_gz(bad); }).find(bad + ": not an IDX file"), std::string::npos);
  write_gz(bad, idx_bytes({4}, {1, 2, 3}));  // one byte short
  EXPECT_NE(error_of([&] { read_idx_gz(bad); }).find("need 4 bytes of data, the file has 3"),
            std::string::npos);
  write_gz(bad, {0, 0, 8});
  EXPECT_NE(error_of([&] { read_idx_gz(bad); }).find(bad), std::string::npos);
  EXPECT_NE(error_of([&] { read_idx_gz(path("missing.gz")); }).find("cannot open"),
            std::string::npos);
  // A label file that does not match the images.
  write_gz(dir_ / "t10k-labels-idx1-ubyte.gz", idx_bytes({6}, {0, 1, 2, 3, 4, 5}));
  EXPECT_NE(error_of([&] { FashionMnist(Split::Test, dir_.string()); }).find("expected 7 labels"),
            std::string::npos);
  write_gz(dir_ / "t10k-labels-idx1-ubyte.gz", idx_bytes({7}, {0, 1, 2, 3, 4, 5, 10}));
  EXPECT_NE(error_of([&] { FashionMnist(Split::Test, dir_.string()); }).find("not a class"),
            std::string::npos);
}

TEST_F(FashionMnistFiles, SaysWhichPackageToInstallWhenFilesAreMissing) {
  fs::remove(dir_ / "train-labels-idx1-ubyte.gz");
  EXPECT_FALSE(FashionMnist::available(dir_.string()));
  const std::string msg = error_of([&] { FashionMnist(Split::Train, dir_.string()); });
  EXPECT_NE(msg.find("Fashion-MNIST not found at " + path("train-labels-idx1-ubyte.gz") +
                     ": apt-get install dataset-fashion-mnist"),
            std::string::npos)
      << msg;
}

TEST(FashionMnist, ReadsTheRealDataset) {
  if (!FashionMnist::available()) {
    GTEST_SKIP() << "Fashion-MNIST not installed: apt-get install " << kFashionMnistPackage;
  }
  FashionMnist train(Split::Train), test(Split::Test);
  EXPECT_EQ(train.size(), 60000);
  EXPECT_EQ(test.size(), 10000);
  // The normalized training images have mean ~0 and standard deviation ~1.
  std::vector<int64_t> first(1000);
  for (int64_t i = 0; i < 1000; ++i) first[i] = i;
  const auto px = values<double>(train.images(first));
  double sum = 0, sum_sq = 0;
  for (double v : px) sum += v, sum_sq += v * v;
  const double mean = sum / static_cast<double>(px.size());
  EXPECT_NEAR(mean, 0.0, 0.05);
  EXPECT_NEAR(std::sqrt(sum_sq / static_cast<double>(px.size()) - mean * mean), 1.0, 0.05);
  const auto labels = values<int64_t>(test.labels(first));
  EXPECT_EQ(*std::max_element(labels.begin(), labels.end()), 9);
}

}  // namespace
}  // namespace lazygen::data
