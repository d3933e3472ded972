// Launch files for the recommended plan of `plan --emit DIR`: a Slurm batch
// script, a torchrun command line, Megatron-LM arguments, a DeepSpeed config
// and a Kubeflow PyTorchJob. Pure: each function returns the file's text; the
// CLI writes the files.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "report/report.hpp"

namespace scaleout::report {

// Longest Slurm time limit the batch script asks for; longer runs are
// expected to resubmit from a checkpoint.
inline constexpr double kMaxSlurmTimeS = 7 * 86400.0;

// The Megatron-LM arguments of a plan, one "--flag [value]" entry each.
std::vector<std::string> megatron_args(const PlanReport& r, const PlanCandidate& c);

std::string megatron_args_file(const PlanReport& r, const PlanCandidate& c);
std::string torchrun_script(const PlanReport& r, const PlanCandidate& c);
std::string slurm_script(const PlanReport& r, const PlanCandidate& c);
std::string deepspeed_config(const PlanReport& r, const PlanCandidate& c);
std::string pytorchjob_yaml(const PlanReport& r, const PlanCandidate& c);

// Every launch file as (file name, content), in the order they are written.
std::vector<std::pair<std::string, std::string>> launch_files(const PlanReport& r,
                                                              const PlanCandidate& c);

}  // namespace scaleout::report
