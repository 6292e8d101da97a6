// The runtime's layers, checked on every build's tests: no file of runtime/ includes a header of a
// layer above its own (Note [Runtime layers] in runtime/CMakeLists.txt, which also says how the
// link checks calls). Also: every file of runtime/ belongs to a layer, and every listed exception
// still exists (a fixed one must leave the list). The layers come from the table CMake writes
// (runtime_layers.txt in the build tree, LAZYGEN_RUNTIME_LAYERS_FILE), so the build and this test
// read one declaration. Tests run with the source root as working directory (or
// LAZYGEN_SOURCE_DIR set).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "source_root.h"

namespace {

namespace fs = std::filesystem;
using lazygen::test_files::source_root;

struct Layer {
  std::string name;
  std::vector<std::string> prefixes;  // paths under runtime/; the longest matching prefix wins
};

// Bottom first, as runtime/CMakeLists.txt declares them: lines "<layer>\t<library>\t<paths>".
const std::vector<Layer>& layers() {
  static const std::vector<Layer> kLayers = [] {
    std::vector<Layer> out;
    std::ifstream in(LAZYGEN_RUNTIME_LAYERS_FILE);
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream fields(line);
      Layer layer;
      std::string library, paths;
      std::getline(fields, layer.name, '\t');
      std::getline(fields, library, '\t');
      std::getline(fields, paths);
      std::istringstream words(paths);
      for (std::string p; words >> p;) layer.prefixes.push_back(p);
      out.push_back(std::move(layer));
    }
    return out;
  }();
  return kLayers;
}

// Upward includes that exist today, each with what removes it; the list only shrinks.
const std::set<std::string>& known_exceptions() {
  static const std::set<std::string> kKnown = {};
  return kKnown;
}

// The layer of a path under runtime/ ("exec/lazy_device.cpp"), or nullopt.
std::optional<size_t> layer_of(const std::string& path) {
  std::optional<size_t> best;
  size_t best_length = 0;
  for (size_t i = 0; i < layers().size(); ++i) {
    for (const std::string& p : layers()[i].prefixes) {
      const bool match = path == p || (path.starts_with(p) && path[p.size()] == '/');
      if (match && p.size() >= best_length) {
        best = i;
        best_length = p.size();
      }
    }
  }
  return best;
}

// The runtime/-relative path an include names, or "" (a generated header, the standard library,
// a third-party header).
std::string included_path(const fs::path& runtime, const std::string& name) {
  if (name.starts_with("lazygen/generated/")) return "";
  if (name.starts_with("lazygen/")) return "include/" + name;
  return fs::exists(runtime / name) ? name : "";
}

struct Include {
  std::string from;  // runtime/-relative
  std::string to;
};

std::vector<Include> runtime_includes() {
  const fs::path runtime = source_root() / "runtime";
  static const std::regex kInclude(R"(^\s*#\s*include\s*"([^"]+)\")");
  std::vector<Include> out;
  for (const auto& entry : fs::recursive_directory_iterator(runtime)) {
    if (!entry.is_regular_file()) continue;
    const std::string ext = entry.path().extension().string();
    if (ext != ".h" && ext != ".cpp" && ext != ".cu" && ext != ".cuh" && ext != ".inc") continue;
    const std::string from = fs::relative(entry.path(), runtime).generic_string();
    std::ifstream in(entry.path());
    std::smatch m;
    for (std::string line; std::getline(in, line);) {
      if (!std::regex_search(line, m, kInclude)) continue;
      const std::string to = included_path(runtime, m[1].str());
      if (!to.empty()) out.push_back({from, to});
    }
  }
  return out;
}

TEST(Layering, EveryRuntimeFileHasALayer) {
  ASSERT_GE(layers().size(), 10u) << "no layer table at " << LAZYGEN_RUNTIME_LAYERS_FILE;
  const fs::path runtime = source_root() / "runtime";
  ASSERT_TRUE(fs::exists(runtime)) << "run from the source root";
  for (const auto& entry : fs::recursive_directory_iterator(runtime)) {
    if (!entry.is_regular_file()) continue;
    const std::string path = fs::relative(entry.path(), runtime).generic_string();
    EXPECT_TRUE(layer_of(path).has_value())
        << "runtime/" << path
        << " is in no layer: add its folder to a lazygen_runtime_layer "
           "in runtime/CMakeLists.txt";
  }
}

TEST(Layering, NoIncludeRunsUpTheLayers) {
  const std::vector<Include> includes = runtime_includes();
  ASSERT_GT(includes.size(), 500u) << "run from the source root";
  for (const Include& inc : includes) {
    const std::optional<size_t> from = layer_of(inc.from), to = layer_of(inc.to);
    if (!from || !to || *to <= *from) continue;
    EXPECT_TRUE(known_exceptions().count(inc.from + " -> " + inc.to))
        << "runtime/" << inc.from << " (" << layers()[*from].name << ") includes " << inc.to << " ("
        << layers()[*to].name
        << "), a layer above it (See Note [Runtime layers] in runtime/CMakeLists.txt): move what "
           "it needs down, or hand it over through a registry or an interface";
  }
}

TEST(Layering, EveryKnownExceptionStillExists) {
  std::set<std::string> seen;
  for (const Include& inc : runtime_includes()) seen.insert(inc.from + " -> " + inc.to);
  for (const std::string& e : known_exceptions()) {
    EXPECT_TRUE(seen.count(e)) << e << " is gone: remove it from known_exceptions()";
  }
}

}  // namespace
