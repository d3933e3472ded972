#!/usr/bin/env python3
"""Builds data/validation/whole-runs.csv: published whole pre-training runs
(GPU-hours or wall-clock days on a stated GPU count) as validation rows with
the whole-run metrics `gpu_hours` / `train_days` and the `train_tokens`
column (issue 20, "End-to-end check").

Every number below was read in the cited source; each row's derivation says
what the reported figure includes and every assumption the row makes. Run
from the repository root: python3 scripts/build_whole_runs.py
"""
import csv
import sys

COLUMNS = ("id,group,model,layers,hidden,heads,kv_heads,ffn_hidden,vocab,mlp,moe_experts,"
           "moe_top_k,seq_len,global_batch,micro_batch,tp,pp,dp,cp,ep,sp,interleave,recompute,"
           "zero,finetune,lora_rank,precision,gpu,num_gpus,gpus_per_node,scaleup_domain_gpus,"
           "nics_per_node,nic_gbps,fabric,framework,metric,value,etp,train_tokens,derivation,"
           "cite,pipeline_schedule,embedding_in_split,loss_in_split,optimizer,fp8_activations,"
           "mtp_layers,shard_group").split(",")

# What a row's pipeline schedule rests on (appended after COMMON).
SCHEDULE_NOTES = {
    "zb1p": "pipeline_schedule zb1p: zero-bubble 1F1B (Qi et al. 2024; weight gradients "
            "deferred into the bubble, docs/model.md 'Pipeline schedules')",
    "dualpipe": "pipeline_schedule dualpipe: the report's DualPipe (section 3.2.1, table 2: "
                "bubble (PP/2-1)(F&B+B-3W), 2x parameters, PP+1 micro-batches of activations; "
                "all-to-all and PP communication hidden by pairing forward and backward chunks)",
}

# What every row assumes about the run around its steps.
COMMON = ("Predicted: the step of the row's layout (empty cells: the planner's choice, "
          "see filled) times train_tokens / (global_batch x seq_len) steps, with the "
          "catalog's default failure rate, restart time and checkpoint policy "
          "(Daly 2006); batch-size ramps, evaluation pauses and long-context phases "
          "are not modelled")

ROWS = [
    dict(id="llama1-65b", model="LLaMA 65B", layers=80, hidden=8192, heads=64, kv_heads=64,
         ffn_hidden=22016, vocab=32000, mlp="swiglu", seq_len=2048, global_batch=2048,
         precision="bf16", gpu="a100-sxm-80g", num_gpus=2048, gpus_per_node=8,
         nics_per_node=8, nic_gbps=200, fabric="ib", framework="other", metric="gpu_hours",
         value=1022362, train_tokens=1.4e12,
         derivation="Table 15 GPU-hours of LLaMA-65B (A100-80GB); Sec. 2.4: 2048 A100-80GB at "
         "380 tokens/s/GPU, 'approximately 21 days' for 1.4T tokens; 1,022,362 h / 2048 GPUs = "
         "20.8 days, i.e. the figure is throughput-derived and holds no failures; global batch "
         "4M tokens = 2048 x 2048 (Table 2); ffn 22016 from the released config; interconnect "
         "not stated in the paper: Meta RSC, 8 x 200 Gb/s InfiniBand per node assumed; "
         "tp/pp/recompute not stated (the paper checkpoints expensive activations)",
         cite="Touvron et al. 2023, LLaMA, arXiv:2302.13971, Sec. 2.4 and Table 15"),
    dict(id="llama2-7b", model="llama2-7b", seq_len=4096, global_batch=1024,
         precision="bf16", gpu="a100-sxm-80g", num_gpus=2048, gpus_per_node=8,
         nics_per_node=8, nic_gbps=200, fabric="ib", framework="other", metric="gpu_hours",
         value=184320, train_tokens=2.0e12,
         derivation="Llama 2 paper Table 2 'Time (GPU hours)' 184,320 for 7B, 'total GPU time "
         "required for training each model', pretraining only; 2T tokens, global batch 4M "
         "tokens = 1024 x 4096 (Table 1); GPU count per model not stated: 2048 assumed (the "
         "LLaMA 1 cluster size; GPU-hours change little with the count); RSC InfiniBand and "
         "RoCE clusters both 200 Gb/s per GPU (Sec. 2.2.1), IB assumed",
         cite="Touvron et al. 2023, Llama 2, arXiv:2307.09288, Table 2 and Sec. 2.2.1"),
    dict(id="llama2-13b", model="llama2-13b", seq_len=4096, global_batch=1024,
         precision="bf16", gpu="a100-sxm-80g", num_gpus=2048, gpus_per_node=8,
         nics_per_node=8, nic_gbps=200, fabric="ib", framework="other", metric="gpu_hours",
         value=368640, train_tokens=2.0e12,
         derivation="Llama 2 paper Table 2 'Time (GPU hours)' 368,640 for 13B; as llama2-7b: "
         "2T tokens, 1024 x 4096 batch, 2048 GPUs assumed",
         cite="Touvron et al. 2023, Llama 2, arXiv:2307.09288, Table 2"),
    dict(id="llama2-70b", model="llama2-70b", seq_len=4096, global_batch=1024,
         precision="bf16", gpu="a100-sxm-80g", num_gpus=2048, gpus_per_node=8,
         nics_per_node=8, nic_gbps=200, fabric="ib", framework="other", metric="gpu_hours",
         value=1720320, train_tokens=2.0e12,
         derivation="Llama 2 paper Table 2 'Time (GPU hours)' 1,720,320 for 70B; as llama2-7b: "
         "2T tokens, 1024 x 4096 batch, 2048 GPUs assumed",
         cite="Touvron et al. 2023, Llama 2, arXiv:2307.09288, Table 2"),
    dict(id="llama2-34b", model="Llama 2 34B", layers=48, hidden=8192, heads=64, kv_heads=8,
         ffn_hidden=22016, vocab=32000, mlp="swiglu", seq_len=4096, global_batch=1024,
         precision="bf16", gpu="a100-sxm-80g", num_gpus=2048, gpus_per_node=8,
         nics_per_node=8, nic_gbps=200, fabric="ib", framework="other", metric="gpu_hours",
         value=1038336, train_tokens=2.0e12,
         derivation="Llama 2 paper Table 2 'Time (GPU hours)' 1,038,336 for 34B (a model Meta "
         "trained but did not release), pretraining only; Table 1: 34B, 4k context, GQA, 2.0T "
         "tokens; shape not in the paper: Code Llama 34B is initialised from it (Roziere et al. "
         "2023, arXiv:2308.12950, Sec. 2), whose released params (meta-llama/codellama "
         "download params: dim 8192, n_layers 48, n_heads 64, n_kv_heads 8, vocab 32000, "
         "ffn_dim_multiplier 1.0, multiple_of 256 -> 22016) are taken for it; as llama2-7b: "
         "1024 x 4096 batch, 2048 GPUs assumed, IB 200 Gb/s per GPU",
         cite="Touvron et al. 2023, Llama 2, arXiv:2307.09288, Tables 1-2; Code Llama 34B params"),
    dict(id="llama3.1-405b", model="llama3.1-405b", seq_len=8192, global_batch=2048,
         tp=8, pp=16, dp=128, cp=1, recompute="none", zero=2, embedding_in_split="y",
         loss_in_split="y", precision="bf16", gpu="h100-sxm", num_gpus=16384,
         gpus_per_node=8, nics_per_node=8, nic_gbps=400, fabric="roce", framework="other",
         metric="gpu_hours", value=30840000, train_tokens=15.6e12,
         derivation="Llama 3.1 model card 'Training Time (GPU hours)' 30.84M for 405B (H100-80GB), "
         "'total GPU time required for training each model'; the 3.1 card says 'Training' and "
         "may include the long-context stage and post-training (not broken down); paper: 15.6T "
         "tokens, Table 4 layout (b) 16,384 GPUs TP8 CP1 PP16 DP128, 2048 x 8192 tokens per "
         "batch, 400 TFLOP/s/GPU; the early phase on 8,192 GPUs, the batch ramp and the 800B "
         "long-context tokens are all timed here as layout (b); RoCE 400 Gb/s per GPU"
         "; the layout cells the paper states, as in external.csv row llama3-405b-t4-02 "
         "(same layout): recompute none ('we could pre-train Llama 3 on sequences of 8K "
         "tokens without activation checkpointing', Sec. 3.3.2), zero 2 (FSDP shards "
         "optimizer states and gradients, model shards not resharded after forward, Sec. "
         "3.3.2), embedding_in_split and loss_in_split y (one Transformer layer fewer on "
         "the first and last stages, which hold the embedding and the output projection "
         "and loss, Sec. 3.3.2); what the whole run adds: Sec. 3.3.4 reports 466 "
         "interruptions in a 54-day snapshot (419 unexpected) and 'higher than 90% "
         "effective training time'; the catalog's default failure rate is this run's (3.79"
         " per 1,000 node-days) and the model's failures, restarts and checkpoints add 9 %"
         " to the ideal time (goodput 0.92), inside the reported >90 %; the published "
         "figure is itself consistent with pre-training alone: 15.6T tokens x 2.53 TFLOP "
         "per token (6 x 405B + causal attention at 8K) = 3.95e25 FLOP, at the reported "
         "400 TFLOP/s per GPU 27.4M GPU-hours, / 0.9 effective = 30.5M, so little room is "
         "left in the 30.84M for post-training; what remains of the miss is the step "
         "(external.csv llama3-405b-t4-02 at this layout predicts MFU 16 % low)",
         cite="Llama 3.1 model card (github meta-llama/llama-models, models/llama3_1/MODEL_CARD.md); "
         "Llama Team 2024, arXiv:2407.21783, Table 4"),
    dict(id="llama3.1-8b", model="llama3.1-8b", seq_len=8192, global_batch=2048,
         precision="bf16", gpu="h100-sxm", num_gpus=2048, gpus_per_node=8,
         nics_per_node=8, nic_gbps=400, fabric="ib", framework="other", metric="gpu_hours",
         value=1460000, train_tokens=15.0e12,
         derivation="Llama 3.1 model card 'Training Time (GPU hours)' 1.46M for 8B (H100-80GB, "
         "'total GPU time required for training each model'), read as the 405B row reads its "
         "30.84M: the card says 'Training', not broken down, so the long-context stage and "
         "post-training may be inside; card: pretrained on ~15 trillion tokens (15.0T taken; the "
         "paper's 15.6T is stated for 405B); the April 2024 Llama 3 card gives 1.3M GPU-hours "
         "of 'Pretraining' for the 8B (89 % of 1.46M), but whether 3.1 8B continues that run "
         "is not stated, so it is no row of its own; paper Sec. 3.3.1: the smaller Llama 3 "
         "models trained on Nvidia Quantum2 InfiniBand, 400 Gb/s per GPU (fabric ib); GPU "
         "count not stated for 8B/70B: 2048 assumed (as the Llama 2 rows; GPU-hours change "
         "little with it); batch not stated for 8B/70B: the 405B's 16M tokens = 2048 x 8192 "
         "(paper Sec. 3.4.1) assumed; layout not stated (planner's choice)",
         cite="Llama 3.1 model card (github meta-llama/llama-models, models/llama3_1/MODEL_CARD.md, "
         "commit a9c89c4); Llama 3 model card (models/llama3/MODEL_CARD.md); Llama Team 2024, "
         "arXiv:2407.21783, Sec. 3.3.1"),
    dict(id="llama3.1-70b", model="llama3.1-70b", seq_len=8192, global_batch=2048,
         precision="bf16", gpu="h100-sxm", num_gpus=2048, gpus_per_node=8,
         nics_per_node=8, nic_gbps=400, fabric="ib", framework="other", metric="gpu_hours",
         value=7000000, train_tokens=15.0e12,
         derivation="Llama 3.1 model card 'Training Time (GPU hours)' 7.0M for 70B (H100-80GB); "
         "as llama3.1-8b: 'Training', not broken down; ~15T tokens; the April 2024 Llama 3 card's "
         "70B 'Pretraining' figure is 6.4M (91 % of 7.0M), no row of its own; InfiniBand 400 "
         "Gb/s per GPU; 2048 GPUs and the 405B's 2048 x 8192 batch assumed; layout not stated "
         "(planner's choice)",
         cite="Llama 3.1 model card (github meta-llama/llama-models, models/llama3_1/MODEL_CARD.md, "
         "commit a9c89c4); Llama Team 2024, arXiv:2407.21783, Sec. 3.3.1"),
    dict(id="opt-175b", model="opt-175b", seq_len=2048, global_batch=1024, tp=8,
         precision="fp16", gpu="a100-sxm-80g", num_gpus=992, gpus_per_node=8,
         nics_per_node=8, nic_gbps=200, fabric="ib", framework="fsdp", metric="train_days",
         value=33, train_tokens=3.0e11,
         derivation="Logbook: 'roughly ~33 days of continuous training on 1024 80GB A100s "
         "(assuming no hardware issues, no numerical instabilities, etc.)' - an ideal figure; "
         "the real run took about two months with 35+ manual and 70+ automatic restarts (paper "
         "Sec. 2.5), not this row; 300B tokens seen; batch 2M tokens = 1024 x 2048 (Table 1); "
         "992 GPUs used (Sec. 2.4), 147 TFLOP/s/GPU; FSDP with Megatron TP 8 (TP degree from a "
         "third-party summary); fp16; cloud InfiniBand 8 x 200 Gb/s assumed (provider not named)",
         cite="Zhang et al. 2022, OPT, arXiv:2205.01068, Sec. 2.4-2.5; metaseq OPT-175B logbook"),
    dict(id="bloom-176b", model="bloom-176b", seq_len=2048, global_batch=2048, micro_batch=2,
         tp=4, pp=12, dp=8, sp="n", recompute="full", zero=1, precision="bf16", gpu="a100-sxm-80g",
         num_gpus=384, gpus_per_node=8, nics_per_node=4, nic_gbps=100, fabric="eth",
         framework="deepspeed", metric="gpu_hours", value=1082990, train_tokens=3.66e11,
         derivation="GENCI: 'Training BLOOM-176B took 3.5 months, with 1,082,990 hours of "
         "computation on 48 Jean Zay nodes'; 1,082,990 / 384 = 117.5 days, so the figure is the "
         "whole allocation (restarts, hangs, checkpoints, idle time all inside); 366B tokens; "
         "Megatron-DeepSpeed TP4 PP12 DP8, MBS 2, DeepSpeed's pipeline engine (1F1B, no "
         "interleaved stages), no sequence parallelism (the paper's 3D layout names none; "
         "Megatron-LM's sequence parallelism, Korthikanti et al. May 2022, postdates the run's "
         "start in March 2022), GBS 2048 after a ramp (not modelled), bf16 "
         "optimizer = ZeRO-1, activation checkpointing; Omni-Path 4 x 100 Gb/s per node (fabric "
         "eth: the sheet has no Omni-Path value, and eth takes the 0.70 all-reduce efficiency "
         "the network model gives Omni-Path and plain Ethernet, network/topology.hpp); "
         "~150-156 TFLOP/s/GPU reported"
         "; what the 117.5 days hold: at 150 TFLOP/s (Megatron's count with recompute, 4/3"
         " x 6 x 176B per token) the 366B tokens take 5.15e23 / (384 x 150e12) s = 103.6 "
         "days of steps (99.6 at 156), so about 14 of the 117.5 days (12 %) are allocation"
         " time outside steps: the batch ramp, hangs, restarts after hardware failures (48"
         " nodes plus a reserve of 4 spare nodes for hardware failures, paper Sec. 3.4.1) "
         "and checkpoint writes of 2.3 TB to the shared GPFS; the sources give no "
         "interruption count or restart time, so the catalog's default failure rate and "
         "10-minute restart stand (the model adds under 1 %); the step itself is predicted"
         " 89 s against the 98-103 s the reported throughput implies (the logged step is "
         "104.7 s, training.csv bloom-01); the same engine's measured GPT-175B step on 512 "
         "A100 80GB (vtrain-multi vtm-0089: TP4 PP16 DP8, MBS 2, GBS 1536, 6 layers a stage, "
         "54.3 s measured, 54.4 predicted) is 0.489 s a micro-batch per stage; scaled to "
         "BLOOM's slowest stage (6 layers of hidden 14336: x (14336/12288)^2 = 1.36) over 128 "
         "micro-batches plus the 11-stage bubble it gives 92 s, so the model's 89 s is within "
         "4 % of Megatron-DeepSpeed's measured layers, and the other 12 % of the logged step "
         "is slower than that engine's GPT-175B layers for reasons the sources do not give "
         "(ALiBi, the embedding LayerNorm, the 250k vocabulary's loss, Omni-Path, Jean Zay's "
         "software stack): nothing to model it by",
         cite="BigScience 2022, BLOOM, arXiv:2211.05100, Sec. 3.4; GENCI Jean Zay press release"),
    dict(id="bloomberggpt-50b", model="BloombergGPT 50B", layers=70, hidden=7680, heads=40,
         kv_heads=40, ffn_hidden=30720, vocab=131072, mlp="gelu", seq_len=2048,
         global_batch=2048, tp=1, pp=1, dp=512, recompute="full", zero=3, shard_group=128,
         precision="bf16",
         gpu="a100-sxm-40g", num_gpus=512, gpus_per_node=8, nics_per_node=4, nic_gbps=100,
         fabric="efa", framework="other", metric="train_days", value=53,
         train_tokens=5.69e11,
         derivation="'We trained for a total of 139,200 steps (~53 days)' on 64 p4d.24xlarge "
         "(512 A100-40GB); 139,200 x 32.5 s = 52.4 days, so the figure is steps x step time "
         "(no failures, rollbacks excluded); 569B tokens; batch 1024 sequences for 7,200 steps "
         "then 2048 (the ramp is not modelled); Amazon SageMaker's model parallelism library "
         "(SMP), not DeepSpeed: ZeRO-3 sharded over 128 GPUs with 4 replicas (MiCS, Zhang et al. "
         "2022: node-local then cross-node gathers): zero 3, shard_group 128 (of dp 512), timed "
         "as framework other (PyTorch FSDP-style hierarchical ZeRO-3 with prefetch; SMP's own "
         "overlap is not published), so model state is sharded over 128 GPUs, the per-layer "
         "gathers and reduce-scatters run over 16 nodes and each GPU's fp32 gradient shard is "
         "all-reduced across the 4 replicas once a step; micro-batch not stated (planner's "
         "choice); activation checkpointing per layer, bf16; ALiBi "
         "and the embedding LayerNorm not modelled (GPT-style row); EFA 400 Gb/s per node = 4 x "
         "100 Gb/s, fabric efa (the catalog's EFA all-reduce efficiency, 0.74, measured on "
         "EFAv4; p4d's first EFA is not measured); 102 TFLOP/s/GPU reported, recompute included (569B x 6 x "
         "50.6B / (512 GPUs x 52.4 days) = 74 TFLOP/s of model FLOPs, x 4/3 = 99). The paper's "
         "1.3M GPU-hours is a "
         "compute budget for sizing, not the run"
         "; the whole-run model's failures and checkpoints (under 1 % here) are not the "
         "miss: the predicted step at the 2048-sequence batch is 18.2 s against the "
         "paper's 32.5 s. Why: 2048 sequences over 512 GPUs are 4 per GPU; the planner takes "
         "micro-batch 4 (39.3 of 40 GiB with the 128-GPU shard group; 34.9 sharded over all "
         "512), one micro-batch a step, and the gathers, reduce-scatters and the replicas' "
         "all-reduce all run behind 18.2 s of compute; MiCS re-gathers every micro-batch, so at "
         "micro-batch 2 the run is 0.70x (dp 4.9 s exposed a step) and at 1 1.39x; at the "
         "planner's micro-batch the step is compute: 18.2 s is about 180 TFLOP/s per GPU (58 % of the "
         "A100's 312) against the 102 TFLOP/s the paper reports, and that rate, not the "
         "layout, is the miss",
         cite="Wu et al. 2023, BloombergGPT, arXiv:2303.17564, Sec. 4"),
    dict(id="falcon-40b", model="Falcon 40B", layers=60, hidden=8192, heads=128, kv_heads=8,
         ffn_hidden=32768, vocab=65024, mlp="gelu", seq_len=2048, global_batch=1152, tp=8, pp=4,
         dp=12, zero=1,
         precision="bf16", gpu="a100-sxm-40g", num_gpus=384, gpus_per_node=8, nics_per_node=4,
         nic_gbps=100, fabric="eth", framework="other", metric="train_days", value=60,
         train_tokens=1.0e12,
         derivation="Model card: 'trained on 384 A100 40GB GPUs, using a 3D parallelism strategy "
         "(TP=8, PP=4, DP=12) combined with ZeRO' on 1,000B tokens; 'Training started in December "
         "2022 and took two months' = about 60 calendar days (everything in that period); global "
         "batch 1152 sequences (model card, Training Hyperparameters: 'Batch size 1152, 100B "
         "tokens ramp-up'; the ramp is not modelled); ZeRO stage not stated (1 assumed); parallel "
         "attention/MLP not modelled; AWS p4d EFA 400 Gb/s per node = 4 x 100 Gb/s",
         cite="tiiuae/falcon-40b model card (Hugging Face)"),
    dict(id="falcon-7b", model="Falcon 7B", layers=32, hidden=4544, heads=71, kv_heads=1,
         ffn_hidden=18176, vocab=65024, mlp="gelu", seq_len=2048, global_batch=2304, tp=1, pp=2,
         dp=192, zero=1,
         precision="bf16", gpu="a100-sxm-40g", num_gpus=384, gpus_per_node=8, nics_per_node=4,
         nic_gbps=100, fabric="eth", framework="other", metric="train_days", value=14,
         train_tokens=1.5e12,
         derivation="Model card: 'trained on 384 A100 40GB GPUs, using a 2D parallelism strategy "
         "(PP=2, DP=192) combined with ZeRO' on 1,500B tokens; 'took about two weeks' = 14 days "
         "(calendar); global batch 2304 sequences (model card, Training Hyperparameters: 'Batch "
         "size 2304, 30B tokens ramp-up'; the ramp is not modelled); ZeRO stage 1 assumed; AWS "
         "p4d "
         "EFA 400 Gb/s per node",
         cite="tiiuae/falcon-7b model card (Hugging Face)"),
    dict(id="mpt-7b", model="mpt-7b", seq_len=2048, precision="bf16", gpu="a100-sxm-40g",
         num_gpus=440, gpus_per_node=8, micro_batch=8, tp=1, pp=1, dp=440, recompute="full",
         zero=3, framework="mosaic",
         metric="train_days", value=9.5, train_tokens=1.0e12,
         derivation="Model card: 'This model was trained on 440 A100-40GBs for about 9.5 days'; "
         "blog: 'in 9.5 days with zero human intervention' (failures auto-resumed inside the "
         "figure); 1T tokens; FSDP full sharding (zero=3), no TP/PP; activation checkpointing of "
         "every block and micro-batch 8 from MosaicML's published MPT-7B recipe (llm-foundry "
         "scripts/train/yamls/pretrain/mpt-7b.yaml: fsdp_config activation_checkpointing: true, "
         "device_train_microbatch_size: 8; the run's own YAML is not published, and the "
         "recipe's global batch 1024 does not divide over 440 GPUs); LION optimizer (timed as "
         "Adam); global batch not read (planner's choice); interconnect not stated (the "
         "generation's default NICs)",
         cite="mosaicml/mpt-7b model card; MosaicML blog 'Introducing MPT-7B' (May 2023)"),
    dict(id="starcoderbase-15b", model="StarCoderBase 15.5B", layers=40, hidden=6144,
         heads=48, kv_heads=1, ffn_hidden=24576, vocab=49152, mlp="gelu", seq_len=8192,
         global_batch=512, micro_batch=1, tp=4, pp=4, dp=32, precision="bf16",
         gpu="a100-sxm-80g", num_gpus=512, gpus_per_node=8, framework="megatron",
         metric="gpu_hours", value=320256, train_tokens=1.0e12,
         derivation="Model card: 320,256 GPU hours of pretraining on 512 A100-80GB (= 26.1 days); "
         "paper: TP 4 x PP 4 per replica, 32-fold data parallelism, micro-batch 1, 16 "
         "accumulation steps, global batch 512 x 8192 = 4M tokens, 1T tokens, Megatron-LM with "
         "FlashAttention, BF16; MQA; learned positions; restarts not stated; interconnect not "
         "stated (the generation's default NICs)",
         cite="Li et al. 2023, StarCoder, arXiv:2305.06161, Sec. 5; bigcode/starcoderbase model card"),
    dict(id="falcon-180b", model="Falcon 180B", layers=80, hidden=14848, heads=232, kv_heads=8,
         ffn_hidden=59392, vocab=65024, mlp="gelu", seq_len=2048, precision="bf16",
         gpu="a100-sxm-40g", num_gpus=4096, gpus_per_node=8, nics_per_node=4, nic_gbps=100,
         fabric="efa", framework="other", metric="gpu_hours", value=7000000,
         train_tokens=3.5e12,
         derivation="Hugging Face's release post: 'trained on 3.5 trillion tokens on up to 4096 "
         "GPUs simultaneously, using Amazon SageMaker for a total of ~7,000,000 GPU hours' - an "
         "approximate figure of the whole run (a rounded GPU-hour total on a GPU count that "
         "varied: 'up to' 4096; 4096 assumed); A100 40GB and AWS (the Falcon paper's abstract, "
         "arXiv:2311.16867: 'up to 4,096 A100s on cloud AWS infrastructure with limited "
         "interconnect'), p4d EFA 4 x 100 Gb/s per node assumed as for BloombergGPT (fabric efa); "
         "shape from the released config (80 layers, hidden 14848, 232 query heads, 8 KV heads, "
         "vocab 65024, GELU MLP of 4 x hidden); the layout, ZeRO stage and batch were not read "
         "in a primary source (planner's choice; the Falcon 40B/7B rows take theirs from their "
         "model cards); parallel attention/MLP not modelled",
         cite="Hugging Face blog 'Spread Your Wings: Falcon 180B is here' (github huggingface/blog, "
         "falcon-180b.md); Almazrouei et al. 2023, arXiv:2311.16867, abstract"),
    dict(id="smollm3-3b", model="SmolLM3 3B", layers=36, hidden=2048, heads=16, kv_heads=4,
         ffn_hidden=11008, vocab=128256, mlp="swiglu", seq_len=4096, global_batch=576,
         micro_batch=3, tp=2, pp=1, dp=192, sp="y", recompute="none", zero=0,
         precision="bf16", gpu="h100-sxm", num_gpus=384, gpus_per_node=8, framework="other",
         metric="train_days", value=24, train_tokens=11.2e12,
         derivation="huggingface/smollm text/pretraining/README.md (commit a041759): 'The model "
         "was trained on 384 H100 GPUs for 24 days', global batch 2.36M tokens at 4096 sequence "
         "length, 11.2T tokens in 3 stages at 4k context (a wall-clock figure, everything in it; "
         "whether the two later long-context stages, about 100B tokens at 32k-64k, are inside "
         "is not said); the nanotron config smollm3/stage1_8T.yaml: dp 192, tp 2 with "
         "tp_mode REDUCE_SCATTER (sequence parallel: sp y), pp 1, cp 1, micro_batch_size 3, "
         "batch_accumulation_per_replica 1 (576 x 4096 = 2,359,296 tokens a step), "
         "recompute_layer false, zero_stage 0, bf16, flash_attention_2; shape from the same "
         "config: 36 layers, hidden 2048, 16 heads, 4 KV heads, intermediate 11008, vocab "
         "128256 with tied embeddings (not a column: timed untied); NoPE every 4th layer and "
         "intra-document masking not modelled (causal attention over the whole 4k); nanotron "
         "timed as framework other; interconnect not stated (the generation's default NICs)",
         cite="github huggingface/smollm, text/pretraining/README.md and "
         "text/pretraining/smollm3/stage1_8T.yaml"),
    dict(id="deepseek-llm-67b", model="DeepSeek LLM 67B", layers=95, hidden=8192, heads=64,
         kv_heads=8, ffn_hidden=22016, vocab=102400, mlp="swiglu", seq_len=4096,
         global_batch=4608, precision="bf16", gpu="h800", num_gpus=2048, gpus_per_node=8,
         nics_per_node=8, nic_gbps=400, fabric="ib", framework="other", metric="gpu_hours",
         value=601200, train_tokens=2.0e12,
         derivation="DeepSeek-V2 report Sec. 3.2.3: 'During our practical training on the H800 "
         "cluster, for training on each trillion tokens, DeepSeek 67B requires 300.6K GPU "
         "hours'; x 2T tokens (deepseek-ai/DeepSeek-LLM README: 'trained ... on a vast dataset "
         "of 2 trillion tokens, with a sequence length of 4096', 67B batch 4608) = 601.2K "
         "GPU-hours: a per-token rate on H800 times the run's tokens, not a reported total "
         "(whether the 67B itself ran wholly on H800 is not said); shape: DeepSeek LLM paper "
         "(arXiv:2401.02954) Table 2 and the released config (95 layers, hidden 8192, 64 "
         "heads, 8 KV heads (GQA), intermediate 22016, vocab 102400); layout not stated per "
         "model (the paper's HAI-LLM runs data, tensor, sequence and 1F1B pipeline parallelism "
         "with ZeRO-1; planner's choice here); GPU count not stated: 2048 assumed (the "
         "DeepSeek-V3 report's H800 cluster size); H800 nodes of 8 GPUs with InfiniBand across "
         "nodes (V2 report Sec. 3.1.3), 400 Gb/s per GPU assumed as for deepseek-v3",
         cite="DeepSeek-AI 2024, DeepSeek-V2, arXiv:2405.04434, Sec. 3.2.3 (deepseek-ai/DeepSeek-V2 "
         "deepseek-v2-tech-report.pdf); deepseek-ai/DeepSeek-LLM README; arXiv:2401.02954"),
    dict(id="deepseek-v2", model="deepseek-v2", seq_len=4096, global_batch=9216, tp=1, pp=16,
         dp=128, ep=8, zero=1, precision="bf16", gpu="h800", num_gpus=2048, gpus_per_node=8,
         nics_per_node=8, nic_gbps=400, fabric="ib", framework="other", metric="gpu_hours",
         value=1399680, train_tokens=8.1e12, pipeline_schedule="zb1p",
         derivation="DeepSeek-V2 report Sec. 3.2.3: 'for training on each trillion tokens ... "
         "DeepSeek-V2 needs only 172.8K GPU hours' on the H800 cluster; x 8.1T tokens (Sec. "
         "3.1.2) = 1,399,680 GPU-hours, the pre-training's rate times its tokens (long-context "
         "extension, SFT and RL are separate stages, not in it); Sec. 3.1.3: HAI-LLM, 16-way "
         "zero-bubble pipeline parallelism (Qi et al. 2023; which variant is not said: zb1p "
         "taken), 8-way expert parallelism, ZeRO-1 data parallelism, no tensor parallelism, "
         "'a portion of the operators are recomputed' (recompute left to the validator), "
         "shared-expert computation overlapped with the all-to-all; batch ramp 2304 -> 9216 "
         "sequences over the first 225B tokens (timed at 9216), 4K sequences; token dropping "
         "during training (capacity not stated; not modelled: the default load imbalance "
         "stands); GPU count not stated: 2048 assumed (the DeepSeek-V3 report's cluster; "
         "dp 128 = 2048 / 16); H800 nodes of 8 GPUs with InfiniBand across nodes (Sec. 3.1.3), "
         "400 Gb/s per GPU assumed as for deepseek-v3; bf16 (the report names no FP8 training)",
         cite="DeepSeek-AI 2024, DeepSeek-V2, arXiv:2405.04434, Sec. 3.1.2-3.1.3 and 3.2.3 "
         "(deepseek-ai/DeepSeek-V2 deepseek-v2-tech-report.pdf)"),
    dict(id="deepseek-v3", model="deepseek-v3", seq_len=4096, global_batch=15360, tp=1, pp=16,
         dp=128, ep=64, zero=1, precision="fp8", gpu="h800", num_gpus=2048, gpus_per_node=8,
         nics_per_node=8, nic_gbps=400, fabric="ib", framework="other", metric="gpu_hours",
         value=2664000, train_tokens=14.8e12, pipeline_schedule="dualpipe",
         optimizer="adam-bf16-moments", fp8_activations="y", mtp_layers=1,
         derivation="Report: 'training DeepSeek-V3 on each trillion tokens requires only 180K H800 "
         "GPU hours, i.e., 3.7 days on our cluster with 2048 H800 GPUs ... our pre-training "
         "stage is completed in less than two months and costs 2664K GPU hours' (context "
         "extension 119K and post-training 5K excluded); 14.8T tokens; PP16 (DualPipe) x EP64 x "
         "ZeRO-1 DP, no TP, FP8; batch ramp 3072 -> 15360 sequences over the first 469B tokens "
         "(timed at 15360); IB 400 Gb/s per GPU (CX7); restarts not stated"
         "; the figures agree with each other: 2,664K GPU-hours / 14.8T tokens = 180K per "
         "trillion, / 2,048 GPUs / 24 h = 3.66 days per trillion and 54.2 days in all "
         "('less than two months'); 180K GPU-hours per trillion tokens is 1,543 tokens/s "
         "per GPU averaged over the whole pre-training, restarts and checkpoints included "
         "(moe-training.csv row dsv3-report-h800, the same layout as a step); mtp_layers "
         "1: the report trains 1 MTP module (Sec. 2.2; the catalog's deepseek-v3 entry "
         "leaves it out, so without the cell the row would time a model without it); "
         "optimizer adam-bf16-moments and fp8_activations y: the report's BF16 AdamW "
         "moments beside FP32 master weights and gradients and its FP8 activation cache "
         "(Sec. 3.3.4), as in dsv3-report-h800; recompute left empty: this file has no "
         "recompute_modules column for the report's recompute of RMSNorm, MLA up-projections "
         "and the SwiGLU output (dsv3-report-h800 carries it: 76.5 GiB of 80 on rank 0, "
         "the MTP module sharing stage 0's embedding, Sec. 3.2.3), so the validator chooses",
         cite="DeepSeek-AI 2024, DeepSeek-V3 Technical Report, arXiv:2412.19437, Sec. 1 and 3"),
]


def main():
    out = sys.stdout if len(sys.argv) < 2 else open(sys.argv[1], "w", newline="")
    w = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    for row in ROWS:
        r = dict(row)
        r["group"] = "whole-run"
        r["derivation"] = r["derivation"] + "; " + COMMON
        if r.get("pipeline_schedule"):
            r["derivation"] += "; " + SCHEDULE_NOTES[r["pipeline_schedule"]]
        if "finetune" not in r:
            r["finetune"] = "full"
        for k in ("train_tokens",):
            r[k] = f"{r[k]:.4g}"
        w.writerow({k: r.get(k, "") for k in COLUMNS})


if __name__ == "__main__":
    main()
