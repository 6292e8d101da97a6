// Fusion-group keys and kernel manifests: the one definition of their text, read and written by
// the runtime (which prints the key of every group it compiles and records manifests) and by the
// generator (which parses manifests and emits a kernel per key). Plain C++, no other lazygen
// header, compiled into both.
//
// Note [Group keys]
// ~~~~~~~~~~~~~~~~~
// A key is one line of text that names exactly what an AOT kernel's code depends on (See Note
// [AOT kernels]). It lists, in the program's own order:
//   T=<dtype>                      the compute dtype every op runs in
//   load=<dtype>:<class>           per load: its dtype and innermost stride class, `c` (stride
//                                  1, read in place), `b` (stride 0, broadcast along the row) or
//                                  `s` (any other stride: gathered by the interpreter)
//   op=<schema name>(<args>)       per op: the op's stable name from ops.yaml and its operands:
//                                  l<k> load k, v<k> the value of op k, s<k> Scalar k
//   out=v<k>:<dtype>               per output: the value it stores and its dtype
//   reduce=<sum|mean|amax>(<ref>)  the folded reduction, if any, over trailing dims; with
//                                  `.lead` (reduce=sum.lead(v2)) over leading dims (See Note
//                                  [Folded reduction layouts]). A kernel computes the same for
//                                  both, but the interpreter around it folds differently.
//   cuda=<rank>:<letters>          a CUDA key only (See Note [CUDA group keys])
// Extents, outer strides, offsets, tile sizes and streaming are left out: they are the
// interpreter's business, so one key (and one kernel) covers every shape of a structure; the
// stride classes are the group's shape class. Op values are numbered by op, not by tile
// register, so the key does not depend on register allocation.
// The hash is two independent 64-bit hashes of the text (FNV-1a with different offset bases,
// each finished with a 64-bit mixer); lookups compare the full text as well, so a collision can
// only cost a miss, never a wrong kernel.
//
// Note [Canonical manifests]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// A manifest lists the groups a program compiles, for `lazygen --kernels`:
//   # comment
//   lazygen-manifest 1                   the key version (kKeyVersion)
//   kernel T=float32 load=float32:c ...  one key per line
// It is a set: its kernel lines are sorted bytewise and unique, so recording the same groups in
// any order, in one run or many, and merging manifests in any order, all give the same bytes.
// Comments and blank lines are not kept.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace lazygen::fusion {

// The version of the key and manifest text, and of the AOT kernel contract built on it (the
// runtime's kAotIrVersion). A manifest of another version is stale.
inline constexpr int kKeyVersion = 1;

// Where a key's text came from: file:line:col, 1-based (0: unknown, not printed).
struct KeyLoc {
  std::string file;
  int line = 0;
  int col = 0;
  std::string str() const;
  KeyLoc advanced(int offset) const { return {file, line, col == 0 ? 0 : col + offset}; }
};

// Malformed key or manifest text. what() reads "file:line:col: error: <message>\n  hint: <hint>".
class KeyError : public std::runtime_error {
 public:
  KeyError(KeyLoc loc, std::string message, std::string hint = "");
  const KeyLoc& loc() const { return loc_; }
  const std::string& message() const { return message_; }
  const std::string& hint() const { return hint_; }

 private:
  KeyLoc loc_;
  std::string message_;
  std::string hint_;
};

struct KeyRef {
  char kind = 'l';  // l: load, v: op value, s: Scalar
  int index = 0;
  std::string str() const { return kind + std::to_string(index); }
};

struct KeyLoad {
  std::string dtype;
  char stride_class = 'c';  // c contiguous, b broadcast, s strided
};

struct KeyOp {
  std::string name;  // schema name, e.g. add.Tensor
  std::vector<KeyRef> args;
  KeyLoc loc;
};

struct KeyOutput {
  int value = 0;  // op index
  std::string dtype;
};

struct KernelKey {
  std::string dtype;  // T
  std::vector<KeyLoad> loads;
  std::vector<KeyOp> ops;
  std::vector<KeyOutput> outputs;
  std::string reduce;  // "" (none), sum, mean or amax; + ".lead" over leading dims
  KeyRef reduce_from;
  int cuda_rank = 0;        // 0: no cuda= field (a cpu key)
  std::string cuda_access;  // per load: C, B or S
  KeyLoc loc;
};

// The canonical text of `key`; parse_key(print_key(k)) gives k back.
std::string print_key(const KernelKey& key);
// One key's text (without the manifest's `kernel `), checked as parse_manifest checks it.
// Throws KeyError at `at` plus the offending column.
KernelKey parse_key(std::string_view text, const KeyLoc& at = {"key", 1, 1});
// Every key of manifest `text`, checked: fields, their order, dtypes, stride classes, and that
// every operand names a load or an earlier op (which ops exist is for whoever knows the op set).
// Throws KeyError at `file`:line:col of the offending text, or when the version is not
// kKeyVersion.
std::vector<KernelKey> parse_manifest(std::string_view text, const std::string& file);
// `key` without its cuda= field.
KernelKey cpu_key(KernelKey key);

struct KeyHash {
  uint64_t hi = 0;
  uint64_t lo = 0;
  bool operator==(const KeyHash&) const = default;
  std::string hex() const;  // 32 lowercase hex digits, hi first
};
KeyHash key_hash(std::string_view key);
// A 64-bit hash of `text`: FNV-1a from `basis`, finished with murmur3's fmix64 (key_hash's halves).
uint64_t text_hash(std::string_view text, uint64_t basis = 0xcbf29ce484222325ULL);

// Manifests as key texts (See Note [Canonical manifests]); these read leniently: the runtime
// writes what it reads.
using KeySet = std::set<std::string>;
// The keys of manifest `text`; a manifest of another version yields none and sets `stale`.
KeySet manifest_keys(std::string_view text, bool* stale = nullptr);
// The canonical text of a set of keys.
std::string manifest_text(const KeySet& keys);
// The union of several manifests, canonical.
std::string merge_manifests(const std::vector<std::string>& texts);

}  // namespace lazygen::fusion
