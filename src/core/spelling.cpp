#include "core/spelling.hpp"

#include <algorithm>

namespace scaleout {

int edit_distance(std::string_view a, std::string_view b) {
  std::vector<int> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diag = row[0];
    row[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      const int up = row[j];
      const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + cost});
      diag = up;
    }
  }
  return row[b.size()];
}

namespace {
size_t common_prefix(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}
}  // namespace

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  // 1. The word is the start of a candidate (h100 -> h100-sxm): the shortest such.
  std::string best;
  if (word.size() >= 3) {
    for (const auto& c : candidates) {
      if (c.size() > word.size() && c.compare(0, word.size(), word) == 0 &&
          (best.empty() || c.size() < best.size())) {
        best = c;
      }
    }
    if (!best.empty()) return best;
  }
  // 2. The fewest edits within max(2, |word|/3); ties go to the longer shared prefix.
  const int limit = std::max<int>(2, static_cast<int>(word.size()) / 3);
  int best_distance = limit + 1;
  size_t best_prefix = 0;
  for (const auto& c : candidates) {
    const int d = edit_distance(word, c);
    const size_t prefix = common_prefix(word, c);
    if (d < best_distance || (d == best_distance && d <= limit && prefix > best_prefix)) {
      best_distance = d;
      best_prefix = prefix;
      best = c;
    }
  }
  if (!best.empty()) return best;
  // 3. No close spelling: a candidate sharing a prefix of at least 4 (tdp_watts -> tdp_w).
  size_t longest = 3;
  for (const auto& c : candidates) {
    const size_t n = common_prefix(word, c);
    if (n > longest) {
      longest = n;
      best = c;
    }
  }
  return best;
}

std::string suggestion(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string best = closest_match(word, candidates);
  if (!best.empty()) return "did you mean '" + best + "'?";
  // A short list (a setting's words) is shown whole; a long one (a
  // catalog's GPUs) by its first names and its count, so the message stays
  // readable.
  constexpr size_t kWholeList = 16;
  constexpr size_t kShownOfLong = 12;
  std::string all = "expected one of: ";
  const size_t shown = candidates.size() <= kWholeList ? candidates.size() : kShownOfLong;
  for (size_t i = 0; i < shown; ++i) {
    if (i) all += ", ";
    all += candidates[i];
  }
  if (shown < candidates.size()) {
    all += ", ... (" + std::to_string(candidates.size()) + " in all)";
  }
  return all;
}

}  // namespace scaleout
