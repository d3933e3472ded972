"""Notebook-style use of scaleout from Python: sweep the node count of one
workload and print a table of step time, MFU, days to train and cost.

Run from the repository root after building (PYTHONPATH points at the build
folder's package, or at the installed one after `cmake --install build`):

    PYTHONPATH=build/python python3 examples/python-sweep.py
"""
import scaleout

# The workload as a dict with the YAML's keys (examples/llama3-70b-pretrain.yaml,
# with the data-parallel size left to the node count).
workload = {
    "model": "llama3-70b",
    "task": "pretrain",
    "tokens": 2.0e12,
    "seq_len": 8192,
    "global_batch": 1024,
    "precision": "bf16",
    "framework": "megatron",
    "layout": {"tp": 8, "pp": 4, "micro_batch": 1, "interleave": 5, "zero": 1,
               "recompute": "selective", "sp": True},
    "cluster": {"server": "dgx-h100", "fabric": "ib-ndr"},
}

print(f"{'nodes':>5} {'GPUs':>5} {'step s':>7} {'MFU':>5} {'days':>7} {'cloud $M':>9} {'fits':>4}")
for nodes in (4, 8, 16, 32, 64, 128):
    workload["cluster"]["nodes"] = nodes
    try:
        e = scaleout.estimate(workload)
    except scaleout.InputError as err:  # e.g. a layout that does not divide the GPUs
        print(f"{nodes:>5}  {err}")
        continue
    t, c = e["time"], e["cost"]
    print(f"{nodes:>5} {e['cluster']['gpus']:>5} {t['step_s']:>7.2f} {t['mfu']:>5.2f} "
          f"{e['reliability']['wall_time_days']:>7.1f} {c['cloud_usd'] / 1e6:>9.2f} "
          f"{'yes' if e['memory']['fits'] else 'no':>4}")

# The planner's answer for the same question, as the CLI's JSON.
plan = scaleout.plan("examples/plan-llama3-70b-pretrain.yaml", threads=2)
print("verdict:", plan["verdict"])
