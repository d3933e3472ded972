# Recorded validation figures: a test fails when a figure regresses past its
# threshold (a little above the figure measured when it was recorded, in the
# comment). Change them deliberately, with the new figures in docs/validation.md.
#
# Each entry: FILE|JSON path below "summary" (parts joined by /)|comparison|threshold
set(SCALEOUT_VALIDATION_CHECKS
  # data/validation/training.csv (114 published rows)
  "training.csv|by_metric/peak_mem_gib/mape|max|0.10"          # 0.087
  "training.csv|by_metric/step_time_s/mape|max|0.075"          # 0.065 (0.086 before session 6)
  "training.csv|by_metric/tokens_per_s_per_gpu/mape|max|0.09"  # 0.075
  "training.csv|by_metric/mfu/mape|max|0.07"                   # 0.053 (kor22 App. C)
  "training.csv|by_group/korthikanti22/mape|max|0.06"          # 0.041
  "training.csv|by_group/narayanan21/mape|max|0.075"           # 0.064 (0.106 before session 6)
  "training.csv|false_oom|max|0"
  # vTrain (converted by scripts/vtrain_to_canonical.py)
  "vtrain-multi.csv|by_metric/step_time_s/mape|max|0.08"       # 0.075 (0.071 before the synchronous backward TP of session 20)
  "vtrain-multi.csv|false_oom|max|0"
  "vtrain-single.csv|by_metric/step_time_s/mape|max|0.10"      # 0.087
  "vtrain-single.csv|false_oom|max|0"
  # data/validation/external.csv: published runs never used in any fit
  "external.csv|by_metric/step_time_s/mape|max|0.15"           # 0.137
  "external.csv|by_metric/tokens_per_s_per_gpu/mape|max|0.08"  # 0.066 (8 rows)
  "external.csv|by_group/llama3-405b/mape|max|0.25"            # 0.228 (3 MFU rows; 0.386 before uneven first/last stages)
  "external.csv|by_group/mlm-h100-scaling/mape|max|0.13"       # 0.111 (11 MFU rows, Megatron-LM README H100 table, 48-6,144 GPUs; session 21)
  "external.csv|false_oom|max|0"
  # data/validation/moe-training.csv: published MoE training runs (issue 17, 46 rows; nothing
  # fitted on them). Megatron-Bridge is held only to its present figure: its Blackwell and
  # small-expert rows are up to 144 % off (docs/validation.md, "MoE training").
  "moe-training.csv|by_group/moe-folding/mape|max|0.07"        # 0.057 (14 rows, H100; 0.092 before the rows stated ep_overlap n, session 20)
  "moe-training.csv|by_group/mcore-moe-readme/mape|max|0.11"   # 0.092 (1 row; 0.067 before ep_overlap n)
  "moe-training.csv|step_time_equivalent/mape|max|0.15"        # 0.141 (46 rows: tokens/s rows as the step they imply; issue 17's target)
  "moe-training.csv|by_group/automodel-perf/mape|max|0.17"     # 0.162 (6 rows, H100; 0.143 before sliding-window attention, which speeds the two GPT-OSS rows from -1/-3 % to -8/-7 % too fast)
  "moe-training.csv|by_group/mbridge-perf/mape|max|0.35"       # 0.329 (23 rows; 0.344 before bf16 gradients and sliding windows (GPT-OSS B200 then takes its stated recompute); 0.333 before the stated ep_overlap/etp/MTP settings of session 13; 0.291 before the balanced pipeline split, which speeds up rows already predicted too fast; 0.313 before partial recompute)
  "moe-training.csv|false_oom|max|0"
  # data/validation/whole-runs.csv: published whole pre-training runs (issue 20, 20 rows; nothing
  # fitted on them; docs/validation.md, "Whole runs", says what each figure includes).
  "whole-runs.csv|by_metric/gpu_hours/mape|max|0.24"           # 0.198 (14 rows; 0.145 with the first 8, before session 21's six; 0.212 (8 rows) 0.217 before BLOOM without SP and interleaving, 0.238 before partial recompute)
  "whole-runs.csv|by_metric/train_days/mape|max|0.20"          # 0.142 (6 rows; 0.148 with the first 5; 0.150 (5 rows) 1.71 before the Falcon batches, MPT recipe and BloombergGPT's MiCS gathers)
  "whole-runs.csv|false_oom|max|0"
  # data/validation/finetune.csv: published fine-tuning runs (issue 19, 169 rows, all predicted
  # since the RTX 3090 and RTX A5000 joined the catalog). Nothing is fitted on them
  # (docs/validation.md, "Fine-tuning"). The tokens/s figure carries four batch-1 FSDP rows on
  # two RTX 3090 behind slow PCIe lanes (+25 % to +744 %; the link is not in the data). No false
  # OOM since session 15: Qwen-1's own modelling code takes the loss on 16-bit logits under
  # DeepSpeed (no autocast), the loss_upcast column (n) says so for its DeepSpeed rows (6 B per
  # logit, not 12), which leaves those rows under-predicted (docs/validation.md).
  "finetune.csv|by_metric/peak_mem_gib/mape|max|0.17"          # 0.162 (75 rows; 0.157 before loss_upcast, 0.166 before the A6000 rows' recompute none, 0.176 before the compiled loss)
  "finetune.csv|by_metric/step_time_s/mape|max|0.16"           # 0.143 (26 rows; 0.163 before eager LoRA's scale/add kernels, 0.167 before the per-GPU eager efficiency and the pp4 row's config)
  "finetune.csv|by_metric/tokens_per_s_per_gpu/mape|max|0.21"  # 0.197 (68 rows; 0.193 before the Answer.AI rows' lora_dropout 0.1, 0.184 before eager LoRA's scale/add kernels, 0.217 before the per-GPU eager efficiency, eager uncompiled torchtune and the pp4 row's config; 0.351 before the GeForce host-staged links)
  "finetune.csv|false_oom|max|0"
  # data/validation/blackwell-training.csv: published dense training runs on GB200 NVL72, B200,
  # H100 and H200 (issue 18, 66 rows). Its 25 even B200/GB200 throughput rows fit the Blackwell
  # sustained factor (0.76); the odd 25 are held out at 11.5 % (docs/validation.md).
  "blackwell-training.csv|by_group/mbridge-gb200/mape|max|0.14"    # 0.110 (32 rows, GB200 NVL72; 0.119 on 27 before the five 405B PP 16 VP 8 rows, 0.142 before partial recompute)
  "blackwell-training.csv|by_group/nemo-gb200/mape|max|0.10"       # 0.083 (9 rows, GB200 NVL72)
  "blackwell-training.csv|by_group/mbridge-b200/mape|max|0.06"     # 0.040 (8 rows, B200)
  "blackwell-training.csv|by_group/nemo-b200/mape|max|0.14"        # 0.121 (6 rows, B200)
  "blackwell-training.csv|by_group/mbridge-h100/mape|max|0.07"     # 0.059 (12 rows, H100)
  "blackwell-training.csv|by_group/mbridge-gb300/mape|max|0.23"    # 0.205 (26 rows, GB300 NVL72, held out; 0.254 before partial recompute)
  "blackwell-training.csv|by_group/torchtitan-h200/mape|max|0.11"  # 0.095 (4 rows, H200; 0.276 before the compiled loss of `compile: all`)
  "blackwell-training.csv|by_metric/tokens_per_s_per_gpu/mape|max|0.14"  # 0.122 (95 rows; 0.125 on 90 before the five 405B PP 16 VP 8 rows, 0.147 before partial recompute)
  "blackwell-training.csv|by_metric/peak_mem_gib/mape|max|0.44"    # 0.410 (2 rows, H200)
  "blackwell-training.csv|false_oom|max|0"
  # data/validation/inference.csv: published serving benchmarks (100 rows; the even rows fit
  # the hopper `sustained_factor` of families.json, docs/validation.md)
  "inference.csv|by_group/trtllm-perf-overview/mape|max|0.11"     # 0.097 (60 rows)
  "inference.csv|by_group/trtllm-perf-overview-1x/mape|max|0.09"  # 0.082 (7 rows)
  "inference.csv|by_group/nim-1.8-llama3.3-70b/mape|max|0.14"     # 0.124 (15 rows)
  "inference.csv|by_group/vllm-0.23-a100-musgrave/mape|max|0.12"  # 0.086 (1 row)
  "inference.csv|by_group/trtllm-perf-overview-moe/mape|max|0.16" # 0.136 (17 rows)
  "inference.csv|by_metric/output_tokens_per_s/mape|max|0.12"     # 0.106 (89 rows)
  "inference.csv|by_metric/tpot_s/mape|max|0.14"               # 0.122 (6 rows)
  "inference.csv|by_metric/ttft_s/mape|max|0.12"               # 0.096
  # Share of measured values inside the central 80 % interval (issue 21), every row of the file
  # (in-sample: the shipped table is fitted on every row; the held-out 5-fold figures are in
  # docs/validation.md). A sane range, not a target: below 0.6 the intervals are too narrow,
  # above 0.97 uselessly wide.
  "training.csv|interval_coverage/share|min|0.6"              # 0.868
  "training.csv|interval_coverage/share|max|0.97"
  "external.csv|interval_coverage/share|min|0.6"              # 0.727
  "external.csv|interval_coverage/share|max|0.97"
  "moe-training.csv|interval_coverage/share|min|0.6"          # 0.913
  "moe-training.csv|interval_coverage/share|max|0.97"
  "blackwell-training.csv|interval_coverage/share|min|0.6"    # 0.880
  "blackwell-training.csv|interval_coverage/share|max|0.97"
  "finetune.csv|interval_coverage/share|min|0.6"              # 0.858 (0.807 before the RTX 3090/A5000 rows)
  "finetune.csv|interval_coverage/share|max|0.97"
  "whole-runs.csv|interval_coverage/share|min|0.6"            # 0.600 (12 of 20 at the table fitted on 13 rows; 0.769 with those 13; 1.0, 0.923 before the row inputs were read from the sources)
  # whole-runs.csv: no upper limit. Its 20 rows (13 before session 21) are 13 rows of the Ampere
  # whole-run regime and 7 Hopper rows that take the step-time regimes of their key (5 dense, 2
  # MoE; a whole run is steps x step time). At the limit since session 21's seven rows: the
  # shipped table was fitted on the first 13 (refitted, 13 of 20 inside).
  "vtrain-single.csv|interval_coverage/share|min|0.6"         # 0.800
  "vtrain-single.csv|interval_coverage/share|max|0.97"
  "vtrain-multi.csv|interval_coverage/share|min|0.6"          # 0.890
  "vtrain-multi.csv|interval_coverage/share|max|0.97"
  "inference.csv|interval_coverage/share|min|0.6"             # 0.820
  "inference.csv|interval_coverage/share|max|0.97"
)
# Spearman rank correlation per model: "file|limit" holds for every model of
# the file, "file|model|limit" for that model (and wins over the file's).
set(SCALEOUT_RANK_CHECKS
  "vtrain-single.csv|0.96"              # 0.977-0.987 over the 8 shapes
  "vtrain-multi.csv|GPT 3.6B|0.95"      # 0.964
  "vtrain-multi.csv|GPT 175B|0.90"      # 0.922 (0.889 before the synchronous backward TP of session 20)
  "vtrain-multi.csv|GPT 18.4B|0.73"     # 0.746 (target 0.8 not met, docs/validation.md; 0.793 before the synchronous backward TP of session 20)
  "vtrain-multi.csv|GPT 39.1B|0.60"     # 0.617 (target 0.8 not met; 0.687 before the synchronous backward TP of session 20)
  "training.csv|GPT 174.6B|0.80"        # 0.812
  "training.csv|GPT 529.6B|0.91"        # 0.929 (0.821 before session 6)
  "training.csv|Llama 3.1 8B|0.89"      # 0.909 (tokens/s) and 0.944 (peak memory)
)
# Regret of picking by the prediction (how much slower the layout predicted
# fastest ran than the measured fastest of the same setting), the mean over
# a model's settings, per model as in the table of docs/validation.md; the
# same "file|limit" / "file|model|limit" forms.
set(SCALEOUT_REGRET_CHECKS
  "vtrain-single.csv|GPT h1024 L12|0.052"  # 0.046 (18 settings each)
  "vtrain-single.csv|GPT h1024 L16|0.043"  # 0.037
  "vtrain-single.csv|GPT h1024 L20|0.041"  # 0.035
  "vtrain-single.csv|GPT h1024 L24|0.040"  # 0.034
  "vtrain-single.csv|GPT h2048 L12|0.073"  # 0.067 (0.055 before the synchronous backward TP of session 20)
  "vtrain-single.csv|GPT h2048 L16|0.080"  # 0.074
  "vtrain-single.csv|GPT h2048 L20|0.088"  # 0.082
  "vtrain-single.csv|GPT h2048 L24|0.095"  # 0.089
  "vtrain-multi.csv|GPT 3.6B|0.005"        # 0 (one setting per model)
  "vtrain-multi.csv|GPT 175B|0.012"        # 0.006
  "vtrain-multi.csv|GPT 18.4B|0.05"        # 0.045
  "vtrain-multi.csv|GPT 39.1B|0.005"       # 0
  "training.csv|GPT 174.6B|0.005"          # 0
  "training.csv|GPT 529.6B|0.005"          # 0
  "training.csv|Llama 3.1 8B|0.17"         # 0.160 (torchtitan tokens/s)
)
