// Group keys (runtime/fusion/group_key.h): what they name, what they leave out, and
// their hash, pinned; and that the generator's reader of their text (fusion/kernel_key.h, which
// the generator links) gives back every key the runtime prints.
#include "fusion/group_key.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lazygen/generated/ops/exp.h"
#include "lazygen/generated/ops/mean.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/t.h"
#include "runtime/fusion/fusion_test_util.h"

namespace lazygen::fusion {
namespace {

using testing::FusionTest;
using Ts = std::vector<Tensor>;

// The key of the first group of the graph behind `outs` (traced, not run).
std::string first_key(const Ts& outs) {
  const exec::Graph graph = testing::graph_of(outs);
  return group_key(describe_group(graph, plan_fusion(graph), 0));
}

class GroupKeyTest : public FusionTest {};

TEST_F(GroupKeyTest, SpellsOpsOperandsOutputsAndTheReduction) {
  Tensor x = randn({4, 8}).to(kLazy), y = randn({8}).to(kLazy);
  Tensor a = relu(x * y + 0.5);
  EXPECT_EQ(first_key({a, sum(a)}),
            "T=float32 load=float32:c load=float32:c op=mul.Tensor(l0,l1) op=add.Scalar(v0,s0,s1) "
            "op=relu(v1) out=v2:float32 reduce=sum(v2)");
}

// The generator reads manifests with fusion::parse_key's code: every key the planner prints
// parses and prints back byte for byte, its CUDA form too.
TEST_F(GroupKeyTest, ParseAndPrintBackAsTheGeneratorReadsThem) {
  Tensor x = randn({4, 8}).to(kLazy), y = randn({8}).to(kLazy);
  Tensor a = relu(x * y + 0.5);
  const exec::Graph graph = testing::graph_of({a, sum(a, std::vector<int64_t>{0})});
  const GroupSpec program = describe_group(graph, plan_fusion(graph), 0);
  for (const std::string& key : {group_key(program), cuda_group_key(program)}) {
    const ::lazygen::fusion::KernelKey parsed = ::lazygen::fusion::parse_key(key);
    EXPECT_EQ(::lazygen::fusion::print_key(parsed), key);
    EXPECT_EQ(parsed.ops.size(), 3u) << key;
  }
  EXPECT_THROW(::lazygen::fusion::parse_key("T=float32 op=relu(l0)"), ::lazygen::fusion::KeyError);
}

// The same ops feed either fold; the AOT registry must never hand one's kernel to the other.
TEST_F(GroupKeyTest, TellsReductionsOverLeadingDimsFromTrailingOnes) {
  Tensor x = randn({4, 8}).to(kLazy);
  const std::string trailing = first_key({sum(relu(x), std::vector<int64_t>{1})});
  const std::string leading = first_key({sum(relu(x), std::vector<int64_t>{0})});
  EXPECT_EQ(trailing, "T=float32 load=float32:c op=relu(l0) reduce=sum(v0)");
  EXPECT_EQ(leading, "T=float32 load=float32:c op=relu(l0) reduce=sum.lead(v0)");
  EXPECT_NE(key_hash(trailing), key_hash(leading));
  EXPECT_EQ(first_key({mean(relu(x), std::vector<int64_t>{0}, true)}),
            "T=float32 load=float32:c op=relu(l0) reduce=mean.lead(v0)");
}

TEST_F(GroupKeyTest, IsTheSameForEveryExtentAndDiffersByDtype) {
  auto key = [](const std::vector<int64_t>& sizes, DType t) {
    Tensor x = randn(sizes, t).to(kLazy);
    return first_key({exp(x * 2.0) - 1.0});
  };
  EXPECT_EQ(key({1000}, DType::Float32), key({3, 5, 7}, DType::Float32));
  EXPECT_NE(key({1000}, DType::Float32), key({1000}, DType::Float64));
}

TEST_F(GroupKeyTest, NamesTheStrideClassOfEachLoad) {
  Tensor x = randn({6, 5}).to(kLazy), col = randn({6, 1}).to(kLazy), m = randn({5, 6}).to(kLazy);
  const std::string key = first_key({x + col + t(m)});
  EXPECT_NE(key.find("load=float32:c load=float32:b load=float32:s"), std::string::npos) << key;
}

TEST_F(GroupKeyTest, CudaKeysAddEachLoadsAccessOverTheWholeSpaceAndTheRank) {
  Tensor x = randn({6, 5}).to(kLazy), col = randn({6, 1}).to(kLazy), one = randn({1}).to(kLazy);
  const exec::Graph graph = testing::graph_of({x + col + one});
  const GroupSpec p = describe_group(graph, plan_fusion(graph), 0);
  // The column broadcast is `b` for the cpu (inner stride 0) but strided over the space.
  EXPECT_EQ(cuda_group_key(p), group_key(p) + " cuda=2:CSB");
  Tensor y = randn({30}).to(kLazy);
  EXPECT_NE(first_key({y * 2.0}).find("load=float32:c"), std::string::npos);
  const exec::Graph flat = testing::graph_of({y * 2.0});
  EXPECT_EQ(cuda_group_key(describe_group(flat, plan_fusion(flat), 0))
                .substr(first_key({y * 2.0}).size()),
            " cuda=1:C");
}

TEST(LoadAccess, ClassifiesStridesOverTheWholeSpace) {
  EXPECT_EQ(load_access({5, 1}, {6, 5}), 'C');
  EXPECT_EQ(load_access({0, 0}, {6, 5}), 'B');
  EXPECT_EQ(load_access({1, 0}, {6, 5}), 'S');
  EXPECT_EQ(load_access({0, 1}, {6, 5}), 'S');
  EXPECT_EQ(load_access({7, 1}, {6, 5}), 'S');
  EXPECT_EQ(load_access({99, 1}, {1, 5}), 'C');  // size-1 dims have any stride
}

TEST_F(GroupKeyTest, NamesValuesByOpNotByRegister) {
  Tensor x = randn({16}).to(kLazy);
  Tensor a = x * 2.0, b = x * 3.0;
  const std::string key = first_key({a * b + a});
  EXPECT_NE(key.find("op=mul.Tensor(v0,v1) op=add.Tensor(v2,v0,s2)"), std::string::npos) << key;
}

// The AOT registry answers a group seen before by its signature (Note [AOT lookup memo]): over
// groups that differ in each field a key names, and groups that differ only in extents, equal
// signatures come with equal keys, and every key has one signature.
TEST_F(GroupKeyTest, SignaturesAreEqualExactlyWhenKeysAre) {
  Tensor x = randn({6, 5}).to(kLazy), col = randn({6, 1}).to(kLazy), m = randn({5, 6}).to(kLazy);
  Tensor y = randn({3, 4}).to(kLazy), d = randn({6, 5}, DType::Float64).to(kLazy);
  const std::vector<Ts> programs = {
      {relu(x)},
      {relu(y)},
      {relu(d)},
      {exp(x)},
      {x + col},
      {x + t(m)},
      {x * col},
      {col + x},
      {sum(relu(x), std::vector<int64_t>{1})},
      {sum(relu(x), std::vector<int64_t>{0})},
      {mean(relu(x), std::vector<int64_t>{0}, true)},
      {relu(x) * 2.0},
      {relu(x), sum(relu(x))},
  };
  std::vector<std::pair<std::vector<uint64_t>, std::string>> seen;
  for (const Ts& outs : programs) {
    const exec::Graph graph = testing::graph_of(outs);
    const GroupSpec spec = describe_group(graph, plan_fusion(graph), 0);
    seen.emplace_back(group_signature(spec), group_key(spec));
  }
  for (const auto& [sig_a, key_a] : seen) {
    for (const auto& [sig_b, key_b] : seen) {
      EXPECT_EQ(sig_a == sig_b, key_a == key_b) << key_a << " vs " << key_b;
    }
  }
  EXPECT_EQ(seen[0].second, seen[1].second);  // extents are not named
  std::set<std::string> keys;
  for (const auto& s : seen) keys.insert(s.second);
  EXPECT_EQ(keys.size(), seen.size() - 1) << "each program but relu(y) names another group";
}

TEST(KeyHash, IsPinnedAndDiffersBetweenKeys) {
  EXPECT_EQ(key_hash("T=float32 load=float32:c op=relu(l0) out=v0:float32").hex(),
            key_hash("T=float32 load=float32:c op=relu(l0) out=v0:float32").hex());
  EXPECT_NE(key_hash("T=float32 op=a").hex(), key_hash("T=float32 op=b").hex());
  EXPECT_EQ(key_hash("lazygen").hex(), "946ecce76f9f3724f8b0e55beae51bef");
}

}  // namespace
}  // namespace lazygen::fusion
