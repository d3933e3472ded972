#!/usr/bin/env python3
"""Converts the vTrain measurements (data/vtrain/*.csv, MIT licence, see
data/vtrain/README.md) into the canonical validation schema of
data/validation/README.md, once; the outputs are committed as
data/validation/vtrain-single.csv and data/validation/vtrain-multi.csv.

Every value the vTrain files do not carry is an assumption, written into each
row's `derivation` cell:
- GPU a100-sxm-80g: vTrain's configs say "A100"; 80 GB because the 3.6B model
  with t = p = 1 needs ~58 GB of model state; SXM because vTrain's all-reduce
  table reaches 229 GB/s on 8 GPUs (NVSwitch).
- 8 GPUs per node; 4 x 200 Gb/s InfiniBand per node: vTrain's simulator
  setting inter_node_bandwidth = 800 Gb/s per node (NIC count not stated).
- GPT-style model: ffn 4h, vocab 50257 (vTrain default), GELU, kv_heads = heads.
- Megatron-DeepSpeed (framework deepspeed), fp16 (the simulator's dtype),
  full activation recomputation (use_checkpoint: true in every config),
  1F1B schedule (interleave 1), no ZeRO (zero 0), no sequence parallelism.
"""
import csv
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLUMNS = ["id", "group", "model", "layers", "hidden", "heads", "kv_heads", "ffn_hidden",
           "vocab", "mlp", "moe_experts", "moe_top_k", "seq_len", "global_batch",
           "micro_batch", "tp", "pp", "dp", "cp", "ep", "sp", "interleave", "recompute",
           "zero", "finetune", "lora_rank", "precision", "gpu", "num_gpus", "gpus_per_node",
           "nics_per_node", "nic_gbps", "fabric", "framework", "metric", "value",
           "derivation", "cite"]
CITE = ("vTrain (Bang et al., MICRO 2024, arXiv:2312.12391), VIA-Research/vTrain "
        "data/{name} @ f8dda84, MIT licence")
ASSUMED = ("assumed (not in the vTrain data): a100-sxm-80g, 8 GPUs/node, 4 x 200 Gb/s IB "
           "per node (simulator inter_node_bandwidth 800 Gb/s), vocab 50257, ffn 4h, gelu, "
           "fp16, full recompute (use_checkpoint true), zero 0, no SP, 1F1B; "
           "value = iteration time (ms) / 1000")


def convert(name, group, prefix):
    src = os.path.join(ROOT, "data", "vtrain", name)
    with open(src, encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    out = []
    for i, r in enumerate(rows):
        h = int(r["hidden size"])
        label = r.get("Parameters (billion)")
        model = f"GPT {label}B" if label else f"GPT h{h} L{r['# layers']}"
        out.append({
            "id": f"{prefix}-{i + 1:04d}", "group": group, "model": model,
            "layers": r["# layers"], "hidden": h, "heads": r["attention heads"],
            "kv_heads": r["attention heads"], "ffn_hidden": 4 * h, "vocab": 50257,
            "mlp": "gelu", "moe_experts": "", "moe_top_k": "",
            "seq_len": r["sequence length"], "global_batch": r["global batch"],
            "micro_batch": r["micro batch"], "tp": r["tensor parallelism"],
            "pp": r["pipeline parallelism"], "dp": r["data parallelism"], "cp": 1, "ep": 1,
            "sp": "n", "interleave": 1, "recompute": "full", "zero": 0, "finetune": "full",
            "lora_rank": "", "precision": "fp16", "gpu": "a100-sxm-80g",
            "num_gpus": r["# GPUs"], "gpus_per_node": 8, "nics_per_node": 4, "nic_gbps": 200,
            "fabric": "ib", "framework": "deepspeed", "metric": "step_time_s",
            "value": f"{float(r['iteration time (ms)']) / 1000:.6g}",
            "derivation": f"{name} data row {i + 1}; " + ASSUMED,
            "cite": CITE.format(name=name)})
    dst = os.path.join(ROOT, "data", "validation", f"vtrain-{group.split('-')[1]}.csv")
    with open(dst, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(out)
    print(f"{dst}: {len(out)} rows", file=sys.stderr)


convert("ground_truth_single.csv", "vtrain-single", "vts")
convert("ground_truth_multi.csv", "vtrain-multi", "vtm")
