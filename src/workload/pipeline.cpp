#include "workload/pipeline.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <utility>

namespace scaleout {

int chunk_layer_count(int layers, const Layout& ly, int s, int c) {
  const int chunks = pipeline_chunks(ly);
  if (c < 0 || c >= chunks) return 0;
  if (ly.pp > 1 && !ly.chunk_layers.empty()) {
    const size_t i = static_cast<size_t>(c) * static_cast<size_t>(ly.pp) + static_cast<size_t>(s);
    return i < ly.chunk_layers.size() ? ly.chunk_layers[i] : 0;
  }
  if (ly.pp > 1 && split_places(ly) > 0) {
    const int places = (layers + split_places(ly)) / (ly.pp * chunks);
    return places - (s == 0 && c == 0 && ly.embedding_in_split ? 1 : 0) -
           (s == ly.pp - 1 && c == chunks - 1 && ly.loss_in_split ? 1 : 0);
  }
  const int n = rank_layer_count(layers, ly, s);
  return n / chunks + (c < n % chunks ? 1 : 0);
}

std::vector<int> near_even_chunk_layers(int layers, const Layout& ly) {
  Layout even = ly;
  even.chunk_layers.clear();
  even.first_stage_layers = even.last_stage_layers = 0;
  even.embedding_in_split = even.loss_in_split = false;
  const int p = std::max(1, ly.pp), v = pipeline_chunks(ly);
  std::vector<int> out(static_cast<size_t>(p) * static_cast<size_t>(v));
  for (int c = 0; c < v; ++c) {
    for (int s = 0; s < p; ++s)
      out[static_cast<size_t>(c * p + s)] = chunk_layer_count(layers, even, s, c);
  }
  return out;
}

int interleave_group_size(int pp, long long microbatches) {
  const long long p = std::max(1, pp);
  if (microbatches <= p || microbatches % p == 0) return static_cast<int>(p);
  for (long long n = p + 1; n < microbatches; ++n) {
    const long long rest = microbatches % n;
    if (rest == 0 || rest >= p) return static_cast<int>(n);
  }
  return static_cast<int>(microbatches);
}

StageLayers stage_layers(const ModelShape& m, const Layout& ly, int s) {
  const int p = std::max(1, ly.pp);
  const int total = m.layers;
  StageLayers st;
  st.layers = rank_layer_count(total, ly, s);
  st.chunks = pipeline_chunks(ly);
  st.embedding = s == 0;
  st.output = s == p - 1;
  const int moe_first = m.is_moe() ? std::clamp(m.moe.dense_layers, 0, total) : total;
  if (moe_first >= total) {
    st.dense = st.layers;
  } else if (moe_first <= 0) {
    st.moe = st.layers;
  } else {
    // The dense layers are the model's first moe_first: walk the chunks in
    // build order until they are placed.
    int start = 0;
    for (int c = 0; c < st.chunks && start < moe_first; ++c) {
      for (int r = 0; r < p && start < moe_first; ++r) {
        const int n = chunk_layer_count(total, ly, r, c);
        if (r == s) st.dense += std::clamp(moe_first - start, 0, n);
        start += n;
      }
    }
    st.moe = st.layers - st.dense;
  }
  return st;
}

int heaviest_stage_layers(const ModelShape& m, const Layout& ly) {
  int most = 0;
  for (int s = 0; s < std::max(1, ly.pp); ++s)
    most = std::max(most, rank_layer_count(m.layers, ly, s));
  return most;
}

double recomputed_share(const Layout& ly, const StageLayers& st) {
  if (ly.recompute != Recompute::full || st.layers <= 0) return 0.0;
  if (ly.recompute_layers <= 0) return 1.0;
  // The first N layers of each chunk: chunks of q + 1 layers (the first r)
  // and of q.
  const int chunks = std::max(1, st.chunks);
  const int q = st.layers / chunks, r = st.layers % chunks;
  const int n = ly.recompute_layers;
  const int recomputed = r * std::min(n, q + 1) + (chunks - r) * std::min(n, q);
  return std::min(1.0, static_cast<double>(recomputed) / st.layers);
}

std::optional<StageSplit> balanced_stage_split(int layers, const Layout& ly, double first_extra,
                                               double last_extra) {
  const int p = ly.pp;
  if (p < 2 || layers < 2) return std::nullopt;
  const int v = pipeline_chunks(ly);
  // The even split's slowest stage, in layer times.
  Layout even = ly;
  even.first_stage_layers = 0;
  even.last_stage_layers = 0;
  double best_load = 0;
  for (int s = 0; s < p; ++s) {
    const double extra = (s == 0 ? first_extra : 0.0) + (s == p - 1 ? last_extra : 0.0);
    best_load = std::max(best_load, rank_layer_count(layers, even, s) + extra);
  }
  constexpr double kTie = 1e-9;
  best_load -= kTie;  // only a split strictly faster than the even one
  const double mean = static_cast<double>(layers) / p;
  std::optional<StageSplit> best;
  double best_moved = 0;
  // k: layers on each middle rank (a multiple of the chunks); pp 2 has none.
  for (int k = p > 2 ? v : 0;; k += v) {
    const long long rest = layers - static_cast<long long>(p - 2) * k;
    if (rest < 2LL * v) break;
    if (rest % v == 0) {
      // The first stage's ideal share of the rest evens first + e with last + o.
      const double ideal = (static_cast<double>(rest) + last_extra - first_extra) / 2.0;
      const int f0 = static_cast<int>(std::lround(ideal / v)) * v;
      for (int f : {f0 - v, f0, f0 + v}) {
        if (f < v || f > rest - v) continue;
        const int l = static_cast<int>(rest) - f;
        const double load =
            std::max({f + first_extra, l + last_extra, static_cast<double>(p > 2 ? k : 0)});
        const double moved = std::fabs(f - mean) + std::fabs(l - mean);
        if (load < best_load - kTie ||
            (best && std::fabs(load - best_load) <= kTie && moved < best_moved)) {
          best = StageSplit{f, l};
          best_load = load;
          best_moved = moved;
        }
      }
    }
    if (p == 2) break;
  }
  return best;
}

namespace {

// Unrolls the repeats of a layout string as Megatron-Core does: first every
// parenthesised group '(...)*n' (innermost text without parentheses), then
// every single-character 'x*n'. False (with `why`) on a malformed repeat.
bool unroll_layout(std::string& s, std::string& why) {
  constexpr long long kMaxLength = 100000;
  auto count_after = [&](size_t star, size_t& end, long long& n) {
    end = star + 1;
    n = 0;
    while (end < s.size() && std::isdigit(static_cast<unsigned char>(s[end])) != 0) {
      n = n * 10 + (s[end] - '0');
      if (n > kMaxLength) return false;
      ++end;
    }
    return end > star + 1;
  };
  for (size_t open = s.find('('); open != std::string::npos; open = s.find('(')) {
    const size_t close = s.find(')', open);
    size_t end = 0;
    long long n = 0;
    if (close == std::string::npos || close == open + 1 || s.find('(', open + 1) < close ||
        close + 1 >= s.size() || s[close + 1] != '*' || !count_after(close + 1, end, n)) {
      why = "a '(' needs a non-empty group without parentheses, then ')*' and a count";
      return false;
    }
    const std::string group = s.substr(open + 1, close - open - 1);
    if (static_cast<long long>(s.size()) + static_cast<long long>(group.size()) * n > kMaxLength) {
      why = "the unrolled layout is too long";
      return false;
    }
    std::string repeated;
    for (long long i = 0; i < n; ++i) repeated += group;
    s = s.substr(0, open) + repeated + s.substr(end);
  }
  if (s.find(')') != std::string::npos) {
    why = "a ')' without its '('";
    return false;
  }
  // One pass: a character followed by '*' and a count is written count times.
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '*') {
      why = "'*' needs a layer character before it and a count after it";
      return false;
    }
    if (i + 1 < s.size() && s[i + 1] == '*') {
      size_t end = 0;
      long long n = 0;
      if (s[i] == '|' || !count_after(i + 1, end, n)) {
        why = "'*' needs a layer character before it and a count after it";
        return false;
      }
      if (static_cast<long long>(out.size()) + n > kMaxLength) {
        why = "the unrolled layout is too long";
        return false;
      }
      out.append(static_cast<size_t>(n), s[i]);
      i = end - 1;
    } else {
      out += s[i];
    }
  }
  s = std::move(out);
  return true;
}

}  // namespace

std::optional<ParsedPipelineLayout> parse_pipeline_layout(std::string_view text, int pp,
                                                          std::string& why) {
  // Longer text than any real layout: refused before unrolling (each
  // repeat copies the string).
  constexpr size_t kMaxText = 4096;
  if (text.size() > kMaxText) {
    why = fmt::format("{} characters, more than the {} a layout may have", text.size(), kMaxText);
    return std::nullopt;
  }
  std::string s;
  for (const char ch : text) {
    if (ch != ',') s += ch;
  }
  if (!unroll_layout(s, why)) return std::nullopt;
  std::vector<std::string> stages(1);
  for (const char ch : s) {
    if (ch == '|') {
      stages.emplace_back();
    } else if (ch == 'E' || ch == 't' || ch == 'm' || ch == 'L') {
      stages.back() += ch;
    } else {
      why = fmt::format(
          "unknown layer character '{}' (E embedding, t transformer layer, m MTP "
          "depth, L loss, '|' between stages)",
          ch);
      return std::nullopt;
    }
  }
  const int p = std::max(1, pp);
  if (stages.size() % static_cast<size_t>(p) != 0) {
    why =
        fmt::format("{} stages do not split over pp {} (pp x interleave stages)", stages.size(), p);
    return std::nullopt;
  }
  const std::string all = s;
  const auto count = [&](char ch) { return std::count(all.begin(), all.end(), ch); };
  const std::string flat = [&] {
    std::string f;
    for (const char ch : all) {
      if (ch != '|') f += ch;
    }
    return f;
  }();
  if (count('E') != 1 || count('L') != 1 || flat.front() != 'E' || flat.back() != 'L') {
    why = "the embedding E must come first and the loss L last, once each";
    return std::nullopt;
  }
  ParsedPipelineLayout out;
  for (size_t i = 0; i < stages.size(); ++i) {
    const std::string& st = stages[i];
    out.chunk_layers.push_back(static_cast<int>(std::count(st.begin(), st.end(), 't')));
    const int mtp = static_cast<int>(std::count(st.begin(), st.end(), 'm'));
    if (mtp > 0 && st.find('t', st.find('m')) != std::string::npos) {
      why = "transformer layers t must come before the MTP depths m (Megatron-Core)";
      return std::nullopt;
    }
    if (mtp > 0 && i + 1 != stages.size()) {
      why = "MTP depths m are timed with the loss: place them in the last stage, before L";
      return std::nullopt;
    }
    out.mtp_layers += mtp;
  }
  return out;
}

}  // namespace scaleout
