#include "validation/serving_validation.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "inference/serving.hpp"

namespace scaleout {

namespace {

WeightFormat weight_format(const std::string& s) {
  if (s == "fp8") return WeightFormat::fp8;
  if (s == "int8") return WeightFormat::int8;
  if (s == "int4") return WeightFormat::int4;
  return WeightFormat::bf16;
}

void add(ServingScore& s, double error) {
  s.mape = (s.mape * s.rows + std::fabs(error)) / (s.rows + 1);
  s.bias = (s.bias * s.rows + error) / (s.rows + 1);
  ++s.rows;
}

}  // namespace

ServingValidationReport validate_serving_rows(const std::vector<ServingRow>& rows,
                                              const Catalog& catalog, const ServingConstants& k) {
  ServingValidationReport rep;
  for (const ServingRow& row : rows) {
    const ModelShape* model = catalog.find_model(row.model);
    const Server* server = catalog.find_server(row.server);
    if (!model || !server) {
      // The reader checks the ids against the catalog.
      throw std::logic_error(fmt::format("serving row {}: unknown model or server", row.id));
    }
    const Gpu& gpu = *catalog.find_gpu(server->gpu_id);
    Workload w;
    w.model = *model;
    w.task = Task::inference;
    w.layout.tp = row.tp;
    w.layout.pp = row.pp;
    // MoE rows run their experts expert-parallel over the TP ranks
    // (trtllm-bench --ep equal to --tp).
    if (model->is_moe() && model->moe.experts % row.tp == 0) w.layout.ep = row.tp;
    w.inference.prompt_tokens = row.prompt_tokens;
    w.inference.output_tokens = row.output_tokens;
    w.inference.weights = weight_format(row.weights);
    w.inference.kv_cache = row.kv_cache == "fp8" ? Precision::fp8 : Precision::bf16;
    w.inference.max_batch = row.concurrency > 0 ? row.concurrency : row.max_batch;
    // A closed loop of `concurrency` clients keeps that many sequences in
    // flight; an unlimited rate fills the engine to its limit.
    w.inference.batch = row.concurrency > 0
                            ? row.concurrency
                            : static_cast<int>(std::min<long long>(
                                  row.max_batch, serving_memory(w, gpu, 0, k).max_sequences));
    const ServingEstimate e = estimate_serving(w, *server, gpu, nullptr, k);
    ServingRowResult r;
    r.id = row.id;
    r.source = row.source;
    r.metric = row.metric;
    r.measured = row.measured;
    r.batch = e.batch;
    r.predicted = row.metric == "ttft_s"   ? e.ttft_s
                  : row.metric == "tpot_s" ? e.tpot_s
                                           : e.output_tokens_per_s;
    // Throughput is the reciprocal of a time: its interval is inverted.
    RegimeKey key{
        .metric = IntervalMetric::time,
        .family = gpu.family,
        .framework = "engine",
        .task = IntervalTask::serving,
        .moe = model->is_moe(),
        .scale = scale_band(static_cast<long long>(row.tp) * row.pp, domain_gpus(*server))};
    r.regime = regime_name(key);
    r.interval = prediction_interval(key);
    const bool throughput = row.metric != "ttft_s" && row.metric != "tpot_s";
    r.predicted_low = throughput ? r.predicted / r.interval.high : r.predicted * r.interval.low;
    r.predicted_high = throughput ? r.predicted / r.interval.low : r.predicted * r.interval.high;
    rep.covered += r.inside();
    add(rep.overall, r.error());
    add(rep.by_metric[r.metric], r.error());
    add(rep.by_source[r.source], r.error());
    rep.rows.push_back(r);
  }
  return rep;
}

}  // namespace scaleout
