// See suggest.h.
#include "model/suggest.h"

#include <algorithm>

namespace lazygen::gen {

int edit_distance(std::string_view a, std::string_view b) {
  std::vector<int> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diag = row[0];
    row[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      int up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string nearest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  int best_distance = 0;
  for (const auto& c : candidates) {
    int d = edit_distance(word, c);
    if (best.empty() || d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  // A typo changes at most a third of the word (and at least one character is allowed).
  int limit = std::max<int>(1, static_cast<int>(word.size()) / 3);
  return best_distance <= limit ? best : std::string();
}

std::string suggest_hint(std::string_view word, const std::vector<std::string>& candidates) {
  std::string valid;
  for (const auto& c : candidates) valid += (valid.empty() ? "" : ", ") + c;
  std::string near = nearest(word, candidates);
  if (near.empty()) return "valid: " + valid;
  return "did you mean '" + near + "'? valid: " + valid;
}

}  // namespace lazygen::gen
