#!/usr/bin/env python3
"""Reproduces the fits of the model's six fitted constants (five on training
data, one on serving data) and their held-out errors (docs/validation.md).
Usage:

    scripts/calibrate.py [BUILD_DIR]      # default: build

It writes the fit and held-out splits of data/validation/training.csv to
BUILD_DIR/calibration/ and runs BUILD_DIR/bench/scaleout_calibrate over a grid
around each constant. Each grid scales one constant and holds every other at
its built-in value, so the built-in values are a fixed point of the fits:
  ampere-joint: vtrain-multi even rows and every other one of the 41 Megatron-LM
               A100 rows of training.csv (korthikanti22 + narayanan21, then the
               A100 rows of megatron2020), each source weighing the same (the
               mean of the first two columns); the odd halves held out
               -> ampere sustained_factor (families.json)
  vtrain-single (even / odd rows) -> kDeepSpeedKernelFloor_s
  inference.csv (even / odd rows: serving on H100/H200 and one A100 row, which
               the scale also moves) -> hopper sustained_factor (families.json)
  eager-a100:  A100 rows of the eager PyTorch frameworks (mosaic, torchtitan,
               fsdp, other; every other row) -> kAmpereEagerEfficiency
  hopper:      H100 rows of mosaic (every other row) -> kHopperEagerEfficiency
               (torchtitan H100 rows are held out whole)
  zero3-175b:  the three GPT-3 175B DeepSpeed ZeRO-3 rows of narayanan21
               (the three 530B rows held out) -> kDeepSpeedZero3HiddenShare
  peak_mem_gib rows -> a check of the memory overhead constants (not fitted)
The grids scale the built-in constant (--gemm-scale multiplies all kernel
efficiencies of the rows' GPUs; --kernel-floor replaces the floor and
--zero3-hidden the share), so a minimum at 1 (or at the built-in value)
means the constant is where the fit put it. The sustained factor and the
kernel floor interact on vtrain.
"""
import csv
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
OUT = os.path.join(BUILD, "calibration")
TOOL = os.path.join(BUILD, "bench", "scaleout_calibrate")
VAL = os.path.join(ROOT, "data", "validation")
EAGER = ("mosaic", "torchtitan", "fsdp", "other")


def load_training():
    rows = [r for r in csv.DictReader(open(os.path.join(VAL, "training.csv"), encoding="utf-8"))
            if r["metric"] != "peak_mem_gib"]
    overrides = {}
    with open(os.path.join(VAL, "training.gpu-overrides.csv"), encoding="utf-8") as f:
        for r in csv.DictReader(f):
            overrides[r["id"]] = r["gpu"]
    for r in rows:
        r["gpu"] = overrides.get(r["id"], r["gpu"])
    return rows


def dump(name, rows, header):
    path = os.path.join(OUT, name + ".csv")
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return path


def run(args):
    print("$ scaleout_calibrate " + " ".join(os.path.relpath(a, ROOT) if a.startswith("/") else a
                                            for a in args), flush=True)
    subprocess.run([TOOL] + args, check=True)
    print(flush=True)


def main():
    os.makedirs(OUT, exist_ok=True)
    rows = load_training()
    header = list(rows[0].keys())
    a100 = [r for r in rows if r["gpu"].startswith("a100") and r["framework"] in EAGER]
    h100 = [r for r in rows if r["gpu"].startswith("h100") and r["group"] == "mosaic"]
    titan_h100 = [r for r in rows if r["gpu"].startswith("h100") and r["group"] == "torchtitan"]
    kornar = [r for r in rows if r["group"] in ("korthikanti22", "narayanan21")]
    meg2020 = [r for r in rows if r["group"] == "megatron2020" and r["gpu"].startswith("a100")]
    a_fit = dump("eager-a100-fit", a100[0::2], header)
    a_hold = dump("eager-a100-held", a100[1::2], header)
    h_fit, h_hold = dump("hopper-fit", h100[0::2], header), dump("hopper-held", h100[1::2], header)
    h_titan = dump("hopper-held-torchtitan", titan_h100, header)
    meg_fit = dump("ampere-megatron-fit", (kornar + meg2020)[0::2], header)
    meg_hold = dump("ampere-megatron-held", (kornar + meg2020)[1::2], header)
    multi = os.path.join(VAL, "vtrain-multi.csv")
    single = os.path.join(VAL, "vtrain-single.csv")
    serving = os.path.join(VAL, "inference.csv")
    scale = "0.94,0.97,1.0,1.03,1.06"
    run([multi + ":even", meg_fit, multi + ":odd", meg_hold, "--gemm-scale",
         "0.97,0.98,0.99,1.0,1.01,1.02,1.03"])
    run([single + ":even", single + ":odd", "--kernel-floor", "5e-5,5.5e-5,6e-5,6.5e-5,7e-5"])
    run([serving + ":even", serving + ":odd", "--gemm-scale", "0.95,0.97,0.99,1.0,1.01,1.03,1.05"])
    run([a_fit, a_hold, "--gemm-scale", scale])
    run([h_fit, h_hold, h_titan, "--gemm-scale", scale])
    z3 = [r for r in rows if r["group"] == "narayanan21" and r["framework"] == "deepspeed"
          and r["zero"] == "3"]
    z_fit = dump("zero3-175b-fit", [r for r in z3 if r["model"] == "GPT 174.6B"], header)
    z_hold = dump("zero3-530b-held", [r for r in z3 if r["model"] == "GPT 529.6B"], header)
    run([z_fit, z_hold, "--zero3-hidden", "0.3,0.35,0.4,0.45,0.5,0.55,0.6"])
    # Memory: the a-priori overhead constants against the 13 peak_mem_gib rows.
    mem_rows = [r for r in csv.DictReader(open(os.path.join(VAL, "training.csv"), encoding="utf-8"))
                if r["metric"] == "peak_mem_gib"]
    overrides = {}
    with open(os.path.join(VAL, "training.gpu-overrides.csv"), encoding="utf-8") as f:
        for r in csv.DictReader(f):
            overrides[r["id"]] = r["gpu"]
    for r in mem_rows:
        r["gpu"] = overrides.get(r["id"], r["gpu"])
    mem = dump("memory", mem_rows, list(mem_rows[0].keys()))
    run(["--memory", mem, mem + ":even", mem + ":odd", "--overhead-gib", "0.5,1,1.5,2",
         "--fragmentation", "0,0.05,0.1,0.15"])


if __name__ == "__main__":
    main()
