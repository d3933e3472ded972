#!/usr/bin/env python3
"""Builds data/validation/blackwell-training.csv from the gathered dense measurements.

Input: the research sheet scripts/data/blackwell-training-research.csv, one
published number per row with the layout cells the source prints (GPUs, GBS,
MBS, sequence, TP, PP, CP, VP, FSDP, GA) and the source's own words for the
precision. This script fills what follows from the source's system and
framework and writes every assumption into the row's `derivation`:

  dp          = num_gpus / (tp * pp * cp)                   (checked: GBS = dp * MBS * GA)
  zero        = 3 where the table says FSDP (Megatron-FSDP, or torchtitan's FSDP2),
                else 1 (the Megatron distributed optimizer of the perf recipes)
  sp          = n where tp = 1, else empty (the validator chooses)
  interleave  = VP, or 1 where the table says n/a
  precision   = fp8 for FP8 (per-tensor current scaling), MXFP8 and 32x32-block FP8
                (NVFP4 rows are not gathered: the model has no 4-bit training)
  compile     = y for torchtitan rows (--training.compile), else empty
  embedding_in_split, loss_in_split
              = y where the sheet's cells of those names say y (the recipe counts the
                token embedding / the output layer and loss as pipeline layers:
                Megatron-Core account_for_*_in_pipeline_split), else empty
  system      = DGX-GB200 NVL72: 4 GPUs per compute tray, 72-GPU NVLink domain,
                4 x 400 Gb/s per tray; DGX-GB300 NVL72: the same with 4 x 800 Gb/s; DGX-B200 / DGX-H100: 8 GPUs, 8 x 400 Gb/s;
                the fabric is not named by the sources (empty)

The published tokens/s per GPU is the metric (no FLOP convention enters); the
published model TFLOP/s per GPU is quoted in `derivation` for reference.
A row with a `skip` reason in the sheet is left out of the CSV (the reason
stays in the sheet). Rows naming a catalog model leave their shape cells empty (the catalog's whole
shape); Nemotron-4, which the catalog lacks, is given in full.

Usage: scripts/build_blackwell_validation.py scripts/data/blackwell-training-research.csv \
         > data/validation/blackwell-training.csv
"""
import csv
import sys

COLUMNS = ("id,group,model,layers,hidden,heads,kv_heads,ffn_hidden,vocab,mlp,moe_experts,"
           "moe_top_k,seq_len,global_batch,micro_batch,tp,pp,dp,cp,ep,sp,interleave,recompute,"
           "zero,finetune,lora_rank,precision,gpu,num_gpus,gpus_per_node,scaleup_domain_gpus,"
           "nics_per_node,nic_gbps,fabric,framework,metric,value,etp,derivation,cite,compile,"
           "embedding_in_split,loss_in_split").split(",")

MB_COMMIT = "067f987df03b8355b03192d88d70f1709fedf51a"
SOURCES = {
    "mb": ("Megatron-Bridge performance summary",
           f"https://github.com/NVIDIA-NeMo/Megatron-Bridge/blob/{MB_COMMIT}/docs/"
           "performance-summary-archive.md"),
    "nemo2502": ("NeMo Framework performance summary (page version 'Container: NeMo 25.02')",
                 "https://docs.nvidia.com/nemo-framework/user-guide/latest/performance/"
                 "performance_summary.html"),
    "nemo2504": ("NeMo Framework performance summary, 25.04 archive page",
                 "https://docs.nvidia.com/nemo-framework/user-guide/latest/performance/archive/"
                 "25.04-performance-summary.html"),
    "nemo2507": ("NeMo Framework performance summary (page version 'Container: NeMo 25.07')",
                 "https://docs.nvidia.com/nemo-framework/user-guide/latest/performance/"
                 "performance-summary.html"),
    "tt": ("torchtitan community benchmark (Trainy on WhiteFiber, June 2025)",
           "https://github.com/pytorch/torchtitan/blob/4a61bd87d3c7e92bcfeb5d5464d9e6bd13ef440a/"
           "benchmarks/llama3-8b_h200_202506_trainy-whitefiber.md"),
}

# The recipe that sets the pipeline-split flags the performance tables do not print.
SPLIT_SOURCE = ("Megatron-Bridge 381d0b825 src/megatron/bridge/recipes/llama/h100/llama3.py "
                "llama31_405b_pretrain_256gpu_h100_bf16_config")
# Decoder layers of the catalog models a split-flag row names (for the check below).
CATALOG_LAYERS = {"Llama 3.1 405B": 126}

# Dense models the catalog lacks, from their papers / configs.
NEMOTRON4 = {
    "Nemotron-4 15B": dict(layers=32, hidden=6144, heads=48, kv_heads=8, ffn_hidden=24576,
                           vocab=256000, mlp="gelu"),
    "Nemotron-4 340B": dict(layers=96, hidden=18432, heads=96, kv_heads=8, ffn_hidden=73728,
                            vocab=256000, mlp="gelu"),
}
NEMOTRON4_NOTE = ("Nemotron-4 shape from arXiv 2402.16819 Table 1 (15B: 32 layers, hidden 6144, "
                  "48 heads, 8 KV heads, FFN 24576, vocab 256000) and the Nemotron-4-340B "
                  "config (96 layers, hidden 18432, 96 heads, 8 KV heads, FFN 73728, vocab "
                  "256000); its squared-ReLU MLP has two matrices, written as mlp gelu")

SYSTEMS = {
    "gb200": dict(gpus_per_node=4, scaleup_domain_gpus=72, nics_per_node=4, nic_gbps=400,
                  text="DGX-GB200 (NVL72): 4 GPUs per compute tray, one 72-GPU NVLink domain "
                       "(scaleup_domain_gpus 72), 4 x 400 Gb/s ConnectX-7 per tray (NVIDIA DGX "
                       "GB200 user guide; catalog dgx-gb200-nvl72)"),
    "gb300": dict(gpus_per_node=4, scaleup_domain_gpus=72, nics_per_node=4, nic_gbps=800,
                  text="DGX-GB300 (NVL72): 4 GPUs per compute tray, one 72-GPU NVLink domain "
                       "(scaleup_domain_gpus 72), 4 x 800 Gb/s ConnectX-8 SuperNICs per tray "
                       "(NVIDIA GB300 NVL72 product page; catalog dgx-gb300-nvl72)"),
    "b200": dict(gpus_per_node=8, scaleup_domain_gpus="", nics_per_node=8, nic_gbps=400,
                 text="DGX-B200: 8 GPUs on NVLink 5 switches, 8 x 400 Gb/s ConnectX-7 "
                      "(catalog dgx-b200)"),
    "h100-sxm": dict(gpus_per_node=8, scaleup_domain_gpus="", nics_per_node=8, nic_gbps=400,
                     text="DGX-H100: 8 x H100 SXM5 80GB, 8 x 400 Gb/s ConnectX-7 (catalog "
                          "dgx-h100)"),
    "h200-sxm": dict(gpus_per_node=8, scaleup_domain_gpus="", nics_per_node=8, nic_gbps=400,
                     text="8 x H200 per host on NVLink, 400 Gb/s CX-7 RDMA per GPU (as the "
                          "benchmark states)"),
}


def precision_of(label):
    if label in ("FP8", "FP8-CS"):
        return "fp8", f"precision {label} (Transformer Engine FP8 GEMMs, per-tensor current scaling) -> fp8"
    if label in ("FP8-MX", "MXFP8", "FP8 32x32 blocks"):
        return "fp8", (f"precision {label} (block-scaled FP8 on Blackwell: the model has no "
                       "separate rate for block scaling) -> fp8")
    if label == "float8":
        return "fp8", "precision: torchao float8 linears (dynamic tensorwise scaling), BF16 elsewhere -> fp8"
    raise SystemExit(f"unknown precision label {label!r}")


def build(r):
    out = dict.fromkeys(COLUMNS, "")
    note = []
    for c in ("id", "group", "model", "seq_len", "global_batch", "micro_batch", "tp", "pp", "cp",
              "finetune", "gpu", "num_gpus", "metric", "value"):
        out[c] = r[c]
    n, tp, pp, cp = (int(r[c]) for c in ("num_gpus", "tp", "pp", "cp"))
    gbs, mbs = int(r["global_batch"]), int(r["micro_batch"])
    assert n % (tp * pp * cp) == 0, r["id"]
    dp = n // (tp * pp * cp)
    out["dp"] = dp
    out["ep"] = 1
    if r["ga"]:
        assert gbs == dp * mbs * int(r["ga"]), r["id"]
        note.append(f"dp = {n}/({tp} x {pp} x {cp}) = {dp}; GBS {gbs} = dp {dp} x MBS {mbs} x "
                    f"GA {r['ga']} checks")
    else:
        assert gbs % (dp * mbs) == 0, r["id"]
        note.append(f"dp = {n}/({tp} x {pp} x {cp}) = {dp}; GA = {gbs}/({dp} x {mbs}) = "
                    f"{gbs // (dp * mbs)} (the table has no GA column)")
    out["sp"] = "n" if tp == 1 else ""
    out["interleave"] = r["vp"] or 1
    framework = "torchtitan" if r["source"] == "tt" else "nemo"
    out["framework"] = framework
    if framework == "torchtitan":
        out["compile"] = "y"
    flags = [c for c in ("embedding_in_split", "loss_in_split") if r.get(c) == "y"]
    if flags:
        layers = CATALOG_LAYERS[r["model"]]
        places, chunks = layers + len(flags), pp * int(r["vp"] or 1)
        assert places % chunks == 0, r["id"]
        for c in flags:
            out[c] = "y"
        names = " and ".join(f"account_for_{c.split('_')[0]}_in_pipeline_split" for c in flags)
        note.append(f"the recipe counts the {' and the '.join(c.split('_')[0] for c in flags)} as "
                    f"pipeline layers ({names} set in {SPLIT_SOURCE}; the table does not print "
                    f"them: ASSUMED the performance recipe keeps the base recipe's flags; {layers} layers "
                    f"alone do not divide into PP {pp} x VP {r['vp']} chunks) -> {', '.join(c + ' y' for c in flags)}; "
                    f"{layers} layers + {len(flags)} = {places} places = PP {pp} x VP {r['vp']} "
                    f"chunks of {places // chunks}")
    fsdp = r["fsdp"] not in ("", "0")
    if framework == "torchtitan":
        out["zero"] = 3
        out["recompute"] = "selective"
        note.append("torchtitan at e7c0cae: llama3_8b.toml (seq_len 8192, FSDP2 over all ranks "
                    "(data_parallel_shard_degree -1), TP 1, activation checkpointing selective "
                    "op-level) with --training.local_batch_size=2, --training.compile, "
                    "--model.converters=float8, FP8 all-gather for FSDP; global_batch = 2 x dp; "
                    "TPS and memory sampled at the 100th iteration")
    elif fsdp:
        out["zero"] = 3
        note.append(f"FSDP {r['fsdp']} in the table: Megatron-FSDP sharding optimizer state, "
                    "gradients and parameters -> zero 3")
    else:
        out["zero"] = 1
        note.append(("FSDP 0 in the table (DDP)" if r["fsdp"] == "0" else "no FSDP column")
                    + ": Megatron distributed optimizer of the perf recipes -> zero 1")
    prec, ptext = precision_of(r["precision_label"])
    out["precision"] = prec
    note.append(ptext)
    if r["finetune"] == "lora":
        out["lora_rank"] = 32
    s = SYSTEMS[r["gpu"]]
    for c in ("gpus_per_node", "scaleup_domain_gpus", "nics_per_node", "nic_gbps"):
        out[c] = s[c]
    note.append(s["text"] + "; fabric not named -> empty")
    if r["model"] in NEMOTRON4:
        out.update(NEMOTRON4[r["model"]])
        out["moe_experts"], out["moe_top_k"] = "", ""
        note.append(NEMOTRON4_NOTE)
    else:
        note.append("shape cells left empty: the row takes the catalog model's whole shape")
    if framework != "torchtitan":
        note.append("recompute, CUDA graphs and communication overlap are set by the performance "
                    "recipes and not printed in the table -> recompute empty (the validator tries "
                    "none/selective/full and keeps the fastest that fits)")
    if r["metric"] == "tokens_per_s_per_gpu":
        quoted = f"Tokens/sec/GPU {r['value']} as published"
        if r["model_tflops"]:
            quoted += f" (Model TFLOP/sec/GPU {r['model_tflops']}, quoted only)"
    else:
        quoted = f"Memory(GiB) {r['value']} as published"
    name, url = SOURCES[r["source"]]
    parts = [f"{name}: {r['section']}: {n} GPUs, GBS {gbs}, MBS {mbs}, seq {r['seq_len']}, "
             f"TP {tp} PP {pp} CP {cp} VP {r['vp'] or 'n/a'} FSDP {r['fsdp'] or 'n/a'} -> {quoted}"]
    if r["note"]:
        parts.append(r["note"])
    out["derivation"] = "; ".join(parts + note)
    out["cite"] = f"{url} ({r['section']})"
    return out


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    w = csv.DictWriter(sys.stdout, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    for r in rows:
        if r["skip"]:
            continue  # left out, with the reason in the sheet's skip column
        w.writerow(build(r))


main()
