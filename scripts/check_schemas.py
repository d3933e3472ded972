#!/usr/bin/env python3
"""Checks every JSON document scaleout writes against docs/schemas.

    scripts/check_schemas.py BUILD_DIR        # or the scaleout binary itself
    scripts/check_schemas.py --self-test-only

Runs BUILD_DIR/scaleout on every JSON-producing case: `plan` on each
examples/plan-*.yaml and `estimate` on the other examples, every golden case
(tests/golden/*.cmd) run with --format json, `validate` on each
data/validation/*.csv, `catalog` of each kind, `simulate` on
examples/simulate-team.yaml, `calibrate` on the inputs of tests/data/calibration
(nccl-tests, GEMM and step logs; and nccl-tests alone), and the plan.json of
`plan --emit`. Each document is validated against its schema (JSON Schema
draft 2020-12, python3-jsonschema); one line per document. A failure prints
the document, the JSON path and the schema's complaint; the exit code is 1.

Then a self-test mutates the first valid document of each schema (a nested
key renamed, a number made a string, schema_version dropped, an unknown key
added) and requires the schema to reject each, so the check cannot pass by
accepting anything; a schema no document was checked against fails too.
--self-test-only does the same on small built-in documents, without a build.

`load_validators`, `schema_for` and `errors` are also used by
tests/python/test_scaleout.py on the Python module's return values.
"""
import argparse
import concurrent.futures
import copy
import json
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile
import time

try:
    import jsonschema
except ImportError:
    if __name__ == "__main__":
        print("check_schemas: python3-jsonschema is not installed for "
              f"{sys.executable}: skipped (apt-get install python3-jsonschema)")
        sys.exit(77)  # ctest's SKIP_RETURN_CODE
    raise

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCHEMA_DIR = ROOT / "docs" / "schemas"
CATALOG_KINDS = ("gpus", "servers", "fabrics", "models", "prices", "economics")


def load_validators(schema_dir=SCHEMA_DIR):
    """{name: validator} for every docs/schemas/NAME.schema.json; `$ref`s
    between the files resolve from the folder, never from the network."""
    schemas = {}
    for path in sorted(pathlib.Path(schema_dir).glob("*.schema.json")):
        with open(path) as f:
            schemas[path] = json.load(f)
    out = {}
    try:  # jsonschema >= 4.18 resolves through `referencing`
        import referencing
        import referencing.jsonschema
        registry = referencing.Registry().with_resources(
            (path.resolve().as_uri(),
             referencing.Resource(s, referencing.jsonschema.DRAFT202012))
            for path, s in schemas.items())
    except ImportError:  # Debian's 4.10
        registry = None
    store = {path.resolve().as_uri(): s for path, s in schemas.items()}
    for path, schema in schemas.items():
        jsonschema.Draft202012Validator.check_schema(schema)
        uri = path.resolve().as_uri()
        if registry is not None:
            # The schema under its file URI, so that relative $refs resolve.
            v = jsonschema.Draft202012Validator(
                {"$ref": uri}, registry=registry)
        else:
            v = jsonschema.Draft202012Validator(
                schema, resolver=jsonschema.RefResolver(base_uri=uri, referrer=schema, store=store))
        out[path.name[:-len(".schema.json")]] = v
    return out


def workload_is_serving(path):
    """Whether a workload file is a serving one (`task: inference`)."""
    with open(path) as f:
        return re.search(r"^task:\s*inference\b", f.read(), re.M) is not None


def csv_is_serving(path):
    """Whether a validation CSV holds serving rows (a prompt_tokens column)."""
    with open(path) as f:
        return "prompt_tokens" in f.readline().split(",")


def schema_for(args, root=ROOT):
    """The schema name of the document `scaleout ARGS --format json` writes."""
    command = args[0]
    if command in ("plan", "estimate"):
        return f"{command}-{'serving' if workload_is_serving(root / args[1]) else 'training'}"
    if command == "validate":
        return "validate-serving" if csv_is_serving(root / args[1]) else "validate-training"
    if command == "catalog":
        return f"catalog-{args[1]}"
    if command in ("simulate", "calibrate"):
        return command
    raise ValueError(f"no schema for scaleout {command}")


def json_path(path):
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def errors(validator, doc):
    """Every schema error of `doc` as 'JSON path: message' (empty: valid)."""
    try:
        found = sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
    except Exception as e:  # an unresolvable $ref (its class differs between versions)
        return [f"$: the schema's $ref does not resolve: {e}"]
    out = []

    def add(e):
        if not e.context:
            out.append(f"{json_path(e.absolute_path)}: {e.message}")
            return
        # anyOf (a part or null): the complaints of the branch that got furthest.
        branches = {}
        for c in e.context:
            branches.setdefault(c.relative_schema_path[0], []).append(c)
        best = max(branches.values(), key=lambda b: max(len(c.absolute_path) for c in b))
        for c in sorted(best, key=lambda c: list(map(str, c.absolute_path))):
            add(c)

    for e in found:
        add(e)
    return out


# --- the cases --------------------------------------------------------------

def rel(path):
    return os.path.relpath(path, ROOT)


def cases(work):
    """(label, args, schema) of every JSON-producing run; `work` is a scratch folder."""
    out = []
    for path in sorted((ROOT / "examples").glob("*.yaml")):
        name = path.name
        if name.startswith("simulate-"):
            continue
        command = "plan" if name.startswith("plan-") else "estimate"
        args = [command, rel(path), "--format", "json"] + (["--threads", "2"] if command == "plan" else [])
        out.append((" ".join(args), args, schema_for(args)))
    for cmd in sorted((ROOT / "tests" / "golden").glob("*.cmd")):
        with open(cmd) as f:
            args = shlex.split(f.readline())
        if "--format" in args and args[args.index("--format") + 1 :][:1] == ["json"]:
            out.append((f"golden {cmd.stem}", args, schema_for(args)))
    for csv in sorted((ROOT / "data" / "validation").glob("*.csv")):
        if csv.name.endswith(".gpu-overrides.csv"):
            continue  # the companion of a validation CSV, not one itself
        args = ["validate", rel(csv), "--format", "json"]
        out.append((" ".join(args), args, schema_for(args)))
    for kind in CATALOG_KINDS:
        args = ["catalog", kind, "--format", "json"]
        out.append((" ".join(args), args, schema_for(args)))
    args = ["simulate", "examples/simulate-team.yaml", "--format", "json", "--threads", "2"]
    out.append((" ".join(args), args, "simulate"))
    data = "tests/data/calibration"
    nccl = []
    for log in ("all_reduce_2node_degraded.log", "all_reduce_1node.log", "all_gather_1node.log"):
        nccl += ["--nccl-tests", f"{data}/{log}"]
    args = ["calibrate", "--server", "dgx-h100", "--fabric", "ib-ndr", *nccl,
            "-o", str(work / "nccl.yaml"), "--format", "json"]
    out.append(("calibrate (nccl-tests only)", args, "calibrate"))
    # Step logs need a log made from the workload's own prediction (as
    # calibration_test.cpp makes it): written by step_log() before the runs.
    workload = f"{data}/llama3-8b-2node.yaml"
    steps = str(work / "megatron.log")
    args = ["calibrate", "--server", "dgx-h100", "--fabric", "ib-ndr", *nccl,
            "--gemm", f"{data}/gemm-h100.csv", "--steps", steps, "--workload", workload,
            "--steps", steps, "--workload", workload, "-o", str(work / "all.yaml"),
            "--format", "json"]
    out.append(("calibrate (nccl-tests, GEMMs, two step logs)", args, "calibrate"))
    return out


def run(scaleout, args):
    p = subprocess.run([scaleout, *args], cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"scaleout {' '.join(args)} exited {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def step_log(scaleout, work):
    """A Megatron log whose steps are 1.25x the predicted step of the calibration workload."""
    est = json.loads(run(scaleout, ["estimate", "tests/data/calibration/llama3-8b-2node.yaml",
                                    "--format", "json"]))
    ms = 1250.0 * est["time"]["step_s"]
    with open(work / "megatron.log", "w") as f:
        for i in range(1, 6):
            f.write(f" iteration {10 * i}/ 100 | elapsed time per iteration (ms): {ms:.3f} |\n")


def emitted_plan(scaleout, work):
    """The plan.json `plan --emit` writes, and the plan it was emitted for."""
    out = work / "emit"
    args = ["plan", "examples/plan-llama3-70b-pretrain.yaml", "--emit", str(out)]
    run(scaleout, args)
    with open(out / "plan.json") as f:
        return json.load(f)


# --- the self-test ----------------------------------------------------------

def first_object_path(doc, want):
    """Path of the first object (depth first) for which want(obj) holds."""
    stack = [((), doc)]
    while stack:
        path, v = stack.pop()
        if isinstance(v, dict):
            if want(v):
                return path
            stack += [(path + (k,), x) for k, x in reversed(list(v.items()))]
        elif isinstance(v, list):
            stack += [(path + (i,), x) for i, x in reversed(list(enumerate(v)))]
    return None


def at(doc, path):
    for p in path:
        doc = doc[p]
    return doc


def mutations(doc):
    """(what, mutated doc) for a valid document: a nested key renamed, a number
    made a string, a required key dropped, an unknown key added."""
    out = []
    deep = first_object_path(doc, lambda o: len(o) > 2 and o is not doc)
    if deep is None:
        deep = ()
    obj = at(doc, deep)
    key = next(iter(obj))
    m = copy.deepcopy(doc)
    o = at(m, deep)
    o[key + "_renamed"] = o.pop(key)
    out.append((f"{json_path(deep)}.{key} renamed", m))
    num = first_object_path(doc, lambda o: any(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                for v in o.values()))
    if num is not None:
        m = copy.deepcopy(doc)
        o = at(m, num)
        k = next(k for k, v in o.items() if isinstance(v, (int, float)) and not isinstance(v, bool))
        o[k] = str(o[k])
        out.append((f"{json_path(num)}.{k} made a string", m))
    m = copy.deepcopy(doc)
    del m["schema_version"]
    out.append(("$.schema_version dropped", m))
    m = copy.deepcopy(doc)
    at(m, deep)["undocumented_key"] = 1
    out.append((f"{json_path(deep)}.undocumented_key added", m))
    return out


def self_test(validators, docs):
    """Every mutation of every document in `docs` ({schema: doc}) must be rejected."""
    failures = []
    for name, doc in docs.items():
        if errors(validators[name], doc):
            failures.append(f"self-test: the {name} document is not valid to begin with")
            continue
        for what, bad in mutations(doc):
            if not errors(validators[name], bad):
                failures.append(f"self-test: {name} accepted a document with {what}")
    return failures


def builtin_samples():
    """Small hand-made documents for --self-test-only (no scaleout binary)."""
    bd = {k: 0.0 for k in ("compute", "tp_comm", "cp_comm", "ep_comm", "pp_comm", "dp_comm",
                           "bubble", "optimizer", "other")}
    return {
        "catalog-prices": {"schema_version": 1, "prices": [{
            "gpu": "h100-sxm", "usd_per_gpu_hour": 2.5, "pricing": "on-demand", "provider": "x",
            "instance": "y", "date": "2026-01-01", "default": True, "source": "z"}]},
        "validate-serving": {"schema_version": 1, "summary": {
            "rows": 1, "mape": 0.1, "bias": 0.1, "by_metric": {}, "by_group": {}, "false_oom": 0,
            "interval_coverage": {"rows": 1, "inside": 1, "share": 1.0}}, "rows": []},
        "validate-training": {"schema_version": 1, "rows": [{
            "id": "r", "group": "g", "metric": "step_s", "measured": 1.0, "predicted": 1.1,
            "error": 0.1, "predicted_low": 1.0, "predicted_high": 1.2, "regime": "time/x",
            "interval_regime": "time/x", "interval_rows": 3, "fits": True, "peak_bytes": 1e9,
            "capacity_bytes": 8e10, "gpu": "h100-sxm", "breakdown_s": bd, "filled": "",
            "skipped": None}], "summary": {
            "by_metric": {}, "by_group": {}, "interval_coverage": {"rows": 1, "inside": 1, "share": 1.0},
            "interval_coverage_by_group": {}, "rank_correlation": [], "false_oom": 0}},
    }


# --- main -------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build", nargs="?", help="the build folder (or the scaleout binary)")
    ap.add_argument("--self-test-only", action="store_true",
                    help="only check that the schemas reject mutated documents")
    ap.add_argument("-j", "--jobs", type=int, default=4, help="scaleout runs at once (default 4)")
    a = ap.parse_args()
    start = time.monotonic()
    validators = load_validators()
    if a.self_test_only:
        failures = self_test(validators, builtin_samples())
        for f in failures:
            print(f)
        print(f"self-test: {'FAILED' if failures else 'ok'}")
        return 1 if failures else 0
    if not a.build:
        ap.error("give the build folder (or --self-test-only)")
    scaleout = pathlib.Path(a.build)
    if scaleout.is_dir():
        scaleout = scaleout / "scaleout"
    scaleout = str(scaleout.resolve())

    failures, checked_against, first_valid = [], set(), {}
    with tempfile.TemporaryDirectory(prefix="check-schemas-") as tmp:
        work = pathlib.Path(tmp)
        step_log(scaleout, work)
        todo = cases(work)

        def one(case):
            label, args, name = case
            try:
                return label, name, json.loads(run(scaleout, args)), None
            except (RuntimeError, json.JSONDecodeError) as e:
                return label, name, None, str(e)

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
            results = list(pool.map(one, todo))
        try:
            results.append(("plan --emit DIR: plan.json", "plan-training",
                            emitted_plan(scaleout, work), None))
        except (RuntimeError, json.JSONDecodeError, OSError) as e:
            results.append(("plan --emit DIR: plan.json", "plan-training", None, str(e)))

    for label, name, doc, problem in results:
        if problem is None:
            checked_against.add(name)
            found = errors(validators[name], doc)
            if len(found) > 10:
                found = found[:10] + [f"... and {len(found) - 10} more"]
            problem = "\n    ".join(found) if found else None
            if problem is None:
                first_valid.setdefault(name, doc)
        print(f"{'ok  ' if problem is None else 'FAIL'} {name:<18} {label}")
        if problem is not None:
            print(f"    {problem}")
            failures.append(label)
    unused = sorted(set(validators) - checked_against - {"common"})
    if unused:
        failures.append("schemas no document was checked against: " + ", ".join(unused))
        print("FAIL " + failures[-1])
    # The self-test on the first valid document of each schema.
    st = self_test(validators, first_valid)
    for f in st:
        print("FAIL " + f)
    failures += st
    mutated = sum(len(mutations(d)) for d in first_valid.values())
    print(f"{len(results)} documents against {len(checked_against)} schemas; "
          f"{mutated - len(st)} of {mutated} mutated documents rejected; "
          f"{'FAILED (' + str(len(failures)) + ')' if failures else 'ok'} "
          f"({time.monotonic() - start:.1f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
