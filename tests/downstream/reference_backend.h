// The out-of-tree "reference" lazy backend (reference_backend.cpp; docs/backends.md).
#pragma once

namespace downstream {

// Graphs the reference backend has compiled in this process.
int reference_compiles();

}  // namespace downstream
