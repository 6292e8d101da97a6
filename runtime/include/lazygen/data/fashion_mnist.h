// Fashion-MNIST (Xiao et al., 2017): 70,000 28x28 grey images of 10 kinds of clothing, read from
// the gzip-compressed IDX files that Debian's dataset-fashion-mnist package installs
// (/usr/share/datasets/fashion-mnist/{train,t10k}-{images-idx3,labels-idx1}-ubyte.gz), and a
// loader that serves them as training batches.
//
//   data::FashionMnist train(data::Split::Train);       // throws DataError when not installed
//   data::DataLoader loader(train, 64, /*shuffle=*/true, /*seed=*/1234);
//   for (int64_t i = 0; i < loader.num_batches(); ++i) {
//     data::Batch b = loader.batch(i);  // float32 [64, 1, 28, 28], int64 [64]
//   }
//   loader.next_epoch();                // a new order
//
// Images are normalized as (pixel / 255 - 0.2860) / 0.3530, the dataset's mean and standard
// deviation (what torch_peer.py and the PyTorch tutorial use). The dataset keeps the raw bytes
// (55 MB for both splits); a batch is built on demand. Everything is on the cpu: move a batch
// with .to(kLazy). Thread safety: const methods may be called concurrently.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "lazygen/tensor.h"

namespace lazygen::data {

inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";
inline constexpr const char* kFashionMnistPackage = "dataset-fashion-mnist";
inline constexpr double kFashionMnistMean = 0.2860;
inline constexpr double kFashionMnistStd = 0.3530;

// A missing, unreadable or malformed data file; what() names the file.
class DataError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The content of an IDX file of unsigned bytes: its dims and its row-major payload.
struct IdxArray {
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;
};

// Reads a gzip-compressed (or plain: zlib reads both) IDX file whose element type is unsigned
// byte (magic 0x0000 08 <rank>). Throws DataError naming `path` when it cannot be opened or
// decompressed, the magic is wrong, or the payload is not exactly the product of the dims.
IdxArray read_idx_gz(const std::string& path);

enum class Split { Train, Test };

class FashionMnist {
 public:
  // Reads `split` (train: 60,000 images, test: 10,000) from `dir`. Throws DataError
  // "Fashion-MNIST not found at <file>: apt-get install dataset-fashion-mnist" when a file is
  // missing, and a DataError naming the file when one is malformed (images not [n, 28, 28],
  // labels not [n] with values below 10).
  explicit FashionMnist(Split split, const std::string& dir = kFashionMnistDir);

  // True when both splits' files exist in `dir` (so tests can skip without them).
  static bool available(const std::string& dir = kFashionMnistDir);

  int64_t size() const { return static_cast<int64_t>(labels_.size()); }
  static constexpr int64_t kRows = 28, kCols = 28, kClasses = 10;

  // Normalized images [indices.size(), 1, 28, 28] (float32) and their labels (int64).
  Tensor images(const std::vector<int64_t>& indices) const;
  Tensor labels(const std::vector<int64_t>& indices) const;

 private:
  std::vector<uint8_t> pixels_;  // size() * 28 * 28
  std::vector<uint8_t> labels_;
};

struct Batch {
  Tensor images;   // float32 [n, 1, 28, 28]
  Tensor targets;  // int64 [n]
};

// Serves a dataset in batches, in a shuffled order (a function of seed and epoch) or in order.
// The last batch is smaller when the size is not a multiple of batch_size, unless drop_last.
class DataLoader {
 public:
  DataLoader(const FashionMnist& dataset, int64_t batch_size = 64, bool shuffle = true,
             uint64_t seed = 0, bool drop_last = false);

  int64_t num_batches() const;
  // Batch i of the current epoch. REQUIRES: 0 <= i < num_batches().
  Batch batch(int64_t i) const;
  // Starts the next epoch (a new shuffled order; the same order without shuffle).
  void next_epoch();
  int64_t epoch() const { return epoch_; }
  const std::vector<int64_t>& order() const { return order_; }

 private:
  void shuffle_order();

  const FashionMnist& dataset_;
  int64_t batch_size_;
  bool shuffle_;
  uint64_t seed_;
  bool drop_last_;
  int64_t epoch_ = 0;
  std::vector<int64_t> order_;
};

}  // namespace lazygen::data
