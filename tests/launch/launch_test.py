#!/usr/bin/env python3
"""ctest driver for the launch files (labels launch and launch_smoke).

  launch_test.py check --scaleout BIN --example examples/X.yaml --work DIR
      scaleout plan X --emit DIR/X, then scripts/check_launch.py on it with the
      expected file set below and the plan read back from plan.json (or from
      `scaleout plan X --format json` when the emit has none).
  launch_test.py smoke --scaleout BIN --work DIR [--python PY] [--require]
      scaleout plan X --emit DIR/X --smoke for each SMOKE_EXAMPLES, then runs
      the emitted torchrun.sh: 2 processes, gloo, CPU, a tiny model, two steps.
      Exit 77 (ctest SKIP_RETURN_CODE) when PY cannot import torch, unless
      --require (CI: -DSCALEOUT_REQUIRE_TORCH=ON).

The lists below are what to edit when the launch generators change.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

SKIP = 77
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECKER = os.path.join(ROOT, "scripts", "check_launch.py")

# --------------------------------------------------------------- edit here
# Which generation of launch files to expect: "main" (today's five files) or
# "families" (the launcher families of issue 22: one set per framework, a
# Trainer v2 TrainJob beside the PyTorchJob, plan.json). Flip at the merge of
# the launch-family work.
GENERATION = "families"

EXPECTED_MAIN = ["deepspeed.json", "megatron.args", "pytorchjob.yaml", "slurm.sbatch", "torchrun.sh"]

# "families": the files every emit writes, plus the launcher family's own.
EXPECTED_COMMON = ["deepspeed.json", "plan.json", "pytorchjob.yaml", "slurm.sbatch", "torchrun.sh",
                   "trainjob.yaml"]
EXPECTED_FAMILY = {
    "megatron": ["megatron.args"],
    "torchtitan": ["torchtitan.toml"],
    "fsdp": ["accelerate_fsdp.yaml"],
    "peft": ["accelerate_fsdp.yaml", "finetune_peft.yaml"],
    "torchtune": ["torchtune.yaml"],
}
# An example whose family the rule in family_of() gets wrong can be pinned here.
FAMILY_OVERRIDE = {}

# Examples that do not plan a training run (--emit refuses them), with why.
NOT_TRAINING = {
    "custom-model": "no training tokens: not a plan input",
    "gpt3-175b-one-node": "no recommended plan (infeasible on one node), nothing to emit",
    "llama3-70b-inference": "serving workload",
    "plan-llama3-70b-inference": "serving workload",
    "plan-llama3.1-405b-inference-bf16-h100": "serving workload",
    "plan-llama3.1-405b-inference-fp8-h200": "serving workload",
    "simulate-team": "a simulate input, not a plan",
    "simulate-lora-team": "a simulate input, not a plan",
}

# Problems the checker reports today that belong to the generators (issue 22):
# (example, file, substring of the message). They are printed as KNOWN and do not fail
# the test; a known one that no longer shows up is printed as FIXED. Empty
# this list when the generators are fixed.
# plan-deepseek-v3-h800 (framework other, an in-house DualPipe engine): the
# generic FSDP files cannot express ZeRO-1 (FSDP's nearest is SHARD_GRAD_OP)
# or FP8 mixed precision (Accelerate's FSDP config); the files say they do
# not run the engine's schedule ("NOT IN THESE FILES").
KNOWN_FINDINGS = [
    ("plan-deepseek-v3-h800", "accelerate_fsdp.yaml", "ZeRO/FSDP stage is 2, the plan has 1"),
    ("plan-deepseek-v3-h800", "accelerate_fsdp.yaml", "mixed_precision is bf16, the plan has fp8"),
]

# The examples whose --smoke torchrun.sh the smoke test runs (one per family
# the examples have), and what each rank prints when it is done.
SMOKE_EXAMPLES = ["plan-llama3-70b-pretrain", "plan-llama3-8b-lora"]
SMOKE_OK = re.compile(r"smoke ok: rank \d+/2\b")
SMOKE_RANKS = 2
# True once `plan --smoke` exists: then a build without it fails the test.
SMOKE_FLAG_EXPECTED = True
# ------------------------------------------------------------------------


def read_workload(example):
    try:
        import yaml
    except ImportError:
        return {}
    with open(example) as f:
        return yaml.safe_load(f) or {}


def family_of(example):
    """The launcher family of an example (the generators' own rule)."""
    stem = os.path.basename(example)[:-5]
    if stem in FAMILY_OVERRIDE:
        return FAMILY_OVERRIDE[stem]
    w = read_workload(example)
    fw = w.get("framework", "megatron")
    ft = w.get("finetune")
    method = (ft.get("method", "lora") if isinstance(ft, dict) else None) if ft is not None else None
    if fw == "torchtune":
        return "torchtune"
    if method in ("lora", "qlora"):
        return "peft"
    if fw == "torchtitan":
        return "torchtitan"
    if fw in ("megatron", "nemo", "deepspeed"):
        return "megatron"
    return "fsdp"


def expected_files(example):
    if GENERATION == "main":
        return sorted(EXPECTED_MAIN)
    return sorted(set(EXPECTED_COMMON + EXPECTED_FAMILY[family_of(example)]))


def emit(scaleout, example, out, smoke=False):
    if os.path.exists(out):
        shutil.rmtree(out)
    cmd = [scaleout, "plan", example, "--emit", out] + (["--smoke"] if smoke else [])
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL: {' '.join(cmd)} exited {r.returncode}:\n{r.stderr}")
    return r.returncode == 0


def check(a):
    stem = os.path.basename(a.example)[:-5]
    if stem in NOT_TRAINING:
        print(f"{stem}: not a training plan ({NOT_TRAINING[stem]}); nothing to check")
        return 0
    out = os.path.join(a.work, stem)
    if not emit(a.scaleout, a.example, out):
        return 1
    # No --input: the emitted plan.json alone must carry the workload facts
    # the files configure (precision, fine-tuning method, framework).
    cmd = [a.python, CHECKER, out, "--scaleout", a.scaleout,
           "--expect", ",".join(expected_files(a.example))]
    if a.require_shellcheck:
        cmd.append("--require-shellcheck")
    r = subprocess.run(cmd, capture_output=True, text=True)
    seen = set()
    errors = 0
    for line in r.stdout.splitlines():
        m = re.match(r"(.*?):(\d+): error: (.*)", line)
        if not m:
            print(line)
            continue
        known = next((k for k in KNOWN_FINDINGS if k[0] == stem
                      and os.path.basename(m.group(1)) == k[1] and k[2] in m.group(3)), None)
        if known:
            seen.add(known)
            print("KNOWN " + line)
        else:
            errors += 1
            print(line)
    if r.stderr:
        print(r.stderr)
        errors += r.returncode != 0 and not r.stdout
    print(f"{stem}: {errors} new errors, {len(seen)} known findings")
    return 1 if errors else 0


def smoke(a):
    r = subprocess.run([a.python, "-c", "import torch, torch.distributed as d; assert d.is_gloo_available()"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(f"{a.python} cannot import torch with gloo: {r.stderr.strip().splitlines()[-1:]}")
        return 1 if a.require else SKIP
    h = subprocess.run([a.scaleout, "plan", "--help"], capture_output=True, text=True).stdout
    if "--smoke" not in h:
        print("this scaleout has no `plan --smoke` (the launch families of issue 22 add it)")
        return 1 if SMOKE_FLAG_EXPECTED else SKIP
    failed = 0
    for stem in SMOKE_EXAMPLES:
        example = os.path.join(ROOT, "examples", stem + ".yaml")
        out = os.path.join(a.work, stem + "-smoke")
        if not emit(a.scaleout, example, out, smoke=True):
            failed += 1
            continue
        env = dict(os.environ, PYTHON=a.python, OMP_NUM_THREADS="1",
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(29500 + os.getpid() % 1000))
        try:
            r = subprocess.run(["bash", os.path.join(out, "torchrun.sh")], capture_output=True,
                               text=True, env=env, timeout=a.timeout, cwd=out)
            text = r.stdout + r.stderr
            rc = r.returncode
        except subprocess.TimeoutExpired as e:
            text = (e.stdout or b"").decode(errors="replace") + (e.stderr or b"").decode(errors="replace")
            rc = f"timeout after {a.timeout} s"
        ranks = {m.group(0) for m in SMOKE_OK.finditer(text)}
        ok = rc == 0 and len(ranks) >= SMOKE_RANKS
        print(f"--- {stem}: torchrun.sh --smoke exit {rc}, {len(ranks)} of {SMOKE_RANKS} ranks ok")
        print(text[-4000:] if not ok else "\n".join(l for l in text.splitlines() if "smoke ok" in l))
        failed += not ok
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["check", "smoke"])
    ap.add_argument("--scaleout", required=True)
    ap.add_argument("--example")
    ap.add_argument("--work", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--require", action="store_true", help="smoke: torch missing is a failure")
    ap.add_argument("--require-shellcheck", action="store_true")
    ap.add_argument("--timeout", type=int, default=240)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    return check(a) if a.mode == "check" else smoke(a)


if __name__ == "__main__":
    sys.exit(main())
