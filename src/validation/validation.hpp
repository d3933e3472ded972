// Predicts published training measurements (the canonical validation CSV
// schema, data/validation/README.md) and scores the predictions. Pure: the
// CSV is parsed by io/validation_csv.cpp.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hw/catalog.hpp"
#include "memory/memory.hpp"
#include "perf/intervals.hpp"
#include "perf/step.hpp"
#include "workload/run_settings.hpp"

namespace scaleout {

// One row; an empty cell is std::nullopt / "".
struct ValidationRow {
  int line = 0;  // line in the CSV file
  std::string id, group, model;
  std::optional<long long> layers, hidden, heads, kv_heads, ffn_hidden, vocab;
  std::string mlp;
  std::optional<long long> moe_experts, moe_top_k;
  std::optional<long long> seq_len, global_batch, micro_batch;
  std::optional<long long> tp, pp, dp, cp, ep;
  std::optional<long long> etp;  // empty: expert TP follows tp
  // Max-rank / mean-rank MoE load (1: force-balanced); empty: the default.
  std::optional<double> moe_load_imbalance;
  std::optional<long long> mtp_layers;  // MTP depths trained; empty: the model's
  std::string sp;                       // "y" | "n" | ""
  // MoE all-to-all overlapped with another micro-batch's compute (Megatron-Core
  // --overlap-moe-expert-parallel-comm): "y" | "n"; "": not stated, both tried.
  std::string ep_overlap;
  // Data-parallel gradient reduction behind the backward pass (layout
  // dp_overlap): "n" for a run that reduces after it; "" or "y": the
  // framework's overlap.
  std::string dp_overlap;
  // The embedding / the loss counted as a layer in the pipeline split
  // (layout embedding_in_split, loss_in_split): "y" | "n" | "" (n).
  std::string embedding_in_split, loss_in_split;
  // MoE token dispatcher (workload moe.dispatcher): "alltoall" | "deepep" |
  // "hybridep"; "": the framework's.
  std::string moe_dispatcher;
  // Token dropping (workload moe.capacity_factor): the capacity factor, empty
  // for dropless; moe_pad_to_capacity "y" | "n" | "" (n).
  std::optional<double> moe_capacity_factor;
  std::string moe_pad_to_capacity;
  std::optional<long long> interleave;
  // Layers on the first and last pipeline stage; empty: not given.
  std::optional<long long> first_stage_layers, last_stage_layers;
  // Hybrid sharding: data-parallel ranks of one ZeRO shard group (layout
  // shard_group); empty: all of dp.
  std::optional<long long> shard_group;
  std::string recompute;
  // With recompute "selective": the modules recomputed (layout
  // recompute_modules, a bit per model/layer.hpp RecomputeModule); empty:
  // Megatron-Core's default, core_attn.
  std::optional<RecomputeModules> recompute_modules;
  // With recompute "full": the layers of each model chunk recomputed (layout
  // recompute_layers, Megatron-LM's block method); empty: every layer.
  std::optional<long long> recompute_layers;
  // Pipeline schedule (layout pipeline_schedule); empty: 1f1b.
  std::string pipeline_schedule;
  // Megatron-Core's pipeline layout string (--pipeline-model-parallel-layout)
  // as given, and parsed (workload/pipeline.hpp parse_pipeline_layout): the
  // transformer layers of each model chunk and the MTP depths; empty: none.
  std::string pipeline_layout;
  std::vector<int> layout_chunk_layers;
  int layout_mtp_layers = 0;
  std::optional<long long> zero;
  std::string finetune;
  std::optional<long long> lora_rank;
  std::string precision, gpu;
  std::optional<long long> num_gpus, gpus_per_node, nics_per_node;
  // GPUs in one NVLink domain (72 for a GB200 NVL72 rack); empty: the node.
  std::optional<long long> scaleup_domain_gpus;
  std::optional<double> nic_gbps;
  // PCIe rate of each GPU of the measured machine to its host, one direction
  // (GB/s), where the board gives a card fewer lanes or an older generation
  // than its own x16; empty: the GPU's catalog host_link_gbyte_s.
  std::optional<double> host_link_gbyte_s;
  std::string fabric, framework, metric;
  double value = 0;
  // Tokens of the whole training run (whole-run metrics gpu_hours, train_days).
  std::optional<double> train_tokens;
  // Fine-tuning memory savers (optional columns; empty: the default).
  std::string optimizer;                 // adam | adam8bit | adam-bf16 | sgd | adafactor
  std::string offload;                   // none | optimizer | all
  std::string activation_offload;        // y | n
  std::optional<long long> loss_chunks;  // 1 = off
  std::string optimizer_in_backward;     // y | n
  std::string lora_targets;              // all | attention | qkv | qv
  std::optional<double> lora_dropout;    // adapter-input dropout in [0, 1]; empty = 0
  // torch.compile: n (or empty) | model (layers only) | y or all (layers and loss).
  std::string compile;
  // CUDA graph capture (workload cuda_graphs): none (or empty) | scoped | full.
  std::string cuda_graphs;
  // The loss sees fp32 logits: y (or empty) | n (16-bit logits, no upcast).
  std::string loss_upcast;
  // FP8 training caching activations in FP8 (workload fp8_activations): y | n (or empty).
  std::string fp8_activations;
  // 16-bit gradient buffers and reduction (workload grad_reduce_in_bf16): y | n (or empty).
  std::string grad_reduce_in_bf16;
  // What a peak_mem_gib row measured: PyTorch's max_memory_allocated or
  // max_memory_reserved; empty: device memory in use (nvidia-smi).
  std::string peak_kind;
};

struct RowResult {
  std::string id, group, metric;
  double measured = 0;
  std::optional<double> predicted;  // empty when the metric is not predicted
  std::optional<double> error;      // (predicted - measured) / measured
  // The central 80 % prediction interval of the row's regime (perf/intervals.hpp);
  // set with `predicted`.
  std::optional<double> predicted_low, predicted_high;
  std::string regime;             // the row's own regime key ("time/hopper/pretrain/dense/le64")
  PredictionInterval interval;    // the table entry the interval came from
  bool memory_evaluated = false;  // a workload could be built for the row
  bool fits = false;              // predicted peak <= the GPU's capacity
  double peak_bytes = 0;
  double capacity_bytes = 0;
  std::string gpu_id;
  double step_s = 0;       // predicted step time (0 when not evaluated)
  double wall_time_s = 0;  // whole-run metrics: the run's expected wall time
  double network_wait_fraction = 0;
  StepBreakdown breakdown;  // the predicted step's parts, seconds
  std::string filled;       // "micro_batch=1 (megatron default); ..."
  std::string skipped;      // why the metric was not predicted
};

struct MetricSummary {
  int count = 0;    // rows predicted
  double mape = 0;  // mean absolute percentage error, fraction
  int skipped = 0;
};

// Spearman rank correlation between predicted and measured values within one
// model of one group (a planner must rank layouts, not only average them).
struct RankCorrelation {
  std::string group, model, metric;
  int count = 0;
  double spearman = 0;
  // What picking by the prediction costs: among the rows of one setting (the
  // same GPU, GPU count, global batch, sequence length and precision, so
  // they differ in layout only), the measured time of the layout predicted
  // fastest over the measured fastest, minus 1 (throughput metrics as the
  // time they imply; a tie in the prediction picks the worse measured row);
  // the worst over the settings with 2 or more rows, and their mean. Empty
  // for memory metrics and when no setting has 2 rows.
  std::optional<double> pick_regret;
  std::optional<double> pick_regret_mean;
  int settings = 0;  // settings with 2 or more rows
};

// Share of predicted rows whose measured value lies inside [predicted_low,
// predicted_high].
struct IntervalCoverage {
  int rows = 0;
  int inside = 0;
  double share() const { return rows ? static_cast<double>(inside) / rows : 0.0; }
};

struct ValidationReport {
  std::vector<RowResult> rows;
  IntervalCoverage coverage;  // every predicted row of the file
  std::map<std::string, IntervalCoverage> coverage_by_group;
  std::vector<RankCorrelation> rank_correlation;  // models with at least 5 predicted rows
  std::map<std::string, MetricSummary> by_metric;
  std::map<std::string, MetricSummary> by_group;
  // Every per-step time row (step_time_s, tokens_per_s_per_gpu, mfu) scored
  // as the step time it implies: a throughput row's error is
  // measured / predicted - 1 (predicting 2x the tokens/s is a step 50 % too
  // short), so rows of every per-step metric add up as one step-time MAPE.
  MetricSummary step_time_equivalent;
  int false_oom = 0;  // rows that really ran but are predicted not to fit
};

// The error of `r` as a step-time error: `*r.error` for step_time_s,
// measured / predicted - 1 for the throughput metrics (tokens/s, MFU);
// empty for memory and whole-run metrics and for rows not predicted.
std::optional<double> step_time_error(const RowResult& r);

// Metrics this build predicts. Others are reported as skipped with a reason.
bool metric_supported(const std::string& metric);

// The metrics of a whole training run (`gpu_hours`, `train_days`): predicted
// from the step, the row's `train_tokens` and the catalog's default failure
// rate, storage and facility.
bool is_whole_run_metric(const std::string& metric);

// The interval metric a validation metric belongs to, and whether a larger
// value means a shorter time (throughput, MFU: the interval is inverted).
IntervalMetric interval_metric(const std::string& metric);
bool higher_is_faster(const std::string& metric);

// The run settings a whole-run row assumes: the catalog's default failure
// rate, storage system and facility, the rest as RunSettings gives them;
// empty when the catalog marks no default for one of the three.
std::optional<RunSettings> default_run_settings(const Catalog& catalog);

// Model constants a validation run may override (calibration experiments).
struct ModelTuning {
  OverheadModel overhead;
  // Applied on top of perf_constants(gpu) when set.
  std::optional<double> gemm_half_dim;
  // Multiplies the GEMM, FP8 GEMM and attention efficiencies perf_constants
  // gives (MAMF share x sustained factor x the framework's efficiency).
  std::optional<double> gemm_efficiency_scale;
  std::optional<double> kernel_floor_s;
  std::optional<double> elementwise_traffic;
  // Replaces kDeepSpeedZero3HiddenShare (DeepSpeed rows only).
  std::optional<double> zero3_hidden_share;
};

// The catalog model a row's `model` cell names: its id, or its name exactly
// as the catalog writes it; nullptr when it names none.
const ModelShape* named_catalog_model(const ValidationRow& row, const Catalog& catalog);

// A shape cell of a row that contradicts the catalog model the row names.
struct ShapeConflict {
  std::string column;   // "layers", "ffn_hidden", ...
  std::string message;  // what the cell says and what the catalog says
};

// The first shape cell the row gives (layers, hidden, heads, kv_heads,
// ffn_hidden, vocab, mlp, moe_experts, moe_top_k, in that order) that
// disagrees with `m`. ffn_hidden is compared with the model's dense MLP
// width (Hugging Face intermediate_size), also for MoE models; for a dense
// model moe_experts and moe_top_k must be 0.
std::optional<ShapeConflict> shape_conflict(const ValidationRow& row, const ModelShape& m);

// The catalog model a row takes its whole model shape from (MoE, MLA,
// head_dim, biases, embeddings): the one its `model` cell names, by id
// (`qwen3-30b-a3b`) or by name (`Qwen3-30B-A3B`), except when it names it by
// name and describes a dense model in full (layers, hidden, heads and vocab
// given, no moe_experts): such a row builds its shape from its cells as rows
// always did (every row of the shipped data files is one). nullptr when the
// row takes its shape from its cells.
const ModelShape* catalog_shape_of(const ValidationRow& row, const Catalog& catalog);

RowResult predict_row(const ValidationRow& row, const Catalog& catalog,
                      const ModelTuning& tuning = {});

// The calibration splits (scripts/calibrate.py, tests/validation): a file's
// rows by position, all of them or every other one (even keeps 0, 2, 4, ...).
enum class RowHalf { all, even, odd };

inline bool in_half(RowHalf half, size_t i) {
  return half == RowHalf::all || (i % 2 == 0) == (half == RowHalf::even);
}

template <typename Row>
std::vector<Row> rows_in_half(const std::vector<Row>& rows, RowHalf half) {
  std::vector<Row> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (in_half(half, i)) out.push_back(rows[i]);
  }
  return out;
}

// Spearman's rho of two equally long series (average ranks for ties).
double spearman(const std::vector<double>& a, const std::vector<double>& b);

// Mean absolute error fraction over every predicted row of a report, all
// metrics together (the calibration experiments' figure); 0 with none.
double overall_mape(const ValidationReport& r);

ValidationReport validate_rows(const std::vector<ValidationRow>& rows, const Catalog& catalog,
                               const ModelTuning& tuning = {});

// The cluster a row describes: GPUs per node and scale-out NICs as given,
// otherwise one NIC per GPU at the rate of the GPU's generation (EDR for
// Volta, HDR for Ampere, NDR for Hopper and later).
Server server_of(const ValidationRow& row, const Gpu& gpu);
std::optional<Fabric> fabric_of(const ValidationRow& row, const Server& server);

}  // namespace scaleout
