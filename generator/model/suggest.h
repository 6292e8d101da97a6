// "Did you mean ...?" for misspelled keys, values and names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace lazygen::gen {

// Edit distance (insertions, deletions, substitutions, swaps of adjacent characters;
// case-sensitive).
int edit_distance(std::string_view a, std::string_view b);
// The candidate nearest to `word` if it is close enough to be a plausible typo, else "".
std::string nearest(std::string_view word, const std::vector<std::string>& candidates);
// "did you mean 'x'? valid: a, b, c" or "valid: a, b, c" when nothing is near.
std::string suggest_hint(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace lazygen::gen
