// allreduce_bench: the MPI engine's all-reduce through lazygen's collective op, for the
// data-parallel projection (docs/distributed.md). Run under mpirun:
//
//   mpirun -np 2 build/bench/distributed/allreduce_bench [--reps N]
//
// For each size from 4 KiB to 16 MiB of float32 it times N all_reduce calls on a cpu tensor
// (the fingerprint check included, as in training) after 3 warm-ups, and rank 0 prints one JSON
// object per size: bytes, median microseconds per call, and the bus bandwidth
// 2 (W - 1) / W * bytes / time, which a ring all-reduce moves through each link.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "lazygen/distributed.h"
#include "lazygen/factory.h"
#include "lazygen/operators.h"

using namespace lazygen;

int main(int argc, char** argv) {
  int reps = 30;
  if (argc == 3 && std::string(argv[1]) == "--reps") reps = std::max(1, std::atoi(argv[2]));
  distributed::init();
  const int world = distributed::world_size();
  for (int64_t bytes = 4096; bytes <= (int64_t{16} << 20); bytes *= 4) {
    const Tensor x = ones({bytes / 4});
    std::vector<double> us;
    for (int i = 0; i < reps + 3; ++i) {
      distributed::barrier();
      const auto start = std::chrono::steady_clock::now();
      all_reduce(x);
      const double t = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() -
                                                                 start)
                           .count();
      if (i >= 3) us.push_back(t);
    }
    std::sort(us.begin(), us.end());
    const double median = us[us.size() / 2];
    const double bus = 2.0 * (world - 1) / world * static_cast<double>(bytes) / (median * 1e-6);
    if (distributed::rank() == 0) {
      std::printf("{\"world\": %d, \"bytes\": %lld, \"median_us\": %.1f, \"bus_gbps\": %.3f}\n",
                  world, static_cast<long long>(bytes), median, bus / 1e9);
    }
  }
  distributed::finalize();
  return 0;
}
