// Semantic checks of an ops file, after loading: each problem is a GenError pointing at the
// offending YAML value, quoting it, and saying what to write instead.
#pragma once

#include <string>
#include <vector>

#include "model/op_entry.h"

namespace lazygen::gen {

// Throws GenError on the first problem. The Lazygen dialect also requires every op to say how
// it is computed (`pointwise:` or `kernel: custom`) and how its shape is inferred (`shape:`).
void validate_ops(const OpsFile& file, OpsDialect dialect);

// The entries named in `select`, in file order; throws GenError for a name the file lacks.
std::vector<OpEntry> select_ops(const OpsFile& file, const std::vector<std::string>& select);

// Functions a `pointwise:` expression may call (see pointwise_math.h in the runtime).
const std::vector<std::string>& pointwise_functions();

}  // namespace lazygen::gen
