// Validation rows the unit tests share: a published row (data/validation/training.csv)
// and one-row validation CSVs with the canonical header.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "io/validation_csv.hpp"
#include "validation/validation.hpp"

namespace scaleout {

inline ValidationRow gpt_row() {
  // nar21-t1-01: GPT 1.7B on 32 A100 80GB, TP 1, DP 32, B 512, s 2048.
  ValidationRow r;
  r.id = "t1";
  r.group = "g";
  r.model = "GPT 1.7B";
  r.layers = 24;
  r.hidden = 2304;
  r.heads = 24;
  r.kv_heads = 24;
  r.ffn_hidden = 9216;
  r.vocab = 51200;
  r.mlp = "gelu";
  r.seq_len = 2048;
  r.global_batch = 512;
  r.tp = 1;
  r.pp = 1;
  r.dp = 32;
  r.cp = 1;
  r.ep = 1;
  r.sp = "n";
  r.interleave = 1;
  r.recompute = "full";
  r.zero = 0;
  r.gpu = "a100-sxm-80g";
  r.num_gpus = 32;
  r.gpus_per_node = 8;
  r.nics_per_node = 8;
  r.nic_gbps = 200;
  r.fabric = "ib";
  r.framework = "megatron";
  r.metric = "step_time_s";
  r.value = 3.528;
  return r;
}

// The canonical header and one record; `cells` are (column, value), a later
// cell of the same column replacing an earlier one.
inline std::string one_row_validation_csv(
    const std::vector<std::pair<std::string, std::string>>& cells) {
  std::string header, row;
  for (const std::string& c : io::validation_csv_columns()) {
    if (!header.empty()) {
      header += ",";
      row += ",";
    }
    header += c;
    std::string value;
    for (const auto& cell : cells) {
      if (cell.first == c) value = cell.second;
    }
    row += value;
  }
  return header + "\n" + row + "\n";
}

}  // namespace scaleout
