// See suggest.h.
#include "model/suggest.h"

#include <algorithm>

namespace lazygen::gen {

// Optimal string alignment: a swap of two adjacent characters ("flaot") is one edit, as a
// typist makes it.
int edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<int>> d(a.size() + 1, std::vector<int>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = static_cast<int>(i);
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
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
