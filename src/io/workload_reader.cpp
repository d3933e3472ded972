#include "io/workload_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "core/ids.hpp"
#include "core/spelling.hpp"
#include "io/catalog_reader.hpp"
#include "io/files.hpp"
#include "io/hf_config.hpp"
#include "io/yaml_fields.hpp"
#include "workload/checks.hpp"
#include "workload/framework.hpp"
#include "workload/layout_dims.hpp"

namespace scaleout::io {

namespace {

constexpr long long kMaxGpus = 1000000;

// The most values a `global_batch` list may hold: plan searches every layout
// once per value, so the list multiplies the search; 64 is twice a sweep of
// the powers of two from 1 to 10^9 (30 values).
constexpr size_t kMaxGlobalBatches = 64;

// The most ids a hardware.servers or hardware.fabrics list may hold (each is
// searched; a catalog id appears once).
constexpr size_t kMaxHardwareIds = 1024;

// The value of `key`, one of `accepted` by its name (`to_string`, the one
// spelling of each value), or none when the key is absent.
template <typename E>
std::optional<E> read_enum(Fields& f, const std::string& key, std::initializer_list<E> accepted) {
  std::vector<std::string> names;
  for (E e : accepted) names.push_back(to_string(e));
  const auto s = f.choice(key, names);
  if (!s) return std::nullopt;
  return *(accepted.begin() + (std::find(names.begin(), names.end(), *s) - names.begin()));
}

ModelShape read_model(Fields& top, const std::string& file, const std::string& dir,
                      const Catalog& catalog) {
  const YAML::Node n = top.node("model");
  if (!n.IsDefined() || n.IsNull()) {
    top.fail("model", "missing required key",
             "name a zoo model (see `scaleout catalog models`), a config.json path or a mapping");
  }
  if (n.IsMap()) {
    Fields f(n, file, "model");
    ModelShape m = read_model_fields(f, "inline");
    f.finish();
    return m;
  }
  const std::string name = scalar_string(n, file, "model");
  const bool looks_like_path = name.find('/') != std::string::npos ||
                               (name.size() > 5 && name.substr(name.size() - 5) == ".json");
  if (!looks_like_path) check_id(name, file, line_of(n), "model");
  if (looks_like_path) {
    check_text(name, file, line_of(n), "model");
    std::filesystem::path p(name);
    if (p.is_relative() && !dir.empty()) p = std::filesystem::path(dir) / p;
    std::error_code ec;
    if (!std::filesystem::exists(p, ec)) {
      throw InputError(file, line_of(n), "model", fmt::format("file '{}' not found", p.string()),
                       "relative paths are resolved from the workload file's folder");
    }
    // read_hf_config checks the id it makes of the file's name.
    return read_hf_config(read_text_file(p.string()), p.string());
  }
  if (const ModelShape* m = catalog.find_model(name)) return *m;
  throw InputError(file, line_of(n), "model", fmt::format("unknown model '{}'", name),
                   suggestion(name, catalog.ids<ModelShape>()));
}

}  // namespace

WorkloadFile read_workload(const std::string& text, const std::string& file, const std::string& dir,
                           const Catalog& catalog, bool check_layout_now) {
  return read_workload(load_yaml(text, file), file, dir, catalog, check_layout_now);
}

WorkloadFile read_workload(const YAML::Node& root, const std::string& file, const std::string& dir,
                           const Catalog& catalog, bool check_layout_now) {
  if (!root.IsDefined() || root.IsNull()) {
    throw InputError(file, 0, "", "workload file is empty",
                     "start from an example in examples/, e.g. examples/llama3-8b-lora.yaml");
  }
  WorkloadFile out;
  Workload& w = out.workload;
  std::map<std::string, int> lines;  // key path -> line, for layout problems
  Fields top(root, file, "");
  w.model = read_model(top, file, dir, catalog);
  w.task = read_enum(top, "task", {Task::pretrain, Task::finetune, Task::inference})
               .value_or(Task::pretrain);
  const bool serving = w.task == Task::inference;
  if (serving) {
    // Training keys mean nothing for a serving workload: say so instead of
    // ignoring them (docs/input-format.md, "Inference workloads").
    const std::vector<std::pair<const char*, const char*>> training_only = {
        {"tokens", "remove it; a serving workload sizes for inference.request_rate"},
        {"seq_len", "set inference.prompt_tokens and inference.output_tokens"},
        {"global_batch", "set inference.max_batch (concurrent sequences per replica)"},
        {"precision", "set inference.weights (bf16, fp8, int8, int4) and inference.kv_cache"},
        {"optimizer", "remove it"},
        {"fp8_activations", "remove it; serving stores no activations for a backward pass"},
        {"grad_reduce_in_bf16", "remove it; serving has no gradients"},
        {"framework", "remove it"},
        {"finetune", "remove it"},
        {"moe", "remove it; serving takes routing as balanced"},
        {"mtp_layers", "remove it; serving runs no multi-token-prediction heads"},
        {"reliability", "remove it; serving plans do not model failures or checkpoints"},
        {"storage", "remove it; serving plans do not model storage"},
        {"facility", "remove it; serving plans price GPU-hours in the cloud only"},
        {"cost", "remove it; serving plans price GPU-hours in the cloud only"}};
    for (const auto& [key, hint] : training_only) {
      if (top.has(key)) top.fail(key, "is a training key; task: inference does not use it", hint);
    }
  }
  w.tokens = top.number("tokens", 0, 1e18).value_or(0);
  w.seq_len = top.integer("seq_len", 1, 100000000).value_or(2048);
  // global_batch: sequences per step; `plan` also takes a list of candidates.
  if (const YAML::Node gb = top.node("global_batch"); gb.IsSequence()) {
    if (gb.size() == 0) top.fail("global_batch", "empty list", "give one or more batch sizes");
    if (gb.size() > kMaxGlobalBatches) {
      top.fail("global_batch",
               fmt::format("{} values; a global_batch list holds at most {}", gb.size(),
                           kMaxGlobalBatches),
               "plan searches every value; list the batch sizes worth comparing");
    }
    for (size_t i = 0; i < gb.size(); ++i) {
      const double v = scalar_number(gb[i], file, "global_batch");
      if (v != std::floor(v) || v < 1 || v > 1e9) {
        throw InputError(file, line_of(gb[i]), "global_batch",
                         fmt::format("expected a whole number from 1 to 1e9, got {}",
                                     printable(gb[i].Scalar())));
      }
      out.plan.global_batches.push_back(static_cast<long long>(v));
    }
    w.global_batch = out.plan.global_batches.front();
  } else {
    w.global_batch = top.integer("global_batch", 1, 1000000000).value_or(0);
  }
  w.precision = read_enum(top, "precision",
                          {Precision::bf16, Precision::fp16, Precision::fp8, Precision::fp32})
                    .value_or(Precision::bf16);
  w.optimizer = read_enum(top, "optimizer",
                          {Optimizer::adam, Optimizer::adam8bit, Optimizer::adam_bf16,
                           Optimizer::adam_bf16_moments, Optimizer::sgd, Optimizer::adafactor})
                    .value_or(Optimizer::adam);
  // Memory savers of the training loop (docs/input-format.md).
  w.loss_chunks = static_cast<int>(top.integer("loss_chunks", 1, 1000000).value_or(1));
  w.optimizer_in_backward = top.boolean("optimizer_in_backward").value_or(false);
  w.loss_upcast = top.boolean("loss_upcast").value_or(true);
  // FP8 activation cache (DeepSeek-V3's FP8 recipe; docs/input-format.md).
  w.fp8_activations = top.boolean("fp8_activations").value_or(false);
  if (w.fp8_activations && w.precision != Precision::fp8) {
    top.fail("fp8_activations",
             fmt::format("caches activations in FP8, which needs precision: fp8 (got {})",
                         to_string(w.precision)),
             "set precision: fp8, or remove fp8_activations");
  }
  // The names are the rows of workload/framework.hpp; an unknown one is an error.
  if (auto fw = top.choice("framework", framework_names())) w.framework = *framework_from_name(*fw);
  // compile: none, model or all; a YAML boolean means all (true) or none (false).
  if (auto c = top.choice("compile", {"none", "model", "all", "true", "false"})) {
    w.compile = *c == "model"                 ? Compile::model
                : *c == "all" || *c == "true" ? Compile::all
                                              : Compile::none;
    if (w.compile != Compile::none && !takes_torch_compile(w.framework)) {
      top.fail("compile",
               fmt::format("{} does not torch.compile its model or loss",
                           framework_traits(w.framework).display),
               "remove compile, or set a PyTorch-native framework (fsdp, torchtitan, hf, "
               "torchtune, litgpt, automodel, automodel-torch, mosaic, other)");
    }
  }
  // cuda_graphs: none, scoped or full, where the framework runs that mode
  // (framework.hpp `cuda_graph_modes`; docs/input-format.md).
  if (auto g = top.choice("cuda_graphs", {"none", "scoped", "full"})) {
    w.cuda_graphs = cuda_graphs_from_name(*g);
    if ((framework_traits(w.framework).cuda_graph_modes & cuda_graph_bit(w.cuda_graphs)) == 0) {
      top.fail(
          "cuda_graphs",
          fmt::format("{} does not run CUDA graphs {}", framework_traits(w.framework).display, *g),
          fmt::format("remove cuda_graphs, or set a framework that does ({})",
                      cuda_graph_framework_names(w.cuda_graphs)));
    }
  }
  // 16-bit gradient buffers and reduction (Megatron-LM --grad-reduce-in-bf16;
  // docs/input-format.md): only where the framework would keep fp32 main
  // gradients of bf16 weights.
  w.grad_reduce_in_bf16 = top.boolean("grad_reduce_in_bf16").value_or(false);
  if (w.grad_reduce_in_bf16) {
    if (framework_traits(w.framework).state != StateKind::megatron_mixed) {
      top.fail("grad_reduce_in_bf16",
               fmt::format("{} has no fp32 main-gradient buffer to make 16-bit",
                           framework_traits(w.framework).display),
               "remove grad_reduce_in_bf16, or set framework: megatron or nemo");
    }
    if (w.precision != Precision::bf16 && w.precision != Precision::fp8) {
      top.fail("grad_reduce_in_bf16",
               fmt::format("reduces bf16 gradients, which needs precision bf16 or fp8 (got {})",
                           to_string(w.precision)),
               "set precision: bf16 or fp8, or remove grad_reduce_in_bf16");
    }
    if (w.optimizer == Optimizer::adam_bf16) {
      top.fail("grad_reduce_in_bf16", "optimizer adam-bf16 already keeps bf16 gradients",
               "remove grad_reduce_in_bf16");
    }
  }
  for (const char* k : {"model", "global_batch", "precision", "seq_len"})
    lines[k] = line_of(top.node(k));
  lines["layout"] = line_of(root);

  if (const YAML::Node ft = top.node("finetune"); ft.IsDefined() && !ft.IsNull()) {
    Fields f(ft, file, "finetune");
    const auto method =
        read_enum(f, "method", {FinetuneMethod::full, FinetuneMethod::lora, FinetuneMethod::qlora});
    if (!method) f.fail("method", "missing required key", "method: full, lora or qlora");
    w.finetune.method = *method;
    w.finetune.rank = static_cast<int>(f.integer("rank", 1, 65536).value_or(16));
    w.finetune.targets = read_enum(f, "targets",
                                   {AdapterTargets::all, AdapterTargets::attention,
                                    AdapterTargets::qkv, AdapterTargets::qv})
                             .value_or(AdapterTargets::all);
    // nn.Dropout on each adapter's input (PEFT LoraConfig.lora_dropout).
    w.finetune.lora_dropout = f.number("lora_dropout", 0.0, 1.0).value_or(0.0);
    if (w.finetune.lora_dropout > 0 && w.finetune.method == FinetuneMethod::full) {
      f.fail("lora_dropout", "lora_dropout needs method lora or qlora",
             "set method: lora or qlora, or remove lora_dropout (0 = no dropout)");
    }
    f.finish();
    if (w.task != Task::finetune) {
      top.fail("finetune", "finetune settings need task: finetune",
               "set task: finetune, or remove the finetune block");
    }
  }

  if (const YAML::Node moe = top.node("moe"); moe.IsDefined() && !moe.IsNull()) {
    Fields f(moe, file, "moe");
    // Max-rank / mean-rank load of the routed experts (docs/model.md, "Load imbalance").
    w.moe_load_imbalance = f.number("load_imbalance", 1.0, 100.0).value_or(w.moe_load_imbalance);
    // Token dispatcher (docs/model.md, "Token dispatchers"); absent: the framework's.
    w.moe_dispatcher =
        read_enum(f, "dispatcher",
                  {MoeDispatcher::alltoall, MoeDispatcher::deepep, MoeDispatcher::hybridep})
            .value_or(w.moe_dispatcher);
    // Token dropping (docs/model.md, "Token dropping"); absent: dropless.
    const std::optional<double> cf = f.number("capacity_factor", 0.0, 100.0);
    w.moe_capacity_factor = cf.value_or(0.0);
    w.moe_pad_to_capacity = f.boolean("pad_to_capacity").value_or(false);
    f.finish();
    if (const auto rule =
            broken_token_drop_rule(cf, w.moe_pad_to_capacity ? std::optional(true) : std::nullopt,
                                   w.framework, w.moe_dispatcher)) {
      const Problem p = token_drop_problem(
          *rule, {"capacity_factor", "pad_to_capacity", "dispatcher:", "framework:"}, cf,
          w.moe_dispatcher, w.framework);
      f.fail(p.key, p.message, p.hint);
    }
    if (!w.model.is_moe()) {
      top.fail("moe", fmt::format("model '{}' has no routed experts", w.model.id),
               "remove the moe block");
    }
  }
  // Multi-token-prediction depths trained (the model's by default: a
  // config.json's num_nextn_predict_layers).
  if (auto mtp = top.integer("mtp_layers", 0, 16)) w.model.mtp_layers = static_cast<int>(*mtp);

  bool dp_given = false;
  if (const YAML::Node ln = top.node("layout"); ln.IsDefined() && !ln.IsNull()) {
    out.has_layout = true;
    lines["layout"] = line_of(ln);
    Fields f(ln, file, "layout");
    for (auto it = ln.begin(); it != ln.end(); ++it) {
      if (!it->first.IsScalar()) continue;
      if (const LayoutDim* d = find_layout_dim(it->first.Scalar()))
        out.plan.layout_keys.add(d->key);
    }
    if (serving && ln.IsMap()) {
      for (auto it = ln.begin(); it != ln.end(); ++it) {
        const LayoutDim* d = it->first.IsScalar() ? find_layout_dim(it->first.Scalar()) : nullptr;
        if (!d || d->serving) continue;  // finish() names an unknown key
        f.fail(d->name, "is a training setting; a serving replica takes tp, pp and ep",
               "remove it (dp is the replica count, which plan sizes from the request rate)");
      }
    }
    Layout& ly = w.layout;
    // Every row of the layout-dimension table (workload/layout_dims.hpp) but
    // the rank order, read below; a key left out keeps Layout's default.
    for (const LayoutDim& d : layout_dims()) {
      const std::string key = d.name;
      lines["layout." + key] = line_of(f.node(key));
      std::optional<int> v;
      switch (d.kind) {
        case DimKind::integer:
          if (auto x = f.integer(key, d.min, d.max)) v = static_cast<int>(*x);
          break;
        case DimKind::flag:
          if (auto x = f.boolean(key)) v = *x ? 1 : 0;
          break;
        case DimKind::choice: {
          const std::vector<std::string> names(d.choices.begin(), d.choices.end());
          if (d.key == LayoutKey::offload && f.has(key) && f.node(key).IsScalar()) {
            // offload: true/false keep their first meaning (optimizer/none).
            const std::string& b = f.node(key).Scalar();
            if (b == "true" || b == "yes" || b == "on") v = 1;
            if (b == "false" || b == "no" || b == "off") v = 0;
            if (v) break;
          }
          if (auto x = f.choice(key, names)) {
            v = static_cast<int>(std::find(names.begin(), names.end(), *x) - names.begin());
          }
          break;
        }
        case DimKind::set: {
          // A list of names (or one name), each at most once.
          const YAML::Node n = f.node(key);
          if (!n.IsDefined() || n.IsNull()) break;
          const std::vector<std::string> names(d.choices.begin(), d.choices.end());
          std::vector<YAML::Node> items;
          if (n.IsSequence()) {
            for (const YAML::Node& x : n) items.push_back(x);
          } else {
            items.push_back(n);
          }
          std::string accepted;
          for (const std::string& x : names) accepted += (accepted.empty() ? "" : ", ") + x;
          if (items.empty()) {
            f.fail(key, "empty list",
                   fmt::format("name one or more of {}, or leave {} out", accepted, key));
          }
          int bits = 0;
          for (const YAML::Node& x : items) {
            const std::string name = scalar_string(x, file, "layout." + key);
            const auto at = std::find(names.begin(), names.end(), name);
            if (at == names.end()) {
              const std::string close = closest_match(name, names);
              throw InputError(
                  file, line_of(x), "layout." + key,
                  fmt::format("unknown module '{}'", printable(name)),
                  fmt::format("{}accepted: {}",
                              close.empty() ? "" : "did you mean '" + close + "'? ", accepted));
            }
            const int bit = 1 << static_cast<int>(at - names.begin());
            if ((bits & bit) != 0) {
              throw InputError(file, line_of(x), "layout." + key,
                               fmt::format("'{}' given twice", name), "name each module once");
            }
            bits |= bit;
          }
          v = bits;
          break;
        }
        case DimKind::text:
          // pipeline_layout, after pp and interleave (workload/checks.hpp).
          if (const auto text = f.string(key)) {
            const bool interleave_given = f.has("interleave");
            if (const auto bad = set_pipeline_layout(*text, interleave_given, key, ly)) {
              f.fail(key, bad->message, bad->hint);
            }
            // The layout fixes the chunks (interleave) and the 1F1B schedule for plan.
            out.plan.layout_keys.add(LayoutKey::interleave);
            out.plan.layout_keys.add(LayoutKey::pipeline_schedule);
          }
          break;
        case DimKind::order:
          break;
      }
      if (d.key == LayoutKey::sp && !v) v = ly.tp > 1 ? 1 : 0;  // sp: on with tp > 1
      if (v) d.set(ly, *v);
    }
    if (f.has("recompute_modules") && ly.recompute != Recompute::selective) {
      f.fail("recompute_modules",
             fmt::format("names the sub-blocks selective recompute re-runs, but recompute is {}",
                         f.has("recompute") ? to_string(ly.recompute) : "not given"),
             "set recompute: selective, or leave recompute_modules out");
    }
    dp_given = f.has("dp");
    if (f.has("zero")) {
      // A zero given with the option is checked even where the planner fills the layout.
      for (const Problem& p : check_fp8_param_gather(ly))
        f.fail("fp8_param_gather", p.message, p.hint);
    }
    if (ly.fp8_param_gather && !te_fp8(w)) {
      f.fail("fp8_param_gather",
             fmt::format("needs precision: fp8 with framework {} (Megatron-LM's "
                         "--fp8-param-gather)",
                         transformer_engine_fp8_names()),
             "remove it, or set precision: fp8 and framework: megatron");
    }
    if (auto order = f.string("order")) {
      // A permutation of tp, cp, dp and pp, innermost first.
      std::array<Dim, 4> parsed{};
      size_t n = 0, pos = 0;
      bool ok = true;
      while (ok && pos <= order->size()) {
        const size_t dash = order->find('-', pos);
        const std::string part =
            order->substr(pos, dash == std::string::npos ? std::string::npos : dash - pos);
        const Dim d = part == "tp"   ? Dim::tp
                      : part == "cp" ? Dim::cp
                      : part == "dp" ? Dim::dp
                                     : Dim::pp;
        ok = n < 4 && (part == "tp" || part == "cp" || part == "dp" || part == "pp");
        for (size_t i = 0; ok && i < n; ++i) ok = parsed[i] != d;
        if (ok) parsed[n++] = d;
        if (dash == std::string::npos) break;
        pos = dash + 1;
      }
      if (!ok || n != 4) {
        f.fail("order", fmt::format("'{}' is not an order of tp, cp, dp and pp", printable(*order)),
               "write all four once, innermost first, e.g. tp-cp-dp-pp");
      }
      ly.order = parsed;
    }
    f.finish();
    // Each degree is at most kMaxGpus; cap the product so that it cannot overflow.
    long long product = 1;
    for (const int d : {ly.tp, ly.pp, ly.dp, ly.cp}) product = std::min(product * d, kMaxGpus + 1);
    if (product > kMaxGpus) {
      top.fail("layout",
               fmt::format("tp {} x pp {} x dp {} x cp {} is more than the supported {} GPUs",
                           ly.tp, ly.pp, ly.dp, ly.cp, kMaxGpus));
    }
  }

  long long cluster_gpus = 0;
  if (const YAML::Node cn = top.node("cluster"); cn.IsDefined() && !cn.IsNull()) {
    out.has_cluster = true;
    Fields f(cn, file, "cluster");
    for (auto it = cn.begin(); it != cn.end(); ++it) {
      if (it->first.IsScalar()) out.plan.cluster_keys.insert(it->first.Scalar());
    }
    ClusterSpec& c = w.cluster;
    c.server_id = f.id("server").value_or("");
    if (c.server_id.empty()) f.fail("server", "missing required key", "e.g. server: dgx-h100");
    const Server* server = catalog.find_server(c.server_id);
    if (!server) {
      f.fail("server", fmt::format("unknown server '{}'", c.server_id),
             suggestion(c.server_id, catalog.ids<Server>()));
    }
    c.nodes = static_cast<int>(f.integer("nodes", 1, kMaxGpus).value_or(1));
    // GPUs of one node: from 1 to the server's GPUs, on one node only.
    c.gpus = static_cast<int>(f.integer("gpus", 1, server->gpus_per_node).value_or(0));
    if (c.gpus > 0 && c.nodes > 1) {
      f.fail("gpus", fmt::format("gpus {} uses part of one node, but nodes is {}", c.gpus, c.nodes),
             "use gpus with nodes: 1, or leave gpus out to use whole nodes");
    }
    c.gpu_id = f.id("gpu").value_or("");
    if (!c.gpu_id.empty() && !catalog.find_gpu(c.gpu_id)) {
      f.fail("gpu", fmt::format("unknown GPU '{}'", c.gpu_id),
             suggestion(c.gpu_id, catalog.ids<Gpu>()));
    }
    c.fabric_id = f.id("fabric").value_or("");
    if (!c.fabric_id.empty() && !catalog.find_fabric(c.fabric_id)) {
      f.fail("fabric", fmt::format("unknown fabric '{}'", c.fabric_id),
             suggestion(c.fabric_id, catalog.ids<Fabric>()));
    }
    f.finish();
    if (c.nodes > 1 && server->nics_per_node == 0) {
      f.fail("nodes", fmt::format("server '{}' has no scale-out NICs in the catalog", c.server_id),
             "use nodes: 1, or add its NICs with a --catalog file");
    }
    cluster_gpus = c.gpus > 0 ? c.gpus : static_cast<long long>(c.nodes) * server->gpus_per_node;
    if (cluster_gpus > kMaxGpus) {
      top.fail("cluster",
               fmt::format("{} GPUs is more than the supported {}", cluster_gpus, kMaxGpus));
    }
    // dp left out: derive it from the cluster size.
    const long long model_parallel =
        static_cast<long long>(w.layout.tp) * w.layout.pp * w.layout.cp;
    if (!dp_given && cluster_gpus % model_parallel == 0) {
      w.layout.dp = static_cast<int>(cluster_gpus / model_parallel);
    }
  }
  if (const YAML::Node cn = top.node("constraints"); cn.IsDefined() && !cn.IsNull()) {
    Fields f(cn, file, "constraints");
    if (serving) {
      for (const char* key : {"deadline_days", "budget_usd", "max_power_kw", "min_goodput"}) {
        if (f.has(key)) {
          f.fail(key, "is a training constraint; a serving plan has none",
                 "give inference.request_rate, inference.ttft_ms and inference.tpot_ms instead");
        }
      }
    }
    out.plan.deadline_days = f.number("deadline_days", 1e-6, 1e6);
    out.plan.budget_usd = f.number("budget_usd", 1e-6, 1e15);
    out.plan.max_power_kw = f.number("max_power_kw", 1e-3, 1e9);
    out.plan.min_goodput = f.number("min_goodput", 0, 1);
    if (auto n = f.integer("max_nodes", 1, kMaxGpus)) out.plan.max_nodes = static_cast<int>(*n);
    f.finish();
  }
  RunInput& run = out.run;
  auto catalog_id = [&](Fields& f, const char* key, const std::vector<std::string>& known) {
    std::optional<std::string> id = f.id(key);
    if (id && std::find(known.begin(), known.end(), *id) == known.end()) {
      f.fail(key, fmt::format("unknown id '{}'", *id), suggestion(*id, known));
    }
    return id;
  };
  if (const YAML::Node n = top.node("reliability"); n.IsDefined() && !n.IsNull()) {
    Fields f(n, file, "reliability");
    run.failure_rate = catalog_id(f, "failure_rate", catalog.ids<FailureRate>());
    run.failures_per_1000_node_days = f.number("failures_per_1000_node_days", 0, 1e6);
    if (run.failure_rate && run.failures_per_1000_node_days) {
      f.fail("failures_per_1000_node_days",
             "give failure_rate or failures_per_1000_node_days, "
             "not both");
    }
    run.requeue_minutes = f.number("restart_minutes", 0, 1e6);
    if (auto c = f.choice("checkpoint", {"async", "blocking"})) {
      run.async_checkpoint = *c == "async";
    }
    f.finish();
  }
  if (const YAML::Node n = top.node("storage"); n.IsDefined() && !n.IsNull()) {
    Fields f(n, file, "storage");
    run.storage = catalog_id(f, "system", catalog.ids<StorageSystem>());
    run.bytes_per_token = f.number("bytes_per_token", 0.01, 1e6);
    run.stall_target = f.number("checkpoint_stall_target", 1e-6, 0.5);
    f.finish();
  }
  if (const YAML::Node n = top.node("facility"); n.IsDefined() && !n.IsNull()) {
    Fields f(n, file, "facility");
    run.facility = catalog_id(f, "site", catalog.ids<Facility>());
    run.pue = f.number("pue", 1, 10);
    run.usd_per_kwh = f.number("usd_per_kwh", 0, 100);
    run.colo_usd_per_kw_month = f.number("colo_usd_per_kw_month", 0, 1e6);
    run.rack_kw = f.number("rack_kw", 0.1, 1e4);
    run.life_years = f.number("life_years", 0.1, 100);
    run.operations_share = f.number("operations_share", 0, 10);
    f.finish();
  }
  if (const YAML::Node n = top.node("cost"); n.IsDefined() && !n.IsNull()) {
    Fields f(n, file, "cost");
    run.cost_basis = f.choice("basis", {"cloud", "own"});
    run.cloud_pricing =
        f.choice("cloud_pricing", {"on-demand", "reserved", "spot", "capacity-block"});
    run.usd_per_gpu_hour = f.number("usd_per_gpu_hour", 1e-6, 1e6);
    run.server_usd = f.number("server_usd", 1e-6, 1e12);
    f.finish();
  }
  if (const YAML::Node hn = top.node("hardware"); hn.IsDefined() && !hn.IsNull()) {
    Fields f(hn, file, "hardware");
    auto id_list = [&](const char* key, const std::vector<std::string>& known) {
      std::vector<std::string> ids;
      const YAML::Node list = f.node(key);
      if (!list.IsDefined() || list.IsNull()) return ids;
      if (!list.IsSequence()) {
        f.fail(key, "expected a list of ids", fmt::format("e.g. {}: [{}]", key, known.front()));
      }
      if (list.size() > kMaxHardwareIds) {
        f.fail(key, fmt::format("{} ids; a list holds at most {}", list.size(), kMaxHardwareIds),
               "name each catalog entry once");
      }
      for (size_t i = 0; i < list.size(); ++i) {
        const std::string id = scalar_id(list[i], file, f.key_path(key));
        if (std::find(known.begin(), known.end(), id) == known.end()) {
          throw InputError(file, line_of(list[i]), f.key_path(key),
                           fmt::format("unknown id '{}'", id), suggestion(id, known));
        }
        if (std::find(ids.begin(), ids.end(), id) != ids.end()) {
          throw InputError(file, line_of(list[i]), f.key_path(key),
                           fmt::format("'{}' is listed twice", id), "name each id once");
        }
        ids.push_back(id);
      }
      return ids;
    };
    out.plan.servers = id_list("servers", catalog.ids<Server>());
    out.plan.fabrics = id_list("fabrics", catalog.ids<Fabric>());
    f.finish();
  }
  if (const YAML::Node in = top.node("inference"); in.IsDefined() && !in.IsNull()) {
    if (!serving) {
      top.fail("inference", "inference settings need task: inference",
               "set task: inference, or remove the inference block");
    }
    Fields f(in, file, "inference");
    InferenceSpec& s = w.inference;
    s.prompt_tokens = f.integer("prompt_tokens", 1, 10000000).value_or(s.prompt_tokens);
    s.output_tokens = f.integer("output_tokens", 1, 10000000).value_or(s.output_tokens);
    s.request_rate = f.number("request_rate", 0, 1e9).value_or(0);
    s.ttft_s = f.number("ttft_ms", 1e-3, 1e9).value_or(0) / 1000.0;
    s.tpot_s = f.number("tpot_ms", 1e-3, 1e9).value_or(0) / 1000.0;
    s.weights =
        read_enum(f, "weights",
                  {WeightFormat::bf16, WeightFormat::fp8, WeightFormat::int8, WeightFormat::int4})
            .value_or(WeightFormat::bf16);
    s.kv_cache = read_enum(f, "kv_cache", {Precision::bf16, Precision::fp16, Precision::fp8})
                     .value_or(Precision::bf16);
    s.max_batch = static_cast<int>(f.integer("max_batch", 1, 1000000).value_or(s.max_batch));
    s.prefill_chunk = f.integer("prefill_chunk", 1, 10000000).value_or(s.prefill_chunk);
    s.batch = static_cast<int>(f.integer("batch", 1, 1000000).value_or(0));
    f.finish();
  }
  top.finish();

  if (serving) {
    // A replica's layout: heads and layers must split over tp and pp, experts over ep.
    lines["layout"] = line_of(root);
    const Layout& ly = w.layout;
    const ModelShape& m = w.model;
    std::string key, message, hint;
    if (m.heads % ly.tp != 0 || (m.kv_heads % ly.tp != 0 && ly.tp % m.kv_heads != 0)) {
      key = "layout.tp";
      message = fmt::format(
          "tp {} does not split the model's {} attention heads and {} key/value "
          "heads",
          ly.tp, m.heads, m.kv_heads);
      hint = "use a tp that divides the head count, e.g. 1, 2, 4 or 8";
    } else if (ly.pp > m.layers) {
      key = "layout.pp";
      message = fmt::format("pp {} is larger than the model's {} layers", ly.pp, m.layers);
      hint = "use at most one pipeline stage per layer";
    } else if (ly.ep > 1 && (!m.is_moe() || m.moe.experts % ly.ep != 0 || ly.tp % ly.ep != 0)) {
      key = "layout.ep";
      message = m.is_moe() ? fmt::format("ep {} must divide tp {} and the {} experts", ly.ep, ly.tp,
                                         m.moe.experts)
                           : std::string("ep > 1 needs a mixture-of-experts model");
      hint = "experts are spread over the replica's tensor-parallel GPUs";
    } else if (cluster_gpus > 0 && static_cast<long long>(ly.tp) * ly.pp > cluster_gpus) {
      key = "layout";
      message = fmt::format("one replica (tp {} x pp {}) needs more than the cluster's {} GPUs",
                            ly.tp, ly.pp, cluster_gpus);
      hint = "raise cluster.nodes or lower tp x pp";
    }
    if (!key.empty()) {
      const auto it = lines.find(key);
      throw InputError(file, it == lines.end() ? 0 : it->second, key, message, hint);
    }
    return out;
  }
  if (!check_layout_now) {
    // plan searches the layout, but a fixed value that no searched one can
    // mend (tp 3 for 32 heads) is the file's mistake, not an infeasible plan.
    FixedLayoutKeys fixed;
    fixed.keys = out.plan.layout_keys;
    if (out.plan.cluster_keys.count("nodes") > 0 || out.plan.cluster_keys.count("gpus") > 0) {
      fixed.cluster_gpus = cluster_gpus;
    }
    fixed.one_global_batch = out.plan.global_batches.size() <= 1;
    for (const Problem& p : check_fixed_layout(w, fixed)) {
      const auto it = lines.find(p.key);
      throw InputError(file, it == lines.end() ? 0 : it->second, p.key, p.message, p.hint);
    }
    return out;
  }
  for (const Problem& p : check_layout(w, cluster_gpus)) {
    const auto it = lines.find(p.key);
    const int line = it == lines.end() ? 0 : it->second;
    if (p.key == "layout" && !dp_given) {
      // dp was left out but could not be derived: the generic hint would say to leave it out.
      const Layout& ly = w.layout;
      throw InputError(file, line, p.key,
                       fmt::format("tp {} x pp {} x cp {} = {} does not divide the cluster's {} "
                                   "GPUs, so dp cannot be derived",
                                   ly.tp, ly.pp, ly.cp, ly.tp * ly.pp * ly.cp, cluster_gpus),
                       w.cluster.gpus > 0
                           ? "choose tp, pp and cp whose product divides cluster.gpus"
                           : "choose tp, pp and cp whose product divides nodes x GPUs per node");
    }
    throw InputError(file, line, p.key, p.message, p.hint);
  }
  return out;
}

RunSettings resolve_run_settings(const Catalog& catalog, const RunInput& in,
                                 const std::string& file) {
  RunSettings s;
  auto missing = [&](const char* what, const char* key) {
    throw InputError(file, 0, key, fmt::format("the catalog has no default {}", what),
                     fmt::format("set {} in the workload, or mark a catalog entry default", key));
  };
  if (in.failures_per_1000_node_days) {
    s.failures_per_1000_node_days = *in.failures_per_1000_node_days;
    s.failure_rate_id = "workload";
  } else {
    const FailureRate* f = in.failure_rate ? catalog.find<FailureRate>(*in.failure_rate)
                                           : catalog.default_entry<FailureRate>();
    if (!f) missing("failure rate", "reliability.failures_per_1000_node_days");
    s.failures_per_1000_node_days = f->per_1000_node_days;
    s.failure_rate_id = f->id;
  }
  if (in.requeue_minutes) s.requeue_s = *in.requeue_minutes * 60.0;
  if (in.async_checkpoint) s.async_checkpoint = *in.async_checkpoint;
  const StorageSystem* st = in.storage ? catalog.find<StorageSystem>(*in.storage)
                                       : catalog.default_entry<StorageSystem>();
  if (!st) missing("storage system", "storage.system");
  s.storage = *st;
  if (in.bytes_per_token) s.bytes_per_token = *in.bytes_per_token;
  if (in.stall_target) s.stall_target = *in.stall_target;
  const Facility* fa =
      in.facility ? catalog.find<Facility>(*in.facility) : catalog.default_entry<Facility>();
  if (!fa) missing("facility", "facility.site");
  s.facility = *fa;
  if (in.pue) s.facility.pue = *in.pue;
  if (in.usd_per_kwh) s.facility.usd_per_kwh = *in.usd_per_kwh;
  if (in.colo_usd_per_kw_month) s.facility.colo_usd_per_kw_month = *in.colo_usd_per_kw_month;
  if (in.rack_kw) s.facility.rack_W = *in.rack_kw * 1000.0;
  if (in.life_years) s.facility.life_years = *in.life_years;
  if (in.operations_share) s.facility.operations_share = *in.operations_share;
  if (in.cloud_pricing) s.cloud_pricing = *in.cloud_pricing;
  return s;
}

}  // namespace scaleout::io
