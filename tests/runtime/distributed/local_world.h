// Installs distributed::local_communicator() for a whole test program, so that suites running
// every op of ops.yaml (consistency, gradcheck) run the collectives as a world of one process.
// Include it in one source file of the program.
#pragma once

#include <gtest/gtest.h>

#include "lazygen/distributed/communicator.h"

namespace lazygen::distributed::testing {

class LocalWorld : public ::testing::Environment {
 public:
  void SetUp() override { set_communicator(local_communicator()); }
  void TearDown() override { set_communicator(nullptr); }
};

inline ::testing::Environment* const kLocalWorld =
    ::testing::AddGlobalTestEnvironment(new LocalWorld);

}  // namespace lazygen::distributed::testing
