// Pipeline stages: which transformer layers each stage of a layout holds,
// and each of its model chunks (virtual stages). The one rule that memory,
// step time, recompute, serving and the launch files read
// (docs/model.md, "Pipeline stages").
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/transformer.hpp"
#include "workload/workload.hpp"

namespace scaleout {

// Model chunks per pipeline rank: interleave with pp > 1, else 1.
inline int pipeline_chunks(const Layout& ly) { return ly.pp > 1 ? std::max(1, ly.interleave) : 1; }

// Pipeline schedules (layout `pipeline_schedule`; DeepSeek-V3 technical
// report, arXiv:2412.19437 section 3.2.1 and table 2; deepseek-ai/DualPipe
// README). With F, B and W the times of a stage's forward, full backward and
// weight-gradient backward, and F&B = F + B (a forward and a backward chunk
// run together, their communication hidden, not their compute):
//   1F1B      bubble (p-1)(F+B)                  activations p      parameters 1x
//   ZB1P      bubble (p-1)(F+B-2W)               activations p      parameters 1x
//   DualPipe  bubble (p/2-1)(F&B+B-3W)           activations p+1    parameters 2x
//   DualPipeV bubble (p-1)(F&B+B-3W)/2           activations p+1/2  parameters 1x
// DualPipeV is DualPipe cut in half: p ranks run the 2p half-stage chunks of
// a DualPipe of 2p stages, so its terms are DualPipe's at 2p in chunk units,
// halved into stage units.

// The schedule's bubble over 1F1B's (p-1)(F+B), with b = B/(F+B) and
// w = W/(F+B) the stage's backward and weight-gradient shares; never below 0.
inline double schedule_bubble_ratio(PipeSchedule s, int p, double b, double w) {
  if (p < 2) return 0.0;
  double r = 1.0;
  switch (s) {
    case PipeSchedule::one_f_one_b:
      r = 1.0;
      break;
    case PipeSchedule::zb1p:
      r = 1.0 - 2.0 * w;
      break;
    case PipeSchedule::dualpipe:
      r = (p / 2.0 - 1.0) / (p - 1.0) * (1.0 + b - 3.0 * w);
      break;
    case PipeSchedule::dualpipev:
      r = 0.5 * (1.0 + b - 3.0 * w);
      break;
  }
  return std::max(0.0, r);
}

// Micro-batches of a stage's layers whose activations rank s holds at the
// peak, of m per step, without interleaving: 1F1B and ZB1P min(p - s, m);
// DualPipe p + 1 over its two stages (each stage counted (p+1)/2); DualPipeV
// 2p + 1 half-stage chunks, p + 1/2 stage micro-batches.
inline double schedule_in_flight(PipeSchedule sch, int p, int s, double m) {
  switch (sch) {
    case PipeSchedule::dualpipe:
      return std::min(p + 1.0, m) / 2.0;
    case PipeSchedule::dualpipev:
      return std::min(2.0 * p + 1.0, 2.0 * m) / 2.0;
    case PipeSchedule::one_f_one_b:
    case PipeSchedule::zb1p:
      break;
  }
  return std::min(static_cast<double>(p - s), m);
}

// Whether the schedule pairs a forward chunk with a backward chunk so that
// the MoE dispatch/combine and the pipeline sends run behind compute
// (DualPipe and DualPipeV; arXiv:2412.19437 section 3.2.1).
inline bool schedule_hides_comm(PipeSchedule s) {
  return s == PipeSchedule::dualpipe || s == PipeSchedule::dualpipev;
}

// Copies of a stage's parameters a rank holds: DualPipe 2 (rank r runs stage
// r and stage p-1-r), the others 1.
inline int schedule_parameter_copies(PipeSchedule s, int p) {
  return s == PipeSchedule::dualpipe && p > 1 ? 2 : 1;
}

// Places the embedding and the loss take in the pipeline split (layout
// embedding_in_split, loss_in_split): 0, 1 or 2.
inline int split_places(const Layout& ly) {
  return (ly.embedding_in_split ? 1 : 0) + (ly.loss_in_split ? 1 : 0);
}

// Transformer layers on rank s, all its chunks, of a `layers`-layer model.
// Without first/last sizes the layers split evenly and the first
// layers mod pp ranks take one more. With them (Megatron-Core
// transformer_block.py `get_num_layers_to_build`), the first (last) rank
// takes first_stage_layers (last_stage_layers) and the ranks left split the
// rest evenly; a size of 0 leaves its rank with the others.
inline int rank_layer_count(int layers, const Layout& ly, int s) {
  const int p = std::max(1, ly.pp);
  if (s < 0 || s >= p) return 0;
  if (p > 1 && !ly.chunk_layers.empty()) {
    // A pipeline layout: the rank's chunks c x pp + s.
    int n = 0;
    for (size_t i = static_cast<size_t>(s); i < ly.chunk_layers.size(); i += static_cast<size_t>(p))
      n += ly.chunk_layers[i];
    return n;
  }
  if (p > 1 && split_places(ly) > 0) {
    // Megatron-Core get_num_layers_to_build: the embedding and the loss each
    // count as a layer of the even split; checks.cpp rejects a split that is
    // not even.
    return (layers + split_places(ly)) / p - (s == 0 && ly.embedding_in_split ? 1 : 0) -
           (s == p - 1 && ly.loss_in_split ? 1 : 0);
  }
  const int first = p > 1 ? std::max(0, ly.first_stage_layers) : 0;
  const int last = p > 1 ? std::max(0, ly.last_stage_layers) : 0;
  if (first == 0 && last == 0) return layers / p + (s < layers % p ? 1 : 0);
  if (s == 0 && first > 0) return first;
  if (s == p - 1 && last > 0) return last;
  // The middle ranks (and a first or last rank without its own size) split
  // the rest evenly; checks.cpp rejects a rest they do not divide.
  const int ranks_left = p - (first > 0 ? 1 : 0) - (last > 0 ? 1 : 0);
  const int rest = std::max(0, layers - first - last);
  return ranks_left > 0 ? rest / ranks_left : 0;
}

// Megatron-Core's pipeline layout string (--pipeline-model-parallel-layout;
// NVIDIA/Megatron-LM @ d98e8a6
// megatron/core/transformer/pipeline_parallel_layer_layout.py
// parse_str_to_list, validate_layer_layout): stages split by '|', 'E' the
// embedding, 't' a transformer layer, 'm' an MTP depth, 'L' the loss, 'x*n'
// and '(...)*n' repeat, commas cosmetic. The stages, a multiple of pp, are
// the model chunks in order (chunk c of rank s at c x pp + s).
struct ParsedPipelineLayout {
  std::vector<int> chunk_layers;  // transformer layers per chunk
  int mtp_layers = 0;
};
// The layout for pp ranks, or nullopt with `why` set (what is wrong): a
// character other than E, t, m, L, '|', ',' or a repeat; stages not a
// multiple of pp; the embedding not first or the loss not last, or either
// not exactly once; an MTP depth outside the last chunk of the last rank
// (the model times MTP depths with the output layer there).
std::optional<ParsedPipelineLayout> parse_pipeline_layout(std::string_view text, int pp,
                                                          std::string& why);

// Layers of model chunk c of rank s: the rank's layers over its chunks, the
// first (rank layers mod chunks) chunks one more; with embedding_in_split
// (loss_in_split) every chunk holds (L + e + l) / (pp x chunks) places and
// the first rank's first (the last rank's last) chunk one layer fewer.
int chunk_layer_count(int layers, const Layout& ly, int s, int c);

// The near-even split (layers mod pp ranks one layer more, and on each rank
// its layers mod chunks chunks one more) written as a pipeline layout's
// chunk sizes, chunk c of rank s at c x pp + s (Layout::chunk_layers): the
// split a framework with even virtual stages runs only through a layout.
std::vector<int> near_even_chunk_layers(int layers, const Layout& ly);

// Micro-batches per group N of the interleaved schedule
// (microbatch_group_size_per_vp_stage; NVIDIA/Megatron-LM @ d98e8a6,
// megatron/core/model_parallel_config.py:431, default pp at :567): each group
// runs chunk 0 for its N micro-batches, then chunk 1, ... Megatron-Core
// refuses N outside [pp, m] and a last group of fewer than pp micro-batches
// (pipeline_parallel/schedules.py:1160-1180, "dependency bubbles"), so with
// m not a multiple of pp the default pp is illegal; this is the smallest
// legal N (pp when pp divides m, or m <= pp). Larger groups add
// (v - 1) (N - pp) warm-up forwards, so the smallest is the one that holds
// least. PyTorch's flexible interleaved 1F1B (Meta, the schedule of Dubey
// et al. 2024 §3.3.2) takes N = m / floor(m / pp): also pp when pp divides m.
int interleave_group_size(int pp, long long microbatches);

// The layers of pipeline stage s (a rank with all its chunks).
struct StageLayers {
  int layers = 0;          // transformer layers (MTP depths not counted)
  int dense = 0;           // of which dense
  int moe = 0;             // of which MoE (the model's layers from moe.dense_layers on)
  int chunks = 1;          // model chunks on the rank
  bool embedding = false;  // the first stage: token embedding
  bool output = false;     // the last stage: final norm, output layer and loss (and MTP)
  // Layers of the stage's largest chunk.
  int largest_chunk() const { return (layers + chunks - 1) / chunks; }
};

// Stage s of the workload's model under layout `ly`. Chunk c of rank s holds
// the layers after chunk c's predecessors in the order Megatron-Core builds
// them (every rank's chunk 0, then every rank's chunk 1, ...), so the dense
// and MoE counts follow the real interleaved placement.
StageLayers stage_layers(const ModelShape& m, const Layout& ly, int s);

// The most transformer layers any stage holds.
int heaviest_stage_layers(const ModelShape& m, const Layout& ly);

// The share of stage `st`'s layers that the backward pass recomputes: 0
// without full recompute, 1 with every layer, and with recompute_layers N the
// first N of each of its chunks.
double recomputed_share(const Layout& ly, const StageLayers& st);

// First and last stage sizes (first_stage_layers, last_stage_layers).
struct StageSplit {
  int first = 0;
  int last = 0;
};

// The first/last sizes that even the stages' time when the first stage also
// runs the embedding (`first_extra`) and the last the output layer and loss
// (`last_extra`), both in units of one layer's time: the split (legal under
// Megatron-LM's rules: the middle ranks split the rest evenly, every size a
// multiple of the chunks, every chunk at least one layer) whose slowest stage
// is least, and among those the one that moves the fewest layers. None when
// pp < 2 or no such split is faster than the even one.
std::optional<StageSplit> balanced_stage_split(int layers, const Layout& ly, double first_extra,
                                               double last_extra);

}  // namespace scaleout
