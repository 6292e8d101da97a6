// Random factories (rand, randn, randint) and the default generator.
//
// Note [Random numbers]
// ~~~~~~~~~~~~~~~~~~~~~
// Every draw is a function of (seed, counter): element i of a tensor uses Philox block
// offset + i / L, lane i % L, where offset is what the Generator had consumed before the call and
// L is the number of values one 128-bit block yields (4 floats from 24-bit words; 2 doubles or
// 2 int64 from 64-bit word pairs; randn: 4 float or 2 double normals via Box-Muller on word
// pairs). The generator then advances by ceil(numel / L) blocks. So a seed fixes every tensor of
// a program regardless of thread count, and any element can be recomputed independently.
// randint maps a 64-bit word r to low + floor(r * (high - low) / 2^64) (Lemire's multiply-shift;
// the bias is below 2^-32 for ranges under 2^32).
#include <algorithm>
#include <cmath>
#include <mutex>
#include <numbers>

#include "core/tensor/philox.h"
#include "core/tensor/tensor_impl.h"
#include "lazygen/factory.h"

namespace lazygen {
namespace {

std::mutex& default_generator_mutex() {
  static std::mutex mutex;
  return mutex;
}

// The seed and the first of the blocks a tensor of `numel` values at `per_block` values per
// block needs, read and claimed together (the default generator under its lock).
std::pair<uint64_t, uint64_t> claim(Generator* generator, int64_t numel, int per_block) {
  const uint64_t blocks = (static_cast<uint64_t>(numel) + per_block - 1) / per_block;
  if (generator != nullptr) return {generator->seed(), generator->reserve(blocks)};
  std::lock_guard<std::mutex> lock(default_generator_mutex());
  Generator& g = default_generator();
  return {g.seed(), g.reserve(blocks)};
}

double u53(uint32_t hi, uint32_t lo) {  // [0, 1) from 53 bits
  return static_cast<double>(((uint64_t{hi} << 32) | lo) >> 11) * 0x1p-53;
}
double u32_open(uint32_t w) {
  return (static_cast<double>(w) + 0.5) * 0x1p-32;
}  // (0, 1)

// Fills `numel` values: fn(block, out, count) writes up to `per_block` values from one block.
template <class T, class Fn>
void generate(const Tensor& t, Generator* generator, int per_block, Fn fn) {
  const int64_t numel = t.numel();
  const auto [seed, first] = claim(generator, numel, per_block);
  T* out = static_cast<T*>(t.raw_data());
  for (int64_t i = 0, block = 0; i < numel; i += per_block, ++block) {
    const auto words = detail::philox_block(seed, first + static_cast<uint64_t>(block));
    fn(words, out + i, std::min<int64_t>(per_block, numel - i));
  }
}

void check_floating(const char* op, DType dtype) {
  if (!is_floating(dtype)) {
    throw ShapeError(op, "expected a floating dtype, got " + std::string(dtype_name(dtype)));
  }
}

Tensor uniform(const IntList& sizes, Generator* generator, DType dtype, Device device) {
  check_floating("rand", dtype);
  Tensor t = make_cpu_tensor(sizes, dtype);
  if (dtype == DType::Float32) {
    generate<float>(t, generator, 4, [](const auto& w, float* out, int64_t n) {
      for (int64_t j = 0; j < n; ++j) out[j] = static_cast<float>(w[j] >> 8) * 0x1p-24f;
    });
  } else {
    generate<double>(t, generator, 2, [](const auto& w, double* out, int64_t n) {
      for (int64_t j = 0; j < n; ++j) out[j] = u53(w[2 * j], w[2 * j + 1]);
    });
  }
  return device.is_cpu() ? t : t.to(device);
}

// Two standard normals from two uniforms (Box-Muller), computed in double.
std::pair<double, double> box_muller(double u1, double u2) {
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double theta = 2.0 * std::numbers::pi * u2;
  return {r * std::cos(theta), r * std::sin(theta)};
}

Tensor normal(const IntList& sizes, Generator* generator, DType dtype, Device device) {
  check_floating("randn", dtype);
  Tensor t = make_cpu_tensor(sizes, dtype);
  if (dtype == DType::Float32) {
    generate<float>(t, generator, 4, [](const auto& w, float* out, int64_t n) {
      const auto [a, b] = box_muller(u32_open(w[0]), u32_open(w[1]));
      const auto [c, d] = box_muller(u32_open(w[2]), u32_open(w[3]));
      const float z[4] = {static_cast<float>(a), static_cast<float>(b), static_cast<float>(c),
                          static_cast<float>(d)};
      for (int64_t j = 0; j < n; ++j) out[j] = z[j];
    });
  } else {
    generate<double>(t, generator, 2, [](const auto& w, double* out, int64_t n) {
      // 1 - u53 lies in (0, 1], a safe argument for log.
      const auto [a, b] = box_muller(1.0 - u53(w[0], w[1]), u53(w[2], w[3]));
      const double z[2] = {a, b};
      for (int64_t j = 0; j < n; ++j) out[j] = z[j];
    });
  }
  return device.is_cpu() ? t : t.to(device);
}

Tensor integers(int64_t low, int64_t high, const IntList& sizes, Generator* generator, DType dtype,
                Device device) {
  if (low >= high) {
    throw ShapeError("randint", "expected low < high, got low=" + std::to_string(low) +
                                    ", high=" + std::to_string(high));
  }
  Tensor t = make_cpu_tensor(sizes, DType::Int64);
  const auto range = static_cast<unsigned __int128>(static_cast<uint64_t>(high - low));
  generate<int64_t>(t, generator, 2, [&](const auto& w, int64_t* out, int64_t n) {
    for (int64_t j = 0; j < n; ++j) {
      const uint64_t r = (uint64_t{w[2 * j]} << 32) | w[2 * j + 1];
      out[j] = low + static_cast<int64_t>((r * range) >> 64);
    }
  });
  return t.to(dtype).to(device);
}

}  // namespace

Generator& default_generator() {
  static Generator generator;
  return generator;
}

void manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(default_generator_mutex());
  default_generator().manual_seed(seed);
}

Tensor rand(const IntList& sizes, DType dtype, Device device) {
  return uniform(sizes, nullptr, dtype, device);
}
Tensor rand(const IntList& sizes, Generator& generator, DType dtype, Device device) {
  return uniform(sizes, &generator, dtype, device);
}
Tensor randn(const IntList& sizes, DType dtype, Device device) {
  return normal(sizes, nullptr, dtype, device);
}
Tensor randn(const IntList& sizes, Generator& generator, DType dtype, Device device) {
  return normal(sizes, &generator, dtype, device);
}
Tensor randint(int64_t low, int64_t high, const IntList& sizes, DType dtype, Device device) {
  return integers(low, high, sizes, nullptr, dtype, device);
}
Tensor randint(int64_t low, int64_t high, const IntList& sizes, Generator& generator, DType dtype,
               Device device) {
  return integers(low, high, sizes, &generator, dtype, device);
}

}  // namespace lazygen
