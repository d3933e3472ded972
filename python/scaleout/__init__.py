"""scaleout from Python: one node or several?

Each function runs the scaleout command of the same name in this process and
returns the dict the command prints with ``--format json``, exactly the CLI's
JSON. Bad input raises :class:`InputError` with the message the CLI prints.

A workload (or jobs file) may be a path, YAML text, or a dict with the YAML's
keys::

    import scaleout
    plan = scaleout.plan("examples/plan-llama3-70b-pretrain.yaml")
    print(plan["verdict"], plan["recommended"]["nodes"])
"""

import contextlib
import json
import os
import tempfile

from . import _scaleout

__all__ = ["InputError", "ScaleoutError", "plan", "estimate", "validate", "simulate",
           "catalog", "calibrate", "run"]


class ScaleoutError(RuntimeError):
    """scaleout stopped on an internal error (exit code 1)."""


class InputError(ValueError):
    """Bad input (exit code 2): the message is what the CLI prints, e.g.
    ``w.yaml:3: layout.tpp: unknown key (did you mean 'tp'?)``."""


def run(*args):
    """Runs ``scaleout ARGS...``; returns its standard output as text.

    Raises InputError (exit code 2) or ScaleoutError (any other failure)."""
    code, out, err = _scaleout.run([str(a) for a in args])
    if code == 2:
        raise InputError(_message(err))
    if code != 0:
        raise ScaleoutError(_message(err) or f"scaleout exited with {code}")
    return out


def _message(err):
    """The CLI's error text without its 'scaleout: ' prefix and trailing help line."""
    lines = [l for l in err.splitlines() if l.strip()]
    lines = [l for l in lines if not l.startswith("Run 'scaleout")]
    text = "\n".join(lines)
    return text[len("scaleout: "):] if text.startswith("scaleout: ") else text


class _InputFile:
    """A path for a workload given as a path, YAML text or a dict.

    A dict is written as JSON, which YAML reads as is; text is written as
    given. The temporary file is removed on exit."""

    def __init__(self, value, what):
        self.value, self.what, self.path, self.temp = value, what, None, None

    def __enter__(self):
        v = self.value
        if isinstance(v, os.PathLike):
            v = os.fspath(v)
        if isinstance(v, str) and "\n" not in v and os.path.exists(v):
            self.path = v
            return v
        if isinstance(v, dict):
            text = json.dumps(v, indent=1)
        elif isinstance(v, str):
            text = v
        else:
            raise TypeError(f"{self.what} must be a path, YAML text or a dict, "
                            f"not {type(v).__name__}")
        fd, self.temp = tempfile.mkstemp(prefix=f"scaleout-{self.what}-", suffix=".yaml")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        self.path = self.temp
        return self.temp

    def __exit__(self, *exc):
        if self.temp:
            os.unlink(self.temp)
        return False


def _catalog_args(catalogs):
    if catalogs is None:
        return []
    if isinstance(catalogs, (str, os.PathLike)):
        catalogs = [catalogs]
    out = []
    for c in catalogs:
        out += ["--catalog", os.fspath(c)]
    return out


def _json(*args):
    return json.loads(run(*args))


def plan(workload, catalogs=None, objective="cost", threads=None):
    """`scaleout plan WORKLOAD --format json`: the verdict, the recommended
    plan, the frontier and the reasons. objective: 'cost', 'time' or 'energy'."""
    with _InputFile(workload, "workload") as path:
        args = ["plan", path, "--format", "json", "--objective", objective]
        if threads is not None:
            args += ["--threads", str(int(threads))]
        return _json(*args, *_catalog_args(catalogs))


def estimate(workload, catalogs=None):
    """`scaleout estimate WORKLOAD --format json`: memory and step time of one
    workload on one cluster (serving: memory, TTFT, TPOT, throughput)."""
    with _InputFile(workload, "workload") as path:
        return _json("estimate", path, "--format", "json", *_catalog_args(catalogs))


def simulate(jobs, catalogs=None, threads=None):
    """`scaleout simulate JOBS --format json`: a team's job mix on candidate clusters."""
    with _InputFile(jobs, "jobs") as path:
        args = ["simulate", path, "--format", "json"]
        if threads is not None:
            args += ["--threads", str(int(threads))]
        return _json(*args, *_catalog_args(catalogs))


def validate(path, catalogs=None, gpu_overrides=None):
    """`scaleout validate FILE.csv --format json`: published measurements
    predicted, with errors per row, metric and group."""
    args = ["validate", os.fspath(path), "--format", "json"]
    if gpu_overrides is not None:
        args += ["--gpu-overrides", os.fspath(gpu_overrides)]
    return _json(*args, *_catalog_args(catalogs))


def catalog(kind, catalogs=None):
    """`scaleout catalog KIND --format json`: gpus, servers, fabrics, models,
    prices or economics."""
    return _json("catalog", kind, "--format", "json", *_catalog_args(catalogs))


def _paths(value):
    if value is None:
        return []
    if isinstance(value, (str, os.PathLike)):
        return [os.fspath(value)]
    return [os.fspath(v) for v in value]


def calibrate(server, output=None, nccl_tests=None, gemm=None, steps=None, fabric=None,
              catalogs=None):
    """`scaleout calibrate --server SERVER ... -o OUTPUT --format json`: fits
    the server's catalog figures to nccl-tests outputs (`nccl_tests`: a path
    or a list), a GEMM benchmark CSV (`gemm`) and training logs (`steps`: a
    list of (log path, workload) pairs, the workload a path, YAML text or a
    dict), writes the catalog overlay to `output` (a temporary file when
    None) and returns what was fitted; the overlay's text is its "overlay"."""
    args = ["calibrate", "--server", server, "--format", "json"]
    if fabric is not None:
        args += ["--fabric", fabric]
    for path in _paths(nccl_tests):
        args += ["--nccl-tests", path]
    if gemm is not None:
        args += ["--gemm", os.fspath(gemm)]
    with contextlib.ExitStack() as stack:
        for log, workload in steps or []:
            args += ["--steps", os.fspath(log),
                     "--workload", stack.enter_context(_InputFile(workload, "workload"))]
        if output is None:
            fd, temp = tempfile.mkstemp(prefix="scaleout-overlay-", suffix=".yaml")
            os.close(fd)
            stack.callback(os.unlink, temp)
            output = temp
        args += ["-o", os.fspath(output)]
        return _json(*args, *_catalog_args(catalogs))
