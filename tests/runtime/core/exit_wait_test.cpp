// The exit wait (runtime/core/exit_wait.h): registered again after statics were constructed, it
// runs before their destructors.
#include "core/exit_wait.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

namespace lazygen {
namespace {

struct Announced {
  const char* name;
  ~Announced() { std::fprintf(stderr, "%s destroyed\n", name); }
};

void announce_wait() {
  std::fprintf(stderr, "waited\n");
}

// In a child process (a death test forks): exit handlers run in the reverse order of their
// registration, so the wait registered first runs last, after the static constructed later is
// gone, and the one registered after that static runs before it.
TEST(ExitWait, RunsBeforeTheStaticsConstructedBeforeItIsRegistered) {
  EXPECT_EXIT(
      {
        set_exit_wait(announce_wait);
        static Announced later{"later"};
        wait_at_exit();
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "^waited\nlater destroyed\nwaited\n$");
}

// Without a wait set, the registered handlers do nothing.
TEST(ExitWait, WithoutAWaitNothingRuns) {
  EXPECT_EXIT(
      {
        wait_at_exit();
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "^$");
}

}  // namespace
}  // namespace lazygen
