#!/usr/bin/env python3
"""The validation CSVs that scripts build from a research sheet are what the
scripts build today (so that a row edited in the CSV and not in the sheet, or
a script that lost a column, is caught): blackwell-training.csv,
moe-training.csv, whole-runs.csv and finetune.csv, byte for byte."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILDS = [
    ("blackwell-training.csv",
     ["scripts/build_blackwell_validation.py", "scripts/data/blackwell-training-research.csv"]),
    ("moe-training.csv",
     ["scripts/build_moe_validation.py", "scripts/data/moe-training-research.csv",
      "data/catalog/models.json"]),
    ("whole-runs.csv", ["scripts/build_whole_runs.py"]),
    ("finetune.csv",
     ["scripts/build_finetune_validation.py", "scripts/data/finetune-research.csv"]),
]

failed = 0
for name, cmd in BUILDS:
    built = subprocess.run([sys.executable] + cmd, cwd=ROOT, check=True, capture_output=True,
                           text=True).stdout
    with open(os.path.join(ROOT, "data", "validation", name), newline="") as f:
        shipped = f.read()
    if built != shipped:
        failed += 1
        lines = [i + 1 for i, (a, b) in enumerate(zip(built.splitlines(), shipped.splitlines()))
                 if a != b]
        print(f"{name}: differs from what {cmd[0]} builds (first differing lines: {lines[:5]}, "
              f"{len(built.splitlines())} vs {len(shipped.splitlines())} lines); edit the "
              f"research sheet and rebuild")
    else:
        print(f"{name}: ok")
sys.exit(1 if failed else 0)
