#include "validation/validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <iterator>
#include <tuple>
#include <utility>

#include "core/enum_names.hpp"
#include "cost/run.hpp"
#include "workload/checks.hpp"
#include "workload/pipeline.hpp"

namespace scaleout {

bool metric_supported(const std::string& metric) {
  return metric == "peak_mem_gib" || metric == "step_time_s" || metric == "tokens_per_s_per_gpu" ||
         metric == "mfu" || is_whole_run_metric(metric);
}

bool is_whole_run_metric(const std::string& metric) {
  return metric == "gpu_hours" || metric == "train_days";
}

IntervalMetric interval_metric(const std::string& metric) {
  if (metric == "peak_mem_gib") return IntervalMetric::memory;
  return is_whole_run_metric(metric) ? IntervalMetric::run : IntervalMetric::time;
}

bool higher_is_faster(const std::string& metric) {
  return metric == "tokens_per_s_per_gpu" || metric == "mfu";
}

std::optional<double> step_time_error(const RowResult& r) {
  if (!r.error || !r.predicted || *r.predicted <= 0) return std::nullopt;
  if (r.metric == "step_time_s") return r.error;
  if (higher_is_faster(r.metric)) return r.measured / *r.predicted - 1.0;
  return std::nullopt;
}

Server server_of(const ValidationRow& r, const Gpu& gpu) {
  Server s;
  s.id = "row:" + r.id;
  s.gpu_id = gpu.id;
  s.gpus_per_node = static_cast<int>(r.gpus_per_node.value_or(8));
  const bool switched = gpu.scaleup_bw_Bps > 0 && gpu.family_data.validation_nvswitch;
  s.intra_node = switched ? IntraNodeKind::nvswitch : IntraNodeKind::pcie;
  s.intra_node_bw_Bps = switched ? gpu.scaleup_bw_Bps : gpu.host_link_Bps;
  s.scaleup_domain_gpus = static_cast<int>(r.scaleup_domain_gpus.value_or(s.gpus_per_node));
  const double default_gbps = gpu.family_data.validation_nic_gbit_s;
  s.nics_per_node = static_cast<int>(r.nics_per_node.value_or(s.gpus_per_node));
  s.nic_bw_Bps = r.nic_gbps.value_or(default_gbps) * 1e9 / 8.0;
  s.source = "validation row " + r.id;
  return s;
}

std::optional<Fabric> fabric_of(const ValidationRow& r, const Server& server) {
  Fabric f;
  f.id = r.fabric.empty() ? "row-network" : r.fabric;
  f.kind = r.fabric == "roce"  ? FabricKind::roce
           : r.fabric == "eth" ? FabricKind::ethernet
           : r.fabric == "efa" ? FabricKind::efa
                               : FabricKind::ib;
  f.port_bw_Bps = server.nic_bw_Bps;
  return f;
}

std::optional<RunSettings> default_run_settings(const Catalog& catalog) {
  const FailureRate* f = catalog.default_entry<FailureRate>();
  const StorageSystem* st = catalog.default_entry<StorageSystem>();
  const Facility* fa = catalog.default_entry<Facility>();
  if (!f || !st || !fa) return std::nullopt;
  RunSettings s;
  s.failures_per_1000_node_days = f->per_1000_node_days;
  s.failure_rate_id = f->id;
  s.storage = *st;
  s.facility = *fa;
  return s;
}

namespace {

// The vocabulary a row without one takes: the documented tokenizer of the
// model family its `model` cell names (the released config.json
// `vocab_size`), else Megatron-LM's GPT-2 BPE padded as its papers train it.
// Earlier entries win, so "Llama 3" is matched before "Llama".
struct VocabDefault {
  const char* name_part;  // matched case-insensitively
  long long vocab;
  const char* source;
};
constexpr VocabDefault kVocabDefaults[] = {
    {"llama 3", 128256, "Llama 3 tokenizer (meta-llama/Meta-Llama-3-8B config.json)"},
    {"llama-3", 128256, "Llama 3 tokenizer (meta-llama/Meta-Llama-3-8B config.json)"},
    {"llama", 32000, "LLaMA/Llama 2 SentencePiece (meta-llama/Llama-2-7b-hf config.json)"},
    {"mixtral", 32000, "Mistral v0.1 tokenizer (mistralai/Mixtral-8x7B-v0.1 config.json)"},
    {"mistral", 32000, "Mistral v0.1 tokenizer (mistralai/Mistral-7B-v0.1 config.json)"},
    {"qwen", 151936, "Qwen tokenizer (Qwen/Qwen2-7B, Qwen/Qwen3-8B config.json)"},
    {"deepseek-v3", 129280, "deepseek-ai/DeepSeek-V3 config.json"},
    {"deepseek", 102400, "DeepSeek LLM/V2 tokenizer (deepseek-ai/DeepSeek-V2 config.json)"},
    {"bloom", 250880, "bigscience/bloom config.json"},
    {"opt", 50272, "facebook/opt-175b tokenizer (facebook/opt-66b config.json)"},
    {"falcon", 65024, "tiiuae/falcon-40b config.json"},
    {"nemotron", 256000, "nvidia/Nemotron-4-340B-Base tokenizer"},
    {"gemma", 256000, "google/gemma-7b config.json"},
};
// GPT-2's 50,257 BPE tokens padded to a multiple of 1,024, as in Megatron-LM's
// papers (Narayanan et al. 2021 Table 1: V = 51,200).
constexpr long long kMegatronGptVocab = 51200;

// The vocabulary and where it comes from, for a row whose cell is empty.
std::pair<long long, std::string> default_vocab(const std::string& model) {
  std::string lower = model;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const VocabDefault& d : kVocabDefaults) {
    if (lower.find(d.name_part) != std::string::npos) return {d.vocab, d.source};
  }
  return {kMegatronGptVocab, "GPT-2 BPE padded to 51,200 as Megatron-LM trains GPT"};
}

// The model shape a row describes. Cells the schema does not carry follow the
// row's architecture: GELU rows are GPT-style (tied embeddings, LayerNorm,
// biases), SwiGLU rows Llama-style; Megatron-family frameworks train GPT with
// dropout 0.1 (Megatron-LM arguments.py defaults), the others without.
ModelShape model_of(const ValidationRow& r, Framework fw) {
  ModelShape m;
  m.id = r.id;
  m.name = r.model;
  m.layers = static_cast<int>(r.layers.value_or(0));
  m.hidden = r.hidden.value_or(0);
  m.heads = static_cast<int>(r.heads.value_or(1));
  m.kv_heads = static_cast<int>(r.kv_heads.value_or(m.heads));
  m.ffn = r.ffn_hidden.value_or(4 * m.hidden);
  m.vocab = r.vocab ? *r.vocab : default_vocab(r.model).first;
  const bool swiglu = r.mlp == "swiglu";
  m.mlp = swiglu ? MlpKind::swiglu : MlpKind::gelu;
  m.tied_embeddings = !swiglu;
  m.norm = swiglu ? NormKind::rmsnorm : NormKind::layernorm;
  m.linear_bias = !swiglu;
  // GPT-style rows learn a position table as long as the sequence; Llama-style use RoPE.
  m.position = swiglu ? PositionKind::rope : PositionKind::learned;
  m.max_position = r.seq_len.value_or(2048);
  m.dropout = !swiglu && framework_traits(fw).megatron_family;
  if (r.moe_experts && *r.moe_experts > 0) {
    m.moe.experts = static_cast<int>(*r.moe_experts);
    m.moe.top_k = static_cast<int>(r.moe_top_k.value_or(2));
    m.moe.expert_ffn = m.ffn;
  }
  return m;
}

}  // namespace

const ModelShape* named_catalog_model(const ValidationRow& r, const Catalog& catalog) {
  if (r.model.empty()) return nullptr;
  if (const ModelShape* m = catalog.find_model(r.model)) return m;
  for (const ModelShape* m : catalog.all<ModelShape>()) {
    if (m->name == r.model) return m;
  }
  return nullptr;
}

std::optional<ShapeConflict> shape_conflict(const ValidationRow& r, const ModelShape& m) {
  const std::pair<const char*, std::optional<long long>> cells[] = {
      {"layers", m.layers},     {"hidden", m.hidden},  {"heads", m.heads},
      {"kv_heads", m.kv_heads}, {"ffn_hidden", m.ffn}, {"vocab", m.vocab},
  };
  const std::optional<long long> given[] = {r.layers,   r.hidden,     r.heads,
                                            r.kv_heads, r.ffn_hidden, r.vocab};
  for (std::size_t i = 0; i < std::size(cells); ++i) {
    if (given[i] && *given[i] != *cells[i].second) {
      return ShapeConflict{cells[i].first, fmt::format("is {}, but catalog model '{}' has {}",
                                                       *given[i], m.id, *cells[i].second)};
    }
  }
  const std::string mlp = to_string(m.mlp);
  if (!r.mlp.empty() && r.mlp != mlp) {
    return ShapeConflict{"mlp",
                         fmt::format("is {}, but catalog model '{}' has {}", r.mlp, m.id, mlp)};
  }
  const std::pair<const char*, std::optional<long long>> moe[] = {{"moe_experts", r.moe_experts},
                                                                  {"moe_top_k", r.moe_top_k}};
  const long long want[] = {m.moe.experts, m.moe.top_k};
  for (std::size_t i = 0; i < std::size(moe); ++i) {
    if (moe[i].second && *moe[i].second != want[i]) {
      return ShapeConflict{moe[i].first, fmt::format("is {}, but catalog model '{}' has {}",
                                                     *moe[i].second, m.id, want[i])};
    }
  }
  return std::nullopt;
}

const ModelShape* catalog_shape_of(const ValidationRow& r, const Catalog& catalog) {
  if (const ModelShape* m = catalog.find_model(r.model)) return m;  // named by id
  const bool dense_in_full =
      r.layers && r.hidden && r.heads && r.vocab && r.moe_experts.value_or(0) == 0;
  return dense_in_full ? nullptr : named_catalog_model(r, catalog);
}

namespace {

// One unknown cell: the values to try, in order of preference, and a label.
struct Unknown {
  std::string name;
  std::vector<std::function<void(Workload&)>> options;
  std::vector<std::string> labels;
};

}  // namespace

namespace {

// The row's memory-saver cells (empty: the workload's defaults).
void apply_memory_savers(const ValidationRow& r, Workload& w) {
  if (const auto o = enum_from_name<Optimizer>(r.optimizer)) w.optimizer = *o;
  w.layout.offload_optimizer = r.offload == "optimizer" || r.offload == "all";
  w.layout.offload_params = r.offload == "all";
  w.layout.activation_offload = r.activation_offload == "y";
  w.optimizer_in_backward = r.optimizer_in_backward == "y";
  w.loss_chunks = static_cast<int>(r.loss_chunks.value_or(1));
  w.compile = r.compile == "model"                     ? Compile::model
              : r.compile == "y" || r.compile == "all" ? Compile::all
                                                       : Compile::none;
  w.cuda_graphs = cuda_graphs_from_name(r.cuda_graphs);
  w.loss_upcast = r.loss_upcast != "n";
  w.fp8_activations = r.fp8_activations == "y";
  w.grad_reduce_in_bf16 = r.grad_reduce_in_bf16 == "y";
}

}  // namespace

RowResult predict_row(const ValidationRow& r, const Catalog& catalog, const ModelTuning& tuning) {
  RowResult out;
  out.id = r.id;
  out.group = r.group;
  out.metric = r.metric;
  out.measured = r.value;
  out.gpu_id = r.gpu;

  const Gpu* catalog_gpu = catalog.find_gpu(r.gpu);
  if (!catalog_gpu) {
    out.skipped = fmt::format("GPU '{}' is not in the catalog", r.gpu);
    return out;
  }
  // The measured machine's PCIe link, where the row gives it: the host link
  // carries offload traffic and, on a PCIe server, the GPUs' collectives.
  Gpu row_gpu = *catalog_gpu;
  if (r.host_link_gbyte_s) row_gpu.host_link_Bps = *r.host_link_gbyte_s * 1e9;
  const Gpu* gpu = &row_gpu;
  out.capacity_bytes = gpu->hbm_bytes;
  // A row naming a catalog model by id, or by name without its whole shape,
  // takes the catalog's.
  const ModelShape* zoo = catalog_shape_of(r, catalog);
  if ((!zoo && (!r.layers || !r.hidden || !r.heads)) || !r.seq_len || !r.num_gpus) {
    out.skipped = "the row lacks the model shape, sequence length or GPU count";
    return out;
  }
  if (is_whole_run_metric(r.metric) && !r.train_tokens) {
    out.skipped = "a whole-run metric needs the tokens trained (column train_tokens)";
    return out;
  }
  if (const ModelShape* named = named_catalog_model(r, catalog)) {
    // io::check_catalog_models refuses such a file; rows built otherwise are skipped.
    if (const auto conflict = shape_conflict(r, *named)) {
      out.skipped = conflict->column + " " + conflict->message;
      return out;
    }
  }

  // The CSV reader refuses unknown words; an empty cell is `other`.
  const std::optional<Framework> framework =
      r.framework.empty() ? Framework::other : framework_from_name(r.framework);
  if (!framework) {
    out.skipped = fmt::format("framework '{}' is not known", r.framework);
    return out;
  }
  Workload w;
  w.framework = *framework;
  w.model = zoo ? *zoo : model_of(r, w.framework);
  if (r.mtp_layers) w.model.mtp_layers = static_cast<int>(*r.mtp_layers);
  w.moe_load_imbalance = r.moe_load_imbalance.value_or(kDefaultMoeLoadImbalance);
  // The column holds the workload key's names (to_string); empty: the framework's.
  if (const auto d = enum_from_name<MoeDispatcher>(r.moe_dispatcher)) w.moe_dispatcher = *d;
  if (r.moe_capacity_factor) {
    // io::read_validation_csv and check_catalog_models refuse these.
    if (!w.model.is_moe() || !takes_token_drop(w.framework)) {
      out.skipped = "moe_capacity_factor needs a MoE model under megatron or nemo";
      return out;
    }
    w.moe_capacity_factor = *r.moe_capacity_factor;
    w.moe_pad_to_capacity = r.moe_pad_to_capacity == "y";
  }
  w.seq_len = *r.seq_len;
  w.global_batch = r.global_batch.value_or(0);
  w.precision = r.precision == "fp8"    ? Precision::fp8
                : r.precision == "fp16" ? Precision::fp16
                : r.precision == "fp32" ? Precision::fp32
                                        : Precision::bf16;
  if (r.finetune == "lora" || r.finetune == "qlora") {
    w.task = Task::finetune;
    w.finetune.method = r.finetune == "lora" ? FinetuneMethod::lora : FinetuneMethod::qlora;
    w.finetune.rank = static_cast<int>(r.lora_rank.value_or(16));
    if (!r.lora_targets.empty()) {
      w.finetune.targets =
          enum_from_name<AdapterTargets>(r.lora_targets).value_or(AdapterTargets::all);
    }
    w.finetune.lora_dropout = r.lora_dropout.value_or(0.0);
  }
  apply_memory_savers(r, w);
  Layout& ly = w.layout;
  ly.cp = static_cast<int>(r.cp.value_or(1));
  ly.ep = static_cast<int>(r.ep.value_or(1));
  ly.etp = static_cast<int>(r.etp.value_or(0));
  ly.sp = r.sp == "y";
  // The schema has no FlashAttention column: the Megatron-LM / Megatron-DeepSpeed
  // runs on A100 and V100 predate Megatron's fused-attention support and use its
  // fused softmax; on Hopper and later, and in the other frameworks, runs use
  // FlashAttention / cuDNN fused attention kernels.
  const bool modern = gpu->family_data.megatron_fused_attention;
  ly.flash_attention = !framework_traits(w.framework).megatron_family || modern;

  std::vector<std::string> filled;
  if (!zoo && !r.vocab) {
    const auto [vocab, source] = default_vocab(r.model);
    filled.push_back(fmt::format("vocab={} ({})", vocab, source));
  }
  if (!ly.flash_attention) filled.push_back("flash_attention=off (unfused softmax of the era)");
  std::vector<Unknown> unknowns;
  if (r.sp.empty() && r.tp.value_or(2) > 1) {
    Unknown u{"sp", {}, {}};
    for (bool sp : {true, false}) {
      u.options.push_back([sp](Workload& x) { x.layout.sp = sp && x.layout.tp > 1; });
      u.labels.push_back(sp ? "sp=y" : "sp=n");
    }
    unknowns.push_back(std::move(u));
  }
  const long long gpus = *r.num_gpus;
  const int per_node = static_cast<int>(r.gpus_per_node.value_or(8));

  // Parallel sizes: known ones as given; the rest the planner chooses,
  // preferring tensor parallelism inside a node over pipeline stages.
  if (r.tp && r.pp && r.dp) {
    ly.tp = static_cast<int>(*r.tp);
    ly.pp = static_cast<int>(*r.pp);
    ly.dp = static_cast<int>(*r.dp);
  } else {
    Unknown u{"tp/pp/dp", {}, {}};
    const long long dp_known = r.dp.value_or(0);
    for (int tp : {8, 4, 2, 1}) {
      if (r.tp && *r.tp != tp) continue;
      if (tp > per_node || w.model.heads % tp != 0) continue;
      for (long long pp = 1; pp <= w.model.layers; ++pp) {
        if (r.pp && *r.pp != pp) continue;
        const long long mp = tp * pp * ly.cp;
        if (gpus % mp != 0) continue;
        const long long dp = gpus / mp;
        if (dp_known && dp != dp_known) continue;
        u.options.push_back([tp, pp, dp](Workload& x) {
          x.layout.tp = tp;
          x.layout.pp = static_cast<int>(pp);
          x.layout.dp = static_cast<int>(dp);
        });
        u.labels.push_back(fmt::format("tp={} pp={} dp={}", tp, pp, dp));
      }
    }
    if (u.options.empty()) {
      out.skipped = "no tp/pp/dp split matches the row's GPU count";
      return out;
    }
    unknowns.push_back(std::move(u));
  }
  // Micro-batch: Megatron's documented default is 1; data-parallel
  // frameworks without gradient accumulation run B / dp per GPU.
  if (r.micro_batch) {
    ly.micro_batch = static_cast<int>(*r.micro_batch);
  } else if (framework_traits(w.framework).megatron_family || !r.global_batch) {
    ly.micro_batch = 1;
    filled.push_back("micro_batch=1 (Megatron-LM default --micro-batch-size 1)");
  } else {
    Unknown u{"micro_batch", {}, {}};
    for (int b : {1, 2, 4, 8}) {
      u.options.push_back([b](Workload& x) { x.layout.micro_batch = b; });
      u.labels.push_back(fmt::format("micro_batch={}", b));
    }
    unknowns.push_back(std::move(u));
  }
  if (r.recompute.empty() && framework_traits(w.framework).megatron_family && !modern) {
    // The Megatron-LM papers and 2020 README scripts on A100/V100 recompute
    // every layer (Narayanan et al. 2021 §3.5, --checkpoint-activations).
    ly.recompute = Recompute::full;
    filled.push_back("recompute=full (Megatron-LM A100-era practice)");
  } else if (r.recompute.empty()) {
    Unknown u{"recompute", {}, {}};
    for (Recompute rc : {Recompute::none, Recompute::selective, Recompute::full}) {
      u.options.push_back([rc](Workload& x) { x.layout.recompute = rc; });
      u.labels.push_back(fmt::format("recompute={}", to_string(rc)));
    }
    // Selective recompute of the model's cheap modules, as the planner tries
    // (checks.hpp cheap_recompute_modules).
    if (const RecomputeModules cheap = cheap_recompute_modules(w);
        cheap != kDefaultRecomputeModules) {
      u.options.push_back([cheap](Workload& x) {
        x.layout.recompute = Recompute::selective;
        x.layout.recompute_modules = cheap;
      });
      u.labels.push_back("recompute=selective " + recompute_modules_string(cheap, '+'));
    }
    // Partial recompute (Megatron-LM's block method): a few layers of each
    // model chunk, the planner's continuum between none and full.
    for (int n : {1, 2, 3, 4, 6, 8}) {
      u.options.push_back([n](Workload& x) {
        x.layout.recompute = Recompute::full;
        x.layout.recompute_layers = n;
      });
      u.labels.push_back(fmt::format("recompute=full {}/chunk", n));
    }
    unknowns.push_back(std::move(u));
  } else {
    ly.recompute = r.recompute == "full"        ? Recompute::full
                   : r.recompute == "selective" ? Recompute::selective
                                                : Recompute::none;
    if (r.recompute_modules) ly.recompute_modules = *r.recompute_modules;
    if (r.recompute_layers) ly.recompute_layers = static_cast<int>(*r.recompute_layers);
  }
  if (!r.pipeline_schedule.empty()) {
    const auto& names = layout_dim(LayoutKey::pipeline_schedule).choices;
    for (size_t k = 0; k < names.size(); ++k) {
      if (r.pipeline_schedule == names[k]) ly.schedule = static_cast<PipeSchedule>(k);
    }
  }
  // A pipeline layout (checked against the model by check_layout).
  ly.pipeline_layout = r.pipeline_layout;
  ly.chunk_layers = r.layout_chunk_layers;
  ly.layout_mtp_layers = r.layout_mtp_layers;
  if (r.first_stage_layers) ly.first_stage_layers = static_cast<int>(*r.first_stage_layers);
  if (r.shard_group) ly.shard_group = static_cast<int>(*r.shard_group);
  if (r.last_stage_layers) ly.last_stage_layers = static_cast<int>(*r.last_stage_layers);
  // Stage sizes not given where the row leaves its pipeline recipe open
  // (recompute or interleave unknown): the even split or the balanced one,
  // as the planner tries (added below, once the layout's times can be had).
  ly.embedding_in_split = r.embedding_in_split == "y";
  ly.loss_in_split = r.loss_in_split == "y";
  const bool stages_unknown = !r.first_stage_layers && !r.last_stage_layers &&
                              r.layout_chunk_layers.empty() && !ly.embedding_in_split &&
                              !ly.loss_in_split && (!r.pp || *r.pp > 1) &&
                              (r.recompute.empty() || !r.interleave);
  if (r.interleave) {
    ly.interleave = static_cast<int>(*r.interleave);
  } else if (!r.layout_chunk_layers.empty()) {
    // The layout's stages are pp x interleave (Megatron-Core derives it).
    ly.interleave = static_cast<int>(r.layout_chunk_layers.size() / static_cast<size_t>(ly.pp));
  } else if (ly.schedule != PipeSchedule::one_f_one_b) {
    ly.interleave = 1;  // the zero-bubble and DualPipe schedules place their own chunks
  } else {
    Unknown u{"interleave", {}, {}};
    for (int v : {1, 2, 3, 4, 5, 6, 7, 8}) {
      u.options.push_back([v](Workload& x) { x.layout.interleave = x.layout.pp > 1 ? v : 1; });
      u.labels.push_back(fmt::format("interleave={}", v));
    }
    unknowns.push_back(std::move(u));
  }
  if (r.zero) {
    ly.zero = static_cast<int>(*r.zero);
  } else {
    Unknown u{"zero", {}, {}};
    for (int z : {0, 1}) {
      u.options.push_back([z](Workload& x) { x.layout.zero = z; });
      u.labels.push_back(fmt::format("zero={}", z));
    }
    unknowns.push_back(std::move(u));
  }
  if (!r.etp && w.model.is_moe()) {
    // Megatron-Core's default expert TP is tp; folded recipes set 1.
    Unknown u{"etp", {}, {}};
    u.options.push_back([](Workload& x) { x.layout.etp = 0; });
    u.labels.push_back("etp=tp");
    u.options.push_back([](Workload& x) { x.layout.etp = x.layout.tp > 1 ? 1 : 0; });
    u.labels.push_back("etp=1");
    unknowns.push_back(std::move(u));
  }
  ly.dp_overlap = r.dp_overlap != "n";
  if (!r.ep_overlap.empty()) {
    // Stated (a recipe's moe_a2a_overlap); where the framework or the pipeline
    // does not allow it, the row is left unpredicted by check_layout.
    ly.ep_overlap = r.ep_overlap == "y";
  } else if (w.model.is_moe() && ly.ep > 1) {
    // Not stated: either.
    Unknown u{"ep_overlap", {}, {}};
    for (bool o : {false, true}) {
      u.options.push_back([o](Workload& x) { x.layout.ep_overlap = o && ep_overlap_allowed(x); });
      u.labels.push_back(o ? "ep_overlap=y" : "ep_overlap=n");
    }
    unknowns.push_back(std::move(u));
  }
  if (r.precision.empty()) filled.push_back("precision=bf16 (16-bit; fp16 has the same peak)");
  if (te_fp8(w)) {
    // The schema has no column for Megatron-LM's --fp8-param-gather.
    Unknown u{"fp8_param_gather", {}, {}};
    for (bool g : {false, true}) {
      u.options.push_back([g](Workload& x) { x.layout.fp8_param_gather = g; });
      u.labels.push_back(g ? "fp8_param_gather=y" : "fp8_param_gather=n");
    }
    unknowns.push_back(std::move(u));
  }

  // The planner's choice for unknown cells: the first combination, in order
  // of preference, that fits; if none fits, the one with the least memory.
  const Server server = server_of(r, *gpu);
  const std::optional<Fabric> fabric = fabric_of(r, server);
  PerfConstants perf = perf_constants(*gpu, w.framework, w.compile);
  if (tuning.gemm_half_dim) perf.compute.gemm_half_dim = *tuning.gemm_half_dim;
  if (tuning.gemm_efficiency_scale)
    perf.compute = scaled_tensor_rates(perf.compute, *tuning.gemm_efficiency_scale);
  if (tuning.kernel_floor_s) perf.compute.kernel_floor_s = *tuning.kernel_floor_s;
  if (tuning.elementwise_traffic) perf.compute.elementwise_traffic = *tuning.elementwise_traffic;
  // The fitted share is DeepSpeed's; FSDP-style frameworks keep theirs.
  if (tuning.zero3_hidden_share && framework_traits(w.framework).deepspeed_engine)
    perf.framework.zero3_hidden_share = *tuning.zero3_hidden_share;
  if (!r.global_batch) {
    filled.push_back(
        "global_batch: 8 micro-batches per pipeline stage (planner's choice; the bubble "
        "(p-1)/m stays under 1/8)");
  }
  if (stages_unknown) {
    Unknown u{"stages", {}, {}};
    u.options.push_back([](Workload& x) {
      x.layout.first_stage_layers = 0;
      x.layout.last_stage_layers = 0;
    });
    u.labels.push_back("stages=even");
    u.options.push_back([&](Workload& x) {
      x.layout.first_stage_layers = 0;
      x.layout.last_stage_layers = 0;
      if (x.layout.pp < 2) return;
      Workload timed = x;
      timed.cluster.nodes =
          static_cast<int>((gpus + server.gpus_per_node - 1) / server.gpus_per_node);
      const LayoutTimes lt = layout_times(timed, server, *gpu, fabric ? &*fabric : nullptr, perf,
                                          describe_layers(timed));
      if (const auto split = balanced_stage_split(timed, lt)) {
        x.layout.first_stage_layers = split->first;
        x.layout.last_stage_layers = split->last;
      }
    });
    u.labels.push_back("stages=balanced (first/last stages fewer layers)");
    unknowns.push_back(std::move(u));
  }
  auto step_of = [&](Workload x) {
    x.cluster.nodes = static_cast<int>((gpus + server.gpus_per_node - 1) / server.gpus_per_node);
    if (x.global_batch == 0) {
      x.global_batch = 8LL * x.layout.pp * x.layout.micro_batch * x.layout.dp;
    }
    return estimate_step(x, server, *gpu, fabric ? &*fabric : nullptr, perf);
  };

  size_t combos = 1;
  for (const Unknown& u : unknowns) combos *= u.options.size();
  std::optional<Workload> chosen;
  std::vector<size_t> chosen_idx, best_idx;
  Workload best_w = w;
  double best_total = 0, chosen_step = 0;
  bool any = false;
  for (size_t c = 0; c < combos; ++c) {
    // Lexicographic order: the first unknown varies slowest.
    std::vector<size_t> idx(unknowns.size());
    size_t rest = c;
    for (size_t i = unknowns.size(); i-- > 0;) {
      idx[i] = rest % unknowns[i].options.size();
      rest /= unknowns[i].options.size();
    }
    Workload cand = w;
    for (size_t i = 0; i < unknowns.size(); ++i) unknowns[i].options[idx[i]](cand);
    if (r.interleave && uneven_virtual_stages(cand.model, cand.layout, cand.framework)) {
      // A run that happened with a given interleave whose even split
      // Megatron-Core refuses ran its own layout (or split flags) that the
      // row does not give: the near-even chunks as a layout.
      cand.layout.chunk_layers = near_even_chunk_layers(cand.model.layers, cand.layout);
      cand.layout.layout_mtp_layers = trained_mtp_layers(cand);
    }
    if (!check_layout(cand, 0).empty()) continue;
    const MemoryEstimate est = estimate_memory(cand, *gpu, tuning.overhead);
    if (!any || est.total() < best_total) {
      best_total = est.total();
      best_idx = idx;
      best_w = cand;
      any = true;
    }
    if (est.fits) {
      // The fastest setting that fits.
      const double step = step_of(cand).step_s;
      if (!chosen || step < chosen_step) {
        chosen = cand;
        chosen_idx = idx;
        chosen_step = step;
      }
    }
  }
  if (!any) {
    const auto problems = check_layout(w, 0);
    out.skipped = problems.empty() ? "no legal layout for the row"
                                   : "illegal layout: " + problems.front().message;
    return out;
  }
  if (!chosen) {
    chosen = best_w;
    chosen_idx = best_idx;
  }
  for (size_t i = 0; i < unknowns.size(); ++i) {
    filled.push_back(unknowns[i].labels[chosen_idx[i]] + " (planner's choice)");
  }
  if (r.layout_chunk_layers.empty() && !chosen->layout.chunk_layers.empty()) {
    // Megatron-Core's even split needs equal chunks; the run's own layout
    // or split flags are not given (docs/model.md, "Pipeline stages").
    filled.push_back(fmt::format("stages=near-even chunks as a layout ({} layers on pp {} x {})",
                                 chosen->model.layers, chosen->layout.pp,
                                 chosen->layout.interleave));
  }
  for (size_t i = 0; i < filled.size(); ++i) out.filled += (i ? "; " : "") + filled[i];

  const MemoryEstimate est = estimate_memory(*chosen, *gpu, tuning.overhead);
  out.memory_evaluated = true;
  out.fits = est.fits;
  out.peak_bytes = est.total();
  const StepEstimate step = step_of(*chosen);
  out.step_s = step.step_s;
  out.network_wait_fraction = step.network_wait_fraction;
  out.breakdown = step.breakdown;
  if (r.metric == "peak_mem_gib") {
    // The peak the row measured: PyTorch's allocated or reserved peak, or
    // the device's memory in use (docs/model.md, "Allocated and reserved").
    const double peak = r.peak_kind == "allocated"  ? est.allocated_bytes()
                        : r.peak_kind == "reserved" ? est.reserved_bytes()
                                                    : est.total();
    out.predicted = peak / (1024.0 * 1024.0 * 1024.0);
  } else if (r.metric == "step_time_s") {
    out.predicted = step.step_s;
  } else if (r.metric == "tokens_per_s_per_gpu") {
    out.predicted = step.tokens_per_s_per_gpu;
  } else if (r.metric == "mfu") {
    out.predicted = step.mfu;
  } else if (is_whole_run_metric(r.metric)) {
    // The whole run at the predicted step: the tokens at the step's rate,
    // with the catalog's default failure rate, restarts and checkpoints
    // (docs/model.md, "Whole run"). Batch-size ramps, evaluation and
    // context-extension phases are not modelled.
    const std::optional<RunSettings> settings = default_run_settings(catalog);
    if (!settings) {
      out.skipped = "the catalog has no default failure rate, storage system or facility";
      return out;
    }
    Workload run = *chosen;
    run.tokens = *r.train_tokens;
    const int nodes = static_cast<int>((gpus + server.gpus_per_node - 1) / server.gpus_per_node);
    run.cluster.nodes = nodes;
    const RunEconomics e = evaluate_run(run, server, *gpu, fabric ? &*fabric : nullptr, nodes, step,
                                        0.0, 0.0, *settings);
    out.wall_time_s = e.reliability.wall_time_s;
    out.predicted = r.metric == "gpu_hours"
                        ? e.reliability.wall_time_s * static_cast<double>(gpus) / 3600.0
                        : e.reliability.wall_time_s / 86400.0;
  }
  if (out.predicted && out.measured != 0) {
    out.error = (*out.predicted - out.measured) / out.measured;
  }
  if (out.predicted) {
    // A full fine-tune runs the step of a pre-training; adapters (LoRA,
    // QLoRA) are the finetune regime (the plan's rule, search/planner.cpp).
    RegimeKey key{.metric = interval_metric(r.metric),
                  .family = gpu->family,
                  .framework = std::string(framework_traits(chosen->framework).engine),
                  .task = is_lora(*chosen) ? IntervalTask::finetune : IntervalTask::pretrain,
                  .moe = chosen->model.is_moe(),
                  .scale = scale_band(gpus, domain_gpus(server))};
    out.regime = regime_name(key);
    out.interval = prediction_interval(key);
    const double lo = out.interval.low, hi = out.interval.high;
    if (higher_is_faster(r.metric)) {
      out.predicted_low = *out.predicted / hi;
      out.predicted_high = *out.predicted / lo;
    } else {
      out.predicted_low = *out.predicted * lo;
      out.predicted_high = *out.predicted * hi;
    }
  }
  return out;
}

namespace {
std::vector<double> ranks(const std::vector<double>& x) {
  std::vector<size_t> order(x.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return x[a] < x[b]; });
  std::vector<double> r(x.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && x[order[j + 1]] == x[order[i]]) ++j;
    for (size_t k = i; k <= j; ++k) r[order[k]] = (static_cast<double>(i + j) / 2.0) + 1.0;
    i = j + 1;
  }
  return r;
}
}  // namespace

double overall_mape(const ValidationReport& r) {
  double sum = 0;
  int n = 0;
  for (const RowResult& row : r.rows) {
    if (!row.error) continue;
    sum += std::abs(*row.error);
    ++n;
  }
  return n ? sum / n : 0.0;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const size_t n = a.size();
  if (n < 2 || b.size() != n) return 0;
  const std::vector<double> ra = ranks(a), rb = ranks(b);
  double ma = 0, mb = 0;
  for (size_t i = 0; i < n; ++i) {
    ma += ra[i];
    mb += rb[i];
  }
  ma /= static_cast<double>(n);
  mb /= static_cast<double>(n);
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < n; ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0.0;
}

namespace {

// Predicted and measured values of one (group, model, metric), with each
// row's setting: the GPUs, GPU count, global batch, sequence length and
// precision it ran with, so that rows of one setting differ in layout only.
struct Series {
  std::vector<double> predicted, measured;
  std::vector<std::string> setting;
};

// Worst and mean regret over the settings with 2 or more rows, and their count.
struct Regret {
  std::optional<double> worst, mean;
  int settings = 0;
};

Regret pick_regret(const Series& s, bool higher_is_better) {
  Regret out;
  double sum = 0;
  std::map<std::string, std::vector<size_t>> by_setting;
  for (size_t i = 0; i < s.setting.size(); ++i) by_setting[s.setting[i]].push_back(i);
  // As time: a throughput (or MFU) row's time is proportional to 1 / value.
  auto time_of = [&](double v) { return higher_is_better ? 1.0 / v : v; };
  for (const auto& [setting, idx] : by_setting) {
    if (idx.size() < 2) continue;
    size_t pick = idx[0], best = idx[0];
    for (size_t i : idx) {
      const double t = time_of(s.predicted[i]), t_pick = time_of(s.predicted[pick]);
      // A tie in the prediction counts against it: the worse measured row is the pick.
      if (t < t_pick || (t == t_pick && time_of(s.measured[i]) > time_of(s.measured[pick])))
        pick = i;
      if (time_of(s.measured[i]) < time_of(s.measured[best])) best = i;
    }
    const double regret = time_of(s.measured[pick]) / time_of(s.measured[best]) - 1.0;
    out.worst = std::max(out.worst.value_or(0.0), regret);
    sum += regret;
    ++out.settings;
  }
  if (out.settings > 0) out.mean = sum / out.settings;
  return out;
}

}  // namespace

ValidationReport validate_rows(const std::vector<ValidationRow>& rows, const Catalog& catalog,
                               const ModelTuning& tuning) {
  ValidationReport rep;
  std::map<std::string, double> sum_metric, sum_group;
  double sum_step = 0;
  for (const ValidationRow& r : rows) {
    RowResult res = predict_row(r, catalog, tuning);
    if (res.memory_evaluated && !res.fits) ++rep.false_oom;
    if (res.predicted_low && res.predicted_high) {
      const int in = res.measured >= *res.predicted_low && res.measured <= *res.predicted_high;
      for (IntervalCoverage* c : {&rep.coverage, &rep.coverage_by_group[res.group]}) {
        ++c->rows;
        c->inside += in;
      }
    }
    MetricSummary& m = rep.by_metric[res.metric];
    MetricSummary& g = rep.by_group[res.group];
    if (res.error) {
      ++m.count;
      ++g.count;
      sum_metric[res.metric] += std::fabs(*res.error);
      sum_group[res.group] += std::fabs(*res.error);
    } else {
      ++m.skipped;
      ++g.skipped;
    }
    if (const auto e = step_time_error(res)) {
      ++rep.step_time_equivalent.count;
      sum_step += std::fabs(*e);
    } else if (res.metric == "step_time_s" || higher_is_faster(res.metric)) {
      ++rep.step_time_equivalent.skipped;
    }
    rep.rows.push_back(std::move(res));
  }
  // Rank correlation within each (group, model, metric) with enough rows.
  std::map<std::tuple<std::string, std::string, std::string>, Series> series;
  for (size_t i = 0; i < rows.size(); ++i) {
    const RowResult& res = rep.rows[i];
    if (!res.predicted) continue;
    Series& sr = series[{rows[i].group, rows[i].model, rows[i].metric}];
    sr.predicted.push_back(*res.predicted);
    sr.measured.push_back(res.measured);
    sr.setting.push_back(fmt::format("{}|{}|{}|{}|{}", rows[i].gpu, rows[i].num_gpus.value_or(0),
                                     rows[i].global_batch.value_or(0), rows[i].seq_len.value_or(0),
                                     rows[i].precision));
  }
  for (const auto& [key, sr] : series) {
    if (sr.predicted.size() < 5) continue;
    RankCorrelation rc;
    rc.group = std::get<0>(key);
    rc.model = std::get<1>(key);
    rc.metric = std::get<2>(key);
    rc.count = static_cast<int>(sr.predicted.size());
    rc.spearman = spearman(sr.predicted, sr.measured);
    if (rc.metric != "peak_mem_gib") {
      const Regret r = pick_regret(sr, rc.metric != "step_time_s");
      rc.pick_regret = r.worst;
      rc.pick_regret_mean = r.mean;
      rc.settings = r.settings;
    }
    rep.rank_correlation.push_back(std::move(rc));
  }
  for (auto& [k, s] : rep.by_metric) s.mape = s.count ? sum_metric[k] / s.count : 0.0;
  for (auto& [k, s] : rep.by_group) s.mape = s.count ? sum_group[k] / s.count : 0.0;
  MetricSummary& st = rep.step_time_equivalent;
  st.mape = st.count ? sum_step / st.count : 0.0;
  return rep;
}

}  // namespace scaleout
