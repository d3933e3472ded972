// "Did you mean" suggestions for misspelt keys, enum values and catalog ids
// (after ninja's SpellcheckString: edit distance with a cut-off).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace scaleout {

// Levenshtein distance between a and b (case-sensitive).
int edit_distance(std::string_view a, std::string_view b);

// The best suggestion for a misspelt word, or "" if none: a candidate the
// word starts (h100 -> h100-sxm); else the fewest edits within max(2,
// |word|/3), ties to the longer shared prefix; else a shared prefix of 4+.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

// "did you mean 'x'?" or, without a close match, "expected one of: a, b, c".
std::string suggestion(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace scaleout
