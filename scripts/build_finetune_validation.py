#!/usr/bin/env python3
"""Builds data/validation/finetune.csv (issue 19): published fine-tuning
measurements (full, LoRA and QLoRA; one GPU to two nodes) in the canonical
validation schema, with the recipe's memory savers in the optional columns
optimizer, offload, activation_offload, loss_chunks, optimizer_in_backward,
lora_targets, peak_kind, compile, loss_upcast and lora_dropout (passed
through from the sheet's columns of the same names; lora_dropout on LoRA and
QLoRA rows only), and host_link_gbyte_s (the measured machine's PCIe link
per GPU where the source says its board gives a card less than x16: the
HOST_LINKS table, with its reason).

Input: scripts/data/finetune-research.csv (203 rows, every value read in the
cited source; its `derivation` column says what each figure includes and
what the row assumes). This script only converts:
- model names to catalog ids, or to the shape cells of the released
  config.json where the catalog has no such model;
- GPU names to catalog ids (RTX 4090, RTX 3090, A10G, RTX A5000 and RTX 6000
  Ada come with the catalog additions of issue 18; until then their rows
  are listed as not predicted);
- the parallelism cell to tp/pp/dp/interleave/zero;
- gradient_checkpointing to recompute (full or none);
- framework names to the framework table's rows;
- aggregate tokens/s to tokens_per_s_per_gpu (divided by the GPU count).

NeMo rows without a ZeRO stage take 1 (NeMo's distributed optimizer).

Rows left out, with the reason printed: torchtune's unpacked baseline row
(padded variable-length batches), no sequence length (Lit-GPT's
variable-length Alpaca time rows, which serve only as QLoRA/LoRA time
ratios), time-to-train rows (a dataset's token count is not in the row), an
unnamed GPU, and a model whose shape the schema cannot express (Gemma's
256-wide heads).

Usage (from the repository root):
  scripts/build_finetune_validation.py [scripts/data/finetune-research.csv] \
      > data/validation/finetune.csv
The CSV goes to stdout; the rows left out, with their reasons, to stderr.
"""
import csv
import sys

SRC = "scripts/data/finetune-research.csv"

COLUMNS = ("id,group,model,layers,hidden,heads,kv_heads,ffn_hidden,vocab,mlp,moe_experts,"
           "moe_top_k,seq_len,global_batch,micro_batch,tp,pp,dp,cp,ep,sp,interleave,recompute,"
           "zero,finetune,lora_rank,precision,gpu,num_gpus,gpus_per_node,scaleup_domain_gpus,"
           "nics_per_node,nic_gbps,fabric,framework,metric,value,etp,train_tokens,derivation,"
           "cite,optimizer,offload,activation_offload,loss_chunks,optimizer_in_backward,"
           "lora_targets,peak_kind,compile,loss_upcast,lora_dropout,host_link_gbyte_s").split(",")

# The measured machine's PCIe link per GPU (GB/s, one direction), where the
# source says its board gives a card less than the card's own x16 (column
# host_link_gbyte_s; empty: the catalog GPU's host_link_gbyte_s), keyed by
# (source_group, gpu), with the reason appended to each row's derivation.
HOST_LINKS = {
    ("answerai-fsdp-qlora", "RTX 3090"): (
        16,
        "Host link 16 GB/s per GPU (column host_link_gbyte_s; an assumption, the lane count "
        "is not printed): the source describes this machine as 'an older motherboard' whose "
        "'slow PCI lanes' made transferring weights between the GPUs slow, against the 4090 "
        "workstation where 'both GPUs have full PCIe v4 x16 lanes' (32 GB/s, the catalog's "
        "figure). Two cards on a board with half that are PCIe 4.0 x8/x8 (a desktop CPU's 16 "
        "graphics lanes split between two slots) or PCIe 3.0 x16: 16 GB/s either way; PCIe 3.0 "
        "x8/x8 would be 8 GB/s. Of these, 16 GB/s is the one the rows' own timings agree with: "
        "the FSDP time over FSDP-as-DDP of the same recipe, 3.7-4.6 s per step for LoRA's "
        "13.5 GB of bf16 weights gathered twice, is 2.9-3.6 GB/s of gather bus bandwidth, "
        "0.18-0.23 of 16 GB/s, as the host-staged share 0.20 the model takes for GeForce cards "
        "without peer-to-peer (NCCL SHM, NVIDIA/nccl issue 384 on PCIe 3.0 x16).",
    ),
}

# Catalog models by the Hugging Face name the research rows give.
CATALOG_MODELS = {
    "meta-llama/Llama-3.1-8B-Instruct": "llama3.1-8b",
    "meta-llama/Llama-3.1-8B": "llama3.1-8b",
    "meta-llama/Llama-3.1-70B-Instruct": "llama3.1-70b",
    "meta-llama/Llama-3.3-70B-Instruct": "llama3.1-70b",  # same architecture as 3.1 70B
    "meta-llama/Llama-3.1-405B-Instruct": "llama3.1-405b",
    "meta-llama/Meta-Llama-3-70B": "llama3-70b",
    "meta-llama/Llama-2-7b-hf": "llama2-7b",
    "meta-llama/Llama-2-13b-hf": "llama2-13b",
    "meta-llama/Llama-2-70b-hf": "llama2-70b",
    "meta-llama/Llama-2-70b-chat-hf": "llama2-70b",
    "mistral-community/Mistral-7B-v0.2": "mistral-7b",
    "Qwen/Qwen2.5-7B": "qwen2.5-7b",
}

# Shapes from each model's released config.json (num_hidden_layers,
# hidden_size, num_attention_heads, num_key_value_heads, intermediate_size,
# vocab_size); Qwen-1 configs give intermediate_size as twice the SwiGLU width.
SHAPES = {
    "meta-llama/Llama-3.2-3B-Instruct": (28, 3072, 24, 8, 8192, 128256, "swiglu"),
    "Qwen/Qwen2.5-32B-Instruct": (64, 5120, 40, 8, 27648, 152064, "swiglu"),
    "microsoft/phi-1_5": (24, 2048, 32, 32, 8192, 51200, "gelu"),
    "stabilityai/stablelm-base-alpha-3b": (16, 4096, 32, 32, 16384, 50688, "gelu"),
    "microsoft/Phi-3-mini-4k-instruct": (32, 3072, 32, 32, 8192, 32064, "swiglu"),
    "Qwen/Qwen-1_8B-Chat": (24, 2048, 16, 16, 5504, 151936, "swiglu"),
    "Qwen/Qwen-1_8B-Chat-Int4": (24, 2048, 16, 16, 5504, 151936, "swiglu"),
    "Qwen/Qwen-7B-Chat": (32, 4096, 32, 32, 11008, 151936, "swiglu"),
    "Qwen/Qwen-7B-Chat-Int4": (32, 4096, 32, 32, 11008, 151936, "swiglu"),
    "Qwen/Qwen-14B-Chat": (40, 5120, 40, 40, 13696, 152064, "swiglu"),
    "Qwen/Qwen-14B-Chat-Int4": (40, 5120, 40, 40, 13696, 152064, "swiglu"),
    "Qwen/Qwen-72B-Chat": (80, 8192, 64, 64, 24576, 152064, "swiglu"),
    "Qwen/Qwen-72B-Chat-Int4": (80, 8192, 64, 64, 24576, 152064, "swiglu"),
    "01-ai/Yi-34B": (60, 7168, 56, 8, 20480, 64000, "swiglu"),
}
NOT_EXPRESSIBLE = {"google/gemma-7b": "head_dim 256 x 16 heads != hidden 3072"}

GPUS = {
    "RTX 4090": "rtx-4090",
    "RTX 3090": "rtx-3090",
    "RTX A6000": "rtx-a6000",
    "RTX A5000": "rtx-a5000",
    "RTX 6000 Ada": "rtx-6000-ada",
    "A10G": "a10g",
    "A100": "a100-sxm-80g",  # torchtune's 8 x A100 table: 80 GB SXM nodes assumed
    "A100 80GB": "a100-sxm-80g",
    "A100 SXM 80GB": "a100-sxm-80g",
    "A100 SXM4 80GB": "a100-sxm-80g",
    "A100 SXM4 40GB": "a100-sxm-40g",
    "H100 SXM 80GB": "h100-sxm",
    "GB200": "gb200",
    "GB300": "gb300",
}

FRAMEWORKS = {
    "torchtune": "torchtune",
    "automodel": "automodel",
    # NeMo AutoModel without Transformer Engine kernels (its Llama builder
    # before the TE backend; BackendConfig linear/rms_norm "torch").
    "automodel-torch": "automodel-torch",
    "lit-gpt": "litgpt",
    "trl": "hf",
    "peft": "hf",
    "nemo": "nemo",
    # Answer.AI fsdp_qlora: Hugging Face transformers + PEFT + bitsandbytes
    # under PyTorch FSDP, its own training loop.
    "other": "hf",
}


def layout(par, n):
    """tp, pp, dp, interleave, zero from the parallelism cell."""
    out = dict(tp=1, pp=1, dp=n, interleave=1, zero=0)
    if par in ("single", "ddp"):
        return out
    if par in ("fsdp", "fsdp2", "zero3"):
        out["zero"] = 3
        return out
    if par == "zero2":
        out["zero"] = 2
        return out
    if par == "tp=2+fsdp2":
        out.update(tp=2, dp=n // 2, zero=3)
        return out
    if par.startswith("tp=") or par.startswith("pp="):
        kv = dict(p.split("=") for p in par.split(","))
        tp, pp = int(kv.get("tp", 1)), int(kv.get("pp", 1))
        out.update(tp=tp, pp=pp, dp=n // (tp * pp), interleave=int(kv.get("vp", 1)), zero=1)
        if "sp" in kv:  # sequence parallelism as the config sets it (default: on with tp > 1)
            out["sp"] = kv["sp"]
        return out
    return None


# Bytes per parameter a full fine-tune holds on the GPU whatever else it does:
# 16-bit weights and gradients plus the optimizer's state (mixed-precision Adam
# keeps an fp32 master and two fp32 moments; pure-bf16 Adam two bf16 moments;
# 8-bit Adam two 8-bit moments). Paged optimizers live in unified memory and
# are not counted.
STATE_BYTES = {"adam": 16.0, "adam-bf16": 8.0, "adam8bit": 6.0, "sgd": 4.0}


def below_own_state(r):
    """A full fine-tuning memory row (one GPU, no offload) whose measured peak
    is below what its stated recipe must hold: the source omits a setting."""
    if r["method"] != "full" or r["metric"] != "peak_mem_gib" or r["num_gpus"] != "1":
        return False
    if r["offload"] not in ("", "none") or r["optimizer"] not in STATE_BYTES:
        return False
    per_param = STATE_BYTES[r["optimizer"]] - (2.0 if r["optimizer_in_backward"] == "y" else 0.0)
    need_gib = float(r["params_b"]) * 1e9 * per_param / 2**30
    return float(r["value"]) < 0.95 * need_gib


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else SRC
    rows = list(csv.DictReader(open(src, newline="")))
    out, left = [], []
    for r in rows:
        rid = r["id"]
        if r["metric"] == "time_to_train_s":
            left.append((rid, "time to train: the dataset's tokens are not in the row"))
            continue
        if not r["seq_len"]:
            left.append((rid, "no sequence length (variable-length data)"))
            continue
        if r["model"] in NOT_EXPRESSIBLE:
            left.append((rid, "shape not expressible: " + NOT_EXPRESSIBLE[r["model"]]))
            continue
        if r["packing"] == "n" and r["source_group"] == "torchtune-readme-flags":
            left.append((rid, "unpacked Alpaca batches padded to their longest sample: the "
                              "tokens per micro-batch are not known"))
            continue
        if r["gpu"] not in GPUS:
            left.append((rid, f"GPU '{r['gpu']}' not named"))
            continue
        if below_own_state(r):
            left.append((rid, "published peak memory below the stated recipe's own weights, "
                              "gradients and optimizer state: a setting is missing from the source"))
            continue
        n = int(r["num_gpus"])
        lay = layout(r["parallelism"], n)
        if lay is None:
            left.append((rid, f"parallelism '{r['parallelism']}' not stated"))
            continue
        o = dict.fromkeys(COLUMNS, "")
        o["id"] = rid
        o["group"] = r["source_group"]
        if r["model"] in CATALOG_MODELS:
            o["model"] = CATALOG_MODELS[r["model"]]
        else:
            L, h, a, kv, f, v, mlp = SHAPES[r["model"]]
            o.update(model=r["model"].split("/")[-1], layers=L, hidden=h, heads=a, kv_heads=kv,
                     ffn_hidden=f, vocab=v, mlp=mlp)
        o["seq_len"] = r["seq_len"]
        mb = int(r["micro_batch"]) if r["micro_batch"] else 1
        ga = int(r["grad_accum"]) if r["grad_accum"] else 1
        o["micro_batch"] = mb
        o["global_batch"] = r["global_batch"] or mb * ga * lay["dp"]
        for k in ("tp", "pp", "dp", "interleave", "zero"):
            o[k] = lay[k]
        o["cp"], o["ep"] = 1, 1
        o["sp"] = lay.get("sp", "y" if lay["tp"] > 1 else "n")
        if FRAMEWORKS[r["framework"]] == "nemo" and lay["zero"] == 0:
            # NeMo's Megatron recipes use the distributed optimizer (ZeRO-1).
            o["zero"] = 1
        gc = r["gradient_checkpointing"]
        o["recompute"] = {"y": "full", "n": "none"}.get(gc, "")
        o["finetune"] = r["method"]
        if r["method"] != "full":
            o["lora_rank"] = r["lora_rank"] or ""
            o["lora_targets"] = r["lora_targets"]
            o["lora_dropout"] = r["lora_dropout"]
        o["precision"] = r["precision"]
        o["gpu"] = GPUS[r["gpu"]]
        o["num_gpus"] = n
        o["gpus_per_node"] = r["gpus_per_node"]
        o["framework"] = FRAMEWORKS[r["framework"]]
        value = float(r["value"])
        metric = r["metric"]
        if metric == "tokens_per_s":
            metric, value = "tokens_per_s_per_gpu", value / n
        o["metric"] = metric
        o["value"] = f"{value:.6g}"
        o["optimizer"] = {"paged_adam8bit": "adam8bit"}.get(r["optimizer"], r["optimizer"])
        o["offload"] = r["offload"]
        paged = ""
        if r["optimizer"] == "paged_adam8bit" and r["offload"] in ("", "none"):
            # bitsandbytes allocates paged states in CUDA unified memory
            # (F.get_paged), outside PyTorch's allocator, evicted to host under
            # memory pressure: host-resident optimizer state.
            o["offload"] = "optimizer"
            paged = (" Paged 8-bit AdamW: states in CUDA unified memory outside PyTorch's "
                     "allocator, evicted to host under pressure; modelled as offload: optimizer "
                     "with adam8bit (host-resident state, updated by the GPU kernel; the model "
                     "times the pages that do not fit beside the step's peak migrating in and "
                     "out over the host link).")
        o["activation_offload"] = r["activation_offload"]
        o["loss_chunks"] = r["loss_chunks"]
        o["optimizer_in_backward"] = r["optimizer_in_backward"]
        o["peak_kind"] = r["peak_kind"] if r["peak_kind"] in ("allocated", "reserved") else ""
        o["compile"] = r["compile"]
        o["loss_upcast"] = r["loss_upcast"]
        settings = (f"framework {r['framework']}, parallelism {r['parallelism'] or '?'}, "
                    f"base weights {r['base_weight_format']}, packing {r['packing']}, "
                    f"compile {r['compile'] or '?'}")
        conv = " Converted: aggregate tokens/s / num_gpus." if r["metric"] == "tokens_per_s" else ""
        link = HOST_LINKS.get((r["source_group"], r["gpu"]))
        o["host_link_gbyte_s"] = link[0] if link else ""
        link_note = " " + link[1] if link else ""
        o["derivation"] = f"{settings}.{conv}{paged} {r['derivation']}{link_note}"
        o["cite"] = r["cite"]
        out.append(o)
    w = csv.DictWriter(sys.stdout, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(out)
    print(f"{src}: {len(out)} rows built; {len(left)} left out", file=sys.stderr)
    for rid, why in left:
        print(f"  left out {rid}: {why}", file=sys.stderr)


if __name__ == "__main__":
    main()
