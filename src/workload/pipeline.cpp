#include "workload/pipeline.hpp"

#include <cmath>
#include <cstdlib>

namespace scaleout {

int chunk_layer_count(int layers, const Layout& ly, int s, int c) {
  const int chunks = pipeline_chunks(ly);
  if (c < 0 || c >= chunks) return 0;
  if (ly.pp > 1 && split_places(ly) > 0) {
    const int places = (layers + split_places(ly)) / (ly.pp * chunks);
    return places - (s == 0 && c == 0 && ly.embedding_in_split ? 1 : 0) -
           (s == ly.pp - 1 && c == chunks - 1 && ly.loss_in_split ? 1 : 0);
  }
  const int n = rank_layer_count(layers, ly, s);
  return n / chunks + (c < n % chunks ? 1 : 0);
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

}  // namespace scaleout
