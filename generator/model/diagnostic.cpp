// See diagnostic.h.
#include "model/diagnostic.h"

namespace lazygen::gen {
namespace {

std::string format(const SourceLoc& loc, const std::string& message, const std::string& hint) {
  std::string out = loc.str();
  if (!out.empty()) out += ": ";
  out += "error: " + message;
  if (!hint.empty()) out += "\n  hint: " + hint;
  return out;
}

}  // namespace

std::string SourceLoc::str() const {
  std::string out = file;
  if (line > 0) out += ":" + std::to_string(line);
  if (line > 0 && col > 0) out += ":" + std::to_string(col);
  return out;
}

GenError::GenError(SourceLoc loc, std::string message, std::string hint)
    : std::runtime_error(format(loc, message, hint)),
      loc_(std::move(loc)),
      message_(std::move(message)),
      hint_(std::move(hint)) {}

}  // namespace lazygen::gen
