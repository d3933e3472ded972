# Recorded validation figures: a test fails when a figure regresses past its
# threshold (a little above the figure measured when it was recorded, in the
# comment). Change them deliberately, with the new figures in docs/validation.md.
#
# Each entry: FILE|JSON path below "summary" (parts joined by /)|comparison|threshold
set(SCALEOUT_VALIDATION_CHECKS
  # data/validation/training.csv (114 published rows)
  "training.csv|by_metric/peak_mem_gib/mape|max|0.10"          # 0.087
  "training.csv|by_metric/step_time_s/mape|max|0.13"           # 0.118
  "training.csv|by_metric/tokens_per_s_per_gpu/mape|max|0.09"  # 0.075
  "training.csv|by_metric/mfu/mape|max|0.17"                   # 0.154 (kor22 App. C, docs/validation.md)
  "training.csv|by_group/korthikanti22/mape|max|0.13"          # 0.118 (A100 compute optimistic, docs/validation.md)
  "training.csv|by_group/narayanan21/mape|max|0.15"            # 0.137
  "training.csv|false_oom|max|0"
  # vTrain (converted by scripts/vtrain_to_canonical.py)
  "vtrain-multi.csv|by_metric/step_time_s/mape|max|0.12"       # 0.111
  "vtrain-multi.csv|false_oom|max|0"
  "vtrain-single.csv|by_metric/step_time_s/mape|max|0.09"      # 0.076
  "vtrain-single.csv|false_oom|max|0"
  # data/validation/external.csv: published runs never used in any fit
  "external.csv|by_metric/step_time_s/mape|max|0.15"           # 0.133
  "external.csv|by_metric/tokens_per_s_per_gpu/mape|max|0.14"  # 0.121
  "external.csv|false_oom|max|0"
  # data/validation/inference.csv: published serving benchmarks (100 rows; no constant fitted)
  "inference.csv|by_group/trtllm-perf-overview/mape|max|0.11"     # 0.096 (60 rows)
  "inference.csv|by_group/trtllm-perf-overview-1x/mape|max|0.09"  # 0.072 (7 held-out rows)
  "inference.csv|by_group/nim-1.8-llama3.3-70b/mape|max|0.16"     # 0.141 (15 rows)
  "inference.csv|by_group/vllm-0.23-a100-musgrave/mape|max|0.12"  # 0.086 (1 row)
  "inference.csv|by_group/trtllm-perf-overview-moe/mape|max|0.16" # 0.139 (17 rows)
  "inference.csv|by_metric/output_tokens_per_s/mape|max|0.12"     # 0.106 (89 rows)
  "inference.csv|by_metric/tpot_s/mape|max|0.16"               # 0.133 (6 rows)
  "inference.csv|by_metric/ttft_s/mape|max|0.15"               # 0.126
)
# Spearman rank correlation per model: the lowest over the file's models.
set(SCALEOUT_RANK_CHECKS
  "vtrain-single.csv|0.95"  # lowest 0.98
  "vtrain-multi.csv|0.62"   # lowest 0.650 (GPT 39.1B; target 0.8 not met, docs/validation.md)
)
