#!/usr/bin/env python3
"""Builds data/validation/moe-training.csv from the gathered MoE measurements.

Input: a CSV with the canonical columns plus etp, moe_ffn_hidden,
moe_shared_experts, moe_dense_layers, q_lora_rank, kv_lora_rank, head_dim and
dispatcher (the research sheet), and the optional moe_load_imbalance (1 where
the source forces balanced routing or drops tokens at capacity factor 1;
empty: the model's default) and mtp_layers (1 where the source trains an MTP
module, 0 where it says 'w/o MTP' or is silent) columns, passed through, as are
moe_capacity_factor and moe_pad_to_capacity (token dropping, where the source's
recipe sets a capacity factor; empty: dropless). Every row names a catalog model, so its shape
cells are left empty and the row takes the catalog's whole shape (MoE, MLA,
head_dim). Published MFU that was converted from Megatron TFLOP/s per GPU is
turned back into tokens/s per GPU with Megatron-LM's own FLOP count
(megatron/training/training.py num_floating_point_operations), so the row
compares a throughput, not two FLOP conventions:

  F/token = 6 h [3 f_dense N_dense + 3 f_e k N_moe + 3 f_sh N_moe]        (SwiGLU)
          + N_layers 6 [h (q + 2 kv) + q h]  + 6 q s N_layers (causal core)
          + 6 h V
  with q = heads x head_dim, kv = kv_heads x head_dim.

Usage: scripts/build_moe_validation.py scripts/data/moe-training-research.csv \
         data/catalog/models.json > data/validation/moe-training.csv
"""
import csv
import json
import sys

H100_BF16_PEAK = 989.5e12  # the peak the research sheet divided TFLOP/s by

SHAPE = ["layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab", "mlp", "moe_experts",
         "moe_top_k"]
EXTRA = ["moe_ffn_hidden", "moe_shared_experts", "moe_dense_layers", "q_lora_rank",
         "kv_lora_rank", "head_dim", "dispatcher"]


def megatron_flops_per_token(m, s):
    h, L, V = m["hidden"], m["layers"], m["vocab"]
    d = m.get("head_dim") or h // m["heads"]
    q, kv = m["heads"] * d, m["kv_heads"] * d
    e = m.get("moe") or {}
    n_moe = L - e.get("dense_layers", 0) if e else 0
    n_dense = L - n_moe
    mlp = 3 * m["ffn"] * n_dense
    if e:
        mlp += 3 * e["expert_ffn"] * e["top_k"] * n_moe + 3 * e["expert_ffn"] * e.get(
            "shared_experts", 0) * n_moe
    attn_linear = L * 6 * (h * (q + 2 * kv) + q * h)
    core = 6 * q * s * L
    return 6 * h * mlp + attn_linear + core + 6 * h * V


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    models = {m["name"]: m for m in json.load(open(sys.argv[2]))["models"]}
    cols = [c for c in rows[0].keys() if c not in EXTRA]
    out = csv.DictWriter(sys.stdout, fieldnames=cols, lineterminator="\n")
    out.writeheader()
    for r in rows:
        if not r["num_gpus"]:
            continue  # a GPU count is needed to predict
        m = models[r["model"]]
        note = []
        extra = {k: r[k] for k in EXTRA if r.get(k)}
        if extra.get("dispatcher"):
            note.append(f"dispatcher {extra['dispatcher']}")
        if r["metric"] == "mfu":
            tflops = float(r["value"]) * H100_BF16_PEAK
            f = megatron_flops_per_token(m, int(r["seq_len"]))
            r["metric"] = "tokens_per_s_per_gpu"
            r["value"] = f"{tflops / f:.1f}"
            note.append(
                f"converted to tokens/s/GPU: published TFLOP/s per GPU {tflops / 1e12:.1f} "
                f"(the MFU above x 989.5) / Megatron-LM's model FLOPs per token "
                f"{f / 1e9:.1f} GFLOP at seq {r['seq_len']} "
                "(scripts/build_moe_validation.py)")
        for c in SHAPE:
            r[c] = ""
        r["derivation"] = r["derivation"] + ("; " + "; ".join(note) if note else "") + \
            "; shape cells left empty: the row takes the catalog model's whole shape"
        out.writerow({c: r[c] for c in cols})


main()
