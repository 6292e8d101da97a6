// How fast the schema grammar handles PyTorch's whole native_functions.yaml (2493 schemas).
//
// The generator parses every schema on every run, so this must stay in milliseconds (target: the
// whole file in well under 50 ms). BM_ParseAll times parse_schema alone on strings loaded once;
// BM_ParsePrintAll adds the canonical printer; BM_LoadYamlAndParseAll includes yaml-cpp's
// LoadFile, for reference (it dominates). The file comes from Debian's python3-torch; the path can
// be overridden with LAZYGEN_NATIVE_FUNCTIONS.
#include <benchmark/benchmark.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "model/schema.h"

namespace lazygen::gen {
namespace {

std::string native_functions_path() {
  const char* env = std::getenv("LAZYGEN_NATIVE_FUNCTIONS");
  if (env != nullptr && *env != '\0') return env;
  return "/usr/lib/python3/dist-packages/torchgen/packaged/ATen/native/native_functions.yaml";
}

// Every `func:` string of the file, or an empty list when the file is absent.
std::vector<std::string> load_funcs(const std::string& path) {
  std::vector<std::string> funcs;
  if (!std::filesystem::exists(path)) return funcs;
  for (const YAML::Node& entry : YAML::LoadFile(path)) {
    funcs.push_back(entry["func"].as<std::string>());
  }
  return funcs;
}

// Loaded once per process: a benchmark's timed loop must not include YAML parsing.
const std::vector<std::string>& funcs() {
  static const std::vector<std::string> loaded = load_funcs(native_functions_path());
  return loaded;
}

bool skip_if_absent(benchmark::State& state) {
  if (!funcs().empty()) return false;
  state.SkipWithError(("native_functions.yaml not found at " + native_functions_path() +
                       "; install python3-torch or set LAZYGEN_NATIVE_FUNCTIONS")
                          .c_str());
  return true;
}

void report(benchmark::State& state, size_t items_per_iteration) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * items_per_iteration));
  state.counters["schemas"] = static_cast<double>(items_per_iteration);
}

void BM_ParseAll(benchmark::State& state) {
  if (skip_if_absent(state)) return;
  for (auto _ : state) {
    for (const std::string& func : funcs()) benchmark::DoNotOptimize(parse_schema(func));
  }
  report(state, funcs().size());
}
BENCHMARK(BM_ParseAll)->Unit(benchmark::kMillisecond);

void BM_ParsePrintAll(benchmark::State& state) {
  if (skip_if_absent(state)) return;
  for (auto _ : state) {
    for (const std::string& func : funcs()) {
      benchmark::DoNotOptimize(print_schema(parse_schema(func)));
    }
  }
  report(state, funcs().size());
}
BENCHMARK(BM_ParsePrintAll)->Unit(benchmark::kMillisecond);

void BM_LoadYamlAndParseAll(benchmark::State& state) {
  if (skip_if_absent(state)) return;
  const std::string path = native_functions_path();
  for (auto _ : state) {
    YAML::Node root = YAML::LoadFile(path);
    for (const YAML::Node& entry : root) {
      benchmark::DoNotOptimize(parse_schema(entry["func"].as<std::string>()));
    }
  }
  report(state, funcs().size());
}
BENCHMARK(BM_LoadYamlAndParseAll)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace lazygen::gen

BENCHMARK_MAIN();
