// Diagnostics for the generator: a source location and the one error type every stage throws.
//
// Every user-facing error of lazygen names where the problem is (`file:line:col`, 1-based, as
// compilers print it), what is wrong (quoting the offending text) and what to write instead. The
// generator never prints a stack trace or a bare yaml-cpp message.
#pragma once

#include <stdexcept>
#include <string>

namespace lazygen::gen {

// A position in an input file. line/col are 1-based; 0 means "unknown" and is not printed.
struct SourceLoc {
  std::string file;
  int line = 0;
  int col = 0;

  // "file:line:col", "file:line" or "file" depending on what is known.
  std::string str() const;
  // The location `offset` characters further on the same line (for errors inside a schema string).
  SourceLoc advanced(int offset) const { return {file, line, col == 0 ? 0 : col + offset}; }
};

// The error every generator stage throws. what() is the full, printable message:
//   ops.yaml:12:9: error: unknown key 'pointwize'
//     hint: did you mean 'pointwise'?
class GenError : public std::runtime_error {
 public:
  GenError(SourceLoc loc, std::string message, std::string hint = "");

  const SourceLoc& loc() const { return loc_; }
  const std::string& message() const { return message_; }
  const std::string& hint() const { return hint_; }

 private:
  SourceLoc loc_;
  std::string message_;
  std::string hint_;
};

}  // namespace lazygen::gen
