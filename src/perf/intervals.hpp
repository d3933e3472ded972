// Calibrated prediction intervals: how far measured values fall from the
// model's predictions, by regime (GPU family, task, MoE or dense, scale band,
// metric), as a central 80 % interval of measured / predicted. The table
// (interval_table.cpp) is written by scripts/fit_intervals.py from the
// validation residuals of every row of data/validation (coverage estimated by
// 5-fold cross-validation); docs/model.md, "Prediction intervals", and
// docs/validation.md.
#pragma once

#include <string>
#include <vector>

namespace scaleout {

// What is predicted: a step's time (step time, throughput, MFU: as the time
// they imply), a GPU's peak memory, or a whole run's GPU-hours or days.
enum class IntervalMetric { time, memory, run };
enum class IntervalTask { pretrain, finetune, serving };
// GPUs of the run: one scale-up (NVLink) domain (a node, or a rack-scale
// domain such as GB200 NVL72: no scale-out network in the step), up to 64
// GPUs, more than 64.
enum class ScaleBand { one_domain, up_to_64, over_64 };

const char* to_string(IntervalMetric m);
const char* to_string(IntervalTask t);
const char* to_string(ScaleBand s);

// The band of a run of `gpus` GPUs on servers whose scale-up domain holds
// `domain_gpus` (hw/hardware.hpp domain_gpus: the node, or the rack-scale
// NVLink domain).
ScaleBand scale_band(long long gpus, long long domain_gpus);

struct RegimeKey {
  IntervalMetric metric = IntervalMetric::time;
  std::string family;     // GPU family id ("hopper"); "" when the GPU names none
  std::string framework;  // "megatron", "hf", ...; serving: "engine"
  IntervalTask task = IntervalTask::pretrain;
  bool moe = false;
  ScaleBand scale = ScaleBand::one_domain;
};

// "time/hopper/megatron/pretrain/dense/1-domain": the key as validate and the
// fitting script write it.
std::string regime_name(const RegimeKey& k);

// One row of the fitted table. A field "*" matches any value; task
// "training" matches pretrain and finetune.
struct IntervalEntry {
  const char* metric;
  const char* family;
  const char* framework;
  const char* task;
  const char* moe;    // "moe" | "dense" | "*"
  const char* scale;  // "1-domain" | "le64" | "gt64" | "*"
  int rows;           // fitting rows behind it (rows of data/validation)
  double low_log;     // 10th percentile of ln(measured / predicted)
  double high_log;    // 90th percentile
};

// The table scripts/fit_intervals.py wrote (interval_table.cpp).
const std::vector<IntervalEntry>& interval_table();
// Where the table came from (CSV files, script, commit).
const char* interval_table_source();

// Regimes with fewer fitting rows than this fall back to a wider parent.
inline constexpr int kMinIntervalRows = 8;

// The interval of a regime with no validation rows: measured between half
// and twice the predicted time (the largest errors of the validated regimes
// reach about +100 %, issue 21), memory between 0.8x and 1.5x (the largest
// memory under-predictions of the validation data, QLoRA, reach about
// -30 %, so a run measured at 1.4x the prediction is inside).
inline constexpr double kUnvalidatedTimeLow = 0.5, kUnvalidatedTimeHigh = 2.0;
inline constexpr double kUnvalidatedMemoryLow = 0.8, kUnvalidatedMemoryHigh = 1.5;

struct PredictionInterval {
  // measured / predicted at the interval's ends (a time-like ratio for time
  // metrics: a throughput's interval is the reciprocal).
  double low = 1, high = 1;
  int rows = 0;        // fitting rows behind the entry used; 0: unvalidated
  std::string regime;  // the entry used, "time/hopper/training/*/*"; "unvalidated"
  bool validated = false;
};

// The entry for `k`: the regime itself, then scale pooled, then MoE and
// dense pooled, then (training) pretrain and finetune pooled; the same again
// with every framework pooled. The GPU family and the metric are never
// pooled: none with enough rows is the unvalidated default.
PredictionInterval prediction_interval(const RegimeKey& k);

}  // namespace scaleout
