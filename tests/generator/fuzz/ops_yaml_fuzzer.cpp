// Fuzz target for the ops-file loader (load_ops_text: generator/model/ops_yaml.cpp, validate.cpp):
// any bytes, as the text of ops.yaml, loaded in both dialects. Besides fuzz_contract.h's contract:
//   - an error names ops.yaml, a line that exists (at most one past the last line break) and a
//     column no further than the input is long plus one (columns inside a multi-line value count
//     as if it were one line; see Note [Columns inside values] in validate.h);
//   - a file valid in the strict Lazygen dialect is valid in the Native one too;
//   - every loaded entry has a location, and its schema prints back to what it parses from.
// Built with libFuzzer (LAZYGEN_FUZZ, Clang) or standalone_driver.cpp (CTest fuzz_ops_yaml_smoke).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_contract.h"
#include "model/op_entry.h"

namespace lazygen::gen::fuzz {
namespace {

constexpr std::string_view kPath = "ops.yaml";

LocBounds bounds_for(const std::string& text) {
  // yaml-cpp breaks lines at "\n", "\r\n" and a lone "\r"; counting both characters over-counts
  // "\r\n", which only loosens the bound.
  auto breaks =
      std::count(text.begin(), text.end(), '\n') + std::count(text.begin(), text.end(), '\r');
  return {kPath, 1, static_cast<int>(breaks) + 1, 1, static_cast<long>(text.size()) + 1};
}

void check_loaded(const OpsFile& file, const LocBounds& bounds) {
  for (const OpEntry& op : file.ops) {
    for (const SourceLoc* loc : {&op.entry_loc, &op.func_loc}) {
      if (loc->line < bounds.min_line || loc->line > bounds.max_line || loc->col < 1) {
        violation("loaded entry without a location", op.func + " at " + loc->str());
      }
    }
    const std::string printed = print_schema(op.schema);
    try {
      if (print_schema(parse_schema(printed, op.func_loc)) != printed) {
        violation("printing is not canonical", printed);
      }
    } catch (const GenError& e) {
      violation("printed schema does not parse: " + printed, e.what());
    }
  }
}

// True when `text` loads; false when it is rejected as the contract allows.
bool load_checked(const std::string& text, OpsDialect dialect) {
  const LocBounds bounds = bounds_for(text);
  OpsFile file;
  try {
    file = load_ops_text(text, std::string(kPath), dialect);
  } catch (const GenError& e) {
    check_error(e, bounds);
    return false;
  } catch (...) {
    check_other_exception();
    return false;
  }
  check_loaded(file, bounds);
  return true;
}

}  // namespace
}  // namespace lazygen::gen::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lazygen::gen;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const bool strict_ok = fuzz::load_checked(text, OpsDialect::Lazygen);
  const bool native_ok = fuzz::load_checked(text, OpsDialect::Native);
  if (strict_ok && !native_ok) fuzz::violation("valid as lazygen ops but rejected as native", text);
  return 0;
}
