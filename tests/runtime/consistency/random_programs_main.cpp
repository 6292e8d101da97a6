// random_programs: runs random programs, cpu vs lazy (random_program.h), for as long as asked;
// prints each failing program minimized.
//
//   random_programs [--programs N] [--seed FIRST] [--length STEPS]
//
// Exit status: 0 when every program agreed, 1 otherwise.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "lazygen/distributed/communicator.h"
#include "lazygen/metrics.h"
#include "random_program.h"

int main(int argc, char** argv) {
  long long programs = 10000, first = 0, length = 12;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string name = argv[i];
    long long* slot = name == "--programs" ? &programs
                      : name == "--seed"   ? &first
                      : name == "--length" ? &length
                                           : nullptr;
    if (slot == nullptr) {
      std::fprintf(stderr, "usage: random_programs [--programs N] [--seed FIRST] [--length STEPS]\n");
      return 1;
    }
    *slot = std::atoll(argv[i + 1]);
  }
  lazygen::distributed::set_communicator(lazygen::distributed::local_communicator());
  int failures = 0;
  for (long long seed = first; seed < first + programs; ++seed) {
    std::string failure;
    const auto program = lazygen::testing::generate_program(static_cast<uint64_t>(seed),
                                                            static_cast<int>(length), failure);
    if (failure.empty()) continue;
    ++failures;
    const auto small = lazygen::testing::minimize(program);
    std::printf("FAIL %s\n%s\n", lazygen::testing::run_program(small).c_str(),
                lazygen::testing::describe(small).c_str());
    std::fflush(stdout);
  }
  const lazygen::testing::ProgramStats& st = lazygen::testing::program_stats();
  std::printf("%lld programs from seed %lld: %d failed (%lld op calls: %lld on earlier results, "
              "%lld writing into one, %lld raising on both devices; %lld mark_steps)\n",
              programs, first, failures, static_cast<long long>(st.steps),
              static_cast<long long>(st.chained), static_cast<long long>(st.written_slots),
              static_cast<long long>(st.both_raised), static_cast<long long>(st.mark_steps));
  // Graphs of one structure at other sizes run specialized computations (Note [Dynamic
  // shapes]): the programs check those too.
  std::printf("lazy graphs: %lld compiled, %lld specialized\n",
              static_cast<long long>(lazygen::metrics::counter_value("computation_cache.miss")),
              static_cast<long long>(lazygen::metrics::counter_value("computation_cache.specialize")));
  return failures == 0 ? 0 : 1;
}
