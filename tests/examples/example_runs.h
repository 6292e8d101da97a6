// Running an example binary from a test: its exit status and everything it printed, and the
// losses of its "loss <value>" progress lines.
#pragma once

#include <array>
#include <cstdio>
#include <regex>
#include <string>
#include <vector>

namespace lazygen::testing {

struct RunResult {
  int status = -1;
  std::string output;
};

// Runs `binary args` with stderr joined to stdout.
inline RunResult run_example(const std::string& binary, const std::string& args) {
  const std::string command = binary + " " + args + " 2>&1";
  RunResult r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), pipe) != nullptr) r.output += buf.data();
  r.status = pclose(pipe);
  return r;
}

// The losses of the progress lines, in order.
inline std::vector<double> losses(const std::string& output) {
  static const std::regex kLine(R"(loss (\d+\.\d+))");
  std::vector<double> out;
  for (auto it = std::sregex_iterator(output.begin(), output.end(), kLine);
       it != std::sregex_iterator(); ++it) {
    out.push_back(std::stod((*it)[1]));
  }
  return out;
}

}  // namespace lazygen::testing
