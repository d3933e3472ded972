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

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  const int limit = std::max<int>(2, static_cast<int>(word.size()) / 3);
  std::string best;
  int best_distance = limit + 1;
  for (const auto& c : candidates) {
    const int d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  if (!best.empty()) return best;
  // No close spelling: a candidate that shares a long prefix (tdp_watts -> tdp_w).
  size_t best_prefix = 3;
  for (const auto& c : candidates) {
    size_t n = 0;
    while (n < c.size() && n < word.size() && c[n] == word[n]) ++n;
    if (n > best_prefix || (n == best_prefix && n == c.size())) {
      best_prefix = n;
      best = c;
    }
  }
  return best;
}

std::string suggestion(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string best = closest_match(word, candidates);
  if (!best.empty()) return "did you mean '" + best + "'?";
  std::string all = "expected one of: ";
  const size_t shown = std::min<size_t>(candidates.size(), 12);
  for (size_t i = 0; i < shown; ++i) {
    if (i) all += ", ";
    all += candidates[i];
  }
  if (shown < candidates.size()) all += ", ...";
  return all;
}

}  // namespace scaleout
