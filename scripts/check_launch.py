#!/usr/bin/env python3
"""Check the launch files `scaleout plan --emit DIR` writes, with the readers
they are meant for where Debian has them, and read the plan back out of them.

  scripts/check_launch.py DIR [--plan-json FILE | --scaleout BIN --input YAML]
                              [--input YAML] [--expect FILE,FILE,...]

For every file present in DIR (missing ones are skipped unless --expect names
them):
  *.sh, *.sbatch     bash -n, and shellcheck when installed (--no-shellcheck
                     skips it; --require-shellcheck makes its absence an error)
  *.json *.yaml *.toml parsed (json, python3-yaml, tomllib); *.py compiled
  megatron.args, and the Megatron command lines in torchrun.sh, slurm.sbatch
                     and the Kubernetes containers: every --option is one of
                     Megatron-LM's (data/launch/megatron_options.txt)
  deepspeed.json     every key is one DeepSpeed reads (data/launch/deepspeed_keys.json)
  torchtitan.toml    sections, keys and value types of torchtitan's TOML job
                     config (data/launch/torchtitan_keys.json)
  pytorchjob.yaml, trainjob.yaml  each object against its CRD's schema
                     (data/launch/crd/): unknown field, wrong type or enum value
                     is an error
  readback           the parallel sizes (TP/PP/DP/CP/EP), ZeRO/FSDP stage,
                     recompute, micro-batch, global batch, precision,
                     fine-tuning method, optimizer offload and the overlap
                     flags each file configures, compared with the plan:
                     DIR/plan.json, --plan-json, or `BIN plan YAML --format json`.
                     The workload facts (precision, fine-tuning method)
                     come from the plan JSON's `workload`, else --input.

Each problem is printed as `FILE:LINE: error: ...` (or warning); the exit
status is 1 when there is an error, 0 otherwise.
"""

import argparse
import ast
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None
try:
    import yaml
except ImportError:
    yaml = None

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(os.path.dirname(HERE), "data", "launch")

# Kubernetes ObjectMeta fields (the CRDs leave metadata as a bare object;
# these are the names of k8s.io/apimachinery ObjectMeta).
OBJECT_META = {"name", "generateName", "namespace", "selfLink", "uid", "resourceVersion",
               "generation", "creationTimestamp", "deletionTimestamp",
               "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences",
               "finalizers", "managedFields"}


def yaml_lines(node, path="", out=None):
    """{dotted.path[i]: 1-based line} of every key and item of a composed YAML node."""
    out = {} if out is None else out
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            kp = f"{path}.{k.value}" if path else str(k.value)
            out[kp] = k.start_mark.line + 1
            yaml_lines(v, kp, out)
    elif isinstance(node, yaml.SequenceNode):
        for i, v in enumerate(node.value):
            ip = f"{path}[{i}]"
            out[ip] = v.start_mark.line + 1
            yaml_lines(v, ip, out)
    return out


class Report:
    def __init__(self):
        self.errors = 0
        self.warnings = 0

    def error(self, path, line, msg):
        self.errors += 1
        print(f"{path}:{line or 1}: error: {msg}")

    def warn(self, path, line, msg):
        self.warnings += 1
        print(f"{path}:{line or 1}: warning: {msg}")


# ------------------------------------------------------------------ the plan

class Plan:
    """The facts the launch files must configure."""

    def __init__(self, plan_json, workload):
        rec = plan_json.get("recommended") or {}
        lay = rec.get("layout") or {}
        self.nodes = rec.get("nodes")
        self.gpus = rec.get("gpus")
        self.global_batch = rec.get("global_batch")
        self.tp = lay.get("tp", 1)
        self.pp = lay.get("pp", 1)
        self.dp = lay.get("dp", 1)
        self.cp = lay.get("cp", 1)
        self.ep = lay.get("ep", 1)
        self.sp = bool(lay.get("sp", False))
        self.micro_batch = lay.get("micro_batch", 1)
        self.zero = lay.get("zero", 0)
        self.recompute = lay.get("recompute", "none")
        self.recompute_layers = int(lay.get("recompute_layers", 0) or 0)
        self.first_stage_layers = int(lay.get("first_stage_layers", 0) or 0)
        self.pipeline_layout = str(lay.get("pipeline_layout", "") or "")
        self.last_stage_layers = int(lay.get("last_stage_layers", 0) or 0)
        self.offload = bool(lay.get("offload", lay.get("offload_optimizer", False)))
        self.fp8_param_gather = bool(lay.get("fp8_param_gather", False))
        w = dict(workload or {})
        w.update(plan_json.get("workload") or {})
        self.precision = w.get("precision", "bf16")
        # CUDA graph capture the step time credits (workload cuda_graphs;
        # plan.json gives it only when not none).
        self.cuda_graphs = w.get("cuda_graphs", "none") or "none"
        task = w.get("task", "pretrain")
        ft = w.get("finetune")
        method = w.get("method")
        if method is None:
            if isinstance(ft, dict):
                method = ft.get("method", "lora")
            elif isinstance(ft, str):
                method = ft
            else:
                method = "full" if task == "finetune" else "none"
        self.method = method  # none (pretraining), full, lora, qlora
        self.lora_rank = ft.get("rank") if isinstance(ft, dict) else None
        self.framework = w.get("framework", "megatron")
        # The overlap the time model prices (docs/model.md, "Constants per
        # framework" and the data-parallel step): the gradient reduction
        # hidden behind the last backward pass wherever the framework
        # overlaps it (all but deepspeed), which Megatron-LM does only with
        # --overlap-grad-reduce; the ZeRO-1/2 weight all-gather after the
        # optimizer step priced exposed, so no --overlap-param-gather.
        # plan.json may state them ("overlap": {grad_reduce, param_gather}).
        ov = plan_json.get("overlap") or lay.get("overlap") or {}
        self.overlap_grad_reduce = ov.get("grad_reduce", self.dp > 1 and self.framework != "deepspeed")
        self.overlap_param_gather = ov.get("param_gather", False)

    def per_node(self):
        return self.gpus // self.nodes if self.nodes else None


def load_plan(args, emit_dir, rep):
    workload = {}
    if args.input:
        if yaml is None:
            rep.warn(args.input, 1, "python3-yaml missing: workload facts not read")
        else:
            with open(args.input) as f:
                workload = yaml.safe_load(f) or {}
    path = os.path.join(emit_dir, "plan.json")
    if args.plan_json:
        path = args.plan_json
    if os.path.exists(path):
        with open(path) as f:
            return Plan(json.load(f), workload), path
    if args.scaleout and args.input:
        out = subprocess.run([args.scaleout, "plan", args.input, "--format", "json"],
                             capture_output=True, text=True)
        if out.returncode != 0:
            rep.error(args.input, 1, f"scaleout plan --format json failed: {out.stderr.strip()}")
            return None, None
        return Plan(json.loads(out.stdout), workload), f"{args.scaleout} plan {args.input}"
    return None, None


# ----------------------------------------------------------- reference data

def load_megatron_options(data):
    opts = set()
    with open(os.path.join(data, "megatron_options.txt")) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                opts.add(line)
    return opts


def load_json(data, name):
    with open(os.path.join(data, name)) as f:
        return json.load(f)


# ------------------------------------------------------------------ helpers

def line_of(text, needle, start=0):
    """1-based line of the first occurrence of needle in text, or 1."""
    i = text.find(needle, start)
    return text.count("\n", 0, i) + 1 if i >= 0 else 1


def megatron_opts_from_words(words):
    """{option: value or True} from a Megatron argument list (first value kept)."""
    out = {}
    i = 0
    while i < len(words):
        w = words[i]
        if w.startswith("--"):
            if "=" in w:
                k, v = w.split("=", 1)
                out.setdefault(k, v)
            elif i + 1 < len(words) and not words[i + 1].startswith("--"):
                out.setdefault(w, words[i + 1])
                i += 1
            else:
                out.setdefault(w, True)
        i += 1
    return out


def as_int(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


# ------------------------------------------------------------ the checks

class Checker:
    def __init__(self, emit_dir, plan, plan_src, rep, args):
        self.dir = emit_dir
        self.plan = plan
        self.plan_src = plan_src
        self.rep = rep
        self.args = args
        self.mopts = load_megatron_options(args.data)
        self.ds = load_json(args.data, "deepspeed_keys.json")
        self.tt = load_json(args.data, "torchtitan_keys.json")
        self.crds = {}
        self.lines = {}
        crd_dir = os.path.join(args.data, "crd")
        for name in sorted(os.listdir(crd_dir)):
            c = load_json(crd_dir, name)
            for ver, schema in c["versions"].items():
                self.crds[(f"{c['group']}/{ver}", c["kind"])] = schema

    def p(self, name):
        return os.path.join(self.dir, name)

    def read(self, name):
        with open(self.p(name), encoding="utf-8") as f:
            return f.read()

    def err(self, name, line, msg):
        self.rep.error(self.p(name), line, msg)

    def warn(self, name, line, msg):
        self.rep.warn(self.p(name), line, msg)

    def agree(self, name, line, what, got, want):
        """Readback: the file's value against the plan's."""
        if self.plan is None or want is None:
            return
        if got != want:
            if isinstance(want, bool):  # a flag: say which way round
                self.err(name, line, f"{what}: " + ("set, the plan has it off" if got else "missing, the plan has it on"))
            else:
                self.err(name, line, f"{what} is {got}, the plan has {want}")

    # ---- shell scripts
    def shell(self, name):
        r = subprocess.run(["bash", "-n", self.p(name)], capture_output=True, text=True)
        for l in r.stderr.strip().splitlines():
            m = re.search(r":\s*line (\d+):\s*(.*)", l)
            self.err(name, m.group(1) if m else 1, f"bash -n: {m.group(2) if m else l}")
        if self.args.no_shellcheck:
            return
        if shutil.which("shellcheck") is None:
            if self.args.require_shellcheck:
                self.err(name, 1, "shellcheck is not installed (--require-shellcheck)")
            return
        r = subprocess.run(["shellcheck", "--format=gcc", "--shell=bash", self.p(name)],
                           capture_output=True, text=True)
        for l in r.stdout.strip().splitlines():
            m = re.match(r".*?:(\d+):\d+: (\w+): (.*)", l)
            if not m:
                continue
            # shellcheck's errors and warnings are real problems in a generated
            # file; its notes and style remarks are warnings here.
            (self.err if m.group(2) in ("error", "warning") else self.warn)(
                name, m.group(1), f"shellcheck {m.group(2)}: {m.group(3)}")

    def shell_commands(self, text):
        """Logical lines (continuations joined) with their first line number."""
        out, cur, start = [], "", None
        for i, l in enumerate(text.splitlines(), 1):
            s = l.rstrip()
            if start is None:
                start = i
            if s.endswith("\\"):
                cur += s[:-1] + " "
                continue
            out.append((start, cur + s))
            cur, start = "", None
        return out

    def shell_megatron(self, name, text):
        """Megatron options written on a pretrain_gpt.py command line of a script."""
        for ln, cmd in self.shell_commands(text):
            if "pretrain_gpt.py" not in cmd or cmd.lstrip().startswith("#"):
                continue
            try:
                words = shlex.split(cmd, comments=True)
            except ValueError:
                continue
            idx = next(i for i, w in enumerate(words) if "pretrain_gpt.py" in w)
            self.megatron_names(name, ln, words[idx + 1:])

    def megatron_names(self, name, line, words, text=None):
        for w in words:
            if w.startswith("--"):
                opt = w.split("=", 1)[0]
                if opt not in self.mopts:
                    ln = line_of(text, opt) if text else line
                    self.err(name, ln, f"{opt}: not an option of Megatron-LM (data/launch/megatron_options.txt)")

    def torchrun_sh(self):
        name = "torchrun.sh"
        text = self.read(name)
        self.shell(name)
        self.shell_megatron(name, text)
        if "smoke_train.py" in text:
            return  # the --smoke variant: 2 processes on this host by design
        pl = self.plan
        for ln, cmd in self.shell_commands(text):
            if re.search(r"\b(torchrun|torch\.distributed\.run)\b", cmd) and not cmd.lstrip().startswith("#"):
                m = re.search(r"--nnodes[= ](\S+)", cmd)
                if m and as_int(m.group(1)) is not None:
                    self.agree(name, ln, "torchrun --nnodes", as_int(m.group(1)), pl and pl.nodes)
                m = re.search(r"--nproc[-_]per[-_]node[= ](\S+)", cmd)
                if m and as_int(m.group(1)) is not None:
                    self.agree(name, ln, "torchrun --nproc-per-node", as_int(m.group(1)), pl and pl.per_node())

    def slurm_sbatch(self):
        name = "slurm.sbatch"
        text = self.read(name)
        self.shell(name)
        self.shell_megatron(name, text)
        pl = self.plan
        for i, l in enumerate(text.splitlines(), 1):
            m = re.match(r"#SBATCH\s+--nodes[= ](\d+)", l)
            if m:
                self.agree(name, i, "#SBATCH --nodes", int(m.group(1)), pl and pl.nodes)
            m = re.match(r"#SBATCH\s+--gpus-per-node[= ](\d+)", l)
            if m:
                self.agree(name, i, "#SBATCH --gpus-per-node", int(m.group(1)), pl and pl.per_node())

    # ---- Megatron-LM
    def megatron_args(self):
        name = "megatron.args"
        text = self.read(name)
        words = text.split()
        self.megatron_names(name, 1, words, text)
        self.megatron_readback(name, megatron_opts_from_words(words), text)

    def megatron_readback(self, name, o, text):
        pl = self.plan
        if pl is None:
            return

        def ln(opt):
            return line_of(text, opt) if isinstance(text, str) else 1

        def size(opt, default=1):
            return as_int(o.get(opt, default))

        tp, pp, cp = size("--tensor-model-parallel-size"), size("--pipeline-model-parallel-size"), \
            size("--context-parallel-size")
        self.agree(name, ln("--tensor-model-parallel-size"), "tensor parallel (--tensor-model-parallel-size)", tp, pl.tp)
        self.agree(name, ln("--pipeline-model-parallel-size"), "pipeline parallel (--pipeline-model-parallel-size)", pp, pl.pp)
        self.agree(name, ln("--context-parallel-size"), "context parallel (--context-parallel-size)", cp, pl.cp)
        self.agree(name, ln("--expert-model-parallel-size"), "expert parallel (--expert-model-parallel-size)",
                   size("--expert-model-parallel-size"), pl.ep)
        if tp and pp and cp and pl.gpus:
            self.agree(name, 1, f"data parallel ({pl.gpus} GPUs / tp*pp*cp)", pl.gpus // (tp * pp * cp), pl.dp)
        self.agree(name, ln("--micro-batch-size"), "--micro-batch-size", size("--micro-batch-size"), pl.micro_batch)
        self.agree(name, ln("--global-batch-size"), "--global-batch-size", as_int(o.get("--global-batch-size")),
                   pl.global_batch)
        # ZeRO: Megatron's distributed optimizer shards the optimizer state
        # (ZeRO-1); stages 2 and 3 are its FSDP (--use-megatron-fsdp or
        # --use-torch-fsdp2 with --data-parallel-sharding-strategy).
        fsdp = "--use-megatron-fsdp" in o or "--use-torch-fsdp2" in o
        if fsdp:
            strat = o.get("--data-parallel-sharding-strategy", "optim_grads_params")
            zero = {"no_shard": 0, "optim": 1, "optim_grads": 2, "optim_grads_params": 3}.get(strat)
            what = f"ZeRO stage (FSDP, --data-parallel-sharding-strategy {strat})"
        else:
            zero = 1 if "--use-distributed-optimizer" in o else 0
            what = "ZeRO stage (" + ("--use-distributed-optimizer: ZeRO-1" if zero else "no --use-distributed-optimizer") + ")"
        self.agree(name, ln("--use-distributed-optimizer"), what, zero, pl.zero)
        gran = o.get("--recompute-granularity")
        rec = "full" if gran == "full" else "selective" if gran == "selective" or "--recompute-activations" in o else "none"
        self.agree(name, ln("--recompute"), "recompute", rec, pl.recompute)
        if rec == "full":
            # Partial recompute: Megatron-LM's block method with the plan's
            # layers per chunk; every layer: uniform, one layer per checkpoint.
            method = o.get("--recompute-method")
            layers = int(o.get("--recompute-num-layers") or 0)
            got = layers if method == "block" else 0
            self.agree(name, ln("--recompute-num-layers"), "recompute_layers", got, pl.recompute_layers)
        # Uneven first/last stages: --decoder-first/last-pipeline-num-layers
        # as the plan's layout gives them (0: the option is absent).
        for opt, key, want in (("--decoder-first-pipeline-num-layers", "first_stage_layers", pl.first_stage_layers),
                               ("--decoder-last-pipeline-num-layers", "last_stage_layers", pl.last_stage_layers)):
            self.agree(name, ln(opt), f"{key} ({opt})", as_int(o.get(opt, 0)), want)
        # The layout's own pipeline layout string, as given (the even split of
        # an uneven layer count writes one of its own).
        if pl.pipeline_layout:
            opt = "--pipeline-model-parallel-layout"
            self.agree(name, ln(opt), f"pipeline_layout ({opt})", o.get(opt), pl.pipeline_layout)
        if "--fp8-format" in o:
            prec = "fp8"
        elif "--bf16" in o:
            prec = "bf16"
        elif "--fp16" in o:
            prec = "fp16"
        else:
            prec = "fp32"
        self.agree(name, ln("--bf16"), "precision", prec, pl.precision)
        # CUDA graphs (Megatron-Core cuda_graph_impl, cuda_graph_modules):
        # transformer_engine or local per-layer graphs are `scoped` (with
        # --cuda-graph-modules naming parts; none named: the whole layer,
        # which the model does not price), full_iteration is `full`.
        impl = o.get("--cuda-graph-impl")
        if impl is None:
            impl = "local" if "--enable-cuda-graph" in o else "transformer_engine" if "--external-cuda-graph" in o else "none"
        modules = o.get("--cuda-graph-modules", o.get("--cuda-graph-scope"))
        graphs = {"none": "none", "full_iteration": "full"}.get(impl, "scoped")
        if graphs == "scoped" and not modules:
            graphs = "scoped (whole layers, --cuda-graph-modules empty)"
        self.agree(name, ln("--cuda-graph-impl"), "cuda_graphs (--cuda-graph-impl, --cuda-graph-modules)", graphs,
                   pl.cuda_graphs)
        if impl == "full_iteration" and "--no-check-for-nan-in-loss-and-grad" not in o:
            self.err(name, ln("--cuda-graph-impl"), "--cuda-graph-impl full_iteration needs "
                     "--no-check-for-nan-in-loss-and-grad (Megatron-LM validate_args asserts it)")
        self.agree(name, ln("--sequence-parallel"), "--sequence-parallel", "--sequence-parallel" in o,
                   pl.sp and pl.tp > 1)
        self.agree(name, ln("--optimizer-cpu-offload"), "optimizer offload (--optimizer-cpu-offload)",
                   "--optimizer-cpu-offload" in o, pl.offload)
        if pl.method in ("lora", "qlora"):
            self.err(name, 1, f"the plan is a {pl.method} fine-tune but these are full-parameter "
                              "Megatron-LM pretrain_gpt.py arguments (no adapter, nothing frozen)")
        self.agree(name, ln("--overlap-grad-reduce"), "--overlap-grad-reduce (the plan prices the gradient reduction overlapped)",
                   "--overlap-grad-reduce" in o, pl.overlap_grad_reduce)
        self.agree(name, ln("--overlap-param-gather"),
                   "--overlap-param-gather (the plan prices the weight all-gather "
                   + ("overlapped)" if pl.overlap_param_gather else "exposed)"),
                   "--overlap-param-gather" in o, pl.overlap_param_gather)

    # ---- DeepSpeed
    def deepspeed_json(self):
        name = "deepspeed.json"
        text = self.read(name)
        try:
            cfg = json.loads(text)
        except json.JSONDecodeError as e:
            self.err(name, e.lineno, f"JSON: {e.msg}")
            return
        sections = self.ds["sections"]

        def walk(obj, prefix):
            allowed = sections.get(prefix)
            for k, v in obj.items():
                key = f"{prefix}.{k}" if prefix else k
                if allowed is not None and k not in allowed:
                    self.err(name, line_of(text, f'"{k}"'),
                             f"{key}: not a DeepSpeed config key (data/launch/deepspeed_keys.json)")
                if isinstance(v, dict) and key in sections:
                    walk(v, key)

        walk(cfg, "")
        pl = self.plan
        if pl is None:
            return
        tbs, mbs = cfg.get("train_batch_size"), cfg.get("train_micro_batch_size_per_gpu")
        gas = cfg.get("gradient_accumulation_steps")
        self.agree(name, line_of(text, '"train_batch_size"'), "train_batch_size", tbs, pl.global_batch)
        self.agree(name, line_of(text, '"train_micro_batch_size_per_gpu"'), "train_micro_batch_size_per_gpu",
                   mbs, pl.micro_batch)
        if None not in (tbs, mbs, gas, pl.dp) and tbs != mbs * gas * pl.dp:
            self.err(name, line_of(text, '"gradient_accumulation_steps"'),
                     f"train_batch_size {tbs} != micro {mbs} x accumulation {gas} x data parallel {pl.dp}")
        zo = cfg.get("zero_optimization") or {}
        self.agree(name, line_of(text, '"stage"'), "zero_optimization.stage", zo.get("stage", 0), pl.zero)
        off = (zo.get("offload_optimizer") or {}).get("device", "none") not in ("none", None)
        self.agree(name, line_of(text, '"offload_optimizer"'), "optimizer offload", off, pl.offload)
        bf16 = bool((cfg.get("bf16") or cfg.get("bfloat16") or {}).get("enabled", False))
        fp16 = bool((cfg.get("fp16") or {}).get("enabled", False))
        prec = "fp16" if fp16 else "bf16" if bf16 else "fp32"
        want = "bf16" if pl.precision == "fp8" else pl.precision  # DeepSpeed has no FP8 training switch
        self.agree(name, line_of(text, '"bf16"'), "precision (bf16/fp16.enabled)", prec, want)

    # ---- torchtitan
    def torchtitan_toml(self):
        name = "torchtitan.toml"
        text = self.read(name)
        if tomllib is None:
            self.warn(name, 1, "tomllib missing (Python < 3.11): not parsed")
            return
        try:
            cfg = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            self.err(name, 1, f"TOML: {e}")
            return
        sections = self.tt["sections"]

        def typed(v, ann):
            kinds = {"int": int, "float": (int, float), "bool": bool, "str": str}
            if ann.startswith("Literal["):
                return v in ast.literal_eval("[" + ann[len("Literal["):].split("]")[0] + "]") or \
                    ("None" in ann and v is None)
            for part in [a.strip() for a in ann.split("|")]:
                if part.startswith("list"):
                    if isinstance(v, list):
                        return True
                elif part in kinds:
                    if isinstance(v, bool) and part != "bool":
                        continue
                    if isinstance(v, kinds[part]):
                        return True
                elif part.startswith("Literal["):
                    if typed(v, part):
                        return True
                else:
                    return True  # a type the data does not spell out
            return False

        def walk(obj, prefix):
            for k, v in obj.items():
                key = f"{prefix}.{k}" if prefix else k
                if isinstance(v, dict):
                    if key not in sections:
                        self.err(name, line_of(text, f"[{key}]"), f"[{key}]: not a torchtitan job-config section")
                    else:
                        walk(v, key)
                    continue
                if prefix == "" or prefix not in sections:
                    self.err(name, line_of(text, k), f"{key}: a key outside any torchtitan section")
                elif k not in sections[prefix]:
                    self.err(name, line_of(text, k + " "), f"{key}: not a key of [{prefix}] in torchtitan's job config")
                elif not typed(v, sections[prefix][k]):
                    self.err(name, line_of(text, k + " "), f"{key} = {v!r}: torchtitan expects {sections[prefix][k]}")

        walk(cfg, "")
        pl = self.plan
        if pl is None:
            return
        par = cfg.get("parallelism", {})

        def deg(k):
            return par.get(k, 1)

        ln = lambda k: line_of(text, k)  # noqa: E731
        self.agree(name, ln("tensor_parallel_degree"), "parallelism.tensor_parallel_degree", deg("tensor_parallel_degree"), pl.tp)
        self.agree(name, ln("pipeline_parallel_degree"), "parallelism.pipeline_parallel_degree", deg("pipeline_parallel_degree"), pl.pp)
        self.agree(name, ln("context_parallel_degree"), "parallelism.context_parallel_degree", deg("context_parallel_degree"), pl.cp)
        self.agree(name, ln("expert_parallel_degree"), "parallelism.expert_parallel_degree", deg("expert_parallel_degree"), pl.ep)
        shard, rep = par.get("data_parallel_shard_degree", -1), deg("data_parallel_replicate_degree")
        if shard == -1 and pl.gpus:
            shard = pl.gpus // (pl.tp * pl.pp * pl.cp * rep)
        self.agree(name, ln("data_parallel_shard_degree"), "data parallel (shard x replicate degree)", shard * rep, pl.dp)
        if shard > 1:
            zero = 2 if par.get("fsdp_reshard_after_forward") == "never" else 3
        else:
            zero = 0
        self.agree(name, ln("data_parallel_shard_degree"), "ZeRO/FSDP stage (FSDP2 shards over data_parallel_shard_degree)", zero, pl.zero)
        mode = cfg.get("activation_checkpoint", {}).get("mode", "selective")
        self.agree(name, ln("mode"), "activation_checkpoint.mode", {"memory_budget": "selective"}.get(mode, mode), pl.recompute)
        tr = cfg.get("training", {})
        self.agree(name, ln("local_batch_size"), "training.local_batch_size", tr.get("local_batch_size", 8), pl.micro_batch)
        self.agree(name, ln("global_batch_size"), "training.global_batch_size", tr.get("global_batch_size", -1), pl.global_batch)
        fp8 = "float8" in (cfg.get("model", {}).get("converters") or [])
        prec = "fp8" if fp8 else {"bfloat16": "bf16", "float32": "fp32"}.get(tr.get("mixed_precision_param", "bfloat16"))
        self.agree(name, ln("mixed_precision_param"), "precision (model.converters, training.mixed_precision_param)", prec, pl.precision)
        # torchtitan's [compile] has no mode key: a plan that credits CUDA
        # graphs must say the file does not switch them on.
        if pl.cuda_graphs != "none" and "NOT IN THESE FILES: cuda_graphs" not in text:
            self.err(name, 1, f"the plan prices cuda_graphs {pl.cuda_graphs} but torchtitan's TOML cannot "
                              "switch CUDA graphs on and no 'NOT IN THESE FILES: cuda_graphs' note says so")

    # ---- Kubernetes
    def k8s(self, name):
        text = self.read(name)
        if yaml is None:
            self.warn(name, 1, "python3-yaml missing: not parsed")
            return
        try:
            docs = [d for d in yaml.safe_load_all(text) if d is not None]
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            self.err(name, mark.line + 1 if mark else 1, f"YAML: {e}")
            return
        try:
            nodes = list(yaml.compose_all(text))
        except yaml.YAMLError:
            nodes = []
        for n, doc in enumerate(docs):
            self.lines = yaml_lines(nodes[n]) if n < len(nodes) else {}
            key = (doc.get("apiVersion"), doc.get("kind"))
            schema = self.crds.get(key)
            if schema is None:
                self.err(name, line_of(text, "kind:"), f"apiVersion {key[0]} kind {key[1]}: no CRD schema for it in data/launch/crd/")
                continue
            self.schema(name, text, doc, schema, "")
            for k in (doc.get("metadata") or {}):
                if k not in OBJECT_META:
                    self.err(name, self.at(text, f"metadata.{k}"), f"metadata.{k}: not an ObjectMeta field")
            self.k8s_readback(name, text, doc)

    def at(self, text, path):
        """Line of a YAML path (from the composed nodes), else of its last key."""
        if path in self.lines:
            return self.lines[path]
        leaf = path.rsplit(".", 1)[-1].split("[")[0]
        return line_of(text, leaf + ":")

    def schema(self, name, text, v, s, path):
        t = s.get("type")
        where = path or "(root)"
        if "anyOf" in s and s.get("x-kubernetes-int-or-string"):
            if not isinstance(v, (int, str)) or isinstance(v, bool):
                self.err(name, self.at(text, path), f"{where}: must be an integer or a string")
            return
        if s.get("x-kubernetes-int-or-string"):
            if not isinstance(v, (int, str)) or isinstance(v, bool):
                self.err(name, self.at(text, path), f"{where}: must be an integer or a string")
            return
        if v is None:
            if not s.get("nullable"):
                self.err(name, self.at(text, path), f"{where}: null where the CRD wants {t}")
            return
        ok = {"object": isinstance(v, dict), "array": isinstance(v, list),
              "string": isinstance(v, str),
              "integer": isinstance(v, int) and not isinstance(v, bool),
              "number": isinstance(v, (int, float)) and not isinstance(v, bool),
              "boolean": isinstance(v, bool)}.get(t, True)
        if not ok:
            self.err(name, self.at(text, path), f"{where}: {type(v).__name__} {v!r:.40} where the CRD wants {t}")
            return
        if "enum" in s and v not in s["enum"]:
            self.err(name, self.at(text, path), f"{where}: {v!r} is not one of {s['enum']}")
        if isinstance(v, dict):
            props = s.get("properties")
            for r in s.get("required", []):
                if r not in v:
                    self.err(name, self.at(text, path), f"{where}: required field {r} missing")
            for k, sub in v.items():
                kp = f"{path}.{k}" if path else k
                if props is not None and k in props:
                    self.schema(name, text, sub, props[k], kp)
                elif isinstance(s.get("additionalProperties"), dict):
                    self.schema(name, text, sub, s["additionalProperties"], kp)
                elif props is not None and not s.get("x-kubernetes-preserve-unknown-fields") \
                        and not s.get("additionalProperties") and not (path == "" and k in ("apiVersion", "kind", "metadata")):
                    self.err(name, self.at(text, kp), f"{kp}: unknown field (not in the CRD schema)")
        elif isinstance(v, list) and isinstance(s.get("items"), dict):
            for i, item in enumerate(v):
                self.schema(name, text, item, s["items"], f"{path}[{i}]")

    def k8s_readback(self, name, text, doc):
        pl = self.plan
        spec = doc.get("spec") or {}
        containers = []
        if doc["kind"] == "PyTorchJob":
            reps = spec.get("pytorchReplicaSpecs") or {}
            nodes = sum(int((r or {}).get("replicas", 1)) for r in reps.values())
            if pl:
                self.agree(name, line_of(text, "replicas:"), "Master + Worker replicas (nodes)", nodes, pl.nodes)
                self.agree(name, line_of(text, "nprocPerNode"), "spec.nprocPerNode", as_int(spec.get("nprocPerNode")),
                           pl.per_node())
            for r in reps.values():
                containers += (((r or {}).get("template") or {}).get("spec") or {}).get("containers") or []
        elif doc["kind"] == "TrainJob":
            tr = spec.get("trainer") or {}
            if pl:
                self.agree(name, line_of(text, "numNodes:"), "spec.trainer.numNodes", tr.get("numNodes"), pl.nodes)
                if "numProcPerNode" in tr:
                    self.agree(name, line_of(text, "numProcPerNode"), "spec.trainer.numProcPerNode",
                               as_int(tr.get("numProcPerNode")), pl.per_node())
                gpus = (((tr.get("resourcesPerNode") or {}).get("limits") or {}).get("nvidia.com/gpu"))
                if gpus is not None:
                    self.agree(name, line_of(text, "nvidia.com/gpu"), "resourcesPerNode nvidia.com/gpu",
                               as_int(gpus), pl.per_node())
            containers.append({"command": tr.get("command") or [], "args": tr.get("args") or []})
        for c in containers:
            words = [str(w) for w in (c.get("command") or []) + (c.get("args") or [])]
            idx = next((i for i, w in enumerate(words) if "pretrain_gpt.py" in w), None)
            if idx is not None:
                self.megatron_names(name, 1, words[idx + 1:], text)
            gpus = ((c.get("resources") or {}).get("limits") or {}).get("nvidia.com/gpu")
            if pl and gpus is not None:
                self.agree(name, line_of(text, "nvidia.com/gpu"), "container nvidia.com/gpu", as_int(gpus), pl.per_node())

    # ---- other YAML files (accelerate, PEFT/TRL, torchtune): parse + readback
    def load_yaml(self, name):
        text = self.read(name)
        if yaml is None:
            self.warn(name, 1, "python3-yaml missing: not parsed")
            return None, text
        try:
            return yaml.safe_load(text) or {}, text
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            self.err(name, mark.line + 1 if mark else 1, f"YAML: {e}")
            return None, text

    def accelerate_yaml(self):
        name = "accelerate_fsdp.yaml"
        cfg, text = self.load_yaml(name)
        pl = self.plan
        if cfg is None or pl is None:
            return
        ln = lambda k: line_of(text, k)  # noqa: E731
        if "num_machines" in cfg:
            self.agree(name, ln("num_machines"), "num_machines", cfg["num_machines"], pl.nodes)
        if "num_processes" in cfg:
            self.agree(name, ln("num_processes"), "num_processes", cfg["num_processes"], pl.gpus)
        dist = cfg.get("distributed_type")
        fc = cfg.get("fsdp_config") or {}
        if dist == "FSDP":
            strat = str(fc.get("fsdp_sharding_strategy", "FULL_SHARD"))
            zero = {"FULL_SHARD": 3, "1": 3, "SHARD_GRAD_OP": 2, "2": 2, "NO_SHARD": 0, "3": 0,
                    "HYBRID_SHARD": 3, "4": 3, "HYBRID_SHARD_ZERO2": 2, "5": 2}.get(strat)
            if str(fc.get("fsdp_version", 1)) == "2" and "fsdp_reshard_after_forward" in fc:
                zero = 3 if fc["fsdp_reshard_after_forward"] in (True, "true", "FULL_SHARD") else 2
            self.agree(name, ln("fsdp_"), "ZeRO/FSDP stage", zero, pl.zero)
            # Beside a TRL/PEFT config the recompute is its gradient_checkpointing
            # (checked there); FSDP's own checkpointing stays off so the two do
            # not wrap the same layers twice.
            if not os.path.exists(self.p("finetune_peft.yaml")):
                ckpt = bool(fc.get("fsdp_activation_checkpointing", False))
                self.agree(name, ln("fsdp_activation_checkpointing"),
                           "recompute (fsdp_activation_checkpointing)", ckpt, pl.recompute != "none")
            if "fsdp_offload_params" in fc:
                self.agree(name, ln("fsdp_offload_params"), "offload (fsdp_offload_params)",
                           bool(fc["fsdp_offload_params"]), pl.offload)
        elif pl.zero >= 2:
            self.err(name, ln("distributed_type"), f"distributed_type {dist}, the plan shards at ZeRO-{pl.zero} (FSDP)")
        mp = cfg.get("mixed_precision", "no")
        want = {"bf16": "bf16", "fp16": "fp16", "fp8": "fp8", "fp32": "no"}.get(pl.precision)
        self.agree(name, ln("mixed_precision"), "mixed_precision", mp, want)

    def peft_yaml(self):
        name = "finetune_peft.yaml"
        cfg, text = self.load_yaml(name)
        pl = self.plan
        if cfg is None or pl is None:
            return
        ln = lambda k: line_of(text, k)  # noqa: E731
        mb = cfg.get("per_device_train_batch_size")
        gas = cfg.get("gradient_accumulation_steps", 1)
        self.agree(name, ln("per_device_train_batch_size"), "per_device_train_batch_size", mb, pl.micro_batch)
        if mb is not None and pl.dp:
            self.agree(name, ln("gradient_accumulation_steps"), "global batch (micro x accumulation x dp)",
                       mb * gas * pl.dp, pl.global_batch)
        method = "qlora" if cfg.get("load_in_4bit") else "lora" if cfg.get("use_peft") or "lora_r" in cfg else "full"
        self.agree(name, ln("use_peft"), "fine-tuning method (use_peft, load_in_4bit)", method, pl.method)
        if pl.lora_rank and "lora_r" in cfg:
            self.agree(name, ln("lora_r"), "lora_r", cfg["lora_r"], pl.lora_rank)
        self.agree(name, ln("gradient_checkpointing"), "recompute (gradient_checkpointing)",
                   bool(cfg.get("gradient_checkpointing", False)), pl.recompute != "none")
        prec = "bf16" if cfg.get("bf16") else "fp16" if cfg.get("fp16") else "fp32"
        self.agree(name, ln("bf16"), "precision (bf16/fp16)", prec, "bf16" if pl.precision == "fp8" else pl.precision)

    def torchtune_yaml(self):
        name = "torchtune.yaml"
        cfg, text = self.load_yaml(name)
        pl = self.plan
        if cfg is None or pl is None:
            return
        ln = lambda k: line_of(text, k)  # noqa: E731
        mb = cfg.get("batch_size")
        gas = cfg.get("gradient_accumulation_steps", 1)
        self.agree(name, ln("batch_size"), "batch_size (per device)", mb, pl.micro_batch)
        if mb is not None and pl.dp:
            self.agree(name, ln("gradient_accumulation_steps"), "global batch (batch_size x accumulation x dp)",
                       mb * gas * pl.dp, pl.global_batch)
        comp = str((cfg.get("model") or {}).get("_component_", ""))
        method = "qlora" if "qlora" in comp else "lora" if "lora" in comp else "full"
        self.agree(name, ln("_component_"), "fine-tuning method (model._component_)", method, pl.method)
        if pl.lora_rank and "lora_rank" in (cfg.get("model") or {}):
            self.agree(name, ln("lora_rank"), "model.lora_rank", cfg["model"]["lora_rank"], pl.lora_rank)
        self.agree(name, ln("enable_activation_checkpointing"), "recompute (enable_activation_checkpointing)",
                   bool(cfg.get("enable_activation_checkpointing", False)), pl.recompute != "none")
        prec = {"bf16": "bf16", "fp32": "fp32", "fp16": "fp16"}.get(str(cfg.get("dtype", "bf16")))
        self.agree(name, ln("dtype"), "dtype", prec, "bf16" if pl.precision == "fp8" else pl.precision)

    def python(self, name):
        text = self.read(name)
        try:
            compile(text, self.p(name), "exec")
        except SyntaxError as e:
            self.err(name, e.lineno, f"Python: {e.msg}")

    def plan_json(self):
        try:
            json.loads(self.read("plan.json"))
        except json.JSONDecodeError as e:
            self.err("plan.json", e.lineno, f"JSON: {e.msg}")

    def run(self, expect):
        handlers = {
            "megatron.args": self.megatron_args,
            "torchrun.sh": self.torchrun_sh,
            "slurm.sbatch": self.slurm_sbatch,
            "deepspeed.json": self.deepspeed_json,
            "pytorchjob.yaml": lambda: self.k8s("pytorchjob.yaml"),
            "trainjob.yaml": lambda: self.k8s("trainjob.yaml"),
            "torchtitan.toml": self.torchtitan_toml,
            "accelerate_fsdp.yaml": self.accelerate_yaml,
            "finetune_peft.yaml": self.peft_yaml,
            "torchtune.yaml": self.torchtune_yaml,
            "smoke_train.py": lambda: self.python("smoke_train.py"),
            "plan.json": self.plan_json,
        }
        present = sorted(os.listdir(self.dir))
        for f in expect or []:
            if f not in present:
                self.rep.error(self.p(f), 1, "expected launch file is missing")
        if expect is not None:
            for f in present:
                if f not in expect:
                    self.rep.error(self.p(f), 1, "launch file not in the expected set")
        checked = []
        for f in present:
            if f in handlers:
                handlers[f]()
                checked.append(f)
            elif f.endswith((".sh", ".sbatch")):
                self.shell(f)
                checked.append(f)
            elif f.endswith(".py"):
                self.python(f)
                checked.append(f)
            else:
                self.rep.warn(self.p(f), 1, "no check for this file")
        return checked


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", help="the folder plan --emit wrote")
    ap.add_argument("--plan-json", help="the plan (scaleout plan --format json); default DIR/plan.json")
    ap.add_argument("--input", help="the plan's input YAML (workload facts; with --scaleout: the plan)")
    ap.add_argument("--scaleout", help="scaleout binary to run `plan --format json` with when there is no plan JSON")
    ap.add_argument("--expect", help="comma-separated file names that must be there, and nothing else")
    ap.add_argument("--data", default=DATA, help="the option lists (default: data/launch)")
    ap.add_argument("--no-shellcheck", action="store_true")
    ap.add_argument("--require-shellcheck", action="store_true")
    a = ap.parse_args()
    rep = Report()
    if not os.path.isdir(a.dir):
        rep.error(a.dir, 1, "no such folder")
        return 1
    plan, src = load_plan(a, a.dir, rep)
    if plan is None:
        rep.warn(a.dir, 1, "no plan JSON (DIR/plan.json, --plan-json, or --scaleout with --input): no readback")
    expect = [x for x in a.expect.split(",") if x] if a.expect else None
    checked = Checker(a.dir, plan, src, rep, a).run(expect)
    print(f"check_launch: {a.dir}: {len(checked)} files checked ({', '.join(checked)})"
          f"{', plan from ' + src if src else ''}: {rep.errors} errors, {rep.warnings} warnings")
    return 1 if rep.errors else 0


if __name__ == "__main__":
    sys.exit(main())
