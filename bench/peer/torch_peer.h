// PyTorch as a peer inside our benchmarks: runs ../shared/peers/torch_peer.py (LAZYGEN_PYTHON,
// Debian's /usr/bin/python3 with python3-torch) as a child process and reads the numbers it prints, so a
// benchmark can report "ours / PyTorch" from one run on one machine instead of from two runs
// minutes apart (this VM is shared and noisy).
//
// The script is found through LAZYGEN_TORCH_PEER (a path), else the copy beside the source tree
// (<source>/../shared/peers/torch_peer.py). It prints one JSON object; we read its top-level
// numeric fields. Nothing is cached: a benchmark repeated with --benchmark_repetitions runs the
// peer once per repetition, interleaved with our own measurement, so both see the same load.
//
// Thread safety: call from the benchmark's main thread only.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace lazygen::bench {

struct PeerResult {
  bool ok = false;
  std::string error;                      // why there are no numbers (when !ok)
  std::map<std::string, double> numbers;  // top-level numeric JSON fields, e.g. "median_ms"

  // The field's value; REQUIRES: ok and the field exists (throws std::out_of_range otherwise).
  double at(const std::string& key) const { return numbers.at(key); }
};

// Runs `python3 torch_peer.py <args...>` (stderr discarded) and waits for it.
PeerResult run_torch_peer(const std::vector<std::string>& args);

// Parses the top-level numeric fields of one flat JSON object ({"a": 1.5, "b": "x", ...});
// strings, booleans, nulls and nested values are skipped. Exposed for its test.
std::map<std::string, double> parse_numeric_fields(const std::string& json);

}  // namespace lazygen::bench
