// Tests for "did you mean ...?" (model/suggest.h): the edit distance, when a candidate is near
// enough to suggest, and how hints read.
#include "model/suggest.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace lazygen::gen {
namespace {

TEST(Suggest, EditDistanceCountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(edit_distance("", ""), 0);
  EXPECT_EQ(edit_distance("abc", "abc"), 0);
  EXPECT_EQ(edit_distance("", "abc"), 3);
  EXPECT_EQ(edit_distance("pointwize", "pointwise"), 1);
  EXPECT_EQ(edit_distance("custm", "custom"), 1);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3);
}

TEST(Suggest, EditDistanceCountsASwapOfNeighboursAsOne) {
  EXPECT_EQ(edit_distance("flaot", "float"), 1);
  EXPECT_EQ(edit_distance("ab", "ba"), 1);
}

TEST(Suggest, EditDistanceIsCaseSensitive) {
  EXPECT_EQ(edit_distance("Tensor", "tensor"), 1);
}

TEST(Suggest, NearestPicksTheClosestCandidate) {
  EXPECT_EQ(nearest("broadcst", {"same", "broadcast", "reduce"}), "broadcast");
  EXPECT_EQ(nearest("sme", {"same", "broadcast", "reduce"}), "same");
}

TEST(Suggest, NearestIsEmptyWhenNothingIsAPlausibleTypo) {
  // A typo changes at most a third of the word.
  EXPECT_EQ(nearest("frobnicate", {"func", "shape"}), "");
  EXPECT_EQ(nearest("x", {}), "");
}

TEST(Suggest, NearestAllowsOneEditInShortWords) {
  EXPECT_EQ(nearest("ab", {"abc"}), "abc");
}

TEST(Suggest, EditDistanceOfLongWords) {
  EXPECT_EQ(edit_distance(std::string(1000, 'a'), std::string(999, 'a') + "b"), 1);
  EXPECT_EQ(edit_distance(std::string(500, 'a') + "ba", std::string(500, 'a') + "ab"), 1);
}

// A fuzzed schema naming a type thousands of characters long must not compare it in full with
// every candidate: no candidate that much shorter can be a typo of it.
TEST(Suggest, NearestOfAVeryLongWordIsEmpty) {
  EXPECT_EQ(nearest(std::string(1000000, 'x'), {"Tensor", "int", "float"}), "");
}

TEST(Suggest, NearestPrefersTheFirstOfEquallyNearCandidates) {
  EXPECT_EQ(nearest("mat", {"max", "min", "mas"}), "max");
}

TEST(Suggest, HintSuggestsAndListsTheValidChoices) {
  EXPECT_EQ(suggest_hint("methd", {"function", "method"}),
            "did you mean 'method'? valid: function, method");
}

TEST(Suggest, HintOnlyListsWhenNothingIsNear) {
  EXPECT_EQ(suggest_hint("zzz", {"function", "method"}), "valid: function, method");
}

}  // namespace
}  // namespace lazygen::gen
