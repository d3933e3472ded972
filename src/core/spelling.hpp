// "Did you mean" suggestions for misspelt keys, enum values and catalog ids
// (after ninja's SpellcheckString: edit distance with a cut-off).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace scaleout {

// Levenshtein distance between a and b (case-sensitive).
int edit_distance(std::string_view a, std::string_view b);

// The closest candidate within an edit distance of max(2, |word|/3), else the
// candidate sharing the longest prefix of at least 4 characters, else "".
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

// "did you mean 'x'?" or, without a close match, "expected one of: a, b, c".
std::string suggestion(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace scaleout
