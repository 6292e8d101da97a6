// The contract every fuzz target in this directory asserts, shared by schema_fuzzer.cpp and
// ops_yaml_fuzzer.cpp: for any input, the generator's parsers either succeed or throw a GenError
// that says where (`file:line:col`, both 1-based and inside the input) and what. Any other outcome
// (another exception, an error without a location, a crash, a hang, a sanitizer report) is a bug.
//
// A violation prints what was violated and calls __builtin_trap(), which libFuzzer (and
// standalone_driver.cpp) report as a crash with the input that caused it.
#pragma once

#include <cstdio>
#include <exception>
#include <new>
#include <string_view>

#include "model/diagnostic.h"

namespace lazygen::gen::fuzz {

[[noreturn]] inline void violation(std::string_view what, std::string_view detail = "") {
  std::fprintf(stderr, "fuzz contract violated: %.*s\n%.*s\n", static_cast<int>(what.size()),
               what.data(), static_cast<int>(detail.size()), detail.data());
  std::fflush(stderr);
  __builtin_trap();
}

// Where an error may point: its file, and lines and columns within these bounds (inclusive).
struct LocBounds {
  std::string_view file;
  int min_line = 1;
  int max_line = 1;
  int min_col = 1;
  long max_col = 1;
};

// Checks a GenError against the contract: a message, and a location inside `bounds`.
inline void check_error(const GenError& e, const LocBounds& bounds) {
  const SourceLoc& loc = e.loc();
  if (e.message().empty()) violation("error without a message", e.what());
  if (loc.file != bounds.file) violation("error names another file", e.what());
  if (loc.line < bounds.min_line || loc.line > bounds.max_line) {
    violation("error without a line inside the input", e.what());
  }
  if (loc.col < bounds.min_col || loc.col > bounds.max_col) {
    violation("error without a column inside the input", e.what());
  }
}

// What a parser threw, other than GenError: std::bad_alloc is the fuzzer's memory limit, not a
// bug; anything else is. Call inside a catch block.
inline void check_other_exception() {
  try {
    throw;
  } catch (const std::bad_alloc&) {
  } catch (const std::exception& e) {
    violation("exception other than GenError", e.what());
  } catch (...) {
    violation("exception other than GenError (not a std::exception)");
  }
}

}  // namespace lazygen::gen::fuzz
