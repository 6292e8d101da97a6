// The runtime's layers, checked on every build's tests: no file of runtime/ includes a header of a
// layer above its own (See Note [Runtime layers]). Also: every file of runtime/ belongs to a
// layer, and every listed exception still exists (a fixed one must leave the list).
//
// Note [Runtime layers]
// ~~~~~~~~~~~~~~~~~~~~~
// From the bottom: core (tensors, IR, lazy tensors, dispatch, the public value types) < the
// shape functions (ops/shape: the hand-written shape hooks, which tracing calls through the
// generated lazy ops and every device's eager kernels call to size their outputs; they need only
// core) < the backend contract (backend.h, the Graph backends compile, and what every backend
// shares) < exec (graph executor, lowering table, backend registry, lazy device) < fusion (what
// every fusing backend shares and no backend's code: pointwise op facts, node traits, index maps,
// the planner, the memory plan, the group-key text; it reads views' layouts through the lowering
// table) < the cpu backends < the CUDA backend < ops (kernels, shape hooks) < autograd < composites
// < nn, optim, data < distributed < the PyTorch device. A file may include its own layer and those
// below. The generated code is the op set, at both ends (the op list is below core, the kernels
// above the backends), so includes of lazygen/generated/ are not checked here. A public header
// (runtime/include/lazygen/) is in the layer of what it declares: lazygen/autograd.h in autograd,
// lazygen/nn/ in nn, and so on. Tests run with the source root as working directory (or
// LAZYGEN_SOURCE_DIR set).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "source_root.h"

namespace {

namespace fs = std::filesystem;
using lazygen::test_files::source_root;

struct Layer {
  const char* name;
  std::vector<std::string> prefixes;  // paths under runtime/; the longest matching prefix wins
};

// Bottom first (See Note [Runtime layers]).
const std::vector<Layer>& layers() {
  static const std::vector<Layer> kLayers = {
      // The collectives' interface is here: collective ops and the executor run through it.
      {"core",
       {"core", "include/lazygen", "version.cpp", "CMakeLists.txt",
        "include/lazygen/distributed/communicator.h", "distributed/communicator.cpp"}},
      // Shape hooks size lazy IR nodes at trace time and eager outputs on every device.
      {"shape functions", {"ops/shape"}},
      {"backend contract",
       {"backend/backend.h", "backend/graph.h", "backend/graph.cpp", "backend/kernel_cache",
        "backend/cuda_text", "backend/CMakeLists.txt"}},
      {"exec", {"exec"}},
      {"fusion", {"fusion"}},
      {"cpu backends", {"backend/cpu", "backend/null", "backend/no_cuda"}},
      {"cuda backend", {"backend/cuda"}},
      {"ops", {"ops"}},
      {"autograd", {"autograd", "include/lazygen/autograd.h"}},
      // nn::functional's forms are composites over the op API too.
      {"composites",
       {"ops/composite", "include/lazygen/composite.h", "include/lazygen/nn/functional.h",
        "nn/functional.cpp"}},
      {"nn, optim, data",
       {"nn", "optim", "data", "include/lazygen/nn", "include/lazygen/optim",
        "include/lazygen/data"}},
      {"distributed",
       {"distributed", "include/lazygen/distributed.h", "include/lazygen/distributed"}},
      {"pytorch", {"pytorch"}},
      {"umbrella", {"include/lazygen/lazygen.h"}},
  };
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
  const fs::path runtime = source_root() / "runtime";
  ASSERT_TRUE(fs::exists(runtime)) << "run from the source root";
  for (const auto& entry : fs::recursive_directory_iterator(runtime)) {
    if (!entry.is_regular_file()) continue;
    const std::string path = fs::relative(entry.path(), runtime).generic_string();
    EXPECT_TRUE(layer_of(path).has_value())
        << "runtime/" << path << " is in no layer: add its folder to layers() in " << __FILE__;
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
        << layers()[*to].name << "), a layer above it (See Note [Runtime layers] in " << __FILE__
        << "): move what it needs down, or hand it over through a registry or an interface";
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
