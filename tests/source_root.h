// The source root that tests read ops.yaml, templates/ and sources from: LAZYGEN_SOURCE_DIR when
// set (lazygen_add_gtest sets it, cmake/LazygenTesting.cmake), else the working directory.
#pragma once

#include <cstdlib>
#include <filesystem>

namespace lazygen::test_files {

inline std::filesystem::path source_root() {
  const char* dir = std::getenv("LAZYGEN_SOURCE_DIR");
  return dir ? std::filesystem::path(dir) : std::filesystem::current_path();
}

}  // namespace lazygen::test_files
