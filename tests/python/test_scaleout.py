"""The Python module returns exactly the CLI's JSON (issue 24).

Run by ctest (label python) with PYTHONPATH=<build>/python, SCALEOUT_CLI the
scaleout binary and SCALEOUT_ROOT the source tree."""
import glob
import json
import os
import subprocess
import sys

import pytest

import scaleout

ROOT = os.environ.get("SCALEOUT_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("SCALEOUT_CLI", "scaleout")


def cli_json(*args):
    out = subprocess.run([CLI, *args, "--format", "json"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def same(a, b):
    """The two JSON documents agree in every field but the search's wall time,
    which differs between any two runs of the CLI as well."""
    for d in (a, b):
        if isinstance(d.get("search"), dict):
            d["search"].pop("seconds", None)
    return a == b


def example(name):
    return os.path.join(ROOT, "examples", name)


PLANS = sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "examples", "plan-*.yaml")))
ESTIMATES = sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "examples", "*.yaml"))
                   if not os.path.basename(p).startswith(("plan-", "simulate-")))


def test_there_are_examples():
    assert len(PLANS) >= 5 and len(ESTIMATES) >= 5


@pytest.mark.parametrize("name", PLANS)
def test_plan_is_the_cli_json(name):
    path = example(name)
    assert same(scaleout.plan(path, threads=2), cli_json("plan", path, "--threads", "2"))


@pytest.mark.parametrize("name", ESTIMATES)
def test_estimate_is_the_cli_json(name):
    path = example(name)
    assert scaleout.estimate(path) == cli_json("estimate", path)


def test_simulate_is_the_cli_json():
    path = example("simulate-team.yaml")
    assert same(scaleout.simulate(path, threads=2),
                cli_json("simulate", path, "--threads", "2"))


def test_validate_and_catalog_are_the_cli_json():
    for name in ("whole-runs.csv", "inference.csv"):  # a training and the serving CSV
        csv = os.path.join(ROOT, "data", "validation", name)
        assert scaleout.validate(csv) == cli_json("validate", csv)
    for kind in ("gpus", "servers", "fabrics", "models", "prices", "economics"):
        assert scaleout.catalog(kind) == cli_json("catalog", kind)


def test_a_workload_may_be_yaml_text_or_a_dict():
    path = example("llama3-70b-pretrain.yaml")
    with open(path) as f:
        text = f.read()
    from_file = scaleout.estimate(path)
    assert scaleout.estimate(text) == from_file
    # The same keys as a dict (written as JSON, which is YAML).
    as_dict = {
        "model": "llama3-70b", "task": "pretrain", "tokens": 2.0e12, "seq_len": 8192,
        "global_batch": 1024, "precision": "bf16", "optimizer": "adam", "framework": "megatron",
        "layout": {"tp": 8, "pp": 4, "cp": 1, "micro_batch": 1, "interleave": 5, "zero": 1,
                   "recompute": "selective", "sp": True},
        "cluster": {"server": "dgx-h100", "nodes": 64, "fabric": "ib-ndr"},
    }
    assert "tp: 8, pp: 4, cp: 1, micro_batch: 1, interleave: 5" in text  # the file it mirrors
    assert scaleout.estimate(as_dict) == from_file


def test_bad_input_raises_the_clis_message():
    with pytest.raises(scaleout.InputError) as e:
        scaleout.estimate(os.path.join(ROOT, "tests", "golden", "bad-key.yaml"))
    assert str(e.value).endswith("bad-key.yaml:2: seq_lenght: unknown key (did you mean 'seq_len'?)")
    with pytest.raises(scaleout.InputError) as e:
        scaleout.estimate({"model": "llama3-70b", "seq_lenght": 4096})
    assert "seq_lenght: unknown key (did you mean 'seq_len'?)" in str(e.value)
    with pytest.raises(scaleout.InputError):
        scaleout.catalog("gpuz")
    with pytest.raises(TypeError):
        scaleout.plan(42)


def test_objective_changes_the_ranking_not_the_interface():
    path = example("plan-llama3-70b-pretrain.yaml")
    assert same(scaleout.plan(path, objective="time", threads=2),
                cli_json("plan", path, "--objective", "time", "--threads", "2"))


def test_the_sweep_example_runs():
    env = dict(os.environ)
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "python-sweep.py")],
                         cwd=ROOT, env=env, check=True, capture_output=True, text=True).stdout
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["nodes", "GPUs", "step"]
    assert len(lines) == 8 and lines[-1].startswith("verdict: ")


def test_calibrate_is_the_cli_json(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")  # 2026-01-01: the same date in both
    data = os.path.join(ROOT, "tests", "data", "calibration")
    log = os.path.join(data, "all_reduce_2node_degraded.log")
    workload = os.path.join(data, "llama3-8b-2node.yaml")
    megatron = tmp_path / "megatron.log"
    megatron.write_text("".join(f" iteration {i}/ 100 | elapsed time per iteration (ms): 2000.0 |\n"
                                for i in range(1, 6)))
    out_py, out_cli = tmp_path / "py.yaml", tmp_path / "cli.yaml"
    got = scaleout.calibrate("dgx-h100", output=out_py, nccl_tests=[log],
                             steps=[(megatron, workload)], fabric="ib-ndr")
    want = cli_json("calibrate", "--server", "dgx-h100", "--fabric", "ib-ndr", "--nccl-tests", log,
                    "--steps", str(megatron), "--workload", workload, "-o", str(out_cli))
    assert got["schema_version"] == 1 and got["date"] == "2026-01-01"
    assert got == want
    assert out_py.read_text() == out_cli.read_text() == got["overlay"]
    # The overlay is a catalog: estimate reads it.
    assert scaleout.estimate(workload, catalogs=[out_py])["time"]["step_s"] > 0
    with pytest.raises(scaleout.InputError) as e:
        scaleout.calibrate("dgx-h10", gemm=os.path.join(data, "gemm-h100.csv"))
    assert str(e.value) == "--server: unknown server 'dgx-h10' (did you mean 'dgx-h100'?)"


@pytest.fixture(scope="module")
def schemas():
    """scripts/check_schemas.py (its loader and checker) and the docs/schemas validators."""
    pytest.importorskip("jsonschema")
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    try:
        import check_schemas
    finally:
        sys.path.pop(0)
    return check_schemas, check_schemas.load_validators()


def test_results_match_the_schemas(schemas):
    """Every plan, estimate, validate and catalog result (and simulate's)
    matches its schema in docs/schemas, as the CLI's JSON does (ctest json_schemas)."""
    check, validators = schemas
    runs = [(["plan", example(n)], lambda p: scaleout.plan(p, threads=2)) for n in PLANS]
    runs += [(["estimate", example(n)], scaleout.estimate) for n in ESTIMATES]
    for csv in sorted(glob.glob(os.path.join(ROOT, "data", "validation", "*.csv"))):
        if not csv.endswith(".gpu-overrides.csv"):
            runs.append((["validate", csv], scaleout.validate))
    runs += [(["catalog", k], scaleout.catalog) for k in check.CATALOG_KINDS]
    runs.append((["simulate", example("simulate-team.yaml")],
                 lambda p: scaleout.simulate(p, threads=2)))
    seen = set()
    for args, call in runs:
        name = check.schema_for(args)
        seen.add(name)
        assert check.errors(validators[name], call(args[1])) == [], " ".join(args)
    assert {"plan-training", "plan-serving", "estimate-training", "estimate-serving",
            "validate-training", "validate-serving", "catalog-economics"} <= seen
