// Tests for the generator's diagnostics: how a SourceLoc prints and what a GenError says. Every
// user-facing error goes through these two types, so their format is part of the tool's interface.
#include "model/diagnostic.h"

#include <gtest/gtest.h>

namespace lazygen::gen {
namespace {

TEST(SourceLoc, PrintsFileLineAndColumn) {
  EXPECT_EQ((SourceLoc{"ops.yaml", 12, 9}.str()), "ops.yaml:12:9");
}

TEST(SourceLoc, OmitsUnknownColumn) {
  EXPECT_EQ((SourceLoc{"ops.yaml", 12, 0}.str()), "ops.yaml:12");
}

TEST(SourceLoc, OmitsUnknownLineAndTheColumnWithIt) {
  EXPECT_EQ((SourceLoc{"ops.yaml", 0, 0}.str()), "ops.yaml");
  EXPECT_EQ((SourceLoc{"ops.yaml", 0, 7}.str()), "ops.yaml");
}

TEST(SourceLoc, EmptyWhenNothingIsKnown) {
  EXPECT_EQ(SourceLoc{}.str(), "");
}

TEST(SourceLoc, AdvancedMovesAlongTheLine) {
  SourceLoc loc{"ops.yaml", 3, 9};
  SourceLoc moved = loc.advanced(4);
  EXPECT_EQ(moved.file, "ops.yaml");
  EXPECT_EQ(moved.line, 3);
  EXPECT_EQ(moved.col, 13);
  EXPECT_EQ(loc.advanced(0).col, 9);
}

TEST(SourceLoc, AdvancedKeepsAnUnknownColumnUnknown) {
  EXPECT_EQ((SourceLoc{"ops.yaml", 3, 0}.advanced(4).col), 0);
}

TEST(GenError, WhatHasLocationMessageAndHint) {
  GenError error({"ops.yaml", 12, 9}, "unknown key 'pointwize'", "did you mean 'pointwise'?");
  EXPECT_STREQ(error.what(),
               "ops.yaml:12:9: error: unknown key 'pointwize'\n"
               "  hint: did you mean 'pointwise'?");
}

TEST(GenError, WhatOmitsAnEmptyHint) {
  GenError error({"ops.yaml", 12, 0}, "missing key 'func'");
  EXPECT_STREQ(error.what(), "ops.yaml:12: error: missing key 'func'");
}

TEST(GenError, WhatOmitsAnUnknownLocation) {
  GenError error({}, "no ops.yaml given", "pass it with --ops");
  EXPECT_STREQ(error.what(), "error: no ops.yaml given\n  hint: pass it with --ops");
}

TEST(GenError, KeepsItsPartsApart) {
  GenError error({"a.yaml", 1, 2}, "message", "hint");
  EXPECT_EQ(error.loc().str(), "a.yaml:1:2");
  EXPECT_EQ(error.message(), "message");
  EXPECT_EQ(error.hint(), "hint");
}

TEST(GenError, IsARuntimeError) {
  try {
    throw GenError({"a.yaml", 1, 2}, "boom");
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "a.yaml:1:2: error: boom");
    return;
  }
  FAIL() << "GenError was not caught as std::runtime_error";
}

}  // namespace
}  // namespace lazygen::gen
