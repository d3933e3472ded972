#!/usr/bin/env python3
"""Held-out error per GPU family (docs/validation.md, "Held-out error per GPU
family"): runs `scaleout validate --format json` on the validation files no
constant was fitted on and prints the Markdown table, dense and MoE apart.
The Blackwell rows of blackwell-training.csv are split: the even ones fit the
Blackwell sustained factor, so only the odd ones count here.

Run from the repository root: python3 scripts/heldout_by_family.py [build/scaleout]
"""
import json
import subprocess
import sys

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/scaleout"
FILES = ["external.csv", "moe-training.csv", "blackwell-training.csv"]
FAMILY = {  # the rows' GPUs, grouped as the issue asks
    "a100-sxm-80g": "Ampere (A100 SXM 80GB)",
    "a100-sxm-40g": "Ampere (A100 SXM 80GB)",
    "h100-sxm": "Hopper (H100 SXM, H200 SXM, H800)",
    "h200-sxm": "Hopper (H100 SXM, H200 SXM, H800)",
    "h800": "Hopper (H100 SXM, H200 SXM, H800)",
    "b200": "Blackwell B200 (8-GPU NVLink node)",
    "gb200": "Blackwell GB200 NVL72 (72-GPU NVLink domain)",
    "gb300": "Blackwell GB300 NVL72 (72-GPU NVLink domain)",
}
BLACKWELL_FIT = ("b200", "gb200")  # blackwell-training.csv rows fitting the sustained factor


def rows_of(name):
    out = subprocess.run([BIN, "validate", f"data/validation/{name}", "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["rows"]


def main():
    table = {}
    for name in FILES:
        fit_index = 0
        for r in rows_of(name):
            if r.get("error") is None:
                continue
            if name == "blackwell-training.csv" and r["gpu"] in BLACKWELL_FIT and \
                    r["metric"] != "peak_mem_gib":
                held = fit_index % 2 == 1
                fit_index += 1
                if not held:
                    continue
            fam = FAMILY.get(r["gpu"], r["gpu"])
            kind = "moe" if name == "moe-training.csv" else "dense"
            table.setdefault(fam, {"dense": [], "moe": []})[kind].append(abs(r["error"]))
    print("| family (GPUs with rows) | dense rows | dense MAPE | MoE rows | MoE MAPE | all rows | all MAPE |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    order = sorted(table, key=lambda f: list(dict.fromkeys(FAMILY.values())).index(f)
                   if f in FAMILY.values() else 99)
    for fam in order:
        d, m = table[fam]["dense"], table[fam]["moe"]
        cell = lambda xs: (str(len(xs)), f"{100 * sum(xs) / len(xs):.1f} %" if xs else "-")
        print(f"| {fam} | {' | '.join(cell(d))} | {' | '.join(cell(m))} | {' | '.join(cell(d + m))} |")


if __name__ == "__main__":
    main()
