// lazygen's own op table against its ops.yaml (in-tree only: the installed consistency kit,
// op_consistency_test.cpp, runs against whatever runtime a backend links).
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include "lazygen/op_info.h"

namespace lazygen::testing {
namespace {

// The table is generated from ops.yaml; this guards against a stale generated/ (which the
// generated_in_sync test reports too) hiding new ops from the suite. Entries of the PyTorch
// adapters section are PyTorch's ops, not lazygen's.
TEST(OpConsistencyCoverage, EveryOpOfOpsYamlHasARecord) {
  std::ifstream in("ops.yaml");
  ASSERT_TRUE(in) << "run from the source root";
  std::set<std::string> listed, recorded;
  for (std::string line; std::getline(in, line);) {
    const std::string func = "- func: ";
    if (line.find("PyTorch adapters") != std::string::npos) break;
    if (line.rfind(func, 0) == 0)
      listed.insert(line.substr(func.size(), line.find('(') - func.size()));
  }
  for (const OpInfo& op : all_ops()) recorded.insert(std::string(op.name));
  EXPECT_EQ(listed, recorded);
}

}  // namespace
}  // namespace lazygen::testing
