// Fashion-MNIST reading and batching (lazygen/data/fashion_mnist.h).
//
// IDX format (LeCun's MNIST page): a big-endian magic 0x0000 <type> <rank> (type 0x08 =
// unsigned byte), then <rank> big-endian uint32 dims, then the row-major payload. zlib's gzread
// decompresses .gz files (and passes plain files through).
#include "lazygen/data/fashion_mnist.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "core/tensor/philox.h"
#include "lazygen/factory.h"
#include "lazygen/shape.h"

namespace lazygen::data {
namespace {

constexpr size_t kChunk = 1 << 20;

struct GzCloser {
  void operator()(gzFile_s* f) const { gzclose(f); }
};

// The whole decompressed content of `path`.
std::vector<uint8_t> read_gz(const std::string& path) {
  std::unique_ptr<gzFile_s, GzCloser> file(gzopen(path.c_str(), "rb"));
  if (!file) throw DataError(path + ": cannot open file");
  std::vector<uint8_t> out;
  for (;;) {
    const size_t at = out.size();
    out.resize(at + kChunk);
    const int n = gzread(file.get(), out.data() + at, static_cast<unsigned>(kChunk));
    if (n < 0) {
      int code = 0;
      throw DataError(path + ": corrupt gzip data (" + gzerror(file.get(), &code) + ")");
    }
    out.resize(at + static_cast<size_t>(n));
    if (n == 0) break;
  }
  return out;
}

uint32_t big_endian(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

std::string file_name(Split split, bool images) {
  const std::string prefix = split == Split::Train ? "train" : "t10k";
  return prefix + (images ? "-images-idx3-ubyte.gz" : "-labels-idx1-ubyte.gz");
}

// The path of one of the dataset's files; DataError with the package to install when missing.
std::string dataset_file(const std::string& dir, Split split, bool images) {
  const std::string path = (std::filesystem::path(dir) / file_name(split, images)).string();
  if (!std::filesystem::exists(path)) {
    throw DataError("Fashion-MNIST not found at " + path + ": apt-get install " +
                    kFashionMnistPackage);
  }
  return path;
}

}  // namespace

IdxArray read_idx_gz(const std::string& path) {
  const std::vector<uint8_t> raw = read_gz(path);
  if (raw.size() < 4 || raw[0] != 0 || raw[1] != 0 || raw[2] != 0x08 || raw[3] == 0) {
    throw DataError(path + ": not an IDX file of unsigned bytes (bad magic number)");
  }
  const size_t rank = raw[3], header = 4 + 4 * rank;
  if (raw.size() < header) throw DataError(path + ": truncated IDX header");
  IdxArray out;
  size_t count = 1;
  for (size_t i = 0; i < rank; ++i) {
    out.dims.push_back(big_endian(raw.data() + 4 + 4 * i));
    count *= static_cast<size_t>(out.dims.back());
  }
  if (raw.size() - header != count) {
    throw DataError(path + ": IDX dims " + sizes_str(out.dims) + " need " + std::to_string(count) +
                    " bytes of data, the file has " + std::to_string(raw.size() - header));
  }
  out.data.assign(raw.begin() + static_cast<std::ptrdiff_t>(header), raw.end());
  return out;
}

FashionMnist::FashionMnist(Split split, const std::string& dir) {
  const std::string image_path = dataset_file(dir, split, true);
  const std::string label_path = dataset_file(dir, split, false);
  IdxArray images = read_idx_gz(image_path);
  IdxArray labels = read_idx_gz(label_path);
  if (images.dims.size() != 3 || images.dims[1] != kRows || images.dims[2] != kCols) {
    throw DataError(image_path + ": expected images of shape [n, 28, 28], got " +
                    sizes_str(images.dims));
  }
  if (labels.dims.size() != 1 || labels.dims[0] != images.dims[0]) {
    throw DataError(label_path + ": expected " + std::to_string(images.dims[0]) +
                    " labels (one per image), got shape " + sizes_str(labels.dims));
  }
  const auto bad =
      std::find_if(labels.data.begin(), labels.data.end(), [](uint8_t v) { return v >= kClasses; });
  if (bad != labels.data.end()) {
    throw DataError(label_path + ": label " + std::to_string(*bad) + " is not a class (0-9)");
  }
  pixels_ = std::move(images.data);
  labels_ = std::move(labels.data);
}

bool FashionMnist::available(const std::string& dir) {
  for (Split split : {Split::Train, Split::Test}) {
    for (bool images : {true, false}) {
      if (!std::filesystem::exists(std::filesystem::path(dir) / file_name(split, images))) {
        return false;
      }
    }
  }
  return true;
}

Tensor FashionMnist::images(const std::vector<int64_t>& indices) const {
  constexpr int64_t kPixels = kRows * kCols;
  Tensor out = empty({static_cast<int64_t>(indices.size()), 1, kRows, kCols});
  float* p = out.data_ptr<float>();
  const auto scale = static_cast<float>(1.0 / (255.0 * kFashionMnistStd));
  const auto shift = static_cast<float>(kFashionMnistMean / kFashionMnistStd);
  for (size_t i = 0; i < indices.size(); ++i) {
    const uint8_t* src = pixels_.data() + indices[i] * kPixels;
    for (int64_t k = 0; k < kPixels; ++k) p[i * kPixels + k] = src[k] * scale - shift;
  }
  return out;
}

Tensor FashionMnist::labels(const std::vector<int64_t>& indices) const {
  std::vector<int64_t> out;
  out.reserve(indices.size());
  for (int64_t i : indices) out.push_back(labels_[static_cast<size_t>(i)]);
  return tensor(out);
}

DataLoader::DataLoader(const FashionMnist& dataset, int64_t batch_size, bool shuffle, uint64_t seed,
                       bool drop_last)
    : dataset_(dataset),
      batch_size_(batch_size),
      shuffle_(shuffle),
      seed_(seed),
      drop_last_(drop_last),
      order_(static_cast<size_t>(dataset.size())) {
  if (batch_size < 1) throw std::invalid_argument("DataLoader: batch_size must be at least 1");
  shuffle_order();
}

int64_t DataLoader::num_batches() const {
  const int64_t n = dataset_.size();
  return drop_last_ ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
}

Batch DataLoader::batch(int64_t i) const {
  if (i < 0 || i >= num_batches()) {
    throw std::out_of_range("DataLoader: batch " + std::to_string(i) + " of " +
                            std::to_string(num_batches()));
  }
  const int64_t begin = i * batch_size_, end = std::min(begin + batch_size_, dataset_.size());
  const std::vector<int64_t> indices(order_.begin() + begin, order_.begin() + end);
  return {dataset_.images(indices), dataset_.labels(indices)};
}

void DataLoader::next_epoch() {
  ++epoch_;
  shuffle_order();
}

// Fisher-Yates with Philox draws keyed by (seed, epoch): the same order on every machine.
void DataLoader::shuffle_order() {
  for (size_t i = 0; i < order_.size(); ++i) order_[i] = static_cast<int64_t>(i);
  if (!shuffle_) return;
  const uint64_t stream = seed_ ^ (0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(epoch_ + 1));
  for (size_t i = order_.size(); i > 1; --i) {
    const auto w = lazygen::detail::philox_block(stream, i);
    const uint64_t r = (uint64_t{w[0]} << 32) | w[1];
    const auto j = static_cast<size_t>((static_cast<unsigned __int128>(r) * i) >> 64);
    std::swap(order_[i - 1], order_[j]);
  }
}

}  // namespace lazygen::data
