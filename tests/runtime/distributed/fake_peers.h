// FakePeers: a Communicator that plays rank `rank` of a world of `world` processes inside one
// process, as if every other rank called the same collectives on the same data. Sums multiply
// by the world size, gathers repeat the tensor, broadcasts keep it; a test can make the other
// ranks' fingerprint differ in one field (See Note [Collective fingerprints]) and reads the
// fingerprints this rank sent.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "lazygen/distributed/communicator.h"

namespace lazygen::distributed::testing {

class FakePeers final : public Communicator {
 public:
  FakePeers(int world, int rank) : world_(world), rank_(rank) {}

  // The other ranks' fingerprint field `field` is this rank's plus `delta`.
  void disagree(int field, int64_t delta) {
    field_ = field;
    delta_ = delta;
  }
  // This rank's fingerprints so far, one vector of fields per collective.
  const std::vector<std::vector<int64_t>>& sent() const { return sent_; }
  int barriers() const { return barriers_; }

  std::string_view engine() const override { return "fake"; }
  int rank() const override { return rank_; }
  int world_size() const override { return world_; }
  void all_reduce_sum(void* data, int64_t numel, DType dtype) override {
    dispatch_dtype(dtype, [&](auto tag) {
      using T = decltype(tag);
      T* p = static_cast<T*>(data);
      for (int64_t i = 0; i < numel; ++i) p[i] = static_cast<T>(p[i] * world_);
    });
  }
  void all_reduce_max(int64_t* data, int64_t numel) override {
    const int64_t fields = numel / 2;
    sent_.emplace_back(data, data + fields);
    if (field_ < 0) return;
    const int64_t theirs = data[field_] + delta_;
    data[field_] = std::max(data[field_], theirs);
    data[fields + field_] = std::max(data[fields + field_], -theirs);
  }
  void all_gather(const void* in, void* out, int64_t bytes) override {
    for (int r = 0; r < world_; ++r) {
      std::memcpy(static_cast<char*>(out) + r * bytes, in, static_cast<size_t>(bytes));
    }
  }
  void broadcast(void*, int64_t, int) override {}
  void barrier() override { ++barriers_; }

 private:
  int world_, rank_;
  int field_ = -1;
  int64_t delta_ = 0;
  std::vector<std::vector<int64_t>> sent_;
  int barriers_ = 0;
};

}  // namespace lazygen::distributed::testing
