// Semantic checks of an ops file, after loading: each problem is a GenError pointing at the
// offending YAML value, quoting it, and saying what to write instead.
//
// Note [Columns inside values]: errors inside a `func:` schema, a `pointwise:` expression or a
// derivative formula point at the offending character: the value's column plus the offset in
// the string. yaml-cpp marks a quoted scalar at its opening quote, so the loader starts such
// values one column later (exact unless the string holds escapes such as \"); a block scalar
// (`|`, `>`) starts on the line after its indicator (at the indicator when that line is blank);
// a tag or anchor before a value (`!!str`, `&a`) is skipped. Offsets past the first line of a
// multi-line value are counted as if the value were one line: write these values on one line.
#pragma once

#include <string>
#include <vector>

#include "model/op_entry.h"

namespace lazygen::gen {

// Throws GenError on the first problem. The Lazygen dialect also requires every op to say how
// it is computed (`pointwise:` or `kernel: custom`) and how its shape is inferred (`shape:`).
void validate_ops(const OpsFile& file, OpsDialect dialect);

// The entries named in `select`, in file order (each once, however often named); throws
// GenError for a name the file lacks, suggesting the nearest one.
std::vector<OpEntry> select_ops(const OpsFile& file, const std::vector<std::string>& select);

// An entry that only declares a PyTorch adapter (`torch: adapter` and no `shape:`, `pointwise:`
// or `kernel:`): it goes to OpsFile::torch_adapters, not to the ops.
bool is_adapter_only(const OpEntry& op);

// The names of the functions a `pointwise:` expression may call (See Note [Pointwise functions]
// in pointwise_functions.h).
const std::vector<std::string>& pointwise_functions();

}  // namespace lazygen::gen
