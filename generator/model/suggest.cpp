// See suggest.h.
#include "model/suggest.h"

#include <algorithm>

namespace lazygen::gen {

// Optimal string alignment: a swap of two adjacent characters ("flaot") is one edit, as a
// typist makes it. Three rows of the table suffice (a swap looks two rows back).
int edit_distance(std::string_view a, std::string_view b) {
  std::vector<int> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    before.swap(previous);
    previous.swap(row);
    row[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        row[j] = std::min(row[j], before[j - 2] + 1);
      }
    }
  }
  return row[b.size()];
}

std::string nearest(std::string_view word, const std::vector<std::string>& candidates) {
  // A typo changes at most a third of the word (and at least one character is allowed).
  const size_t limit = std::max<size_t>(1, word.size() / 3);
  std::string best;
  size_t best_distance = 0;
  for (const auto& c : candidates) {
    // The distance is at least the difference in length: such a candidate can never be
    // suggested, and skipping it keeps a long unknown word (fuzzed input) cheap.
    if (std::max(c.size(), word.size()) - std::min(c.size(), word.size()) > limit) continue;
    size_t d = static_cast<size_t>(edit_distance(word, c));
    if (best.empty() || d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return !best.empty() && best_distance <= limit ? best : std::string();
}

std::string suggest_hint(std::string_view word, const std::vector<std::string>& candidates) {
  std::string valid;
  for (const auto& c : candidates) valid += (valid.empty() ? "" : ", ") + c;
  std::string near = nearest(word, candidates);
  if (near.empty()) return "valid: " + valid;
  return "did you mean '" + near + "'? valid: " + valid;
}

}  // namespace lazygen::gen
