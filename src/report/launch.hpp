// Launch files for the recommended plan of `plan --emit DIR`: orchestrators
// (a Slurm batch script, a torchrun script, a Kubeflow PyTorchJob and a
// Trainer v2 TrainJob), a DeepSpeed config, and the files of the launcher
// family of the workload's framework row (Megatron-LM arguments, a torchtitan
// TOML, an Accelerate FSDP config, a TRL/PEFT or torchtune recipe config).
// Pure: each function returns the file's text; the CLI writes the files.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "report/report.hpp"

namespace scaleout::report {

// Longest Slurm time limit the batch script asks for; longer runs are
// expected to resubmit from a checkpoint.
inline constexpr double kMaxSlurmTimeS = 7 * 86400.0;

// Which program runs the plan (docs/input-format.md, "Launch files"):
// megatron: Megatron-LM pretrain_gpt.py (megatron, nemo; Megatron-DeepSpeed for
// deepspeed); torchtitan; fsdp: Accelerate with FSDP and the user's script;
// peft: LoRA/QLoRA through TRL's SFT script; torchtune: `tune run` recipes.
enum class Launcher { megatron, torchtitan, fsdp, peft, torchtune };

Launcher launcher_of(const Workload& w);
const char* to_string(Launcher l);

// The Megatron-LM arguments of a plan, one "--flag [value]" entry each.
std::vector<std::string> megatron_args(const PlanReport& r, const PlanCandidate& c);

std::string megatron_args_file(const PlanReport& r, const PlanCandidate& c);
// smoke: the same launcher at 2 processes on this host (gloo), running
// smoke_train.py instead of the real program.
std::string torchrun_script(const PlanReport& r, const PlanCandidate& c, bool smoke = false);
std::string slurm_script(const PlanReport& r, const PlanCandidate& c);
std::string deepspeed_config(const PlanReport& r, const PlanCandidate& c);
std::string pytorchjob_yaml(const PlanReport& r, const PlanCandidate& c);
std::string trainjob_yaml(const PlanReport& r, const PlanCandidate& c);
std::string torchtitan_toml(const PlanReport& r, const PlanCandidate& c);
std::string accelerate_fsdp_yaml(const PlanReport& r, const PlanCandidate& c);
std::string finetune_peft_yaml(const PlanReport& r, const PlanCandidate& c);
std::string torchtune_yaml(const PlanReport& r, const PlanCandidate& c);
std::string smoke_train_py(const PlanReport& r, const PlanCandidate& c);

// Every launch file as (file name, content), in the order they are written:
// slurm.sbatch, torchrun.sh, megatron.args (family megatron), deepspeed.json,
// pytorchjob.yaml, trainjob.yaml, the family's config files, smoke_train.py
// (smoke only).
std::vector<std::pair<std::string, std::string>> launch_files(const PlanReport& r,
                                                              const PlanCandidate& c,
                                                              bool smoke = false);

}  // namespace scaleout::report
