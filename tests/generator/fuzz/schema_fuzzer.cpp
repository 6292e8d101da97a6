// Fuzz target for parse_schema() (generator/model/schema_parser.cpp): any bytes, as the text of a
// `func:` value that starts at ops.yaml:3:9. Besides fuzz_contract.h's contract:
//   - an error points at line 3, at or after column 9 and at most one past the input's end;
//   - a schema that parses prints back to text that parses to the same schema and prints the same
//     (print_schema(parse_schema(s)) is canonical), and its derived views do not fail.
// Built with libFuzzer (LAZYGEN_FUZZ, Clang) or standalone_driver.cpp (CTest fuzz_schema_smoke).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_contract.h"
#include "model/schema.h"

namespace lazygen::gen::fuzz {
namespace {

const SourceLoc kStart{"ops.yaml", 3, 9};

// The canonical text must parse to the same schema and print identically.
void check_round_trip(const FunctionSchema& schema) {
  const std::string printed = print_schema(schema);
  FunctionSchema again;
  try {
    again = parse_schema(printed, kStart);
  } catch (const GenError& e) {
    violation("printed schema does not parse: " + printed, e.what());
  } catch (...) {
    check_other_exception();
    return;
  }
  if (print_schema(again) != printed) violation("printing is not canonical", printed);
  if (!(again == schema)) violation("printed schema parses to a different schema", printed);
}

// The views later stages branch on, so that the fuzzer runs them on every schema it finds.
void use_views(const FunctionSchema& schema) {
  size_t seen = schema.tensor_arguments().size() + schema.out_arguments().size() +
                schema.result_names().size() + schema_kind_name(schema.kind()).size();
  for (const Argument& arg : schema.arguments) seen += print_argument(arg).size();
  if (seen == 0 && !schema.arguments.empty()) violation("arguments printed as nothing");
}

}  // namespace
}  // namespace lazygen::gen::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lazygen::gen;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  FunctionSchema schema;
  try {
    schema = parse_schema(text, fuzz::kStart);
  } catch (const GenError& e) {
    const long last_col = fuzz::kStart.col + static_cast<long>(size);
    fuzz::check_error(
        e, {fuzz::kStart.file, fuzz::kStart.line, fuzz::kStart.line, fuzz::kStart.col, last_col});
    return 0;
  } catch (...) {
    fuzz::check_other_exception();
    return 0;
  }
  fuzz::check_round_trip(schema);
  fuzz::use_views(schema);
  return 0;
}
