#!/usr/bin/env python3
"""The checker itself (ctest launch.checker): a small hand-written emit folder
of every kind of file passes scripts/check_launch.py with no error, and each
defect planted in a copy of it is reported with the expected message."""

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECKER = os.path.join(ROOT, "scripts", "check_launch.py")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import check_launch  # noqa: E402

PLAN = {
    "recommended": {"nodes": 2, "gpus": 16, "global_batch": 64,
                    "layout": {"tp": 2, "pp": 1, "dp": 8, "cp": 1, "ep": 1, "sp": True, "micro_batch": 2,
                               "zero": 3, "recompute": "selective", "offload": False}},
    "workload": {"precision": "bf16", "framework": "megatron", "task": "pretrain"},
}

MEGATRON = """--tensor-model-parallel-size 2
--pipeline-model-parallel-size 1
--context-parallel-size 1
--micro-batch-size 2
--global-batch-size 64
--num-layers 4
--sequence-parallel
--recompute-activations
--use-megatron-fsdp
--data-parallel-sharding-strategy optim_grads_params
--overlap-grad-reduce
--bf16
"""

TORCHRUN = """#!/usr/bin/env bash
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
args=()
while read -r -a words; do args+=("${words[@]}"); done < "$here/megatron.args"
exec torchrun \\
  --nnodes=2 \\
  --nproc-per-node=8 \\
  /workspace/Megatron-LM/pretrain_gpt.py "${args[@]}" --seq-length 4096 "$@"
"""

SLURM = """#!/usr/bin/env bash
#SBATCH --nodes=2
#SBATCH --gpus-per-node=8
set -euo pipefail
srun bash "${SLURM_SUBMIT_DIR:-.}/torchrun.sh"
"""

DEEPSPEED = {"train_batch_size": 64, "train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 4,
             "zero_optimization": {"stage": 3}, "bf16": {"enabled": True}, "fp16": {"enabled": False},
             "gradient_clipping": 1.0}

TORCHTITAN = """[job]
dump_folder = "./outputs"

[model]
name = "llama3"
flavor = "8B"

[training]
local_batch_size = 2
global_batch_size = 64
seq_len = 4096
mixed_precision_param = "bfloat16"

[parallelism]
data_parallel_replicate_degree = 1
data_parallel_shard_degree = 8
tensor_parallel_degree = 2

[activation_checkpoint]
mode = "selective"
"""

PYTORCHJOB = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: scaleout-test
spec:
  nprocPerNode: "8"
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: example/image
              command: ["torchrun"]
              args: ["/workspace/Megatron-LM/pretrain_gpt.py", "--tensor-model-parallel-size", "2"]
              resources:
                limits:
                  nvidia.com/gpu: 8
    Worker:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: example/image
              resources:
                limits:
                  nvidia.com/gpu: 8
"""

TRAINJOB = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: scaleout-test
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    image: example/image
    numNodes: 2
    numProcPerNode: 8
    command: ["torchrun"]
    args: ["/workspace/Megatron-LM/pretrain_gpt.py", "--micro-batch-size", "2"]
    resourcesPerNode:
      limits:
        nvidia.com/gpu: 8
"""

GOOD = {
    "plan.json": json.dumps(PLAN, indent=1) + "\n",
    "megatron.args": MEGATRON,
    "torchrun.sh": TORCHRUN,
    "slurm.sbatch": SLURM,
    "deepspeed.json": json.dumps(DEEPSPEED, indent=2) + "\n",
    "torchtitan.toml": TORCHTITAN,
    "pytorchjob.yaml": PYTORCHJOB,
    "trainjob.yaml": TRAINJOB,
}

# (file, text to replace, replacement, substring the checker must print)
DEFECTS = [
    ("megatron.args", "--num-layers 4", "--num-layer 4", "--num-layer: not an option of Megatron-LM"),
    ("megatron.args", "--tensor-model-parallel-size 2", "--tensor-model-parallel-size 4",
     "tensor parallel (--tensor-model-parallel-size) is 4, the plan has 2"),
    ("megatron.args", "--overlap-grad-reduce\n", "", "--overlap-grad-reduce (the plan prices the gradient reduction overlapped): missing"),
    ("megatron.args", "--bf16", "--fp16", "precision is fp16, the plan has bf16"),
    ("megatron.args", "--recompute-activations", "--recompute-granularity full", "recompute is full, the plan has selective"),
    # CUDA graphs (workload cuda_graphs): switched on where the plan credits
    # them, off where it does not, with the options full_iteration needs.
    ("plan.json", '"task": "pretrain"', '"task": "pretrain", "cuda_graphs": "full"',
     "cuda_graphs (--cuda-graph-impl, --cuda-graph-modules) is none, the plan has full"),
    ("plan.json", '"task": "pretrain"', '"task": "pretrain", "cuda_graphs": "full"',
     "the plan prices cuda_graphs full but torchtitan's TOML cannot switch CUDA graphs on"),
    ("megatron.args", "--bf16\n", "--bf16\n--cuda-graph-impl transformer_engine\n--cuda-graph-modules attn mlp\n",
     "cuda_graphs (--cuda-graph-impl, --cuda-graph-modules) is scoped, the plan has none"),
    ("megatron.args", "--bf16\n", "--bf16\n--cuda-graph-impl full_iteration\n",
     "--cuda-graph-impl full_iteration needs --no-check-for-nan-in-loss-and-grad"),
    ("megatron.args", "--use-megatron-fsdp\n--data-parallel-sharding-strategy optim_grads_params",
     "--use-distributed-optimizer", "ZeRO stage (--use-distributed-optimizer: ZeRO-1) is 1, the plan has 3"),
    ("megatron.args", "optim_grads_params", "optim_grads",
     "ZeRO stage (FSDP, --data-parallel-sharding-strategy optim_grads) is 2, the plan has 3"),
    ("torchrun.sh", "--seq-length 4096", "--seq-lenght 4096", "--seq-lenght: not an option of Megatron-LM"),
    ("torchrun.sh", "--nnodes=2", "--nnodes=3", "torchrun --nnodes is 3, the plan has 2"),
    ("torchrun.sh", 'exec torchrun', 'if then\nexec torchrun', "bash -n"),
    ("slurm.sbatch", "--gpus-per-node=8", "--gpus-per-node=4", "#SBATCH --gpus-per-node is 4, the plan has 8"),
    ("slurm.sbatch", 'srun bash "${SLURM_SUBMIT_DIR:-.}/torchrun.sh"', 'srun bash $undefined_thing',
     "shellcheck warning"),
    ("deepspeed.json", '"gradient_clipping"', '"gradient_clip"', "gradient_clip: not a DeepSpeed config key"),
    ("deepspeed.json", '"stage": 3', '"stage": 3, "overlap_comms": true',
     "zero_optimization.overlap_comms: not a DeepSpeed config key"),
    ("deepspeed.json", '"gradient_accumulation_steps": 4', '"gradient_accumulation_steps": 2',
     "train_batch_size 64 != micro 2 x accumulation 2 x data parallel 8"),
    ("deepspeed.json", '"stage": 3', '"stage": 1', "zero_optimization.stage is 1, the plan has 3"),
    ("deepspeed.json", '"train_batch_size": 64,', '"train_batch_size": 64', "JSON:"),
    ("torchtitan.toml", "seq_len = 4096", "seq_length = 4096", "training.seq_length: not a key of [training]"),
    ("torchtitan.toml", "[activation_checkpoint]", "[activation_checkpointing]",
     "[activation_checkpointing]: not a torchtitan job-config section"),
    ("torchtitan.toml", "tensor_parallel_degree = 2", 'tensor_parallel_degree = "2"',
     "parallelism.tensor_parallel_degree = '2': torchtitan expects int"),
    ("torchtitan.toml", 'mode = "selective"', 'mode = "full"', "activation_checkpoint.mode is full, the plan has selective"),
    ("torchtitan.toml", "data_parallel_shard_degree = 8", "data_parallel_shard_degree = 8\nfsdp_reshard_after_forward = \"never\"",
     "ZeRO/FSDP stage (FSDP2 shards over data_parallel_shard_degree) is 2, the plan has 3"),
    ("torchtitan.toml", "local_batch_size = 2", "local_batch_size = 1", "training.local_batch_size is 1, the plan has 2"),
    ("pytorchjob.yaml", "      restartPolicy: OnFailure\n      template:\n        spec:\n          containers:\n"
                        "            - name: pytorch\n              image: example/image\n              command",
     "      restartPolicy: OnFailure\n      backoffLimit: 3\n      template:\n        spec:\n          containers:\n"
     "            - name: pytorch\n              image: example/image\n              command",
     "spec.pytorchReplicaSpecs.Master.backoffLimit: unknown field"),
    ("pytorchjob.yaml", "      replicas: 1\n      restartPolicy: OnFailure\n      template:\n        spec:\n"
                        "          containers:\n            - name: pytorch\n              image: example/image\n"
                        "              resources",
     '      replicas: "1"\n      restartPolicy: OnFailure\n      template:\n        spec:\n'
     "          containers:\n            - name: pytorch\n              image: example/image\n"
     "              resources",
     "spec.pytorchReplicaSpecs.Worker.replicas: str '1' where the CRD wants integer"),
    ("pytorchjob.yaml", '"--tensor-model-parallel-size"', '"--tensor-parallel-size"',
     "--tensor-parallel-size: not an option of Megatron-LM"),
    ("pytorchjob.yaml", "apiVersion: kubeflow.org/v1", "apiVersion: kubeflow.org/v2",
     "apiVersion kubeflow.org/v2 kind PyTorchJob: no CRD schema"),
    ("trainjob.yaml", "numNodes: 2", "numNodes: two", "spec.trainer.numNodes: str 'two' where the CRD wants integer"),
    ("trainjob.yaml", "    numNodes: 2", "    numNodes: 2\n    nodes: 2", "spec.trainer.nodes: unknown field"),
    ("trainjob.yaml", "  runtimeRef:\n    name: torch-distributed\n", "", "spec: required field runtimeRef missing"),
    ("trainjob.yaml", "numNodes: 2", "numNodes: 4", "spec.trainer.numNodes is 4, the plan has 2"),
    ("trainjob.yaml", "  name: scaleout-test", "  name: scaleout-test\n  label: x", "metadata.label: not an ObjectMeta field"),
]


def write(d, files):
    os.makedirs(d, exist_ok=True)
    for name, text in files.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)


def run(d, extra=(), shellcheck=False):
    """The checker on d; shellcheck (slow: about a second a file) only where asked and installed."""
    sc = "--require-shellcheck" if shellcheck and shutil.which("shellcheck") else "--no-shellcheck"
    out = io.StringIO()
    argv = sys.argv
    sys.argv = [CHECKER, d, sc, *extra]
    try:
        with contextlib.redirect_stdout(out):
            rc = check_launch.main()  # in-process: one interpreter start for all the runs
    finally:
        sys.argv = argv
    return rc, out.getvalue()


def main():
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        good = os.path.join(tmp, "good")
        write(good, GOOD)
        rc, out = run(good, ["--expect", ",".join(sorted(GOOD))], shellcheck=True)
        if rc != 0 or " 0 errors" not in out:
            print("FAIL: the good folder is not clean:\n" + out)
            failed += 1
        # A plan with CUDA graphs, switched on where the files can: clean too.
        graphs = dict(GOOD)
        graphs["plan.json"] = GOOD["plan.json"].replace('"task": "pretrain"',
                                                        '"task": "pretrain", "cuda_graphs": "scoped"')
        graphs["megatron.args"] = GOOD["megatron.args"] + \
            "--cuda-graph-impl transformer_engine\n--cuda-graph-modules attn mlp\n"
        graphs["torchtitan.toml"] = "# NOT IN THESE FILES: cuda_graphs scoped\n" + GOOD["torchtitan.toml"]
        write(os.path.join(tmp, "graphs"), graphs)
        rc, out = run(os.path.join(tmp, "graphs"))
        if rc != 0 or " 0 errors" not in out:
            print("FAIL: the folder with CUDA graphs switched on is not clean:\n" + out)
            failed += 1
        for i, (name, old, new, want) in enumerate(DEFECTS):
            if want == "shellcheck warning" and shutil.which("shellcheck") is None:
                continue
            assert old in GOOD[name], (name, old)
            files = dict(GOOD)
            files[name] = GOOD[name].replace(old, new, 1)
            d = os.path.join(tmp, f"bad{i}")
            write(d, files)
            rc, out = run(d, shellcheck=want.startswith("shellcheck"))
            if rc == 0 or want not in out:
                print(f"FAIL: {name}: {old!r} -> {new!r}: expected {want!r} and exit 1, got exit {rc}:\n{out}")
                failed += 1
        # The expected set: a missing file and an unexpected one.
        rc, out = run(good, ["--expect", "megatron.args,accelerate_fsdp.yaml"])
        for want in ("accelerate_fsdp.yaml:1: error: expected launch file is missing",
                     "trainjob.yaml:1: error: launch file not in the expected set"):
            if want not in out:
                print(f"FAIL: --expect: {want!r} not in:\n{out}")
                failed += 1
    print(f"checker self-test: {len(DEFECTS)} planted defects, {failed} failures")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
