// Small helpers for reading yaml-cpp nodes with locations, shared by the ops.yaml loader
// (ops_yaml.cpp) and the readers of its test keys (samples.cpp).
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "model/diagnostic.h"

namespace lazygen::gen {

// Where `node` starts in `path` (1-based line and column; 0 when yaml-cpp has no mark).
inline SourceLoc loc_of(const std::string& path, const YAML::Node& node) {
  const YAML::Mark m = node.Mark();
  if (m.line < 0) return {path, 0, 0};
  return {path, m.line + 1, m.column + 1};
}

// What a node is, for messages: "'relu'" for a scalar, else "a list" / "a map".
inline std::string describe(const YAML::Node& node) {
  if (node.IsScalar()) return "'" + node.Scalar() + "'";
  return node.IsSequence() ? "a list" : node.IsMap() ? "a map" : "an empty value";
}

}  // namespace lazygen::gen
