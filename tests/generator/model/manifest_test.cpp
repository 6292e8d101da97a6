// Kernel manifests (generator/model/manifest.h): keys print back exactly as the runtime writes
// them, every malformed line is reported at file:line:col, and the key hash equals the runtime's
// (the same pinned value as tests/runtime/fusion/group_key_test.cpp).
#include "model/manifest.h"

#include <gtest/gtest.h>

namespace lazygen::gen {
namespace {

const std::string kKey =
    "T=float32 load=float32:c load=float32:b op=mul.Tensor(l0,l1) op=add.Scalar(v0,s0,s1) "
    "op=relu(v1) out=v2:float32 out=v1:bool reduce=sum(v2)";

std::string error_of(const std::string& text) {
  try {
    parse_manifest(text, "m.manifest");
  } catch (const GenError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Manifest, KeysPrintBackAsWritten) {
  const auto keys = parse_manifest("# recorded\n\nlazygen-manifest 1\nkernel " + kKey + "\r\n", "m");
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(print_key(keys[0]), kKey);
  EXPECT_EQ(keys[0].ops[1].loc.str(), "m:4:72");
}

TEST(Manifest, ReductionsOverLeadingDimsPrintBackAsWritten) {
  const std::string key = "T=int64 load=int64:c op=relu(l0) reduce=mean.lead(v0)";
  const auto keys = parse_manifest("lazygen-manifest 1\nkernel " + key + "\n", "m");
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys[0].reduce, "mean.lead");
  EXPECT_EQ(print_key(keys[0]), key);
  const std::string bad = "kernel T=int64 load=int64:c op=relu(l0) reduce=sum.last(v0)";
  EXPECT_EQ(error_of("lazygen-manifest 1\n" + bad).substr(0, 55),
            "m.manifest:2:48: error: unknown reduction 'sum.last'\n  ");
}

TEST(Manifest, ErrorsNameTheirLocation) {
  const std::string h = "lazygen-manifest 1\n";
  EXPECT_EQ(error_of(""), "m.manifest:1:1: error: empty manifest: no 'lazygen-manifest' header");
  EXPECT_EQ(error_of("lazygen-manifest 7\n").substr(0, 58),
            "m.manifest:1:18: error: manifest version 7, this lazygen r");
  EXPECT_EQ(error_of(h + "kernal T=float32").substr(0, 49), "m.manifest:2:1: error: expected 'kernel', got 'ke");
  EXPECT_EQ(error_of(h + "kernel T=float16 op=relu(l0)").substr(0, 50),
            "m.manifest:2:10: error: unknown dtype 'float16'\n  ");
  EXPECT_EQ(error_of(h + "kernel T=float32 load=float32:q op=relu(l0)").substr(0, 72),
            "m.manifest:2:31: error: expected a stride class after ':' in 'float32:q'");
  EXPECT_EQ(error_of(h + "kernel T=float32 op=relu(l0)").substr(0, 73),
            "m.manifest:2:26: error: 'l0' names a load the kernel does not have\n  hint");
  EXPECT_EQ(error_of(h + "kernel T=float32 load=int64:c op=relu(v0)").substr(0, 71),
            "m.manifest:2:39: error: 'v0' names an op that is not computed before it");
  EXPECT_EQ(error_of(h + "kernel T=float32 load=int64:c op=add.Tensor(s0,l0)").substr(0, 60),
            "m.manifest:2:48: error: expected an operand (s followed by a");
  EXPECT_EQ(error_of(h + "kernel T=float32 load=int64:c op=relu(l0) load=int64:c").substr(0, 57),
            "m.manifest:2:43: error: field 'load' out of place\n  hint:");
  EXPECT_EQ(error_of(h + "kernel T=float32 load=int64:c op=relu(l0) color=red").substr(0, 52),
            "m.manifest:2:43: error: unknown field 'color'\n  hint");
  EXPECT_EQ(error_of(h + "kernel T=float32 load=int64:c").substr(0, 47),
            "m.manifest:2:30: error: kernel without op=...\n ");
  EXPECT_EQ(error_of(h + "kernel T=float32 load=int64:c op=relu(l0) reduce=prod(v0)").substr(0, 50),
            "m.manifest:2:50: error: unknown reduction 'prod'\n ");
}

TEST(Manifest, CudaKeysPrintBackAndDropTheirLayoutAsCpuKeys) {
  const std::string cuda = kKey + " cuda=2:CS";
  const auto keys = parse_manifest("lazygen-manifest 1\nkernel " + cuda + "\n", "m");
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys[0].cuda_rank, 2);
  EXPECT_EQ(keys[0].cuda_access, "CS");
  EXPECT_EQ(print_key(keys[0]), cuda);
  EXPECT_EQ(print_key(cpu_key(keys[0])), kKey);
}

TEST(Manifest, MalformedCudaLayoutsNameTheirLocation) {
  const std::string h = "lazygen-manifest 1\nkernel T=float32 load=int64:c op=relu(l0) ";
  EXPECT_EQ(error_of(h + "cuda=0:C").substr(0, 67), "m.manifest:2:48: error: expected <rank>:<access letters>, got '0:C'");
  EXPECT_EQ(error_of(h + "cuda=1:X").substr(0, 48), "m.manifest:2:50: error: unknown access 'X'\n  hin");
  EXPECT_EQ(error_of(h + "cuda=1:CB").substr(0, 58), "m.manifest:2:48: error: cuda= names 2 access(es) for 1 loa");
  EXPECT_EQ(error_of(h + "cuda=1:C reduce=sum(v0)").substr(0, 52), "m.manifest:2:52: error: field 'reduce' out of place\n");
  EXPECT_EQ(error_of(h + "cuda=1:C cuda=1:C").substr(0, 50), "m.manifest:2:52: error: field 'cuda' out of place\n");
}

TEST(KeyHash, EqualsTheRuntimesPinnedValue) {
  EXPECT_EQ(key_hash("lazygen").hex(), "946ecce76f9f3724f8b0e55beae51bef");
}

}  // namespace
}  // namespace lazygen::gen
