// Launch files for the recommended plan (`scaleout plan --emit DIR`).
//
// Every option and key written here was checked against its tool's own
// reference:
// - Megatron-LM: megatron/training/arguments.py (NVIDIA/Megatron-LM, main):
//   --tensor-model-parallel-size, --pipeline-model-parallel-size,
//   --context-parallel-size, --expert-model-parallel-size,
//   --num-layers-per-virtual-pipeline-stage, --num-virtual-stages-per-pipeline-rank,
//   --decoder-first-pipeline-num-layers, --decoder-last-pipeline-num-layers,
//   --pipeline-model-parallel-layout, --micro-batch-size, --global-batch-size,
//   --train-iters (there is no --train-tokens: only --train-iters or
//   --train-samples), --seq-length, --max-position-embeddings (must be >=
//   seq-length), --num-layers, --hidden-size, --num-attention-heads,
//   --kv-channels, --group-query-attention, --num-query-groups, --ffn-hidden-size,
//   --swiglu, --normalization RMSNorm, --position-embedding-type,
//   --disable-bias-linear, --add-qkv-bias, --untie-embeddings-and-output-weights,
//   --attention-dropout, --hidden-dropout, --sequence-parallel,
//   --recompute-activations, --recompute-granularity, --recompute-method,
//   --recompute-num-layers, --use-distributed-optimizer, --optimizer-cpu-offload
//   (validate_args asserts --use-precision-aware-optimizer with it), --bf16,
//   --fp16, --fp8-format {e4m3,hybrid}, --transformer-impl transformer_engine,
//   --attention-backend {flash,fused,unfused,local,auto}, --num-experts,
//   --moe-router-topk, --moe-ffn-hidden-size, --moe-shared-expert-intermediate-size,
//   --moe-layer-freq, --moe-token-dispatcher-type, --moe-grouped-gemm,
//   --multi-latent-attention, --q-lora-rank, --kv-lora-rank.
//   Uneven pipeline splits: validate_args requires num_layers % pp == 0 and
//   (num_layers / pp) % layers-per-virtual-stage == 0 for
//   --num-layers-per-virtual-pipeline-stage; otherwise the first/last stage
//   sizes go in --decoder-first/last-pipeline-num-layers with
//   --num-virtual-stages-per-pipeline-rank (TransformerConfig: first, last and
//   per-middle-rank layers divisible by the virtual stages), or a
//   --pipeline-model-parallel-layout string (pipeline_parallel_layer_layout.py:
//   stages split by '|', E embedding, t decoder layer, L loss, x*n repeats;
//   order: virtual stage 0 of every pipeline rank, then virtual stage 1, ...).
//   Tensor or context parallelism before Blackwell asserts
//   CUDA_DEVICE_MAX_CONNECTIONS=1.
// - torchrun: docs.pytorch.org/docs/stable/elastic/run.html and the elastic
//   quickstart (--nnodes, --nproc-per-node, --rdzv-backend=c10d,
//   --rdzv-endpoint=host:port, --rdzv-id).
// - DeepSpeed: www.deepspeed.ai/docs/config-json/ (train_batch_size =
//   train_micro_batch_size_per_gpu * gradient_accumulation_steps * data-parallel
//   GPUs, zero_optimization.stage, zero_optimization.offload_optimizer.device
//   "cpu", bf16.enabled, fp16.enabled, gradient_clipping).
// - Slurm: sbatch(1) (--job-name, --nodes, --ntasks-per-node, --gpus-per-node,
//   --exclusive, --time days-hours:minutes:seconds), scontrol show hostnames.
// - Kubeflow training operator: PyTorchJob kubeflow.org/v1,
//   spec.pytorchReplicaSpecs.{Master,Worker} with replicas, restartPolicy and a
//   pod template whose container is named "pytorch", spec.nprocPerNode (a
//   string); the operator sets PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK,
//   PET_MASTER_ADDR and PET_MASTER_PORT, which torchrun reads. GPUs:
//   nvidia.com/gpu. RDMA: the resource name is set by the cluster's
//   k8s-rdma-shared-dev-plugin config (e.g. rdma/hca, rdma/rdma_shared_device_a);
//   EFA: vpc.amazonaws.com/efa (AWS EFA device plugin).
#include "report/launch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>

#include "core/ids.hpp"
#include "report/format.hpp"

namespace scaleout::report {

namespace {

constexpr const char* kPretrain = "pretrain_gpt.py";

const HardwareOption& hardware_of(const PlanReport& r, const PlanCandidate& c) {
  return r.request.hardware.at(static_cast<std::size_t>(c.hardware));
}

// Text from the input (ids, labels) for a comment line of any launch file:
// control and non-ASCII bytes escaped as \xNN and '\' doubled (printable()),
// so it never holds a line break (shell and YAML comments end there) and is
// ASCII. A valid id comes through unchanged.
std::string comment_text(std::string_view s) { return printable(s, 2 * kMaxIdLength); }

// A YAML double-quoted scalar: '"' and '\' escaped, every byte outside
// printable ASCII as \xNN (so the file stays ASCII and on one line).
std::string yaml_quoted(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    const auto u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (u < 0x20 || u >= 0x7f) {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

// Characters a word of megatron.args may hold. torchrun.sh reads the file with
// `read -r -a` (split on blanks, no quote removal, no expansion) and passes
// the words quoted, so quoting inside the file would reach Megatron-LM as
// literal quotes; instead every word is built from numbers and fixed option
// text, and this set is checked.
bool args_word_char(char ch) {
  const auto u = static_cast<unsigned char>(ch);
  return (u < 0x80 && std::isalnum(u)) ||
         std::string_view("-_.,:=+*/|()[]").find(ch) != std::string_view::npos;
}

// Lower-case letters, digits and '-', starting with "scaleout" and ending with
// a letter or digit, at most 63 characters: a Slurm job name, a Kubernetes
// object name (RFC 1123 label) and a word that needs no shell quoting.
std::string job_name(const PlanReport& r) {
  std::string id = r.request.workload.model.id.empty() ? "model" : r.request.workload.model.id;
  std::string out = "scaleout-";
  for (char ch : id) {
    const auto u = static_cast<unsigned char>(ch);
    out += u < 0x80 && std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '-';
  }
  if (out.size() > 63) out.resize(63);
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

long long train_iters(const PlanReport& r, const PlanCandidate& c) {
  const double per_step =
      static_cast<double>(c.global_batch) * static_cast<double>(r.request.workload.seq_len);
  const double iters = std::ceil(r.request.workload.tokens / per_step);
  // A plan has a positive token count and batch; anything else must not reach
  // a cast that is undefined for NaN or huge values.
  if (!(iters >= 0 && iters < 1e15)) {
    throw std::invalid_argument(fmt::format("launch files: {} training iterations", iters));
  }
  return static_cast<long long>(iters);
}

long long grad_accum(const PlanCandidate& c) {
  return c.global_batch / (static_cast<long long>(c.layout.micro_batch) * c.layout.dp);
}

// How the pipeline split is written: nothing (pp 1 or even without
// interleaving), layers per virtual stage, first/last stage sizes, or a layout string.
void pipeline_args(const ModelShape& m, const Layout& l, std::vector<std::string>& a) {
  const int layers = m.layers;
  const int pp = l.pp;
  const int v = std::max(1, l.interleave);
  if (pp <= 1) return;
  if (layers % pp == 0 && (layers / pp) % v == 0) {
    if (v > 1)
      a.push_back(fmt::format("--num-layers-per-virtual-pipeline-stage {}", layers / (pp * v)));
    return;
  }
  if (layers % v == 0) {
    // Middle ranks take a multiple of v layers; the first and last ranks (which
    // also hold the embedding and the loss) take the rest, at least v each.
    const int chunks = pp * v;
    int mid = v * ((layers + chunks - 1) / chunks);
    if (pp > 2 && layers - (pp - 2) * mid < 2 * v) mid = v * (layers / chunks);
    const int rest = layers - (pp - 2) * mid;
    const int first = v * (rest / (2 * v));
    const int last = rest - first;
    if (first >= v && last >= v && (pp == 2 || mid >= v)) {
      if (v > 1) a.push_back(fmt::format("--num-virtual-stages-per-pipeline-rank {}", v));
      a.push_back(fmt::format("--decoder-first-pipeline-num-layers {}", first));
      a.push_back(fmt::format("--decoder-last-pipeline-num-layers {}", last));
      return;
    }
  }
  // General case: one stage per (virtual stage, rank), listed virtual stage
  // by virtual stage; the first and last stages get the smaller share.
  const int chunks = pp * v;
  std::vector<int> n(static_cast<std::size_t>(chunks), layers / chunks);
  int extra = layers % chunks;
  for (int i = 1; i + 1 < chunks && extra > 0; ++i, --extra) ++n[static_cast<std::size_t>(i)];
  if (extra > 0) ++n.front(), --extra;
  if (extra > 0) ++n.back();
  std::string s;
  for (int i = 0; i < chunks; ++i) {
    if (i > 0) s += '|';
    if (i == 0) s += 'E';
    const int k = n[static_cast<std::size_t>(i)];
    if (k == 1) s += 't';
    if (k > 1) s += fmt::format("t*{}", k);
    if (i == chunks - 1) s += 'L';
  }
  a.push_back(fmt::format("--pipeline-model-parallel-layout {}", s));
}

std::string fabric_kind(const HardwareOption& hw) {
  // The server's own NICs are modelled at InfiniBand efficiency.
  return hw.fabric ? to_string(hw.fabric->kind) : "ib";
}

// The fabric's id as comment text, or what stands in for it.
std::string fabric_label(const HardwareOption& hw) {
  return hw.fabric ? comment_text(hw.fabric->id) : std::string("the server's own NICs");
}

// Slurm's days-hours:minutes:seconds of `s`, rounded up to whole minutes;
// `s` is at most kMaxSlurmTimeS.
std::string slurm_time(double s) {
  auto total = static_cast<long long>(std::ceil(s / 60.0)) * 60;  // whole minutes
  const long long d = total / 86400;
  total %= 86400;
  return fmt::format("{}-{:02}:{:02}:{:02}", d, total / 3600, (total % 3600) / 60, total % 60);
}

std::string header(const PlanReport& r, const PlanCandidate& c, const std::string& comment) {
  const HardwareOption& hw = hardware_of(r, c);
  const Layout& l = c.layout;
  std::string o;
  o +=
      fmt::format("{} Generated by scaleout plan: {} on {} x {} ({} x {}, {} GPUs), {}.\n", comment,
                  comment_text(r.request.workload.model.id), c.nodes, comment_text(hw.server.id),
                  hw.server.gpus_per_node, comment_text(hw.gpu.id), c.gpus(),
                  scaleup_domains(hw.server, c.nodes) > 1 ? fabric_label(hw)
                                                          : std::string("no scale-out network"));
  o += fmt::format(
      "{} Layout: tp {} pp {} dp {} cp {} ep {}, interleave {}, micro-batch {}, global batch {}, "
      "zero {}, recompute {}{}{}.\n",
      comment, l.tp, l.pp, l.dp, l.cp, l.ep, l.interleave, l.micro_batch, c.global_batch, l.zero,
      to_string(l.recompute), l.offload_optimizer ? ", optimizer offload" : "",
      l.fp8_param_gather ? ", FP8 weight gather" : "");
  o += fmt::format("{} Predicted: step {:.2f} s, time to train {} (+/- {:.0f} %).\n", comment,
                   c.step.step_s, duration_days(c.time_to_train_s), 100 * c.band);
  if (r.result.verdict == Verdict::infeasible) {
    o += fmt::format("{} Closest plan only: it misses the deadline or the budget.\n", comment);
  }
  return o;
}

std::string nccl_block(const HardwareOption& hw) {
  const std::string kind = fabric_kind(hw);
  std::string o = "# NCCL: uncomment and adjust for this cluster's network (" + fabric_label(hw) +
                  ").\nexport NCCL_DEBUG=${NCCL_DEBUG:-WARN}\n";
  if (kind == "ib") {
    o += "# export NCCL_IB_HCA=mlx5            # InfiniBand HCAs to use (ibv_devices lists them)\n";
    o += "# export NCCL_SOCKET_IFNAME=ib0      # interface for NCCL's bootstrap traffic\n";
  } else if (kind == "roce") {
    o += "# export NCCL_IB_HCA=mlx5            # RoCE NICs to use\n";
    o += "# export NCCL_IB_GID_INDEX=3         # RoCE v2 GID index (show_gids)\n";
    o += "# export NCCL_SOCKET_IFNAME=eth0     # interface for NCCL's bootstrap traffic\n";
  } else if (kind == "efa") {
    o += "# export FI_PROVIDER=efa             # libfabric EFA provider (aws-ofi-nccl plugin)\n";
    o += "# export FI_EFA_USE_DEVICE_RDMA=1    # GPUDirect RDMA on EFA\n";
  } else {
    o += "# export NCCL_SOCKET_IFNAME=eth0     # interface NCCL's sockets use\n";
  }
  return o;
}

}  // namespace

std::vector<std::string> megatron_args(const PlanReport& r, const PlanCandidate& c) {
  const Workload& w = r.request.workload;
  const ModelShape& m = w.model;
  const Layout& l = c.layout;
  std::vector<std::string> a;
  a.push_back(fmt::format("--tensor-model-parallel-size {}", l.tp));
  a.push_back(fmt::format("--pipeline-model-parallel-size {}", l.pp));
  a.push_back(fmt::format("--context-parallel-size {}", l.cp));
  if (m.is_moe()) {
    a.push_back(fmt::format("--expert-model-parallel-size {}", l.ep));
    a.push_back(fmt::format("--expert-tensor-parallel-size {}", l.expert_tp()));
    if (l.ep_overlap) a.push_back("--overlap-moe-expert-parallel-comm");
  }
  pipeline_args(m, l, a);
  a.push_back(fmt::format("--micro-batch-size {}", l.micro_batch));
  a.push_back(fmt::format("--global-batch-size {}", c.global_batch));
  a.push_back(fmt::format("--train-iters {}", train_iters(r, c)));
  a.push_back(fmt::format("--seq-length {}", w.seq_len));
  a.push_back(fmt::format("--max-position-embeddings {}", std::max(w.seq_len, m.max_position)));
  a.push_back(fmt::format("--num-layers {}", m.layers));
  a.push_back(fmt::format("--hidden-size {}", m.hidden));
  a.push_back(fmt::format("--num-attention-heads {}", m.heads));
  if (m.head_dim > 0 && static_cast<long long>(m.head_dim) * m.heads != m.hidden) {
    a.push_back(fmt::format("--kv-channels {}", m.head_dim));
  }
  if (m.kv_heads > 0 && m.kv_heads < m.heads) {
    a.push_back("--group-query-attention");
    a.push_back(fmt::format("--num-query-groups {}", m.kv_heads));
  }
  a.push_back(fmt::format("--ffn-hidden-size {}", m.ffn > 0 ? m.ffn : m.moe.expert_ffn));
  if (m.mlp == MlpKind::swiglu) a.push_back("--swiglu");
  if (m.norm == NormKind::rmsnorm) a.push_back("--normalization RMSNorm");
  a.push_back(m.position == PositionKind::learned ? "--position-embedding-type learned_absolute"
                                                  : "--position-embedding-type rope");
  if (!m.linear_bias) a.push_back("--disable-bias-linear");
  if (!m.linear_bias && m.qkv_bias) a.push_back("--add-qkv-bias");
  if (!m.tied_embeddings) a.push_back("--untie-embeddings-and-output-weights");
  if (!m.dropout) {
    a.push_back("--attention-dropout 0.0");
    a.push_back("--hidden-dropout 0.0");
  }
  if (m.is_mla()) {
    a.push_back("--multi-latent-attention");
    if (m.mla.q_lora_rank > 0) a.push_back(fmt::format("--q-lora-rank {}", m.mla.q_lora_rank));
    a.push_back(fmt::format("--kv-lora-rank {}", m.mla.kv_lora_rank));
  }
  if (m.is_moe()) {
    a.push_back(fmt::format("--num-experts {}", m.moe.experts));
    a.push_back(fmt::format("--moe-router-topk {}", m.moe.top_k));
    a.push_back(fmt::format("--moe-ffn-hidden-size {}", m.moe.expert_ffn));
    if (m.moe.shared_experts > 0) {
      a.push_back(fmt::format("--moe-shared-expert-intermediate-size {}",
                              static_cast<long long>(m.moe.shared_experts) * m.moe.expert_ffn));
    }
    if (m.moe.dense_layers > 0) {
      a.push_back(fmt::format("--moe-layer-freq ([0]*{}+[1]*{})", m.moe.dense_layers,
                              m.layers - m.moe.dense_layers));
    }
    a.push_back("--moe-token-dispatcher-type alltoall");
    a.push_back("--moe-grouped-gemm");
  }
  if (l.sp && l.tp > 1) a.push_back("--sequence-parallel");
  if (l.recompute == Recompute::selective) a.push_back("--recompute-activations");
  if (l.recompute == Recompute::full) {
    a.push_back("--recompute-granularity full");
    a.push_back("--recompute-method uniform");
    a.push_back("--recompute-num-layers 1");
  }
  if (l.zero >= 1) a.push_back("--use-distributed-optimizer");
  if (l.offload_optimizer) {
    a.push_back("--optimizer-cpu-offload");
    a.push_back("--use-precision-aware-optimizer");
  }
  switch (w.precision) {
    case Precision::bf16:
      a.push_back("--bf16");
      break;
    case Precision::fp16:
      a.push_back("--fp16");
      break;
    case Precision::fp8:
      a.push_back("--bf16");
      a.push_back("--fp8-format hybrid");
      if (l.fp8_param_gather) a.push_back("--fp8-param-gather");
      break;
    case Precision::fp32:
    case Precision::tf32:
      break;
  }
  a.push_back("--transformer-impl transformer_engine");
  a.push_back(l.flash_attention ? "--attention-backend flash" : "--attention-backend unfused");
  return a;
}

std::string megatron_args_file(const PlanReport& r, const PlanCandidate& c) {
  std::string o;
  for (const std::string& line : megatron_args(r, c)) {
    for (char ch : line) {
      if (ch != ' ' && !args_word_char(ch)) {
        throw std::logic_error("megatron.args: unsafe character in '" + printable(line) + "'");
      }
    }
    o += line + "\n";
  }
  return o;
}

std::string torchrun_script(const PlanReport& r, const PlanCandidate& c) {
  const HardwareOption& hw = hardware_of(r, c);
  const Layout& l = c.layout;
  std::string o = "#!/usr/bin/env bash\n";
  o += header(r, c, "#");
  o += R"sh(# Runs once per node (srun from slurm.sbatch, or by hand on each node): torchrun
# starts one process per GPU and meets the other nodes at the c10d rendezvous.
# Data, tokenizer, checkpoints and learning rate are yours to add through
# MEGATRON_EXTRA_ARGS or extra arguments, e.g. --data-path ... --tokenizer-type ...
# --tokenizer-model ... --save ... --load ... --lr ... (or --mock-data to smoke-test).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MEGATRON_LM="${MEGATRON_LM:-/workspace/Megatron-LM}"
MASTER_ADDR="${MASTER_ADDR:-localhost}"
MASTER_PORT="${MASTER_PORT:-29500}"
)sh";
  if (l.tp > 1 || l.cp > 1) {
    o += "# Megatron-LM asserts this with tensor or context parallelism (before Blackwell).\n";
    o += "export CUDA_DEVICE_MAX_CONNECTIONS=1\n";
  }
  o += fmt::format(R"sh(
# megatron.args holds one option (and its value) per line.
args=()
while read -r -a words; do args+=("${{words[@]}}"); done < "$here/megatron.args"
read -r -a extra <<< "${{MEGATRON_EXTRA_ARGS:-}}"

exec torchrun \
  --nnodes={} \
  --nproc-per-node={} \
  --rdzv-backend=c10d \
  --rdzv-endpoint="$MASTER_ADDR:$MASTER_PORT" \
  --rdzv-id="${{SLURM_JOB_ID:-{}}}" \
  "$MEGATRON_LM/{}" "${{args[@]}}" "${{extra[@]}}" "$@"
)sh",
                   c.nodes, hw.server.gpus_per_node, job_name(r), kPretrain);
  return o;
}

std::string slurm_script(const PlanReport& r, const PlanCandidate& c) {
  const HardwareOption& hw = hardware_of(r, c);
  const double wanted = c.time_to_train_s * (1.0 + c.band);
  const bool capped = !(wanted <= kMaxSlurmTimeS);  // NaN and infinity are capped too
  const double limit = capped ? kMaxSlurmTimeS : std::max(wanted, 0.0);
  std::string o = fmt::format(R"sh(#!/usr/bin/env bash
#SBATCH --job-name={}
#SBATCH --nodes={}
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node={}
#SBATCH --exclusive
)sh",
                              job_name(r), c.nodes, hw.server.gpus_per_node);
  if (capped) {
    o += fmt::format(
        "# Time: predicted {} + {:.0f} % band = {}, capped at {}: resubmit from the last\n"
        "# checkpoint (--save/--load) until done, e.g. with sbatch --dependency=afterany:JOBID.\n",
        duration_days(c.time_to_train_s), 100 * c.band, duration_days(wanted),
        duration_days(kMaxSlurmTimeS));
  } else {
    o += fmt::format("# Time: predicted {} + {:.0f} % band = {}.\n",
                     duration_days(c.time_to_train_s), 100 * c.band, duration_days(wanted));
  }
  o += fmt::format("#SBATCH --time={}\n", slurm_time(limit));
  o += header(r, c, "#");
  o += R"sh(# Submit from the folder that holds these files: sbatch slurm.sbatch
set -euo pipefail

# The c10d rendezvous runs on the first node of the allocation.
MASTER_ADDR="$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)"
export MASTER_ADDR
export MASTER_PORT="${MASTER_PORT:-29500}"

)sh";
  o += nccl_block(hw);
  o += R"sh(
# One task per node; torchrun.sh starts one process per GPU.
srun bash "${SLURM_SUBMIT_DIR:-.}/torchrun.sh"
)sh";
  return o;
}

std::string deepspeed_config(const PlanReport& r, const PlanCandidate& c) {
  const Layout& l = c.layout;
  nlohmann::ordered_json j;
  j["train_batch_size"] = c.global_batch;
  j["train_micro_batch_size_per_gpu"] = l.micro_batch;
  j["gradient_accumulation_steps"] = grad_accum(c);
  nlohmann::ordered_json zero = {{"stage", l.zero}};
  if (l.offload_optimizer) zero["offload_optimizer"] = {{"device", "cpu"}, {"pin_memory", true}};
  j["zero_optimization"] = zero;
  const Precision p = r.request.workload.precision;
  j["bf16"] = {{"enabled", p == Precision::bf16 || p == Precision::fp8}};
  j["fp16"] = {{"enabled", p == Precision::fp16}};
  j["gradient_clipping"] = 1.0;
  return j.dump(2) + "\n";
}

std::string pytorchjob_yaml(const PlanReport& r, const PlanCandidate& c) {
  const HardwareOption& hw = hardware_of(r, c);
  const Layout& l = c.layout;
  const std::string kind = fabric_kind(hw);
  std::string res;  // resource lines under limits:
  res += fmt::format("                  nvidia.com/gpu: {}\n", hw.server.gpus_per_node);
  if (kind == "ib" || kind == "roce") {
    res += "                  # RDMA for " + fabric_label(hw) +
           ": cluster-specific name from the k8s-rdma-shared-dev-plugin\n"
           "                  # config (e.g. rdma/hca, rdma/rdma_shared_device_a).\n"
           "                  rdma/rdma_shared_device_a: 1\n";
  } else if (kind == "efa") {
    res += "                  # EFA interfaces (AWS EFA device plugin); count per instance type.\n";
    res += fmt::format("                  vpc.amazonaws.com/efa: {}\n", hw.server.nics_per_node);
  }
  std::string args;
  args += fmt::format("                - {}\n",
                      yaml_quoted(std::string("/workspace/Megatron-LM/") + kPretrain));
  for (const std::string& line : megatron_args(r, c)) {
    const auto sp = line.find(' ');
    args += fmt::format("                - {}\n", yaml_quoted(line.substr(0, sp)));
    if (sp != std::string::npos)
      args += fmt::format("                - {}\n", yaml_quoted(line.substr(sp + 1)));
  }
  std::string env;
  if (l.tp > 1 || l.cp > 1) {
    env += "              env:\n";
    env += "                - name: CUDA_DEVICE_MAX_CONNECTIONS\n";
    env += "                  value: \"1\"\n";
  }
  auto replica = [&](const char* role, int replicas) {
    return fmt::format(R"yaml(    {}:
      replicas: {}
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: nvcr.io/nvidia/pytorch:CHANGE-ME  # an image with Megatron-LM and Transformer Engine
              command: ["torchrun"]
              args:
{}{}              resources:
                limits:
{}              securityContext:
                capabilities:
                  add: ["IPC_LOCK"]  # pinned memory for RDMA
              volumeMounts:
                - name: dshm
                  mountPath: /dev/shm
          volumes:
            - name: dshm
              emptyDir:
                medium: Memory
)yaml",
                       role, replicas, args, env, res);
  };
  std::string o;
  o += header(r, c, "#");
  o += fmt::format(
      R"yaml(# Kubeflow training operator: torchrun reads PET_NNODES, PET_NPROC_PER_NODE,
# PET_NODE_RANK, PET_MASTER_ADDR and PET_MASTER_PORT, which the operator sets.
# Add data, tokenizer, checkpoint and learning-rate arguments to args.
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {}
spec:
  nprocPerNode: "{}"
  pytorchReplicaSpecs:
)yaml",
      job_name(r), hw.server.gpus_per_node);
  o += replica("Master", 1);
  if (c.nodes > 1) o += replica("Worker", c.nodes - 1);
  return o;
}

std::vector<std::pair<std::string, std::string>> launch_files(const PlanReport& r,
                                                              const PlanCandidate& c) {
  return {{"slurm.sbatch", slurm_script(r, c)},
          {"torchrun.sh", torchrun_script(r, c)},
          {"megatron.args", megatron_args_file(r, c)},
          {"deepspeed.json", deepspeed_config(r, c)},
          {"pytorchjob.yaml", pytorchjob_yaml(r, c)}};
}

}  // namespace scaleout::report
