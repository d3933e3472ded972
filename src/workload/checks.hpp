// Consistency checks of a workload's layout against its model and cluster:
// the divisibility rules of Megatron-LM / PyTorch that make a layout legal.
// Pure: returns problems with the key they concern; the reader adds lines.
#pragma once

#include <string>
#include <vector>

#include "workload/workload.hpp"

namespace scaleout {

struct Problem {
  std::string key;      // dotted key path, e.g. "layout.tp"
  std::string message;  // what is wrong
  std::string hint;     // how to fix it
};

// Problems of the layout alone and against the model. `gpus_in_cluster` is
// nodes * GPUs per node, or 0 when no cluster is given.
std::vector<Problem> check_layout(const Workload& w, long long gpus_in_cluster);

// layout.fp8_param_gather without the distributed optimizer (zero 0), which
// Megatron-LM refuses; part of check_layout.
std::vector<Problem> check_fp8_param_gather(const Layout& ly);

}  // namespace scaleout
