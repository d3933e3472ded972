// Launch files for the recommended plan (`scaleout plan --emit DIR`).
//
// Every option and key written here was checked against its tool's own
// reference:
// - Megatron-LM: megatron/training/arguments.py (NVIDIA/Megatron-LM, main):
//   --tensor-model-parallel-size, --pipeline-model-parallel-size,
//   --context-parallel-size, --expert-model-parallel-size,
//   --num-layers-per-virtual-pipeline-stage, --num-virtual-stages-per-pipeline-rank,
//   --microbatch-group-size-per-virtual-pipeline-stage (a ModelParallelConfig
//   field made an argument, megatron/core/model_parallel_config.py),
//   --decoder-first-pipeline-num-layers, --decoder-last-pipeline-num-layers,
//   --pipeline-model-parallel-layout, --micro-batch-size, --global-batch-size,
//   --train-iters (there is no --train-tokens: only --train-iters or
//   --train-samples), --seq-length, --max-position-embeddings (must be >=
//   seq-length), --num-layers, --hidden-size, --num-attention-heads,
//   --kv-channels, --group-query-attention, --num-query-groups, --ffn-hidden-size,
//   --swiglu, --normalization RMSNorm, --position-embedding-type,
//   --disable-bias-linear, --add-qkv-bias, --untie-embeddings-and-output-weights,
//   --attention-dropout, --hidden-dropout, --sequence-parallel,
//   --recompute-activations, --recompute-granularity, --recompute-modules,
//   --recompute-method, --recompute-num-layers, --use-distributed-optimizer,
//   --optimizer-cpu-offload (validate_args asserts --use-precision-aware-optimizer with it),
//   --bf16,
//   --fp16, --fp8-format {e4m3,hybrid}, --transformer-impl transformer_engine,
//   --attention-backend {flash,fused,unfused,local,auto}, --num-experts,
//   --moe-router-topk, --moe-ffn-hidden-size, --moe-shared-expert-intermediate-size,
//   --moe-layer-freq, --moe-token-dispatcher-type, --moe-flex-dispatcher-backend
//   (a TransformerConfig field, made an argument by ArgumentGroupFactory), --moe-grouped-gemm,
//   --moe-expert-capacity-factor, --moe-pad-expert-input-to-capacity,
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
#include "report/json_parts.hpp"
#include "workload/pipeline.hpp"

namespace scaleout::report {

namespace {

constexpr const char* kPretrain = "pretrain_gpt.py";

// The workload's finetune.lora_dropout as a YAML number (0.0 when off).
std::string lora_dropout_text(const Workload& w) {
  return w.finetune.lora_dropout > 0 ? fmt::format("{}", w.finetune.lora_dropout) : "0.0";
}

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

// How the pipeline split the plan was evaluated with (workload/pipeline.hpp)
// is written: nothing (pp 1, or even without interleaving), the layout's own
// pipeline layout string, layers per virtual stage (even), the layout's
// first/last stage sizes, or, for the even
// split with the first layers mod pp ranks one layer more, a layout string;
// with the embedding or loss counted in the split, the account flags.
void pipeline_args(const ModelShape& m, const Layout& l, long long microbatches,
                   std::vector<std::string>& a) {
  const int layers = m.layers;
  const int pp = l.pp;
  const int v = pipeline_chunks(l);
  if (pp <= 1) return;
  // The interleaved schedule's micro-batch group where pp does not divide the
  // micro-batches (its default pp would be refused; pipeline.hpp).
  if (v > 1 && interleave_group_size(pp, microbatches) != pp) {
    a.push_back(fmt::format("--microbatch-group-size-per-virtual-pipeline-stage {}",
                            interleave_group_size(pp, microbatches)));
  }
  if (!l.pipeline_layout.empty()) {
    // The file's layout as given (its characters are words of megatron.args);
    // Megatron-LM derives the virtual stages from it and refuses the chunk
    // options beside it (NVIDIA/Megatron-LM @ d98e8a6
    // megatron/training/arguments.py:927-952).
    a.push_back(fmt::format("--pipeline-model-parallel-layout {}", l.pipeline_layout));
    return;
  }
  if (l.embedding_in_split || l.loss_in_split) {
    // Megatron-LM's arguments.py takes the chunk count with the account flags.
    if (v > 1) a.push_back(fmt::format("--num-virtual-stages-per-pipeline-rank {}", v));
    if (l.embedding_in_split) a.push_back("--account-for-embedding-in-pipeline-split");
    if (l.loss_in_split) a.push_back("--account-for-loss-in-pipeline-split");
    return;
  }
  if (l.first_stage_layers > 0 || l.last_stage_layers > 0) {
    if (v > 1) a.push_back(fmt::format("--num-virtual-stages-per-pipeline-rank {}", v));
    if (l.first_stage_layers > 0)
      a.push_back(fmt::format("--decoder-first-pipeline-num-layers {}", l.first_stage_layers));
    if (l.last_stage_layers > 0)
      a.push_back(fmt::format("--decoder-last-pipeline-num-layers {}", l.last_stage_layers));
    return;
  }
  if (layers % pp == 0 && (layers / pp) % v == 0) {
    if (v > 1)
      a.push_back(fmt::format("--num-layers-per-virtual-pipeline-stage {}", layers / (pp * v)));
    return;
  }
  // One stage per (virtual stage, rank), listed virtual stage by virtual stage.
  std::string s;
  for (int c = 0; c < v; ++c) {
    for (int r = 0; r < pp; ++r) {
      if (c > 0 || r > 0) s += '|';
      if (c == 0 && r == 0) s += 'E';
      const int k = chunk_layer_count(layers, l, r, c);
      if (k == 1) s += 't';
      if (k > 1) s += fmt::format("t*{}", k);
      if (c == v - 1 && r == pp - 1) s += 'L';
    }
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

const FrameworkTraits& row_of(const PlanReport& r) {
  return framework_traits(r.request.workload.framework);
}

bool fp8(const PlanReport& r) { return r.request.workload.precision == Precision::fp8; }

// A number for a config file: integers without a decimal point, others in
// the shortest form that reads back the same.
std::string num(double v) {
  if (std::isfinite(v) && std::floor(v) == v && std::fabs(v) < 1e15) {
    return fmt::format("{}", static_cast<long long>(v));
  }
  return fmt::format("{}", v);
}

std::string header(const PlanReport& r, const PlanCandidate& c, const std::string& comment) {
  const HardwareOption& hw = hardware_of(r, c);
  const Workload& w = r.request.workload;
  const Layout& l = c.layout;
  std::string o;
  // A plan below a node names its share of the server ("2 of 8 GPUs").
  const std::string gpus = hw.server.whole_gpus > 0
                               ? fmt::format("{} of {} GPUs, {}", hw.server.gpus_per_node,
                                             hw.server.whole_gpus, comment_text(hw.gpu.id))
                               : fmt::format("{} x {}, {} GPUs", hw.server.gpus_per_node,
                                             comment_text(hw.gpu.id), c.gpus());
  o += fmt::format("{} Generated by scaleout plan: {} on {} x {} ({}), {}.\n", comment,
                   comment_text(w.model.id), c.nodes, comment_text(hw.server.id), gpus,
                   scaleup_domains(hw.server, c.nodes) > 1 ? fabric_label(hw)
                                                           : std::string("no scale-out network"));
  std::string method = to_string(w.finetune.method);
  if (is_lora(w))
    method += fmt::format(" rank {} on {} linears", w.finetune.rank, to_string(w.finetune.targets));
  o += fmt::format("{} Framework {}, launcher {}, task {}{}, precision {}, optimizer {}.\n",
                   comment, to_string(w.framework), to_string(launcher_of(w)), to_string(w.task),
                   w.task == Task::finetune ? " (" + method + ")" : std::string(),
                   to_string(w.precision), to_string(w.optimizer));
  o += fmt::format(
      "{} Layout: tp {} pp {} dp {} cp {} ep {}{}, interleave {}{}, zero {}{}, recompute "
      "{}{}{}.\n",
      comment, l.tp, l.pp, l.dp, l.cp, l.ep,
      w.model.is_moe() ? fmt::format(" etp {}", l.expert_tp()) : std::string(), l.interleave,
      l.schedule != PipeSchedule::one_f_one_b
          ? fmt::format(", pipeline schedule {}", to_string(l.schedule))
          : std::string(),
      l.zero,
      l.zero_replicas() > 1
          ? fmt::format(" sharded within groups of {} data-parallel ranks ({} replicas)",
                        l.zero_shard_dp(), l.zero_replicas())
          : std::string(),
      to_string(l.recompute), l.offload_optimizer ? ", optimizer offload" : "",
      l.fp8_param_gather ? ", FP8 weight gather" : "");
  o += fmt::format(
      "{} Batch: micro-batch {}, gradient accumulation {}, global batch {} sequences of {} "
      "tokens.\n",
      comment, l.micro_batch, grad_accum(c), c.global_batch, w.seq_len);
  o += fmt::format(
      "{} Predicted: step {:.2f} s, time to train {} (+/- {:.0f} %), memory {} per GPU of {}.\n",
      comment, c.step.step_s, duration_days(c.time_to_train_s), 100 * c.band, gib(c.memory.total()),
      gib(c.memory.capacity_bytes));
  if (r.result.verdict == Verdict::infeasible) {
    o += fmt::format("{} Closest plan only: it misses the deadline or the budget.\n", comment);
  }
  if (l.pp > 1 && l.schedule != PipeSchedule::one_f_one_b &&
      launcher_of(w) != Launcher::torchtitan) {
    // Only torchtitan's files name a schedule beyond 1F1B; an in-house
    // engine's (framework other) runs it, not these files.
    o += fmt::format(
        "{} NOT IN THESE FILES: pipeline schedule {} is your engine's (deepseek-ai/DualPipe, "
        "sail-sg/zero-bubble-pipeline-parallelism); the launcher {} has no such schedule, so the "
        "predicted step assumes an engine that runs it.\n",
        comment, to_string(l.schedule), to_string(launcher_of(w)));
  }
  if (w.cuda_graphs != CudaGraphs::none && launcher_of(w) != Launcher::megatron) {
    // Only Megatron-LM's arguments switch CUDA graphs on; torchtitan's TOML
    // [compile] has no mode key (data/launch/torchtitan_keys.json), and the
    // other launchers run your script.
    o += fmt::format(
        "{} NOT IN THESE FILES: cuda_graphs {} (the predicted step issues no kernel from the "
        "host{}); the launcher {} has no such setting: capture the step in CUDA graphs "
        "yourself, e.g. torch.compile(mode=\"reduce-overhead\").\n",
        comment, to_string(w.cuda_graphs),
        w.cuda_graphs == CudaGraphs::scoped && !moe_drop_and_pad(w) ? " outside MoE dispatch" : "",
        to_string(launcher_of(w)));
  }
  if (w.moe_capacity_factor > 0 && launcher_of(w) != Launcher::megatron) {
    o += fmt::format(
        "{} NOT IN THESE FILES: MoE token dropping at capacity factor {}{}; the launcher {} has "
        "no such setting: set Megatron-Core's moe_expert_capacity_factor{} in your recipe.\n",
        comment, num(w.moe_capacity_factor), w.moe_pad_to_capacity ? ", padded" : "",
        to_string(launcher_of(w)),
        w.moe_pad_to_capacity ? " and moe_pad_expert_input_to_capacity" : "");
  }
  return o;
}

// RDMA device-plugin resources per fabric kind (docs/input-format.md, "Launch
// files", gives the sources): the name a pod asks for, and whether it counts
// NICs (else one shared device).
struct RdmaResource {
  const char* kind;
  const char* name;
  bool per_nic;
  const char* note;
};
constexpr RdmaResource kRdmaResources[] = {
    {"ib", "rdma/rdma_shared_device_a", false,
     "k8s-rdma-shared-dev-plugin (NVIDIA Network Operator): resourcePrefix/resourceName of its "
     "config"},
    {"roce", "rdma/rdma_shared_device_a", false,
     "k8s-rdma-shared-dev-plugin (NVIDIA Network Operator): resourcePrefix/resourceName of its "
     "config"},
    {"efa", "vpc.amazonaws.com/efa", true, "aws-efa-k8s-device-plugin: one per EFA interface"},
};

const RdmaResource* rdma_resource(const HardwareOption& hw) {
  const std::string kind = fabric_kind(hw);
  for (const RdmaResource& x : kRdmaResources) {
    if (kind == x.kind) return &x;
  }
  return nullptr;
}

// The environment of the fabric: NCCL, RDMA or libfabric settings; commented
// lines are the cluster-specific ones.
std::string nccl_block(const HardwareOption& hw) {
  const std::string kind = fabric_kind(hw);
  std::string o = "# NCCL for " + fabric_label(hw) +
                  " (commented lines: set them for this cluster).\n"
                  "export NCCL_DEBUG=${NCCL_DEBUG:-WARN}\n";
  if (kind == "ib") {
    o += "export NCCL_IB_DISABLE=0               # RDMA over InfiniBand\n";
    o += "# export NCCL_IB_HCA=mlx5            # InfiniBand HCAs to use (ibv_devices lists them)\n";
    o += "# export NCCL_SOCKET_IFNAME=ib0      # interface for NCCL's bootstrap traffic\n";
  } else if (kind == "roce") {
    o += "export NCCL_IB_DISABLE=0               # RDMA over Converged Ethernet\n";
    o += "# export NCCL_IB_HCA=mlx5            # RoCE NICs to use\n";
    o += "# export NCCL_IB_GID_INDEX=3         # RoCE v2 GID index (show_gids)\n";
    o += "# export NCCL_SOCKET_IFNAME=eth0     # interface for NCCL's bootstrap traffic\n";
  } else if (kind == "efa") {
    o += "export FI_PROVIDER=efa                 # libfabric EFA provider (aws-ofi-nccl plugin)\n";
    o += "export FI_EFA_USE_DEVICE_RDMA=1        # GPUDirect RDMA on EFA\n";
    o += "# export NCCL_SOCKET_IFNAME=ens      # interface for NCCL's bootstrap traffic\n";
  } else {
    o += "# export NCCL_SOCKET_IFNAME=eth0     # interface NCCL's sockets use\n";
  }
  return o;
}

// Where the emitted folder is inside a container (Kubernetes jobs).
constexpr const char* kPodDir = "/workspace/launch";

// The program after the launcher and its arguments, as words: `dir` is the
// folder holding the emitted files ("$here" in torchrun.sh, kPodDir in pods).
std::vector<std::string> program_words(const PlanReport& r, const PlanCandidate& c,
                                       const std::string& dir, const std::string& megatron_dir) {
  const Workload& w = r.request.workload;
  std::vector<std::string> a;
  switch (launcher_of(w)) {
    case Launcher::megatron:
      a.push_back(megatron_dir + "/" + kPretrain);
      for (const std::string& line : megatron_args(r, c)) {
        const auto sp = line.find(' ');
        a.push_back(line.substr(0, sp));
        if (sp != std::string::npos) a.push_back(line.substr(sp + 1));
      }
      if (framework_traits(w.framework).deepspeed_engine) {
        a.push_back("--deepspeed_config");
        a.push_back(dir + "/deepspeed.json");
      }
      break;
    case Launcher::torchtitan:
      a = {"-m", "torchtitan.train", "--job.config_file", dir + "/torchtitan.toml"};
      break;
    case Launcher::fsdp:
    case Launcher::peft:
    case Launcher::torchtune:
      break;
  }
  return a;
}

// TRL/PEFT target module names of Llama-style models per AdapterTargets.
std::vector<std::string> target_modules(AdapterTargets t) {
  switch (t) {
    case AdapterTargets::all:
      return {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};
    case AdapterTargets::attention:
      return {"q_proj", "k_proj", "v_proj", "o_proj"};
    case AdapterTargets::qkv:
      return {"q_proj", "k_proj", "v_proj"};
    case AdapterTargets::qv:
      return {"q_proj", "v_proj"};
  }
  return {};
}

std::string yaml_list(const std::vector<std::string>& v) {
  std::string o = "[";
  for (std::size_t i = 0; i < v.size(); ++i) o += (i ? ", " : "") + yaml_quoted(v[i]);
  return o + "]";
}

// The Hugging Face optimizer name (TrainingArguments.optim) of the plan's optimizer.
const char* hf_optim(Optimizer o, bool qlora) {
  switch (o) {
    case Optimizer::adam:
    case Optimizer::adam_bf16:
    case Optimizer::adam_bf16_moments:
      return "adamw_torch";
    case Optimizer::adam8bit:
      return qlora ? "paged_adamw_8bit" : "adamw_bnb_8bit";
    case Optimizer::sgd:
      return "sgd";
    case Optimizer::adafactor:
      return "adafactor";
  }
  return "adamw_torch";
}

// Accelerate's launch line (torchrun.sh): multi-node through c10d.
std::string accelerate_line(const PlanReport& r, const PlanCandidate& c) {
  const HardwareOption& hw = hardware_of(r, c);
  return fmt::format(
      "accelerate launch \\\n  --config_file \"$here/accelerate_fsdp.yaml\" \\\n"
      "  --num_machines {} \\\n  --num_processes {} \\\n"
      "  --machine_rank \"${{SLURM_NODEID:-${{NODE_RANK:-0}}}}\" \\\n"
      "  --main_process_ip \"$MASTER_ADDR\" \\\n  --main_process_port \"$MASTER_PORT\" \\\n"
      "  --rdzv_backend c10d \\\n",
      c.nodes, static_cast<long long>(c.nodes) * hw.server.gpus_per_node);
}

// torchtune's recipe and model builder names for the plan.
std::string torchtune_recipe(const Workload& w) {
  return is_lora(w) ? "lora_finetune_distributed" : "full_finetune_distributed";
}

// The Llama 3 size ("8b", "70b", "405b") of a shape, from its dimensions
// (Llama 3 tokenizer of 128256 tokens, SwiGLU, 8 key/value heads), and
// whether it has Llama 3.1's RoPE scaling; "" for other models. The shape,
// not the id, decides: ids reach the files only in comments.
std::string llama3_size(const ModelShape& m) {
  if (m.vocab != 128256 || m.mlp != MlpKind::swiglu || m.kv_heads != 8 || m.is_moe()) return "";
  if (m.layers == 32 && m.hidden == 4096) return "8b";
  if (m.layers == 80 && m.hidden == 8192) return "70b";
  if (m.layers == 126 && m.hidden == 16384) return "405b";
  return "";
}

// torchtitan's model name and flavor (torchtitan/models/llama3: 8B, 70B,
// 405B); other models are left to the user.
std::pair<std::string, std::string> torchtitan_model(const ModelShape& m) {
  std::string size = llama3_size(m);
  if (size.empty()) return {"CHANGE-ME", "CHANGE-ME"};
  size.back() = 'B';
  return {"llama3", size};
}

// torchtune's model builder (torchtune.models.llama3.lora_llama3_8b,
// llama3_1.qlora_llama3_1_70b, ...; Llama 3 has no 405B builder).
std::string torchtune_model(const ModelShape& m, const std::string& prefix) {
  const std::string size = llama3_size(m);
  if (size.empty()) return "CHANGE-ME";
  if (m.rope_scaling == "llama3") return "torchtune.models.llama3_1." + prefix + "llama3_1_" + size;
  if (size == "405b") return "CHANGE-ME";
  return "torchtune.models.llama3." + prefix + "llama3_" + size;
}

}  // namespace

Launcher launcher_of(const Workload& w) {
  if (w.framework == Framework::torchtune) return Launcher::torchtune;
  if (is_lora(w)) return Launcher::peft;
  if (w.framework == Framework::torchtitan) return Launcher::torchtitan;
  if (framework_traits(w.framework).megatron_family) return Launcher::megatron;
  return Launcher::fsdp;
}

const char* to_string(Launcher l) {
  switch (l) {
    case Launcher::megatron:
      return "megatron";
    case Launcher::torchtitan:
      return "torchtitan";
    case Launcher::fsdp:
      return "fsdp";
    case Launcher::peft:
      return "peft";
    case Launcher::torchtune:
      return "torchtune";
  }
  return "?";
}

std::vector<std::string> megatron_args(const PlanReport& r, const PlanCandidate& c) {
  const Workload& w = r.request.workload;
  const ModelShape& m = w.model;
  const Layout& l = c.layout;
  const FrameworkTraits& row = framework_traits(w.framework);
  const bool deepspeed = row.deepspeed_engine;
  std::vector<std::string> a;
  a.push_back(fmt::format("--tensor-model-parallel-size {}", l.tp));
  a.push_back(fmt::format("--pipeline-model-parallel-size {}", l.pp));
  a.push_back(fmt::format("--context-parallel-size {}", l.cp));
  if (m.is_moe()) {
    a.push_back(fmt::format("--expert-model-parallel-size {}", l.ep));
    a.push_back(fmt::format("--expert-tensor-parallel-size {}", l.expert_tp()));
    if (l.ep_overlap) a.push_back("--overlap-moe-expert-parallel-comm");
  }
  pipeline_args(m, l, c.global_batch / (static_cast<long long>(l.micro_batch) * l.dp), a);
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
  if (m.position == PositionKind::rope) {
    // Megatron-LM's --rotary-base is an int (default 10000).
    if (m.rope_theta >= 1 && m.rope_theta < 1e12) {
      a.push_back(
          fmt::format("--rotary-base {}", static_cast<long long>(std::llround(m.rope_theta))));
    }
    if (m.rope_scaling == "llama3") {
      a.push_back("--use-rope-scaling");
      a.push_back("--rope-scaling-factor " + num(m.rope_scaling_factor));
    } else if (m.rope_scaling == "yarn" && m.is_mla()) {
      a.push_back("--rope-type yarn");
      a.push_back("--rotary-scaling-factor " + num(m.rope_scaling_factor));
    } else if (m.rope_scaling == "linear" &&
               std::floor(m.rope_scaling_factor) == m.rope_scaling_factor &&
               m.rope_scaling_factor > 1) {
      a.push_back("--rotary-seq-len-interpolation-factor " + num(m.rope_scaling_factor));
    }
  }
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
    a.push_back(fmt::format("--qk-head-dim {}", m.mla.qk_nope_head_dim));
    a.push_back(fmt::format("--qk-pos-emb-head-dim {}", m.mla.qk_rope_head_dim));
    a.push_back(fmt::format("--v-head-dim {}", m.mla.v_head_dim));
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
    if (m.moe.sigmoid_router) a.push_back("--moe-router-score-function sigmoid");
    if (m.moe.expert_bias) {
      a.push_back("--moe-router-enable-expert-bias");
      a.push_back("--moe-router-bias-update-rate 0.001");
    }
    if (m.moe.router_groups > 0 && m.moe.router_group_topk > 0) {
      a.push_back(fmt::format("--moe-router-num-groups {}", m.moe.router_groups));
      a.push_back(fmt::format("--moe-router-group-topk {}", m.moe.router_group_topk));
    }
    if (m.moe.routed_scaling > 0) {
      a.push_back("--moe-router-topk-scaling-factor " + num(m.moe.routed_scaling));
    }
    if (m.moe.sigmoid_router || m.moe.expert_bias) a.push_back("--moe-router-dtype fp32");
    // The workload's moe.dispatcher (Megatron-Core TransformerConfig
    // moe_token_dispatcher_type, moe_flex_dispatcher_backend): the flex
    // dispatcher with DeepEP or HybridEP, else all-to-all (Megatron-LM's and
    // NeMo's own, as the time model takes it).
    if (w.moe_dispatcher == MoeDispatcher::deepep || w.moe_dispatcher == MoeDispatcher::hybridep) {
      a.push_back("--moe-token-dispatcher-type flex");
      a.push_back(fmt::format("--moe-flex-dispatcher-backend {}", to_string(w.moe_dispatcher)));
    } else {
      a.push_back("--moe-token-dispatcher-type alltoall");
    }
    // Token dropping (workload moe.capacity_factor, moe.pad_to_capacity;
    // Megatron-Core moe_expert_capacity_factor, moe_pad_expert_input_to_capacity).
    if (w.moe_capacity_factor > 0) {
      a.push_back("--moe-expert-capacity-factor " + num(w.moe_capacity_factor));
      if (w.moe_pad_to_capacity) a.push_back("--moe-pad-expert-input-to-capacity");
    }
    a.push_back("--moe-grouped-gemm");
  }
  if (trained_mtp_layers(w) > 0)
    a.push_back(fmt::format("--mtp-num-layers {}", trained_mtp_layers(w)));
  if (l.sp && l.tp > 1) a.push_back("--sequence-parallel");
  if (l.recompute == Recompute::selective) {
    // The default module set is --recompute-activations (selective,
    // core_attn); any other names its modules (Megatron-Core
    // --recompute-modules, transformer_config.py recompute_modules).
    if (l.recompute_modules == kDefaultRecomputeModules) {
      a.push_back("--recompute-activations");
    } else {
      a.push_back("--recompute-granularity selective");
      a.push_back("--recompute-modules " + recompute_modules_string(l.recompute_modules, ' '));
    }
  }
  if (l.recompute == Recompute::full) {
    // Every layer (uniform, one layer per checkpoint), or the first N layers
    // of each model chunk (block: partial recompute, layout recompute_layers).
    a.push_back("--recompute-granularity full");
    if (l.recompute_layers > 0) {
      a.push_back("--recompute-method block");
      a.push_back(fmt::format("--recompute-num-layers {}", l.recompute_layers));
    } else {
      a.push_back("--recompute-method uniform");
      a.push_back("--recompute-num-layers 1");
    }
  }
  if (deepspeed) {
    // Megatron-DeepSpeed: ZeRO comes from DeepSpeed (the config path is added
    // by the launcher: --deepspeed_config DIR/deepspeed.json).
    a.push_back("--deepspeed");
    a.push_back(fmt::format("--zero-stage {}", l.zero));
  } else if (l.zero == 1) {
    // Megatron-LM's distributed optimizer is ZeRO-1.
    a.push_back("--use-distributed-optimizer");
  } else if (l.zero >= 2) {
    a.push_back("--use-megatron-fsdp");
    a.push_back(l.zero >= 3 ? "--data-parallel-sharding-strategy optim_grads_params"
                            : "--data-parallel-sharding-strategy optim_grads");
  }
  // The step time hides the data-parallel gradient reduction behind the last
  // backward pass (perf/step.cpp, FrameworkTraits::dp_overlap): Megatron-LM
  // does so only with --overlap-grad-reduce. The ZeRO-1 weight all-gather
  // after the optimizer step is priced exposed, so --overlap-param-gather
  // (a faster run than priced) is left to the user. Layout dp_overlap false
  // prices the reduction after the backward: the flag is left off.
  if (!deepspeed && row.dp_overlap && l.dp_overlap && l.dp > 1) {
    a.push_back("--overlap-grad-reduce");
  }
  if (l.offload_optimizer && !deepspeed) {
    a.push_back("--optimizer-cpu-offload");
    a.push_back("--use-precision-aware-optimizer");
  }
  if (w.optimizer == Optimizer::adam_bf16_moments && !deepspeed) {
    // bf16 Adam moments beside the fp32 master copy (Megatron-Core
    // optimizer_config.py exp_avg_dtype / exp_avg_sq_dtype, which need the
    // precision-aware optimizer).
    if (!l.offload_optimizer) a.push_back("--use-precision-aware-optimizer");
    a.push_back("--exp-avg-dtype bf16");
    a.push_back("--exp-avg-sq-dtype bf16");
  }
  // 16-bit main gradients and reduction (workload grad_reduce_in_bf16;
  // Megatron-LM arguments.py --grad-reduce-in-bf16).
  if (w.grad_reduce_in_bf16 && !deepspeed) a.push_back("--grad-reduce-in-bf16");
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
      // Delayed scaling: Megatron-LM's default recipe, and the one it
      // requires for --fp8-param-gather with --optimizer-cpu-offload.
      a.push_back("--fp8-recipe delayed");
      if (l.fp8_param_gather) a.push_back("--fp8-param-gather");
      break;
    case Precision::fp32:
    case Precision::tf32:
      break;
  }
  if (deepspeed) {
    // Megatron-DeepSpeed has neither --transformer-impl nor --attention-backend.
    if (l.flash_attention) a.push_back("--use-flash-attn-v2");
    return a;
  }
  // CUDA graph capture (workload cuda_graphs; docs/model.md, "Host launch
  // floor"), as Megatron-LM spells it at the commit data/launch pins
  // (transformer_config.py cuda_graph_impl, cuda_graph_modules; arguments.py
  // --cuda-graph-modules, --cuda-graph-scope being its deprecated alias).
  // scoped: Transformer Engine per-layer graphs of the static-shape parts: a
  // dense layer's attn and mlp, a MoE layer's attn, router and preprocess
  // (megatron/core/transformer/moe/README.md "Enable CUDA Graphs").
  // full: the whole forward and backward (full_iteration), with which
  // validate_args asserts --no-check-for-nan-in-loss-and-grad.
  if (w.cuda_graphs == CudaGraphs::scoped) {
    a.push_back("--cuda-graph-impl transformer_engine");
    std::string modules = "attn";
    if (!m.is_moe() || m.moe.dense_layers > 0) modules += " mlp";
    // Drop-and-pad token dropping has static shapes: the whole MoE layer
    // (`moe`, which excludes moe_router); dropping without padding leaves
    // the router only (transformer_config.py: moe_preprocess is refused for
    // the all-to-all dispatcher with a capacity factor).
    if (m.is_moe()) {
      modules += moe_drop_and_pad(w)         ? " moe"
                 : w.moe_capacity_factor > 0 ? " moe_router"
                                             : " moe_router moe_preprocess";
    }
    a.push_back("--cuda-graph-modules " + modules);
  } else if (w.cuda_graphs == CudaGraphs::full) {
    a.push_back("--cuda-graph-impl full_iteration");
    a.push_back("--no-check-for-nan-in-loss-and-grad");
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

std::string torchrun_script(const PlanReport& r, const PlanCandidate& c, bool smoke) {
  const HardwareOption& hw = hardware_of(r, c);
  const Workload& w = r.request.workload;
  const Layout& l = c.layout;
  const Launcher family = launcher_of(w);
  std::string o = "#!/usr/bin/env bash\n";
  o += header(r, c, "#");
  if (smoke) {
    o += R"sh(# SMOKE TEST (plan --emit --smoke): the plan's launcher structure at 2 processes
# on this host with the gloo backend, running smoke_train.py (a tiny model, two
# steps on CPU) instead of the real program. Needs python3 with torch >= 1.13.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# PYTHON picks the interpreter (default: the one torchrun was installed for).
if [[ -n "${PYTHON:-}" ]]; then
  launcher=("$PYTHON" -m torch.distributed.run)
elif command -v torchrun >/dev/null 2>&1; then
  launcher=(torchrun)
else
  launcher=(python3 -m torch.distributed.run)
fi
# --redirects=1 --tee=1: each worker's output in a log file and on the
# console (torch 1.13 on Python 3.11 cannot parse the default "0").
exec "${launcher[@]}" \
  --standalone \
  --nnodes=1 \
  --nproc_per_node=2 \
  --redirects=1 \
  --tee=1 \
  "$here/smoke_train.py" "$@"
)sh";
    return o;
  }
  o += R"sh(# Runs once per node (srun from slurm.sbatch, or by hand on each node) and
# meets the other nodes at the c10d rendezvous on $MASTER_ADDR:$MASTER_PORT.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MASTER_ADDR="${MASTER_ADDR:-localhost}"
MASTER_PORT="${MASTER_PORT:-29500}"
)sh";
  const std::string torchrun = fmt::format(
      "exec torchrun \\\n  --nnodes={} \\\n  --nproc-per-node={} \\\n  --rdzv-backend=c10d \\\n"
      "  --rdzv-endpoint=\"$MASTER_ADDR:$MASTER_PORT\" \\\n"
      "  --rdzv-id=\"${{SLURM_JOB_ID:-{}}}\" \\\n",
      c.nodes, hw.server.gpus_per_node, job_name(r));
  switch (family) {
    case Launcher::megatron: {
      const bool ds = framework_traits(w.framework).deepspeed_engine;
      o += ds ? R"sh(# Megatron-DeepSpeed (framework deepspeed): ZeRO through DeepSpeed with
# deepspeed.json. Data, tokenizer, checkpoints and learning rate are yours to
# add through MEGATRON_EXTRA_ARGS or extra arguments.
MEGATRON_LM="${MEGATRON_LM:-/workspace/Megatron-DeepSpeed}"
)sh"
              : R"sh(# Data, tokenizer, checkpoints and learning rate are yours to add through
# MEGATRON_EXTRA_ARGS or extra arguments, e.g. --data-path ... --tokenizer-type ...
# --tokenizer-model ... --save ... --load ... --lr ... (or --mock-data to smoke-test).
MEGATRON_LM="${MEGATRON_LM:-/workspace/Megatron-LM}"
)sh";
      if (l.tp > 1 || l.cp > 1) {
        o += "# Megatron-LM asserts this with tensor or context parallelism (before Blackwell).\n";
        o += "export CUDA_DEVICE_MAX_CONNECTIONS=1\n";
      }
      o += R"sh(
# megatron.args holds one option (and its value) per line.
args=()
while read -r -a words; do args+=("${words[@]}"); done < "$here/megatron.args"
read -r -a extra <<< "${MEGATRON_EXTRA_ARGS:-}"

)sh";
      o += torchrun;
      o += fmt::format("  \"$MEGATRON_LM/{}\" \"${{args[@]}}\" {}\"${{extra[@]}}\" \"$@\"\n",
                       kPretrain, ds ? "--deepspeed_config \"$here/deepspeed.json\" " : "");
      break;
    }
    case Launcher::torchtitan:
      o += R"sh(# torchtitan reads the job config; data and tokenizer paths are in its [model]
# and [training] sections, or extra --section.option arguments.
)sh";
      o += torchrun;
      o += "  -m torchtitan.train --job.config_file \"$here/torchtitan.toml\" \"$@\"\n";
      break;
    case Launcher::fsdp:
      o += R"sh(# Accelerate starts one process per GPU with FSDP as in accelerate_fsdp.yaml
# and runs your training script (TRAIN_SCRIPT) with its own arguments.
TRAIN_SCRIPT="${TRAIN_SCRIPT:?set TRAIN_SCRIPT to your training script (e.g. train.py)}"
)sh";
      o += "exec " + accelerate_line(r, c);
      o += "  \"$TRAIN_SCRIPT\" \"$@\"\n";
      break;
    case Launcher::peft:
      o += R"sh(# Accelerate starts one process per GPU as in accelerate_fsdp.yaml and runs
# TRL's SFT script with the LoRA/QLoRA settings of finetune_peft.yaml (set
# model_name_or_path and dataset_name there).
)sh";
      o += "exec " + accelerate_line(r, c);
      o += "  -m trl.scripts.sft --config \"$here/finetune_peft.yaml\" \"$@\"\n";
      break;
    case Launcher::torchtune:
      o += R"sh(# torchtune's distributed recipe with torchtune.yaml (tune run passes the
# torchrun options through).
)sh";
      o += fmt::format(
          "exec tune run \\\n  --nnodes={} \\\n  --nproc-per-node={} \\\n"
          "  --rdzv-backend=c10d \\\n  --rdzv-endpoint=\"$MASTER_ADDR:$MASTER_PORT\" \\\n"
          "  {} --config \"$here/torchtune.yaml\" \"$@\"\n",
          c.nodes, hw.server.gpus_per_node, torchtune_recipe(w));
      break;
  }
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
{}# CHANGE-ME: the partition and account of this cluster (remove the second '#').
##SBATCH --partition=CHANGE-ME
##SBATCH --account=CHANGE-ME
)sh",
                              job_name(r), c.nodes, hw.server.gpus_per_node,
                              // A plan below a node shares the node with other jobs.
                              hw.server.whole_gpus > 0 ? "" : "#SBATCH --exclusive\n");
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
  // DeepSpeed checks train_batch_size = micro-batch x accumulation x the
  // data-parallel world size (world / (tp x pp x cp)), whatever the engine.
  j["train_batch_size"] = c.global_batch;
  j["train_micro_batch_size_per_gpu"] = l.micro_batch;
  j["gradient_accumulation_steps"] = grad_accum(c);
  nlohmann::ordered_json zero = {{"stage", l.zero}};
  if (l.zero >= 1 && l.zero <= 2) {
    // Whether the gradient reduction runs during the backward pass, as priced.
    zero["overlap_comm"] = row_of(r).dp_overlap && l.dp_overlap && !row_of(r).deepspeed_engine;
  }
  if (l.zero >= 3) zero["overlap_comm"] = true;  // prefetched gathers (zero3_hidden_share)
  if (l.zero >= 3 && l.zero_replicas() > 1) {
    // Hybrid sharding (layout shard_group): MiCS partitions state within
    // groups of mics_shard_size ranks, gathers node-local first
    // (deepspeed/runtime/zero/config.py, mics.py).
    zero["mics_shard_size"] = l.zero_shard_dp();
    zero["mics_hierarchical_params_gather"] = true;
  }
  if (l.offload_optimizer) zero["offload_optimizer"] = {{"device", "cpu"}, {"pin_memory", true}};
  if (l.offload_params && l.zero >= 3) {
    zero["offload_param"] = {{"device", "cpu"}, {"pin_memory", true}};
  }
  j["zero_optimization"] = zero;
  const Precision p = r.request.workload.precision;
  j["bf16"] = {{"enabled", p == Precision::bf16 || p == Precision::fp8}};
  j["fp16"] = {{"enabled", p == Precision::fp16}};
  j["gradient_clipping"] = 1.0;
  return dump_json(j);
}

namespace {

// The container of a Kubernetes job: its command and args, as YAML lines at
// `indent`, for the plan's launcher family.
std::string container_command(const PlanReport& r, const PlanCandidate& c, int indent,
                              bool trainjob) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  const Workload& w = r.request.workload;
  const HardwareOption& hw = hardware_of(r, c);
  const std::string dir = kPodDir;
  std::vector<std::string> cmd;
  std::vector<std::string> args;
  // The operators set PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK,
  // PET_MASTER_ADDR and PET_MASTER_PORT; torchrun reads them, Kubernetes
  // expands $(VAR) in args for the launchers that take them as options.
  switch (launcher_of(w)) {
    case Launcher::megatron:
      cmd = {"torchrun"};
      args = program_words(r, c, dir,
                           framework_traits(w.framework).deepspeed_engine
                               ? "/workspace/Megatron-DeepSpeed"
                               : "/workspace/Megatron-LM");
      break;
    case Launcher::torchtitan:
      cmd = {"torchrun"};
      args = program_words(r, c, dir, "");
      break;
    case Launcher::fsdp:
    case Launcher::peft:
      cmd = {"accelerate", "launch"};
      args = {"--config_file",
              dir + "/accelerate_fsdp.yaml",
              "--num_machines",
              std::to_string(c.nodes),
              "--num_processes",
              std::to_string(static_cast<long long>(c.nodes) * hw.server.gpus_per_node),
              "--machine_rank",
              "$(PET_NODE_RANK)",
              "--main_process_ip",
              "$(PET_MASTER_ADDR)",
              "--main_process_port",
              "$(PET_MASTER_PORT)"};
      if (launcher_of(w) == Launcher::peft) {
        for (const char* s : {"-m", "trl.scripts.sft", "--config"}) args.emplace_back(s);
        args.push_back(dir + "/finetune_peft.yaml");
      } else {
        args.push_back(dir + "/train.py");
      }
      break;
    case Launcher::torchtune:
      cmd = {"tune", "run"};
      args = {"--nnodes",
              "$(PET_NNODES)",
              "--nproc-per-node",
              std::to_string(hw.server.gpus_per_node),
              "--rdzv-backend",
              "c10d",
              "--rdzv-endpoint",
              "$(PET_MASTER_ADDR):$(PET_MASTER_PORT)",
              torchtune_recipe(w),
              "--config",
              dir + "/torchtune.yaml"};
      break;
  }
  (void)trainjob;
  std::string o = pad + "command:\n";
  for (const std::string& s : cmd) o += pad + "  - " + yaml_quoted(s) + "\n";
  o += pad + "args:\n";
  for (const std::string& s : args) o += pad + "  - " + yaml_quoted(s) + "\n";
  return o;
}

// Resource lines (GPUs and the fabric's RDMA devices) at `indent`.
std::string resource_lines(const HardwareOption& hw, int indent) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  std::string res = pad + fmt::format("nvidia.com/gpu: {}\n", hw.server.gpus_per_node);
  if (const RdmaResource* x = rdma_resource(hw)) {
    res += pad + "# RDMA for " + fabric_label(hw) + ": " + x->note + ".\n";
    res += pad + fmt::format("{}: {}\n", x->name, x->per_nic ? hw.server.nics_per_node : 1);
  }
  return res;
}

std::string env_lines(const PlanCandidate& c, const PlanReport& r, int indent) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  const Layout& l = c.layout;
  std::string env;
  if (launcher_of(r.request.workload) == Launcher::megatron && (l.tp > 1 || l.cp > 1)) {
    env += pad + "env:\n";
    env += pad + "  - name: CUDA_DEVICE_MAX_CONNECTIONS\n";
    env += pad + "    value: \"1\"\n";
  }
  return env;
}

const char* image_of(const PlanReport& r) {
  switch (launcher_of(r.request.workload)) {
    case Launcher::megatron:
      return "nvcr.io/nvidia/pytorch:CHANGE-ME  # an image with Megatron-LM, Transformer Engine "
             "and "
             "this folder in /workspace/launch";
    case Launcher::torchtitan:
      return "CHANGE-ME  # an image with torchtitan and this folder in /workspace/launch";
    case Launcher::fsdp:
      return "CHANGE-ME  # an image with accelerate, your train.py and this folder in "
             "/workspace/launch";
    case Launcher::peft:
      return "CHANGE-ME  # an image with trl, peft, bitsandbytes and this folder in "
             "/workspace/launch";
    case Launcher::torchtune:
      return "CHANGE-ME  # an image with torchtune and this folder in /workspace/launch";
  }
  return "CHANGE-ME";
}

}  // namespace

std::string pytorchjob_yaml(const PlanReport& r, const PlanCandidate& c) {
  const HardwareOption& hw = hardware_of(r, c);
  const std::string command = container_command(r, c, 14, false);
  const std::string env = env_lines(c, r, 14);
  const std::string res = resource_lines(hw, 18);
  auto replica = [&](const char* role, int replicas) {
    return fmt::format(R"yaml(    {}:
      replicas: {}
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: {}
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
                       role, replicas, image_of(r), command, env, res);
  };
  std::string o;
  o += header(r, c, "#");
  o += fmt::format(
      R"yaml(# Kubeflow training operator v1: torchrun reads PET_NNODES, PET_NPROC_PER_NODE,
# PET_NODE_RANK, PET_MASTER_ADDR and PET_MASTER_PORT, which the operator sets.
# Clusters on Kubeflow Trainer v2 take trainjob.yaml instead.
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

std::string trainjob_yaml(const PlanReport& r, const PlanCandidate& c) {
  const HardwareOption& hw = hardware_of(r, c);
  std::string o = header(r, c, "#");
  o += fmt::format(
      R"yaml(# Kubeflow Trainer v2 (trainer.kubeflow.org/v1alpha1): the torch-distributed
# ClusterTrainingRuntime starts numNodes pods and sets PET_NNODES,
# PET_NPROC_PER_NODE, PET_NODE_RANK, PET_MASTER_ADDR and PET_MASTER_PORT.
# Add data, tokenizer, checkpoint and learning-rate arguments to args.
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {}
spec:
  runtimeRef:
    name: torch-distributed
    apiGroup: trainer.kubeflow.org
    kind: ClusterTrainingRuntime
  trainer:
    image: {}
{}    numNodes: {}
    numProcPerNode: {}
    resourcesPerNode:
      limits:
{})yaml",
      job_name(r), image_of(r), container_command(r, c, 4, true), c.nodes, hw.server.gpus_per_node,
      resource_lines(hw, 8));
  const std::string env = env_lines(c, r, 4);
  o += env;
  return o;
}

std::string torchtitan_toml(const PlanReport& r, const PlanCandidate& c) {
  const Workload& w = r.request.workload;
  const Layout& l = c.layout;
  const auto titan = torchtitan_model(w.model);
  std::string o = header(r, c, "#");
  o += R"toml(# torchtitan job config (TOML, --job.config_file; torchtitan releases up to
# 2026-02, JobConfig of torchtitan/config/job_config.py). Newer torchtitan takes
# the same fields as --section.option flags. Set [model] flavor and
# hf_assets_path, and [training] dataset.
)toml";
  o += fmt::format(R"toml(
[job]
description = "{}"

[model]
name = "{}"
flavor = "{}"
hf_assets_path = "CHANGE-ME"
)toml",
                   job_name(r), titan.first, titan.second);
  if (fp8(r)) o += "converters = [\"quantize.linear.float8\"]\n";
  o += fmt::format(
      R"toml(
[optimizer]
name = "AdamW"

[training]
local_batch_size = {}
global_batch_size = {}
seq_len = {}
steps = {}
max_norm = 1.0
mixed_precision_param = "{}"
enable_cpu_offload = {}

[parallelism]
data_parallel_replicate_degree = {}
data_parallel_shard_degree = {}
fsdp_reshard_after_forward = "{}"
tensor_parallel_degree = {}
pipeline_parallel_degree = {}
pipeline_parallel_microbatch_size = {}
context_parallel_degree = {}
expert_parallel_degree = {}
expert_tensor_parallel_degree = {}
{}
[activation_checkpoint]
mode = "{}"
)toml",
      l.micro_batch, c.global_batch, w.seq_len, train_iters(r, c),
      w.precision == Precision::fp32 || w.precision == Precision::tf32 ? "float32" : "bfloat16",
      l.offload_optimizer || l.offload_params ? "true" : "false",
      // ZeRO 0: plain data parallelism (replicate); 1-2: FSDP2 keeping the
      // gathered weights (ZeRO-2); 3: resharded after the forward pass.
      // Hybrid sharding (shard_group): HSDP, replicas x shard group.
      l.zero == 0 ? l.dp : l.zero_replicas(), l.zero == 0 ? 1 : l.zero_shard_dp(),
      l.zero >= 3 ? "default" : "never", l.tp, l.pp, l.micro_batch, l.cp, l.ep, l.expert_tp(),
      // torch.distributed.pipelining ScheduleDualPipeV (PyTorch 2.9 on).
      l.pp > 1 && l.schedule == PipeSchedule::dualpipev
          ? "pipeline_parallel_schedule = \"DualPipeV\"\n"
          : "",
      to_string(l.recompute));
  if (l.recompute == Recompute::selective) o += "selective_ac_option = \"op\"\n";
  if (w.compile != Compile::none) {
    // compile: model compiles the layers only; all the loss too (the
    // plan's memory counts the compiled loss only then).
    o += fmt::format("\n[compile]\nenable = true\ncomponents = [{}]\n",
                     w.compile == Compile::all ? "\"model\", \"loss\"" : "\"model\"");
  }
  if (fp8(r)) {
    o += fmt::format(R"toml(
[quantize.linear.float8]
enable_fsdp_float8_all_gather = {}
precompute_float8_dynamic_scale_for_fsdp = {}
filter_fqns = ["output"]
)toml",
                     l.fp8_param_gather ? "true" : "false", l.fp8_param_gather ? "true" : "false");
  }
  return o;
}

std::string accelerate_fsdp_yaml(const PlanReport& r, const PlanCandidate& c) {
  const HardwareOption& hw = hardware_of(r, c);
  const Workload& w = r.request.workload;
  const Layout& l = c.layout;
  std::string o = header(r, c, "#");
  o += "# Hugging Face Accelerate config (accelerate launch --config_file).\n";
  const char* mp = w.precision == Precision::fp16   ? "fp16"
                   : w.precision == Precision::fp32 ? "no"
                   : w.precision == Precision::tf32 ? "no"
                                                    : "bf16";
  // FSDP sharding strategy of the plan's ZeRO stage: FULL_SHARD is ZeRO-3,
  // SHARD_GRAD_OP ZeRO-2 (FSDP has no ZeRO-1: the gradients are sharded too),
  // NO_SHARD plain data parallelism.
  // Hybrid sharding (shard_group): HYBRID_SHARD / _HYBRID_SHARD_ZERO2, which
  // FSDP1 shards within a node (torch/distributed/fsdp/_init_utils.py
  // _init_intra_and_inter_node_groups).
  const bool hybrid = l.zero >= 1 && l.zero_replicas() > 1;
  const char* sharding = l.zero >= 3   ? (hybrid ? "HYBRID_SHARD" : "FULL_SHARD")
                         : l.zero >= 1 ? (hybrid ? "_HYBRID_SHARD_ZERO2" : "SHARD_GRAD_OP")
                                       : "NO_SHARD";
  if (hybrid && l.zero_shard_dp() != hw.server.gpus_per_node) {
    o += fmt::format(
        "# The plan shards within groups of {} GPUs; FSDP1's HYBRID_SHARD shards within a node "
        "({} GPUs): pass a device_mesh to match.\n",
        l.zero_shard_dp(), hw.server.gpus_per_node);
  }
  o += fmt::format(
      R"yaml(compute_environment: LOCAL_MACHINE
distributed_type: FSDP
mixed_precision: {}
num_machines: {}
num_processes: {}
machine_rank: 0
rdzv_backend: c10d
same_network: true
main_training_function: main
use_cpu: false
fsdp_config:
  fsdp_version: 1
  fsdp_sharding_strategy: {}
  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP
  fsdp_backward_prefetch: BACKWARD_PRE
  fsdp_forward_prefetch: false
  fsdp_offload_params: {}
  fsdp_activation_checkpointing: {}
  fsdp_state_dict_type: SHARDED_STATE_DICT
  fsdp_cpu_ram_efficient_loading: true
  fsdp_sync_module_states: true
  fsdp_use_orig_params: true
)yaml",
      mp, c.nodes, static_cast<long long>(c.nodes) * hw.server.gpus_per_node, sharding,
      l.offload_optimizer || l.offload_params ? "true" : "false",
      // The Trainer refuses FSDP activation checkpointing beside
      // gradient_checkpointing, which finetune_peft.yaml sets.
      l.recompute != Recompute::none && launcher_of(w) != Launcher::peft ? "true" : "false");
  return o;
}

std::string finetune_peft_yaml(const PlanReport& r, const PlanCandidate& c) {
  const Workload& w = r.request.workload;
  const Layout& l = c.layout;
  const bool qlora = w.finetune.method == FinetuneMethod::qlora;
  std::string o = header(r, c, "#");
  o += R"yaml(# TRL SFT config (python -m trl.scripts.sft --config finetune_peft.yaml, or
# trl sft --config): TrainingArguments/SFTConfig and ModelConfig keys (PEFT LoRA,
# bitsandbytes 4-bit). Set model_name_or_path, dataset_name and output_dir.
model_name_or_path: CHANGE-ME
dataset_name: CHANGE-ME
output_dir: CHANGE-ME
)yaml";
  o += fmt::format(
      "per_device_train_batch_size: {}\ngradient_accumulation_steps: {}\nmax_steps: {}\n"
      "max_length: {}\npacking: true\n",
      l.micro_batch, grad_accum(c), train_iters(r, c), w.seq_len);
  o += fmt::format(
      "bf16: {}\nfp16: {}\n",
      w.precision == Precision::bf16 || w.precision == Precision::fp8 ? "true" : "false",
      w.precision == Precision::fp16 ? "true" : "false");
  o += fmt::format("gradient_checkpointing: {}\n",
                   l.recompute != Recompute::none ? "true" : "false");
  if (l.activation_offload) o += "activation_offloading: true\n";
  o += fmt::format("optim: {}\n", hf_optim(w.optimizer, qlora));
  // Chunked cross-entropy: Liger's fused linear cross-entropy computes the
  // loss chunk by chunk without the whole fp32 logits.
  if (w.loss_chunks > 1) o += "use_liger_kernel: true\n";
  o += fmt::format(
      "use_peft: true\nlora_r: {}\nlora_alpha: {}\nlora_dropout: {}\nlora_target_modules: {}\n",
      w.finetune.rank, 2 * w.finetune.rank, lora_dropout_text(w),
      yaml_list(target_modules(w.finetune.targets)));
  if (qlora) {
    o += "load_in_4bit: true\nbnb_4bit_quant_type: nf4\nuse_bnb_nested_quant: true\n";
    if (l.zero >= 1) {
      o += "# FSDP shards the 4-bit weights only when they are stored in the compute type:\n"
           "# bitsandbytes bnb_4bit_quant_storage bfloat16 (model_init_kwargs in TRL).\n";
    }
  }
  return o;
}

std::string torchtune_yaml(const PlanReport& r, const PlanCandidate& c) {
  const Workload& w = r.request.workload;
  const Layout& l = c.layout;
  const bool lora = is_lora(w);
  const bool qlora = w.finetune.method == FinetuneMethod::qlora && lora;
  const std::string adapter = qlora ? "qlora_" : lora ? "lora_" : "";
  std::string o = header(r, c, "#");
  o += fmt::format(R"yaml(# torchtune recipe config for `tune run {} --config torchtune.yaml`.
# Set the model builder where CHANGE-ME (torchtune.models.<family>.{}<size>),
# the tokenizer, the checkpointer and the dataset.
output_dir: CHANGE-ME
model:
  _component_: {}
)yaml",
                   torchtune_recipe(w), adapter, torchtune_model(w.model, adapter));
  if (lora) {
    const auto t = w.finetune.targets;
    std::vector<std::string> attn = {"q_proj", "v_proj"};
    if (t == AdapterTargets::qkv) attn = {"q_proj", "k_proj", "v_proj"};
    if (t == AdapterTargets::attention || t == AdapterTargets::all) {
      attn = {"q_proj", "k_proj", "v_proj", "output_proj"};
    }
    o += fmt::format(
        "  lora_attn_modules: {}\n  apply_lora_to_mlp: {}\n  apply_lora_to_output: false\n"
        "  lora_rank: {}\n  lora_alpha: {}\n  lora_dropout: {}\n",
        yaml_list(attn), t == AdapterTargets::all ? "true" : "false", w.finetune.rank,
        2 * w.finetune.rank, lora_dropout_text(w));
  }
  o += R"yaml(tokenizer:
  _component_: CHANGE-ME
  path: CHANGE-ME
checkpointer:
  _component_: torchtune.training.FullModelHFCheckpointer
  checkpoint_dir: CHANGE-ME
  checkpoint_files: CHANGE-ME
  output_dir: CHANGE-ME
  model_type: CHANGE-ME
dataset:
  _component_: CHANGE-ME
  packed: true
)yaml";
  o += fmt::format("seed: 0\nshuffle: true\nbatch_size: {}\ngradient_accumulation_steps: {}\n",
                   l.micro_batch, grad_accum(c));
  o += fmt::format("epochs: 1\nmax_steps_per_epoch: {}\n", train_iters(r, c));
  const bool in_bwd = w.optimizer_in_backward;
  const char* opt = w.optimizer == Optimizer::adam8bit ? "bitsandbytes.optim.PagedAdamW8bit"
                    : w.optimizer == Optimizer::sgd    ? "torch.optim.SGD"
                                                       : "torch.optim.AdamW";
  o += fmt::format("optimizer:\n  _component_: {}\n  lr: 2.0e-5\n", opt);
  o += fmt::format("optimizer_in_bwd: {}\n", in_bwd ? "true" : "false");
  o += fmt::format(
      "loss:\n  _component_: torchtune.modules.loss.CEWithChunkedOutputLoss\n"
      "  num_output_chunks: {}\n",
      std::max(1, w.loss_chunks));
  o += fmt::format("dtype: {}\n", w.precision == Precision::fp32 ? "fp32" : "bf16");
  o += fmt::format("enable_activation_checkpointing: {}\n",
                   l.recompute != Recompute::none ? "true" : "false");
  o += fmt::format("enable_activation_offloading: {}\n", l.activation_offload ? "true" : "false");
  o += fmt::format("fsdp_cpu_offload: {}\n",
                   l.offload_optimizer || l.offload_params ? "true" : "false");
  o += fmt::format("fsdp_reshard_after_forward: {}\n", l.zero >= 3 ? "true" : "false");
  // torchtune's row is timed compiled; its memory counts the compiled loss
  // only with compile: all (otherwise the eager loss, the larger).
  o += "compile: true\ndevice: cuda\n";
  return o;
}

std::string smoke_train_py(const PlanReport& r, const PlanCandidate& c) {
  const Workload& w = r.request.workload;
  const Layout& l = c.layout;
  std::string o = "#!/usr/bin/env python3\n";
  o += header(r, c, "#");
  o += fmt::format(
      "PLAN = {{\"launcher\": \"{}\", \"tp\": {}, \"pp\": {}, \"dp\": {}, \"cp\": {}, \"ep\": {}, "
      "\"zero\": {}, \"recompute\": \"{}\", \"micro_batch\": {}, \"grad_accum\": {}, "
      "\"lora_rank\": {}, \"qlora\": {}, \"optimizer\": \"{}\"}}\n",
      to_string(launcher_of(w)), l.tp, l.pp, l.dp, l.cp, l.ep, l.zero, to_string(l.recompute),
      l.micro_batch, grad_accum(c), is_lora(w) ? w.finetune.rank : 0,
      w.finetune.method == FinetuneMethod::qlora && is_lora(w) ? "True" : "False",
      to_string(w.optimizer));
  o += R"py(
# Smoke test of the plan's parallel structure (plan --emit --smoke): two
# training steps of a tiny transformer-like model on CPU with torch.distributed
# over gloo, at 2 processes. The plan's first model-parallel dimension of size
# > 1 is kept at size 2 (tensor parallel: a column/row-parallel MLP with an
# all-reduce; pipeline: two stages exchanging activations and gradients),
# otherwise data parallelism at the plan's ZeRO stage (DDP; ZeRO 1-2: DDP with
# a sharded optimizer; ZeRO 3: FSDP where this torch runs it on CPU). LoRA and
# QLoRA plans freeze the base weights and train rank-r adapters. Written by
# scaleout for torch >= 1.13 (Debian 12's python3-torch).
import math
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint

STEPS = 2
VOCAB, HIDDEN, FFN, SEQ, LAYERS = 64, 32, 64, 16, 2


class AllReduceSum(torch.autograd.Function):
    """Row-parallel output: sum over the group forward, identity backward."""

    @staticmethod
    def forward(ctx, x):
        x = x.clone()
        dist.all_reduce(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g


class CopyToGroup(torch.autograd.Function):
    """Column-parallel input: identity forward, sum of input gradients backward."""

    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        g = g.clone()
        dist.all_reduce(g)
        return g


class Linear(nn.Module):
    """A linear layer; with rank > 0 a frozen base weight plus a trained B @ A."""

    def __init__(self, n_in, n_out, rank):
        super().__init__()
        self.base = nn.Linear(n_in, n_out, bias=False)
        self.rank = rank
        if rank > 0:
            self.base.weight.requires_grad_(False)
            self.lora_a = nn.Parameter(torch.randn(rank, n_in) / math.sqrt(n_in))
            self.lora_b = nn.Parameter(torch.zeros(n_out, rank))

    def forward(self, x):
        y = self.base(x)
        if self.rank > 0:
            y = y + F.linear(F.linear(x, self.lora_a), self.lora_b)
        return y


class Block(nn.Module):
    def __init__(self, rank, tp_size):
        super().__init__()
        self.norm = nn.LayerNorm(HIDDEN)
        self.tp = tp_size > 1
        self.up = Linear(HIDDEN, FFN // tp_size, rank)
        self.down = Linear(FFN // tp_size, HIDDEN, rank)

    def forward(self, x):
        h = self.norm(x)
        if self.tp:
            h = CopyToGroup.apply(h)
        h = self.down(F.gelu(self.up(h)))
        if self.tp:
            h = AllReduceSum.apply(h)
        return x + h


class Stage(nn.Module):
    def __init__(self, first, last, layers, rank, tp_size):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HIDDEN) if first else None
        self.blocks = nn.ModuleList(Block(rank, tp_size) for _ in range(layers))
        self.head = nn.Linear(HIDDEN, VOCAB, bias=False) if last else None
        self.checkpoint = PLAN["recompute"] != "none"

    def forward(self, x):
        if self.embed is not None:
            x = self.embed(x)
        for b in self.blocks:
            if self.checkpoint and torch.is_grad_enabled():
                x = torch.utils.checkpoint.checkpoint(b, x, use_reentrant=False)
            else:
                x = b(x)
        if self.head is not None:
            x = self.head(x)
        return x


def structure(world):
    if world < 2:
        return "single"
    if PLAN["tp"] > 1:
        return "tp"
    if PLAN["pp"] > 1:
        return "pp"
    if PLAN["zero"] >= 3:
        return "fsdp"
    if PLAN["zero"] >= 1:
        return "zero"
    return "ddp"


def make_optimizer(params, sharded):
    params = [p for p in params if p.requires_grad]
    if PLAN["optimizer"] == "sgd":
        cls, kw = torch.optim.SGD, {"lr": 0.01}
    else:
        cls, kw = torch.optim.AdamW, {"lr": 1e-3}
    if sharded:
        from torch.distributed.optim import ZeroRedundancyOptimizer
        return ZeroRedundancyOptimizer(params, optimizer_class=cls, **kw)
    return cls(params, **kw)


def batch(seed):
    g = torch.Generator().manual_seed(seed)
    tokens = torch.randint(0, VOCAB, (max(1, min(PLAN["micro_batch"], 2)), SEQ + 1), generator=g)
    return tokens[:, :-1], tokens[:, 1:]


def main():
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29511")
    os.environ.setdefault("RANK", "0")
    os.environ.setdefault("WORLD_SIZE", "1")
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(1234)  # the same initial weights on every rank
    kind = structure(world)
    lora = PLAN["lora_rank"] and min(PLAN["lora_rank"], 4)
    accum = max(1, min(PLAN["grad_accum"], 2))
    if kind == "pp":
        model = Stage(rank == 0, rank == world - 1, LAYERS // 2, lora, 1)
    else:
        model = Stage(True, True, LAYERS, lora, world if kind == "tp" else 1)
    if lora:  # the embedding and the head stay frozen too
        for name, p in model.named_parameters():
            if "lora_" not in name:
                p.requires_grad_(False)
    wrapped = model
    if kind == "fsdp":
        try:
            from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
            wrapped = FSDP(model)
        except Exception as e:  # torch builds without FSDP on CPU
            print(f"rank {rank}: FSDP unavailable on CPU ({type(e).__name__}: {e}); "
                  "DDP with a sharded optimizer instead", flush=True)
            kind = "zero"
    if kind in ("ddp", "zero"):
        wrapped = nn.parallel.DistributedDataParallel(model)
    opt = make_optimizer(wrapped.parameters(), kind == "zero")
    data_rank = rank if kind in ("ddp", "zero", "fsdp") else 0
    losses = []
    for step in range(STEPS):
        opt.zero_grad()
        total = 0.0
        for micro in range(accum):
            x, y = batch(1000 * step + 10 * micro + data_rank)
            if kind == "pp":
                if rank == 0:
                    h = wrapped(x)
                    dist.send(h.detach(), 1)
                    g = torch.empty_like(h)
                    dist.recv(g, 1)
                    h.backward(g)
                    loss = torch.zeros(())
                    dist.recv(loss, world - 1)
                else:
                    h = torch.empty(x.shape[0], SEQ, HIDDEN)
                    dist.recv(h, 0)
                    h.requires_grad_(True)
                    logits = wrapped(h)
                    loss = F.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1)) / accum
                    loss.backward()
                    dist.send(h.grad, 0)
                    dist.send(loss.detach(), 0)
            else:
                logits = wrapped(x)
                loss = F.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1)) / accum
                loss.backward()
            total += float(loss)
        opt.step()
        losses.append(total)
        if not all(math.isfinite(v) for v in losses):
            print(f"rank {rank}: loss is not finite: {losses}", flush=True)
            sys.exit(1)
    trained = sum(p.numel() for p in model.parameters() if p.requires_grad)
    dist.barrier()
    print(f"smoke ok: rank {rank}/{world} structure {kind} launcher {PLAN['launcher']} "
          f"steps {STEPS} micro-batches {accum} trained parameters {trained} "
          f"loss {losses[0]:.4f} -> {losses[-1]:.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
)py";
  return o;
}

std::vector<std::pair<std::string, std::string>> launch_files(const PlanReport& r,
                                                              const PlanCandidate& c, bool smoke) {
  const Launcher family = launcher_of(r.request.workload);
  std::vector<std::pair<std::string, std::string>> f;
  f.emplace_back("slurm.sbatch", slurm_script(r, c));
  f.emplace_back("torchrun.sh", torchrun_script(r, c, smoke));
  if (family == Launcher::megatron) f.emplace_back("megatron.args", megatron_args_file(r, c));
  f.emplace_back("deepspeed.json", deepspeed_config(r, c));
  f.emplace_back("pytorchjob.yaml", pytorchjob_yaml(r, c));
  f.emplace_back("trainjob.yaml", trainjob_yaml(r, c));
  switch (family) {
    case Launcher::megatron:
      break;
    case Launcher::torchtitan:
      f.emplace_back("torchtitan.toml", torchtitan_toml(r, c));
      break;
    case Launcher::fsdp:
      f.emplace_back("accelerate_fsdp.yaml", accelerate_fsdp_yaml(r, c));
      break;
    case Launcher::peft:
      f.emplace_back("accelerate_fsdp.yaml", accelerate_fsdp_yaml(r, c));
      f.emplace_back("finetune_peft.yaml", finetune_peft_yaml(r, c));
      break;
    case Launcher::torchtune:
      f.emplace_back("torchtune.yaml", torchtune_yaml(r, c));
      break;
  }
  if (smoke) f.emplace_back("smoke_train.py", smoke_train_py(r, c));
  return f;
}

}  // namespace scaleout::report
