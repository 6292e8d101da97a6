// Random programs, cpu vs lazy (random_program.h; See Note [Random programs]): a fixed set of
// seeds in every test run (LAZYGEN_RANDOM_PROGRAMS programs, default 3000, of 12 steps), each
// failure printed minimized. For long runs: the random_programs program (--programs N --seed S).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "random_program.h"
#include "runtime/distributed/local_world.h"  // the collectives run as a world of one

namespace lazygen::testing {
namespace {

TEST(RandomPrograms, LazyMatchesCpu) {
  const char* env = std::getenv("LAZYGEN_RANDOM_PROGRAMS");
  const int programs = env != nullptr ? std::atoi(env) : 3000;
  int failures = 0;
  for (int seed = 0; seed < programs && failures < 3; ++seed) {
    std::string failure;
    const Program program = generate_program(static_cast<uint64_t>(seed), 12, failure);
    if (failure.empty()) continue;
    ++failures;
    const Program small = minimize(program);
    ADD_FAILURE() << run_program(small) << "\n" << describe(small);
  }
  RecordProperty("programs", programs);
}

}  // namespace
}  // namespace lazygen::testing
