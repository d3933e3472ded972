// Predicts published serving measurements (data/validation/inference.csv,
// schema in data/validation/inference.md) with the serving model and scores
// them: MAPE per metric and per source. Pure: the CSV is parsed by
// io/serving_csv.cpp.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "hw/catalog.hpp"
#include "inference/serving.hpp"
#include "perf/intervals.hpp"

namespace scaleout {

struct ServingRow {
  int line = 0;
  std::string id, source, model, server;
  std::string weights, kv_cache;  // bf16 | fp8 | int8 | int4 ; bf16 | fp16 | fp8
  int tp = 1, pp = 1;
  long long prompt_tokens = 0, output_tokens = 0;
  int concurrency = 0;  // 0: offered at an unlimited rate (maximum throughput)
  int max_batch = 256;  // engine's sequence limit when concurrency is 0
  std::string metric;   // output_tokens_per_s | ttft_s | tpot_s
  double measured = 0;
};

struct ServingRowResult {
  std::string id, source, metric;
  double measured = 0, predicted = 0;
  int batch = 0;  // concurrency the prediction used
  // The central 80 % interval of the row's regime (perf/intervals.hpp).
  double predicted_low = 0, predicted_high = 0;
  std::string regime;  // "time/hopper/engine/serving/dense/1-domain"
  PredictionInterval interval;
  bool inside() const { return measured >= predicted_low && measured <= predicted_high; }
  double error() const { return (predicted - measured) / measured; }
};

struct ServingScore {
  int rows = 0;
  double mape = 0;
  double bias = 0;  // mean signed relative error
};

struct ServingValidationReport {
  std::vector<ServingRowResult> rows;
  ServingScore overall;
  int covered = 0;  // rows whose measured value lies inside the 80 % interval
  std::map<std::string, ServingScore> by_metric;
  std::map<std::string, ServingScore> by_source;
};

// Rows name catalog models and servers (io::read_serving_csv checks them).
// `k` overrides the serving constants (calibration experiments).
ServingValidationReport validate_serving_rows(const std::vector<ServingRow>& rows,
                                              const Catalog& catalog,
                                              const ServingConstants& k = {});

}  // namespace scaleout
