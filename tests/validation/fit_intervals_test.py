#!/usr/bin/env python3
"""Unit checks of scripts/fit_intervals.py's fitting rules (ctest
validation.fit_intervals_rules): the weighted split-conformal order statistic,
the source weights, the thin-regime shrinkage and the parent chain."""
import math
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import fit_intervals as F  # noqa: E402


def check(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)


# Equal weights: the plain split-conformal order statistics.
rnd = random.Random(1)
for n in range(1, 120):
    xs = sorted(rnd.random() for _ in range(n))
    lo, hi = F.quantile([(x, 1.0) for x in xs], 0.1), F.quantile([(x, 1.0) for x in xs], 0.9)
    check(lo == xs[max(1, math.floor((n + 1) * 0.1)) - 1], f"lower order statistic, n={n}")
    check(hi == xs[min(n, math.ceil((n + 1) * 0.9)) - 1], f"upper order statistic, n={n}")
check(F.THIN_ROWS == 19, "19 rows: the fewest whose upper order statistic is not the largest")

# Source weights: 60 rows of one source near 0 and 3 rows of another at +0.3;
# weighed row by row the 90th percentile stays near 0, by source it reaches
# the small source.
def row(resid, source, i):
    return {"regime": "time/hopper/megatron/pretrain/dense/gt64", "resid": resid,
            "source": source, "index": i}


rows = [row(0.01 * (i % 5), "sweep", i) for i in range(60)] + [row(0.3, "paper", 60 + i) for i in range(3)]
entry = next(e for e in F.fit(rows) if e["framework"] == "megatron" and e["scale"] == "gt64")
check(entry["rows"] == 63 and entry["sources"] == 2, "rows and sources of an entry")
check(abs(entry["high_log"] - 0.3) < 1e-9, "the small source sets the upper end")
old = F.SOURCE_POWER
F.SOURCE_POWER = 0.0
entry = next(e for e in F.fit(rows) if e["framework"] == "megatron" and e["scale"] == "gt64")
check(entry["high_log"] < 0.1, "rows alike: the sweep sets the upper end")
F.SOURCE_POWER = old

# A whole run without a run regime of its family takes every family's runs,
# but only where its family has a step regime: else unvalidated.
runs = [dict(row(0.3 + 0.01 * i, f"r{i}", i), regime="run/ampere/other/pretrain/dense/gt64")
        for i in range(8)]
steps = [dict(row(0.0, f"h{i}", 8 + i), regime="time/hopper/megatron/pretrain/dense/gt64")
         for i in range(8)]
table = F.fit(runs + steps)
check(F.lookup(table, "run/hopper/other/pretrain/dense/gt64")[2] == "/".join(F.RUN_POOL),
      "a family without runs takes the run pool")
check(F.lookup(table, "run/cdna3/other/pretrain/dense/gt64")[2] == "unvalidated",
      "a family without rows stays unvalidated")
check(F.RUN_POOL in F.parents("run/ampere/other/pretrain/dense/gt64")
      and F.RUN_POOL not in F.parents("time/ampere/other/pretrain/dense/gt64"),
      "only whole runs are pooled over families")

# A row is fitted once into each regime (the MoE chain lists no key twice).
chain = F.parents("time/hopper/nemo/pretrain/moe/le64")
check(len(chain) == len(set(chain)), "parents lists each key once")
moe = [dict(row(0.0, f"s{i}", i), regime="time/hopper/nemo/pretrain/moe/le64") for i in range(8)]
pooled = next(e for e in F.fit(moe) if e["framework"] == "*" and e["moe"] == "moe" and e["scale"] == "le64")
check(pooled["rows"] == 8, "an MoE row counts once in its framework-pooled regime")

# A thin regime shrinks toward its parent of the same task: 8 rows at +0.5
# at one scale, 30 rows at 0 at another; the 8-row regime's upper end stays
# +0.5 but its lower end is pulled toward the parent's 0 ... -0.1.
thin = [dict(row(0.5 + 0.01 * i, f"t{i}", i), regime="time/hopper/megatron/pretrain/dense/le64")
        for i in range(8)]
wide = [dict(row(-0.1 + 0.004 * i, f"w{i}", 8 + i), regime="time/hopper/megatron/pretrain/dense/gt64")
        for i in range(30)]
e = next(e for e in F.fit(thin + wide) if e["framework"] == "megatron" and e["scale"] == "le64")
check(e["rows"] == 8 and e["low_log"] < 0.5, "an 8-row regime shrinks toward its parent")
big = [dict(r, index=40 + i) for i, r in enumerate(thin * 3)]
e = next(e for e in F.fit(big + wide) if e["framework"] == "megatron" and e["scale"] == "le64")
check(e["rows"] == 24 and e["low_log"] >= 0.5, "a regime of 19 rows or more is fitted on its own")
# Never across the pretrain + finetune pool.
mem = [dict(row(0.0, f"p{i}", i), regime="memory/hopper/torchtitan/pretrain/dense/1-domain",
            metric="peak_mem_gib") for i in range(10)]
ft = [dict(row(0.4, f"f{i}", 10 + i), regime="memory/hopper/hf/finetune/dense/1-domain",
           metric="peak_mem_gib") for i in range(10)]
e = next(e for e in F.fit(mem + ft) if e["framework"] == "*" and e["task"] == "pretrain"
         and e["moe"] == "*")
check(abs(e["high_log"]) < 1e-9, "a pretrain regime does not shrink toward the finetune pool")
# A whole run is steps x step time: a thin run regime shrinks toward the
# step-time regime of the same key (not toward another run regime), and a
# run with no run regime of MIN_ROWS rows takes the step-time chain.
runs = [dict(row(0.6 + 0.01 * i, f"r{i}", 100 + i), regime="run/ampere/other/pretrain/dense/gt64")
        for i in range(10)]
steps = [dict(row(-0.05 + 0.005 * i, f"s{i}", 200 + i), regime="time/ampere/other/pretrain/dense/gt64")
         for i in range(30)]
table = F.fit(runs + steps)
e = next(e for e in table if e["metric"] == "run" and e["framework"] == "other"
         and e["scale"] == "gt64")
check(e["rows"] == 10 and e["low_log"] < 0.6, "a thin run regime shrinks toward its step-time regime")
check(all(e["metric"] == "time" for e in F.fit(steps)), "step-time rows fit no run regime")
lo, hi, used = F.lookup(F.fit(steps), "run/ampere/other/pretrain/dense/gt64")
check(used == "time/ampere/other/pretrain/dense/gt64", "a run without run rows takes the step time's")
check(F.lookup(F.fit(steps), "run/hopper/other/pretrain/dense/gt64")[2] == "unvalidated",
      "nor across families")

# --sensitivity: seeded perturbations are deterministic, shift a source's rows
# together, and with no shift reproduce the plain held-out estimate.
sets = {"a.csv": [dict(row(0.01 * i, f"s{i % 3}", i), metric="step_time_s") for i in range(60)],
        "b.csv": [dict(row(0.3 + 0.01 * i, "p", 60 + i), metric="step_time_s") for i in range(10)]}
p1, p2 = F.perturbed(sets, 7), F.perturbed(sets, 7)
check(p1 == p2, "a perturbation is deterministic for its seed")
check(p1 != F.perturbed(sets, 8), "seeds differ")
old = (F.SOURCE_SHIFT, F.ROW_SHIFT)
F.ROW_SHIFT = 0.0
q = F.perturbed(sets, 3)
d = [q["b.csv"][i]["resid"] - sets["b.csv"][i]["resid"] for i in range(10)]
check(max(d) - min(d) < 1e-12 and abs(d[0]) > 0, "a source's rows shift together")
F.SOURCE_SHIFT = 0.0
check(F.perturbed(sets, 3) == sets, "no shift: the rows unchanged")
plain = F.held_out(sets)
for name, (lo, mean, hi, n) in F.sensitivity(sets).items():
    cov = plain[name][1] / plain[name][0]
    check(lo == mean == hi == cov, f"no shift: every draw is the plain estimate ({name})")
    check(n == (F.SENSITIVITY_DRAWS if F.BAND[0] <= cov <= F.BAND[1] else 0), "draws in band")
F.SOURCE_SHIFT, F.ROW_SHIFT = old

# --by-source: a source held out whole is looked up in a table without any
# of its rows. "far" sits at +1.0, the others near 0: its rows fall outside
# the interval of the others (every row held out once; the 5-fold estimate,
# which keeps far's other rows in the fit, covers some of them).
rows_a = [dict(row(0.01 * (i % 7), f"s{i % 4}", i), metric="step_time_s") for i in range(80)]
rows_b = [dict(row(1.0 + 0.001 * i, "far", 80 + i), metric="step_time_s") for i in range(20)]
loso = F.held_out_by_source({"a.csv": rows_a, "b.csv": rows_b})
check(loso["a.csv"][0] == 80 and loso["b.csv"][0] == 20, "every row held out once")
check(loso["b.csv"][1] == 0, "a source held out whole finds none of its rows in the fit")
check(F.held_out({"a.csv": rows_a, "b.csv": rows_b})["b.csv"][1] > 0,
      "5-fold keeps a source's other rows in the fit")
print("fit_intervals rules: ok")
