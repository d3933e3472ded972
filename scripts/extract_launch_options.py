#!/usr/bin/env python3
"""Refresh the option-name data in data/launch/ from the upstream sources.

scripts/check_launch.py checks the files `scaleout plan --emit DIR` writes
against these lists. Each list is extracted from a git checkout (a bare git
directory is enough: files are read with `git show REV:PATH`) by reading the
Python sources' syntax trees (nothing is imported or run) or the CRD YAML:

  megatron   github:NVIDIA/Megatron-LM   megatron/training/arguments.py: every
             '--option' literal passed to add_argument, plus the options that
             ArgumentGroupFactory(Config, exclude=[...]) derives from the
             fields of a dataclass (field name with '_' -> '-'; a bool that
             defaults to anything but False becomes --no-NAME and
             --disable-NAME; metadata argparse_meta.arg_names wins; fields
             with init=False and excluded names are left out).
  deepspeed  github:deepspeedai/DeepSpeed  deepspeed/runtime/config.py and the
             modules it reads sections with: top-level keys are the
             constants looked up in a dict named param_dict (get_scalar_param,
             'in', [], .get); sections zero_optimization (and its offload_*),
             bf16, fp16 are the fields (and aliases) of their pydantic models.
  torchtitan github:pytorch/torchtitan  torchtitan/config/job_config.py (the
             TOML job config; torchtitan replaced it with Python configs after
             v0.2.2): sections are the JobConfig fields, keys and types the
             fields of each section's dataclass (nested dataclasses give
             dotted sections, e.g. quantize.linear.float8).
  crds       github:kubeflow/training-operator (v1 PyTorchJob) and
             github:kubeflow/trainer (v2 TrainJob): the CRD's openAPIV3Schema
             with descriptions removed.

Usage (the `fetch` tool or `git clone --bare` gives the git directories):
  scripts/extract_launch_options.py --out data/launch \
      --megatron /path/Megatron-LM.git --deepspeed /path/DeepSpeed.git \
      --torchtitan /path/torchtitan.git --torchtitan-rev v0.2.2 \
      --training-operator /path/training-operator.git --training-operator-rev release-1.9 \
      --trainer /path/trainer.git
Any source left out is not refreshed.
"""

import argparse
import ast
import json
import os
import subprocess
import sys

try:
    import yaml
except ImportError:  # only the CRD extraction needs it
    yaml = None


class Repo:
    def __init__(self, gitdir, rev, name):
        self.gitdir = gitdir
        self.name = name
        self.commit = self._git("rev-parse", rev + "^{commit}").strip()
        self.rev = rev
        self._cache = {}
        self._consts = {}

    def _git(self, *args):
        return subprocess.run(["git", "--git-dir", self.gitdir, *args], check=True,
                              capture_output=True, text=True).stdout

    def show(self, path):
        if path not in self._cache:
            try:
                self._cache[path] = self._git("show", f"{self.commit}:{path}")
            except subprocess.CalledProcessError as e:
                self._cache[path] = e
        got = self._cache[path]
        if isinstance(got, Exception):
            raise got
        return got

    def ls(self, prefix):
        return self._git("ls-tree", "-r", "--name-only", self.commit, prefix).split()

    def source(self, paths):
        return {"repository": f"github:{self.name}", "commit": self.commit, "paths": paths}


def header_lines(src, what):
    out = [f"# {what}",
           f"# Source: {src['repository']} at commit {src['commit']}",
           "# Files: " + ", ".join(src["paths"]),
           "# Extracted by scripts/extract_launch_options.py (names only, no code)."]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- Megatron-LM

def const_str(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def dataclass_index(repo, prefix="megatron/"):
    """class name -> (ClassDef, path) for every class under prefix."""
    idx = {}
    for path in repo.ls(prefix):
        if not path.endswith(".py") or "/tests/" in path:
            continue
        try:
            tree = ast.parse(repo.show(path))
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                idx.setdefault(node.name, (node, path))
    return idx


def base_name(b):
    if isinstance(b, ast.Name):
        return b.id
    if isinstance(b, ast.Attribute):
        return b.attr
    return None


def dataclass_fields(idx, name, seen=None):
    """Fields of a dataclass and its bases (base fields first), as dicts."""
    seen = seen or set()
    if name not in idx or name in seen:
        return [], []
    seen.add(name)
    cls, path = idx[name]
    fields, paths = [], [path]
    for b in cls.bases:
        bn = base_name(b)
        if bn:
            f, p = dataclass_fields(idx, bn, seen)
            fields += f
            paths += p
    for node in cls.body:
        if not isinstance(node, ast.AnnAssign) or not isinstance(node.target, ast.Name):
            continue
        ann = ast.unparse(node.annotation)
        if ann.startswith("ClassVar"):
            continue
        f = {"name": node.target.id, "ann": ann, "default": None, "has_default": False,
             "init": True, "arg_names": None}
        v = node.value
        if isinstance(v, ast.Call) and base_name(v.func) == "field":
            for kw in v.keywords:
                if kw.arg == "default":
                    f["default"], f["has_default"] = kw.value, True
                elif kw.arg == "init" and isinstance(kw.value, ast.Constant):
                    f["init"] = bool(kw.value.value)
                elif kw.arg == "metadata" and isinstance(kw.value, ast.Dict):
                    for k, mv in zip(kw.value.keys, kw.value.values):
                        if const_str(k) == "argparse_meta" and isinstance(mv, ast.Dict):
                            for k2, v2 in zip(mv.keys, mv.values):
                                if const_str(k2) == "arg_names" and isinstance(v2, (ast.List, ast.Tuple)):
                                    f["arg_names"] = [const_str(e) for e in v2.elts if const_str(e)]
        elif v is not None:
            f["default"], f["has_default"] = v, True
        fields = [x for x in fields if x["name"] != f["name"]] + [f]
    return fields, paths


def is_bool_ann(ann):
    return ann in ("bool", "Optional[bool]", "bool | None", "None | bool", "typing.Optional[bool]")


def factory_options(fields, exclude):
    opts = []
    for f in fields:
        if f["name"] in exclude or not f["init"]:
            continue
        if f["arg_names"]:
            opts += f["arg_names"]
            continue
        flag = "--" + f["name"].replace("_", "-")
        if is_bool_ann(f["ann"]):
            d = f["default"]
            if isinstance(d, ast.Constant) and d.value is False:
                opts.append(flag)
            else:
                n = f["name"].replace("_", "-")
                opts += [f"--no-{n}", f"--disable-{n}"]
        else:
            opts.append(flag)
    return opts


def extract_megatron(repo):
    path = "megatron/training/arguments.py"
    tree = ast.parse(repo.show(path))
    opts = set()
    idx = None
    paths = [path]
    # Names assigned a list of strings (e.g. exclude = [...]) inside each function.
    for func in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
        lists = {}
        for node in ast.walk(func):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.List):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        lists[t.id] = {const_str(e) for e in node.value.elts if const_str(e)}
        for node in ast.walk(func):
            if not isinstance(node, ast.Call):
                continue
            fname = base_name(node.func)
            if fname == "add_argument":
                for a in node.args:
                    s = const_str(a)
                    if s and s.startswith("--"):
                        opts.add(s)
            elif fname == "ArgumentGroupFactory" and node.args:
                cls = base_name(node.args[0])
                exclude = set()
                for kw in node.keywords:
                    if kw.arg == "exclude":
                        if isinstance(kw.value, ast.List):
                            exclude = {const_str(e) for e in kw.value.elts if const_str(e)}
                        elif isinstance(kw.value, ast.Name):
                            exclude = lists.get(kw.value.id, set())
                if idx is None:
                    idx = dataclass_index(repo)
                fields, fpaths = dataclass_fields(idx, cls)
                if not fields:
                    sys.exit(f"megatron: dataclass {cls} not found")
                paths += [p for p in fpaths if p not in paths]
                opts.update(factory_options(fields, exclude))
    return sorted(opts), repo.source(paths)


# ------------------------------------------------------------------ DeepSpeed

def module_constants(repo, path, seen=None):
    """UPPER_CASE = "str" constants of a module and the modules it imports from."""
    if path in repo._consts:
        return repo._consts[path]
    seen = seen if seen is not None else set()
    if path in seen:
        return {}
    seen.add(path)
    repo._consts[path] = consts = _module_constants(repo, path, seen)
    return consts


def _module_constants(repo, path, seen):
    path, text = show_module(repo, path)
    if text is None:
        return {}
    tree = ast.parse(text)
    consts = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            mod = resolve_module(path, node)
            if mod:
                consts.update(module_constants(repo, mod, seen))
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            s = const_str(node.value)
            if s is not None and node.targets[0].id.isupper():
                consts[node.targets[0].id] = s
    return consts


def resolve_module(path, node):
    """The file a `from X import ...` in path names, or None."""
    if node.level:
        base = os.path.dirname(path)
        for _ in range(node.level - 1):
            base = os.path.dirname(base)
        parts = [base] + (node.module.split(".") if node.module else [])
    elif node.module and node.module.startswith("deepspeed"):
        parts = node.module.split(".")
    else:
        return None
    return "/".join(x for x in parts if x) + ".py"


def show_module(repo, path):
    """Source of a module path (x/y.py, or the package x/y/__init__.py)."""
    try:
        return path, repo.show(path)
    except subprocess.CalledProcessError:
        init = path[:-3] + "/__init__.py"
        try:
            return init, repo.show(init)
        except subprocess.CalledProcessError:
            return None, None


def defining_module(repo, path, name, depth=0):
    """(path, tree) of the module that defines `name`, following re-exports."""
    path, text = show_module(repo, path)
    if text is None or depth > 4:
        return None, None
    tree = ast.parse(text)
    for node in tree.body:
        if node.__class__ in (ast.FunctionDef, ast.ClassDef) and node.name == name:
            return path, tree
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any(a.name == name for a in node.names):
            mod = resolve_module(path, node)
            if mod:
                return defining_module(repo, mod, name, depth + 1)
    return None, None


def key_of(node, consts):
    s = const_str(node)
    if s is not None:
        return s
    if isinstance(node, ast.Name):
        return consts.get(node.id)
    return None


def param_dict_keys(tree, consts, funcs=None, var="param_dict"):
    """Keys looked up directly in a dict named `var` (in the given functions)."""
    keys = set()

    def is_var(n):  # param_dict, or self._param_dict
        return (isinstance(n, ast.Name) and n.id == v) or \
            (isinstance(n, ast.Attribute) and n.attr == "_" + v)

    if funcs is None:
        scope = [f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)]
    else:  # the named functions, and the __init__ of the named classes
        scope = []
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name in funcs:
                scope.append(node)
            elif isinstance(node, ast.ClassDef) and node.name in funcs:
                scope += [f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"]
    for func in scope:
        v = var
        params = [a.arg for a in func.args.args if a.arg != "self"]
        if funcs is not None and params:
            v = params[0]  # an imported reader: its first parameter is the config dict
        # {k: param_dict.get(k, {}) for k in ("a", "b")}: the literal keys
        for n in ast.walk(func):
            if isinstance(n, (ast.DictComp, ast.ListComp, ast.SetComp, ast.GeneratorExp)):
                for g in n.generators:
                    if isinstance(g.iter, (ast.Tuple, ast.List)) and any(
                            isinstance(c, ast.Call) and base_name(c.func) == "get"
                            and isinstance(c.func, ast.Attribute) and is_var(c.func.value)
                            for c in ast.walk(n)):
                        keys.update(const_str(e) for e in g.iter.elts if const_str(e))
        # def reader(param_dict, comm_type=KEY, ...): keys given as defaults
        if params and params[0] == v:
            for d in func.args.defaults:
                if isinstance(d, ast.Name) and not d.id.endswith("_DEFAULT") and key_of(d, consts):
                    keys.add(key_of(d, consts))
        for n in ast.walk(func):
            if isinstance(n, ast.Call):
                fn = base_name(n.func)
                if n.args and is_var(n.args[0]) and not isinstance(n.func, ast.Attribute):
                    # get_scalar_param(param_dict, KEY, KEY_DEFAULT) and readers
                    # such as get_communication_data_type(param_dict, comm_type=KEY):
                    # the named constants passed beside the dict (not the defaults).
                    for a in n.args[1:] + [kw.value for kw in n.keywords]:
                        if isinstance(a, ast.Name) and not a.id.endswith("_DEFAULT"):
                            k = key_of(a, consts)
                            if k:
                                keys.add(k)
                        elif fn in ("get_scalar_param", "get_list_param", "get_dict_param") \
                                and a is n.args[1] and const_str(a):
                            keys.add(const_str(a))
                elif fn == "get" and isinstance(n.func, ast.Attribute) and is_var(n.func.value) and n.args:
                    k = key_of(n.args[0], consts)
                    if k:
                        keys.add(k)
            elif isinstance(n, ast.Subscript) and is_var(n.value):
                k = key_of(n.slice, consts)
                if k:
                    keys.add(k)
            elif isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.In, ast.NotIn)):
                c = n.comparators[0]
                if is_var(c) or (isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
                                 and is_var(c.func.value) and c.func.attr == "keys"):
                    k = key_of(n.left, consts)
                    if k:
                        keys.add(k)
    return keys


def pydantic_sections(idx, root, prefix, out):
    """Fields (and aliases) of a DeepSpeedConfigModel, nested models as sub-sections."""
    cls, _ = idx[root]
    keys = set()
    for node in cls.body:
        if not isinstance(node, ast.AnnAssign) or not isinstance(node.target, ast.Name):
            continue
        name = node.target.id
        keys.add(name)
        v = node.value
        if isinstance(v, ast.Call) and base_name(v.func) == "Field":
            for kw in v.keywords:
                if kw.arg == "alias" and const_str(kw.value):
                    keys.add(const_str(kw.value))
        for sub in ast.walk(node.annotation):
            if isinstance(sub, ast.Name) and sub.id in idx and sub.id != root:
                pydantic_sections(idx, sub.id, f"{prefix}.{name}" if prefix else name, out)
                for kw in (v.keywords if isinstance(v, ast.Call) else []):
                    if kw.arg == "alias" and const_str(kw.value):
                        pydantic_sections(idx, sub.id, f"{prefix}.{const_str(kw.value)}" if prefix
                                          else const_str(kw.value), out)
    out[prefix] = sorted(keys)


def extract_deepspeed(repo):
    cfg = "deepspeed/runtime/config.py"
    tree = ast.parse(repo.show(cfg))
    consts = module_constants(repo, cfg)
    top = param_dict_keys(tree, consts)
    paths = [cfg]
    # Section readers imported into config.py that take the whole param_dict.
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            mod = resolve_module(cfg, node)
            if not mod:
                continue
            for a in node.names:
                if not (a.name.startswith("get_") or a.name[:1].isupper()):
                    continue
                dpath, dtree = defining_module(repo, mod, a.name)
                if dtree is None:
                    continue
                got = param_dict_keys(dtree, module_constants(repo, dpath), funcs={a.name})
                if got:
                    top |= got
                    if dpath not in paths:
                        paths.append(dpath)
    # Pydantic models of the sections the plan writes.
    models = {}
    model_files = ["deepspeed/runtime/zero/config.py", "deepspeed/runtime/zero/offload_config.py",
                   "deepspeed/runtime/precision_config.py"]
    for path in model_files:
        for node in ast.parse(repo.show(path)).body:
            if isinstance(node, ast.ClassDef) and any(base_name(b) in ("DeepSpeedConfigModel",) or
                                                      base_name(b) in models for b in node.bases):
                models[node.name] = (node, path)
    sections = {}
    for section, cls in (("zero_optimization", "DeepSpeedZeroConfig"), ("bf16", "DeepSpeedBF16Config"),
                         ("fp16", "DeepSpeedFP16Config")):
        if cls not in models:
            sys.exit(f"deepspeed: model {cls} not found")
        pydantic_sections(models, cls, section, sections)
    paths += [p for p in model_files if p not in paths]
    sections[""] = sorted(top)
    # config_utils: DeepSpeedConfigModel forbids unknown keys inside a model?
    cu = repo.show("deepspeed/runtime/config_utils.py")
    forbid = 'extra="forbid"' in cu.replace("'", '"').replace(" ", "")
    return {"source": repo.source(paths + ["deepspeed/runtime/config_utils.py"]),
            "note": "Keys DeepSpeed reads. Top level (\"\"): unknown keys are ignored by DeepSpeed, "
                    "so a typo is silent; inside the pydantic sections unknown keys are "
                    + ("rejected (extra=forbid)." if forbid else "accepted."),
            "sections": dict(sorted(sections.items()))}


# ----------------------------------------------------------------- torchtitan

def extract_torchtitan(repo):
    path = "torchtitan/config/job_config.py"
    tree = ast.parse(repo.show(path))
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}

    def fields(cls):
        out = {}
        for node in cls.body:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                out[node.target.id] = ast.unparse(node.annotation)
        return out

    sections = {}

    def walk(cls_name, prefix):
        keys = {}
        for name, ann in fields(classes[cls_name]).items():
            if ann in classes:
                walk(ann, f"{prefix}.{name}" if prefix else name)
            else:
                keys[name] = ann
        if prefix:
            sections[prefix] = keys

    walk("JobConfig", "")
    return {"source": repo.source([path]),
            "note": "TOML job config (--job.config_file) sections, keys and annotated types. "
                    "torchtitan replaced TOML configs by Python config functions in commit "
                    "9810191bb (after v0.2.2); this is the last release that reads TOML.",
            "sections": dict(sorted(sections.items()))}


# ----------------------------------------------------------------------- CRDs

KEEP = {"type", "properties", "items", "additionalProperties", "required", "enum", "format",
        "x-kubernetes-int-or-string", "x-kubernetes-preserve-unknown-fields", "anyOf", "nullable",
        "minimum", "maximum"}


def compact_schema(s):
    out = {}
    for k, v in s.items():
        if k not in KEEP:
            continue
        if k == "properties":
            out[k] = {name: compact_schema(sub) for name, sub in v.items()}
        elif k in ("items", "additionalProperties") and isinstance(v, dict):
            out[k] = compact_schema(v)
        elif k == "anyOf":
            out[k] = [compact_schema(x) for x in v]
        else:
            out[k] = v
    return out


def extract_crd(repo, path):
    crd = yaml.safe_load(repo.show(path))
    versions = {}
    for v in crd["spec"]["versions"]:
        versions[v["name"]] = compact_schema(v["schema"]["openAPIV3Schema"])
    return {"source": repo.source([path]),
            "group": crd["spec"]["group"], "kind": crd["spec"]["names"]["kind"],
            "note": "openAPIV3Schema of each served version, descriptions and validation "
                    "messages removed.",
            "versions": versions}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="data/launch")
    ap.add_argument("--megatron")
    ap.add_argument("--megatron-rev", default="HEAD")
    ap.add_argument("--deepspeed")
    ap.add_argument("--deepspeed-rev", default="HEAD")
    ap.add_argument("--torchtitan")
    ap.add_argument("--torchtitan-rev", default="v0.2.2")
    ap.add_argument("--training-operator")
    ap.add_argument("--training-operator-rev", default="release-1.9")
    ap.add_argument("--trainer")
    ap.add_argument("--trainer-rev", default="HEAD")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)

    def dump(name, obj):
        with open(os.path.join(a.out, name), "w") as f:
            json.dump(obj, f, indent=1, sort_keys=False)
            f.write("\n")
        print("wrote", os.path.join(a.out, name))

    if a.megatron:
        repo = Repo(a.megatron, a.megatron_rev, "NVIDIA/Megatron-LM")
        opts, src = extract_megatron(repo)
        with open(os.path.join(a.out, "megatron_options.txt"), "w") as f:
            f.write(header_lines(src, "Megatron-LM command-line options (pretrain_gpt.py), one a line."))
            f.write("\n".join(opts) + "\n")
        print("wrote megatron_options.txt:", len(opts), "options")
    if a.deepspeed:
        dump("deepspeed_keys.json", extract_deepspeed(Repo(a.deepspeed, a.deepspeed_rev, "deepspeedai/DeepSpeed")))
    if a.torchtitan:
        dump("torchtitan_keys.json", extract_torchtitan(Repo(a.torchtitan, a.torchtitan_rev, "pytorch/torchtitan")))
    if a.training_operator or a.trainer:
        if yaml is None:
            sys.exit("the CRD extraction needs python3-yaml")
        os.makedirs(os.path.join(a.out, "crd"), exist_ok=True)
    if a.training_operator:
        repo = Repo(a.training_operator, a.training_operator_rev, "kubeflow/training-operator")
        dump("crd/pytorchjob.json", extract_crd(repo, "manifests/base/crds/kubeflow.org_pytorchjobs.yaml"))
    if a.trainer:
        repo = Repo(a.trainer, a.trainer_rev, "kubeflow/trainer")
        dump("crd/trainjob.json", extract_crd(repo, "manifests/base/crds/trainer.kubeflow.org_trainjobs.yaml"))


if __name__ == "__main__":
    main()
