// Written by scripts/fit_intervals.py; do not edit by hand (rerun the script).
// fitted by scripts/fit_intervals.py on the even rows of data/validation/training.csv,
// external.csv, moe-training.csv, blackwell-training.csv, finetune.csv, whole-runs.csv,
// vtrain-single.csv, vtrain-multi.csv, inference.csv (held out: the odd rows), 10th and 90th
// percentiles of ln(measured/predicted), regimes of at least 8 rows (split-conformal order
// statistics); commit 1455250
#include "perf/intervals.hpp"

namespace scaleout {

const std::vector<IntervalEntry>& interval_table() {
  static const std::vector<IntervalEntry> table = {
      {"memory", "ampere", "*", "finetune", "*", "*", 32, -0.302755, 0.324133},
      {"memory", "ampere", "*", "finetune", "dense", "*", 32, -0.302755, 0.324133},
      {"memory", "ampere", "*", "finetune", "dense", "1-node", 32, -0.302755, 0.324133},
      {"memory", "ampere", "*", "pretrain", "*", "*", 12, -0.255453, 0.62956},
      {"memory", "ampere", "*", "pretrain", "dense", "*", 12, -0.255453, 0.62956},
      {"memory", "ampere", "*", "pretrain", "dense", "1-node", 12, -0.255453, 0.62956},
      {"memory", "ampere", "*", "training", "*", "*", 44, -0.285826, 0.441461},
      {"memory", "ampere", "hf", "finetune", "*", "*", 16, -0.261693, 0.146243},
      {"memory", "ampere", "hf", "finetune", "dense", "*", 16, -0.261693, 0.146243},
      {"memory", "ampere", "hf", "finetune", "dense", "1-node", 16, -0.261693, 0.146243},
      {"memory", "ampere", "hf", "training", "*", "*", 19, -0.215011, 0.238662},
      {"memory", "ampere", "litgpt", "finetune", "*", "*", 10, -0.024332, 0.669734},
      {"memory", "ampere", "litgpt", "finetune", "dense", "*", 10, -0.024332, 0.669734},
      {"memory", "ampere", "litgpt", "finetune", "dense", "1-node", 10, -0.024332, 0.669734},
      {"memory", "ampere", "litgpt", "training", "*", "*", 10, -0.024332, 0.669734},
      {"memory", "ampere", "torchtune", "pretrain", "*", "*", 9, -0.255453, 0.62956},
      {"memory", "ampere", "torchtune", "pretrain", "dense", "*", 9, -0.255453, 0.62956},
      {"memory", "ampere", "torchtune", "pretrain", "dense", "1-node", 9, -0.255453, 0.62956},
      {"memory", "ampere", "torchtune", "training", "*", "*", 14, -0.509497, 0.62956},
      {"memory", "hopper", "*", "pretrain", "*", "*", 11, -0.347372, 0.040898},
      {"memory", "hopper", "*", "pretrain", "dense", "*", 11, -0.347372, 0.040898},
      {"memory", "hopper", "*", "training", "*", "*", 12, -0.347372, 0.325052},
      {"memory", "hopper", "torchtitan", "pretrain", "*", "*", 11, -0.347372, 0.040898},
      {"memory", "hopper", "torchtitan", "pretrain", "dense", "*", 11, -0.347372, 0.040898},
      {"memory", "hopper", "torchtitan", "training", "*", "*", 11, -0.347372, 0.040898},
      {"time", "ampere", "*", "pretrain", "*", "*", 818, -0.16667, 0.090975},
      {"time", "ampere", "*", "pretrain", "dense", "*", 818, -0.16667, 0.090975},
      {"time", "ampere", "*", "pretrain", "dense", "1-node", 730, -0.172865, 0.08689},
      {"time", "ampere", "*", "pretrain", "dense", "gt64", 67, -0.060953, 0.163937},
      {"time", "ampere", "*", "pretrain", "dense", "le64", 21, -0.10787, 0.124598},
      {"time", "ampere", "*", "training", "*", "*", 819, -0.165749, 0.090916},
      {"time", "ampere", "deepspeed", "pretrain", "*", "*", 779, -0.167803, 0.090151},
      {"time", "ampere", "deepspeed", "pretrain", "dense", "*", 779, -0.167803, 0.090151},
      {"time", "ampere", "deepspeed", "pretrain", "dense", "1-node", 720, -0.173988, 0.08689},
      {"time", "ampere", "deepspeed", "pretrain", "dense", "gt64", 46, -0.054727, 0.212485},
      {"time", "ampere", "deepspeed", "pretrain", "dense", "le64", 13, -0.042303, 0.355642},
      {"time", "ampere", "deepspeed", "training", "*", "*", 779, -0.167803, 0.090151},
      {"time", "ampere", "megatron", "pretrain", "*", "*", 22, -0.060231, 0.155131},
      {"time", "ampere", "megatron", "pretrain", "dense", "*", 22, -0.060231, 0.155131},
      {"time", "ampere", "megatron", "pretrain", "dense", "gt64", 17, -0.189659, 0.159065},
      {"time", "ampere", "megatron", "training", "*", "*", 22, -0.060231, 0.155131},
      {"time", "ampere", "mosaic", "pretrain", "*", "*", 9, -0.159881, 0.180264},
      {"time", "ampere", "mosaic", "pretrain", "dense", "*", 9, -0.159881, 0.180264},
      {"time", "ampere", "mosaic", "training", "*", "*", 9, -0.159881, 0.180264},
      {"time", "blackwell", "*", "pretrain", "*", "*", 43, -0.38517, 0.106544},
      {"time", "blackwell", "*", "pretrain", "dense", "*", 36, -0.400704, 0.093816},
      {"time", "blackwell", "*", "pretrain", "dense", "gt64", 16, -0.400704, 0.137598},
      {"time", "blackwell", "*", "pretrain", "dense", "le64", 17, -0.678181, 0.106544},
      {"time", "blackwell", "*", "training", "*", "*", 47, -0.38517, 0.106544},
      {"time", "blackwell", "nemo", "pretrain", "*", "*", 43, -0.38517, 0.106544},
      {"time", "blackwell", "nemo", "pretrain", "dense", "*", 36, -0.400704, 0.093816},
      {"time", "blackwell", "nemo", "pretrain", "dense", "gt64", 16, -0.400704, 0.137598},
      {"time", "blackwell", "nemo", "pretrain", "dense", "le64", 17, -0.678181, 0.106544},
      {"time", "blackwell", "nemo", "training", "*", "*", 47, -0.38517, 0.106544},
      {"time", "hopper", "*", "finetune", "*", "*", 11, -0.188902, 0.957364},
      {"time", "hopper", "*", "finetune", "dense", "*", 11, -0.188902, 0.957364},
      {"time", "hopper", "*", "finetune", "dense", "1-node", 9, -0.188902, 0.957364},
      {"time", "hopper", "*", "pretrain", "*", "*", 36, -0.421529, 0.134495},
      {"time", "hopper", "*", "pretrain", "dense", "*", 20, -0.421529, 0.120107},
      {"time", "hopper", "*", "pretrain", "dense", "1-node", 8, -0.06112, 0.130014},
      {"time", "hopper", "*", "pretrain", "moe", "*", 16, -0.793392, 0.155666},
      {"time", "hopper", "*", "pretrain", "moe", "gt64", 10, -0.793392, 0.155666},
      {"time", "hopper", "*", "serving", "*", "*", 49, -0.101644, 0.208337},
      {"time", "hopper", "*", "serving", "dense", "*", 41, -0.105754, 0.208337},
      {"time", "hopper", "*", "serving", "dense", "1-node", 41, -0.105754, 0.208337},
      {"time", "hopper", "*", "serving", "moe", "*", 8, -0.075672, 0.268316},
      {"time", "hopper", "*", "serving", "moe", "1-node", 8, -0.075672, 0.268316},
      {"time", "hopper", "*", "training", "*", "*", 47, -0.335028, 0.155666},
      {"time", "hopper", "automodel", "training", "*", "*", 10, -0.296514, 0.957364},
      {"time", "hopper", "engine", "serving", "*", "*", 49, -0.101644, 0.208337},
      {"time", "hopper", "engine", "serving", "dense", "*", 41, -0.105754, 0.208337},
      {"time", "hopper", "engine", "serving", "dense", "1-node", 41, -0.105754, 0.208337},
      {"time", "hopper", "engine", "serving", "moe", "*", 8, -0.075672, 0.268316},
      {"time", "hopper", "engine", "serving", "moe", "1-node", 8, -0.075672, 0.268316},
      {"time", "hopper", "megatron", "pretrain", "*", "*", 8, -0.071808, 0.155666},
      {"time", "hopper", "megatron", "training", "*", "*", 8, -0.071808, 0.155666},
      {"time", "hopper", "nemo", "pretrain", "*", "*", 15, -0.335028, 0.143326},
      {"time", "hopper", "nemo", "pretrain", "dense", "*", 10, -0.335028, 0.130014},
      {"time", "hopper", "nemo", "training", "*", "*", 18, -0.335028, 0.143326},
  };
  return table;
}

const char* interval_table_source() {
  return "fitted by scripts/fit_intervals.py on the even rows of data/validation/training.csv, "
         "external.csv, moe-training.csv, blackwell-training.csv, finetune.csv, whole-runs.csv, "
         "vtrain-single.csv, vtrain-multi.csv, inference.csv (held out: the odd rows), 10th and "
         "90th percentiles of ln(measured/predicted), regimes of at least 8 rows (split-conformal "
         "order statistics); commit 1455250";
}

}  // namespace scaleout
