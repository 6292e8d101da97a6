// The peer runner's JSON reading (torch_peer.h) and its refusals; running the real peer needs
// python3-torch and takes seconds, so it is left to the benchmarks.
#include "torch_peer.h"

#include <gtest/gtest.h>
#include <stdlib.h>

namespace lazygen::bench {
namespace {

TEST(TorchPeer, ReadsTopLevelNumbersAndSkipsEverythingElse) {
  const auto fields = parse_numeric_fields(
      R"({"torch_version": "1.13.0a0", "threads": 2, "malloc_env": {"a": 1, "b": [1, {"c": 2}]},)"
      R"( "median_ms": 61.14, "note": "x, \"y\": 3", "ok": true, "none": null, "e": -1.5e-3,)"
      R"( "list": [4, 5], "last": 7})");
  EXPECT_EQ(fields.size(), 4u);
  EXPECT_EQ(fields.at("threads"), 2.0);
  EXPECT_DOUBLE_EQ(fields.at("median_ms"), 61.14);
  EXPECT_DOUBLE_EQ(fields.at("e"), -1.5e-3);
  EXPECT_EQ(fields.at("last"), 7.0);
}

TEST(TorchPeer, ToleratesTextAroundTheObjectAndBrokenInput) {
  EXPECT_EQ(parse_numeric_fields("log line\n{\"a\": 1}\n").at("a"), 1.0);
  EXPECT_TRUE(parse_numeric_fields("").empty());
  EXPECT_TRUE(parse_numeric_fields("no json here").empty());
  EXPECT_EQ(parse_numeric_fields(R"({"a": 1, "b": )").size(), 1u);
  EXPECT_TRUE(parse_numeric_fields(R"({"a" 1})").empty());
}

TEST(TorchPeer, AMissingScriptIsAnErrorNotACrash) {
  ASSERT_EQ(setenv("LAZYGEN_TORCH_PEER", "/nonexistent/torch_peer.py", 1), 0);
  const PeerResult result = run_torch_peer({"cnn"});
  unsetenv("LAZYGEN_TORCH_PEER");
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.error.find("/nonexistent/torch_peer.py"), std::string::npos) << result.error;
}

}  // namespace
}  // namespace lazygen::bench
