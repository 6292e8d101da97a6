// A main() for libFuzzer targets where libFuzzer is not available (GCC, the CI compiler): the same
// LLVMFuzzerTestOneInput runs on every corpus file, then on deterministic mutations of them (bit
// flips, byte and dictionary-token insertions, deletions, duplications, splices of two entries;
// std::mt19937_64 with a fixed seed) until a count or a time limit is reached. There is no
// coverage feedback: this is a smoke test that the contract holds on the seeds and their near
// neighbours, not a fuzzing campaign (see docs/build.md, "Fuzzing").
//
//   <target>_fuzz_smoke [--iterations=N] [--max-seconds=S] [--seed=N] [--max-len=N]
//                       [--dict=FILE] PATH...
//
// A PATH is a file or a directory of files (read in name order). Without --iterations only the
// inputs run, which replays a crash. On a crash (a contract violation traps) the input is first
// written to ./crash-<executable name>.bin.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

using Bytes = std::string;

struct Options {
  uint64_t iterations = 0;  // without --iterations, the inputs only (to replay a crash)
  double max_seconds = 10;
  uint64_t seed = 1;
  size_t max_len = 4096;
  std::string dict;
  std::vector<std::string> paths;
};

// The input being run, for the crash handler (which may only make async-signal-safe calls).
const Bytes* g_current = nullptr;
char g_crash_path[256] = "crash.bin";

void on_crash(int sig) {
  if (g_current) {
    int fd = open(g_crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ssize_t written = write(fd, g_current->data(), g_current->size());
      (void)written;
      close(fd);
    }
    const char msg[] = "\nstandalone_driver: crashing input written to ";
    ssize_t w1 = write(2, msg, sizeof msg - 1);
    ssize_t w2 = write(2, g_crash_path, strlen(g_crash_path));
    ssize_t w3 = write(2, "\n", 1);
    (void)w1, (void)w2, (void)w3;
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void install_crash_handler(const char* argv0) {
  std::string name = std::filesystem::path(argv0).filename().string();
  std::snprintf(g_crash_path, sizeof g_crash_path, "crash-%s.bin", name.c_str());
  for (int sig : {SIGABRT, SIGILL, SIGSEGV, SIGBUS, SIGFPE}) signal(sig, on_crash);
}

Bytes read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<Bytes> read_corpus(const std::vector<std::string>& paths) {
  std::vector<Bytes> corpus;
  for (const std::string& path : paths) {
    if (!std::filesystem::is_directory(path)) {
      corpus.push_back(read_file(path));
      continue;
    }
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(path)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) corpus.push_back(read_file(file));
  }
  return corpus;
}

// libFuzzer's dictionary format: one `name="value"` (or `"value"`) a line, with \\, \" and \xNN.
std::vector<Bytes> read_dictionary(const std::string& path) {
  std::vector<Bytes> tokens;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    size_t open = line.find('"'), close = line.rfind('"');
    if (line.empty() || line[0] == '#' || open == std::string::npos || close <= open) continue;
    Bytes token;
    for (size_t i = open + 1; i < close; ++i) {
      if (line[i] != '\\' || i + 1 >= close) {
        token += line[i];
      } else if (line[i + 1] == 'x' && i + 3 < close) {
        token += static_cast<char>(std::stoi(line.substr(i + 2, 2), nullptr, 16));
        i += 3;
      } else {
        token += line[++i];
      }
    }
    tokens.push_back(token);
  }
  return tokens;
}

// Mutations of corpus entries; deterministic for a given seed (no std::*_distribution, whose
// results differ between standard libraries).
class Mutator {
 public:
  Mutator(uint64_t seed, const std::vector<Bytes>& corpus, std::vector<Bytes> dict, size_t max_len)
      : rng_(seed), corpus_(corpus), dict_(std::move(dict)), max_len_(max_len) {}

  Bytes next() {
    Bytes data = corpus_[below(corpus_.size())];
    for (size_t n = 1 + below(4); n > 0; --n) mutate(data);
    if (data.size() > max_len_) data.resize(max_len_);
    return data;
  }

 private:
  size_t below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng_() % n); }
  char some_byte() {
    static constexpr std::string_view kSyntax = "()[]{}<>,:;-?!*|&#'\"\\=. \t\n\r0_aTzN";
    return below(2) ? kSyntax[below(kSyntax.size())] : static_cast<char>(rng_());
  }

  void mutate(Bytes& data) {
    size_t at = below(data.size() + 1);
    switch (below(7)) {
      case 0:
        if (!data.empty()) data[below(data.size())] ^= static_cast<char>(1u << below(8));
        break;
      case 1:
        if (!data.empty()) data[below(data.size())] = some_byte();
        break;
      case 2:
        data.insert(at, 1, some_byte());
        break;
      case 3:
        data.erase(at, 1 + below(8));
        break;
      case 4:  // duplicate a short range
        if (!data.empty()) data.insert(at, data.substr(below(data.size()), 1 + below(16)));
        break;
      case 5:
        if (!dict_.empty()) data.insert(at, dict_[below(dict_.size())]);
        break;
      default: {  // splice: our prefix, another entry's suffix
        const Bytes& other = corpus_[below(corpus_.size())];
        data = data.substr(0, at) + other.substr(below(other.size() + 1));
      }
    }
  }

  std::mt19937_64 rng_;
  const std::vector<Bytes>& corpus_;
  std::vector<Bytes> dict_;
  size_t max_len_;
};

void run_one(const Bytes& input) {
  g_current = &input;
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  g_current = nullptr;
}

bool parse_options(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char* flag) {
      return arg.rfind(flag, 0) == 0 ? arg.substr(std::strlen(flag)) : std::string();
    };
    if (!value("--iterations=").empty()) {
      options.iterations = std::stoull(value("--iterations="));
    } else if (!value("--max-seconds=").empty()) {
      options.max_seconds = std::stod(value("--max-seconds="));
    } else if (!value("--seed=").empty()) {
      options.seed = std::stoull(value("--seed="));
    } else if (!value("--max-len=").empty()) {
      options.max_len = std::stoull(value("--max-len="));
    } else if (!value("--dict=").empty()) {
      options.dict = value("--dict=");
    } else if (arg.rfind("--", 0) == 0) {
      std::fprintf(stderr, "unknown option %s\n", arg.c_str());
      return false;
    } else {
      options.paths.push_back(arg);
    }
  }
  return !options.paths.empty();
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parse_options(argc, argv, options)) {
    std::fprintf(stderr,
                 "usage: %s [--iterations=N] [--max-seconds=S] [--seed=N] [--max-len=N] "
                 "[--dict=FILE] PATH...\n",
                 argv[0]);
    return 2;
  }
  install_crash_handler(argv[0]);
  const std::vector<Bytes> corpus = read_corpus(options.paths);
  for (const Bytes& input : corpus) run_one(input);
  if (corpus.empty() || options.iterations == 0) {
    std::printf("%zu inputs run\n", corpus.size());
    return 0;
  }

  Mutator mutator(options.seed, corpus,
                  options.dict.empty() ? std::vector<Bytes>{} : read_dictionary(options.dict),
                  options.max_len);
  const auto start = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  uint64_t done = 0;
  for (; done < options.iterations; ++done) {
    if (done % 256 == 0 && seconds() > options.max_seconds) break;
    run_one(mutator.next());
  }
  const double elapsed = seconds();
  std::printf("%zu corpus inputs, %llu mutations in %.2f s (%.0f exec/s)%s\n", corpus.size(),
              static_cast<unsigned long long>(done), elapsed, done / std::max(elapsed, 1e-9),
              done < options.iterations ? ", stopped at --max-seconds" : "");
  return 0;
}
