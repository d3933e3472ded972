#include "io/catalog_reader.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/ids.hpp"
#include "core/spelling.hpp"
#include "core/units.hpp"

namespace scaleout::io {

namespace {

constexpr double kHuge = 1e18;

// The most entries one list of a catalog file may hold.
constexpr size_t kMaxCatalogEntries = 10000;
// A GPU's measured matmul rate may exceed its dense peak (quoted at the rated
// boost clock; GeForce cards run above it: RTX 3090 76.5 against 71, 1.08)
// by at most this factor.
constexpr double kMaxMamfOverPeak = 1.25;

// A required free-text value (source, date): one line, no control bytes.
std::string required_text(Fields& f, const std::string& key) {
  auto s = f.text(key);
  if (!s || s->empty()) f.fail(key, "missing required key");
  return *s;
}

// A required id (core/ids.hpp): the entry's own id or a reference to another entry.
std::string required_id(Fields& f, const std::string& key) {
  if (!f.has(key)) f.fail(key, "missing required key");
  return *f.id(key);
}

// An entry's id and its name in reports (the id when it has none).
template <typename Entry>
void read_id_and_name(Fields& f, Entry& entry) {
  entry.id = required_id(f, "id");
  entry.name = f.text("name").value_or(entry.id);
}

// Where an entry's figures come from, and whether it is the default of its kind.
template <typename Entry>
void read_source_and_default(Fields& f, Entry& entry) {
  entry.source = required_text(f, "source");
  entry.is_default = f.boolean("default").value_or(false);
}

// A required number in [min, max]; `hint` says what to give when it is missing.
double required_number(Fields& f, const std::string& key, double min, double max,
                       const std::string& hint = {}) {
  const auto v = f.number(key, min, max);
  if (!v) f.fail(key, "missing required key", hint);
  return *v;
}

// One of the words of `table`, as its enum value; `fallback` when the key is absent.
template <typename Enum>
Enum choose(Fields& f, const std::string& key,
            std::initializer_list<std::pair<const char*, Enum>> table, Enum fallback) {
  std::vector<std::string> words;
  for (const auto& [word, value] : table) words.emplace_back(word);
  const auto given = f.choice(key, words);
  for (const auto& [word, value] : table) {
    if (given && *given == word) return value;
  }
  return fallback;
}

// A required whole number in [min, max].
long long required_integer(Fields& f, const std::string& key, long long min, long long max,
                           const std::string& hint = {}) {
  const auto v = f.integer(key, min, max);
  if (!v) f.fail(key, "missing required key", hint);
  return *v;
}

// A required yes/no.
bool required_boolean(Fields& f, const std::string& key, const std::string& hint = {}) {
  const auto v = f.boolean(key);
  if (!v) f.fail(key, "missing required key", hint);
  return *v;
}

// A constant with its provenance, {value, source} or {value, fitted_on}; a
// kernel share (`share`: true) is {share, source} or {mamf_tflops,
// peak_tflops, source}, the measured rate against the dense peak.
double read_constant(Fields& f, const std::string& key, double min, double max, bool share) {
  const YAML::Node n = f.node(key);
  if (!n.IsDefined() || n.IsNull()) {
    f.fail(key, "missing required key",
           share ? "e.g. {share: 0.8, source: ...} or {mamf_tflops: 794.5, peak_tflops: 989, "
                   "source: ...}"
                 : "e.g. {value: 0.9, fitted_on: ...} or {value: 0.3, source: ...}");
  }
  Fields c(n, f.file(), f.key_path(key));
  double v = 0;
  if (share && c.has("mamf_tflops")) {
    const double mamf = *c.number("mamf_tflops", 1e-6, 1e9);
    const double peak =
        required_number(c, "peak_tflops", 1e-6, 1e9, "the dense peak the MAMF is a share of");
    if (mamf > peak) c.fail("mamf_tflops", "larger than peak_tflops");
    v = mamf / peak;
  } else {
    const char* name = share ? "share" : "value";
    v = required_number(c, name, min, max);
  }
  const auto source = c.text("source");
  const auto fitted = share ? std::nullopt : c.text("fitted_on");
  if ((!source || source->empty()) && (!fitted || fitted->empty())) {
    c.fail("source", "missing required key",
           share ? "where the figure comes from" : "give source, or fitted_on for a fitted value");
  }
  if (source && fitted) c.fail("fitted_on", "give source or fitted_on, not both");
  c.finish();
  return v;
}

GpuFamily read_family(Fields& f) {
  GpuFamily x;
  read_id_and_name(f, x);
  x.gemm_share = read_constant(f, "gemm", 1e-3, 1, true);
  x.fp8_gemm_share = read_constant(f, "fp8_gemm", 1e-3, 1, true);
  x.attention_share = read_constant(f, "attention", 1e-3, 1, true);
  x.sustained_factor = read_constant(f, "sustained_factor", 1e-3, 1, false);
  x.eager_efficiency = read_constant(f, "eager_efficiency", 1e-3, 1, false);
  // Optional: without it the family's eager efficiency is not scaled by GPU.
  const YAML::Node en = f.node("eager_flops_per_byte");
  if (en.IsDefined() && !en.IsNull()) {
    x.eager_flops_per_byte = read_constant(f, "eager_flops_per_byte", 1, 1e5, false);
  }
  x.step_time_band = read_constant(f, "step_time_band", 0, 10, false);
  const YAML::Node vn = f.node("validation");
  if (!vn.IsDefined() || vn.IsNull()) {
    f.fail("validation", "missing required key",
           "e.g. {nic_gbit_s: 400, nvswitch: true, megatron_fused_attention: true, source: ...}");
  }
  Fields v(vn, f.file(), f.key_path("validation"));
  x.validation_nic_gbit_s =
      required_number(v, "nic_gbit_s", 1, 1e6, "per-GPU inter-node rate, e.g. 400");
  x.validation_nvswitch = required_boolean(v, "nvswitch", "whether NVLink GPUs sit on a switch");
  x.megatron_fused_attention = required_boolean(v, "megatron_fused_attention");
  x.validation_source = required_text(v, "source");
  v.finish();
  // Optional: a family without it has no validation rows.
  const YAML::Node rn = f.node("validation_rows");
  if (rn.IsDefined() && !rn.IsNull()) {
    Fields rows(rn, f.file(), f.key_path("validation_rows"));
    const std::optional<long long> n = rows.integer("count", 0, 1 << 30);
    if (!n) rows.fail("count", "missing required key", "the family's rows, e.g. 27");
    x.validation_rows = static_cast<int>(*n);
    required_text(rows, "source");
    rows.finish();
  }
  return x;
}

Gpu read_gpu(Fields& f, const Catalog& into) {
  Gpu g;
  read_id_and_name(f, g);
  g.vendor = f.choice("vendor", {"nvidia", "amd", "intel"}).value_or("nvidia");
  g.family = f.choice("family", into.ids<GpuFamily>()).value_or("");
  g.hbm_bytes =
      required_number(f, "hbm_gib", 1e-3, 1e6, "device memory in GiB, e.g. 80") * units::kGiB;
  g.hbm_bw_Bps =
      required_number(f, "hbm_bw_gbyte_s", 1, 1e6, "memory bandwidth in GB/s, e.g. 3350") *
      units::kGBps;
  const YAML::Node tf = f.node("tflops");
  if (!tf.IsDefined() || tf.IsNull()) f.fail("tflops", "missing required key", "e.g. {bf16: 989}");
  Fields t(tf, f.file(), f.key_path("tflops"));
  g.fp32_flops = t.number("fp32", 0, 1e6).value_or(0) * units::kTFLOPS;
  g.tf32_flops = t.number("tf32", 0, 1e6).value_or(0) * units::kTFLOPS;
  g.bf16_flops = t.number("bf16", 0, 1e6).value_or(0) * units::kTFLOPS;
  g.fp16_flops = t.number("fp16", 0, 1e6).value_or(0) * units::kTFLOPS;
  g.fp8_flops = t.number("fp8", 0, 1e6).value_or(0) * units::kTFLOPS;
  t.finish();
  // Optional measured matmul rate; GeForce cards boost above the clock their
  // peak is quoted at, so it may exceed the dense peak, by at most a quarter.
  if (const std::optional<double> m = f.number("mamf_bf16_tflops", 1e-3, 1e6)) {
    const double peak = g.bf16_flops > 0 ? g.bf16_flops : g.fp16_flops;
    if (peak <= 0)
      f.fail("mamf_bf16_tflops", "needs a tflops.bf16 (or fp16) peak to compare with",
             "a measured BF16 matmul TFLOP/s, e.g. 167");
    if (*m * units::kTFLOPS > kMaxMamfOverPeak * peak)
      f.fail("mamf_bf16_tflops", "more than 1.25 times the tflops.bf16 peak",
             "a measured BF16 matmul TFLOP/s up to 1.25 x the dense peak");
    g.mamf_bf16_flops = *m * units::kTFLOPS;
  }
  g.scaleup_bw_Bps = f.number("scaleup_gbyte_s", 0, 1e6).value_or(0) * units::kGBps;
  g.host_link_Bps = f.number("host_link_gbyte_s", 0, 1e6).value_or(0) * units::kGBps;
  g.peer_to_peer = f.boolean("peer_to_peer").value_or(true);
  // Power, racks, energy and their cost all rest on it (a server's power_w
  // falls back to it): a GPU without it would print 0 W and divide by zero.
  g.tdp_W = required_number(f, "tdp_w", 1, 1e6, "the GPU's board power in W, e.g. 700");
  g.source = required_text(f, "source");
  return g;
}

Server read_server(Fields& f) {
  Server s;
  read_id_and_name(f, s);
  s.kind = f.choice("kind", {"node", "rack", "cloud-instance"}).value_or("node");
  s.gpu_id = required_id(f, "gpu");
  s.gpus_per_node = static_cast<int>(required_integer(f, "gpus_per_node", 1, 1024, "e.g. 8"));
  s.intra_node = choose(f, "intra_node",
                        {{"nvswitch", IntraNodeKind::nvswitch},
                         {"nvlink-bridge", IntraNodeKind::nvlink_bridge},
                         {"pcie", IntraNodeKind::pcie},
                         {"xgmi", IntraNodeKind::xgmi}},
                        IntraNodeKind::nvswitch);
  s.intra_node_bw_Bps = f.number("intra_node_gbyte_s", 0, 1e6).value_or(0) * units::kGBps;
  s.scaleup_domain_gpus =
      static_cast<int>(f.integer("scaleup_domain_gpus", 1, 1 << 20).value_or(s.gpus_per_node));
  s.nics_per_node = static_cast<int>(f.integer("nics", 0, 1024).value_or(0));
  s.nic_bw_Bps = f.number("nic_gbit_s", 0, 1e6).value_or(0) * units::kGbps;
  s.host_mem_bytes = f.number("host_mem_gib", 0, kHuge).value_or(0) * units::kGiB;
  s.local_nvme_bytes = f.number("local_nvme_tb", 0, kHuge).value_or(0) * units::kTB;
  s.power_W = f.number("power_w", 0, kHuge).value_or(0);
  s.scaleup_switch_failures_per_1000_days =
      f.number("scaleup_switch_failures_per_1000_days", 0, 1e6).value_or(0);
  s.source = required_text(f, "source");
  return s;
}

Fabric read_fabric(Fields& f) {
  Fabric x;
  read_id_and_name(f, x);
  x.kind = choose(f, "kind",
                  {{"ib", FabricKind::ib},
                   {"roce", FabricKind::roce},
                   {"ethernet", FabricKind::ethernet},
                   {"efa", FabricKind::efa},
                   {"omnipath", FabricKind::omnipath}},
                  FabricKind::ib);
  x.port_bw_Bps =
      required_number(f, "port_gbit_s", 1, 1e6, "port rate in Gb/s, e.g. 400") * units::kGbps;
  x.latency_s = f.number("latency_us", 0, 1e6).value_or(0) * 1e-6;
  x.topology = choose(
      f, "topology",
      {{"rail-optimized", FabricTopology::rail_optimized}, {"fat-tree", FabricTopology::fat_tree}},
      FabricTopology::rail_optimized);
  x.oversubscription = f.number("oversubscription", 1, 1000).value_or(1);
  x.switch_ports = static_cast<int>(f.integer("switch_ports", 2, 100000).value_or(0));
  x.switch_W = f.number("switch_w", 0, 1e6).value_or(0);
  x.transceiver_W = f.number("transceiver_w", 0, 1e4).value_or(0);
  x.switch_usd = f.number("switch_usd", 0, 1e9).value_or(0);
  x.nic_usd = f.number("nic_usd", 0, 1e9).value_or(0);
  x.cable_usd = f.number("cable_usd", 0, 1e9).value_or(0);
  x.source = required_text(f, "source");
  return x;
}

CloudPrice read_cloud_price(Fields& f) {
  CloudPrice p;
  p.gpu_id = required_id(f, "gpu");
  p.usd_per_gpu_hour =
      required_number(f, "usd_per_gpu_hour", 0, 1e6, "dollars per GPU-hour, e.g. 2.5");
  p.pricing = f.choice("pricing", {"on-demand", "reserved", "spot", "capacity-block"})
                  .value_or("on-demand");
  p.provider = f.text("provider").value_or("");
  p.instance = f.text("instance").value_or("");
  p.date = required_text(f, "date");
  read_source_and_default(f, p);
  return p;
}

PurchasePrice read_purchase_price(Fields& f) {
  PurchasePrice p;
  p.server_id = required_id(f, "server");
  p.usd = required_number(f, "usd", 0, 1e12, "the server's price in dollars");
  p.date = required_text(f, "date");
  p.source = required_text(f, "source");
  return p;
}

FailureRate read_failure_rate(Fields& f) {
  FailureRate r;
  r.id = required_id(f, "id");
  r.per_1000_node_days = required_number(f, "per_1000_node_days", 0, 1e6,
                                         "unexpected interruptions per 1,000 node-days, e.g. 3.8");
  read_source_and_default(f, r);
  return r;
}

StorageSystem read_storage(Fields& f) {
  StorageSystem s;
  read_id_and_name(f, s);
  s.shared = f.choice("kind", {"shared", "local"}).value_or("shared") == "shared";
  auto rate = [&](const char* key) { return f.number(key, 0, kHuge).value_or(0) * units::kGBps; };
  s.node_read_Bps = rate("node_read_gbyte_s");
  s.node_write_Bps = rate("node_write_gbyte_s");
  s.gpu_read_Bps = rate("gpu_read_gbyte_s");
  s.gpu_write_Bps = rate("gpu_write_gbyte_s");
  s.total_read_Bps = rate("total_read_gbyte_s");
  s.total_write_Bps = rate("total_write_gbyte_s");
  auto need_some = [&](const char* way, double node, double gpu, double total) {
    if (node + gpu + total > 0) return;
    f.fail(fmt::format("node_{}_gbyte_s", way), fmt::format("no {} bandwidth given", way),
           fmt::format("give node_{0}_gbyte_s, gpu_{0}_gbyte_s or total_{0}_gbyte_s", way));
  };
  need_some("write", s.node_write_Bps, s.gpu_write_Bps, s.total_write_Bps);
  need_some("read", s.node_read_Bps, s.gpu_read_Bps, s.total_read_Bps);
  read_source_and_default(f, s);
  return s;
}

Facility read_facility(Fields& f) {
  Facility x;
  x.id = required_id(f, "id");
  x.pue = f.number("pue", 1, 10).value_or(1.0);
  x.usd_per_kwh = f.number("usd_per_kwh", 0, 100).value_or(0);
  x.colo_usd_per_kw_month = f.number("colo_usd_per_kw_month", 0, 1e6).value_or(0);
  x.rack_W =
      required_number(f, "rack_kw", 0.1, 1e4, "the power budget of one rack, e.g. 40") * 1000.0;
  x.life_years = f.number("life_years", 0.1, 100).value_or(5);
  x.operations_share = f.number("operations_share", 0, 10).value_or(0);
  read_source_and_default(f, x);
  return x;
}

template <typename Reader>
void read_list(const YAML::Node& list, const std::string& file, const std::string& key,
               Catalog& into, Reader reader) {
  if (!list.IsSequence()) {
    throw InputError(file, line_of(list), key, "expected a list of entries");
  }
  if (list.size() > kMaxCatalogEntries) {
    throw InputError(
        file, line_of(list), key,
        fmt::format("{} entries; a catalog list holds at most {}", list.size(), kMaxCatalogEntries),
        "split the entries over several --catalog files");
  }
  for (size_t i = 0; i < list.size(); ++i) {
    Fields f(list[i], file, fmt::format("{}[{}]", key, i));
    auto entry = reader(f);
    f.text("note");  // every entry may carry a note
    into.add(std::move(entry));
    f.finish();
  }
}

}  // namespace

ModelShape read_model_fields(Fields& f, const std::string& default_id) {
  ModelShape m;
  m.id = f.id("id").value_or(default_id);
  m.name = f.text("name").value_or(m.id);
  m.layers = static_cast<int>(required_integer(f, "layers", 1, 100000));
  m.hidden = required_integer(f, "hidden", 1, 10000000);
  m.heads = static_cast<int>(required_integer(f, "heads", 1, 100000));
  m.kv_heads = static_cast<int>(f.integer("kv_heads", 1, 100000).value_or(m.heads));
  m.head_dim = static_cast<int>(f.integer("head_dim", 1, 100000).value_or(0));
  m.ffn = f.integer("ffn", 1, 100000000).value_or(4 * m.hidden);
  m.vocab = required_integer(f, "vocab", 1, 100000000);
  m.mlp = choose(f, "mlp", {{"gelu", MlpKind::gelu}, {"swiglu", MlpKind::swiglu}}, MlpKind::gelu);
  m.tied_embeddings = f.boolean("tied_embeddings").value_or(false);
  m.position = choose(f, "position",
                      {{"learned", PositionKind::learned},
                       {"rope", PositionKind::rope},
                       {"alibi", PositionKind::alibi}},
                      PositionKind::rope);
  m.max_position = f.integer("max_position", 1, 100000000).value_or(0);
  m.rope_theta = f.number("rope_theta", 1, 1e12).value_or(0);
  if (const YAML::Node rs = f.node("rope_scaling"); rs.IsDefined() && !rs.IsNull()) {
    Fields x(rs, f.file(), f.key_path("rope_scaling"));
    m.rope_scaling = choose(x, "type",
                            {{"llama3", std::string("llama3")},
                             {"yarn", std::string("yarn")},
                             {"linear", std::string("linear")},
                             {"dynamic", std::string("dynamic")}},
                            std::string("llama3"));
    m.rope_scaling_factor = x.number("factor", 1, 1e6).value_or(1);
    x.finish();
  }
  m.norm = choose(f, "norm", {{"layernorm", NormKind::layernorm}, {"rmsnorm", NormKind::rmsnorm}},
                  NormKind::layernorm);
  m.linear_bias = f.boolean("linear_bias").value_or(false);
  m.qkv_bias = f.boolean("qkv_bias").value_or(false);
  m.dropout = f.boolean("dropout").value_or(false);
  m.activation_clamp = f.number("activation_clamp", 1e-6, 1e6).value_or(0);
  if (m.activation_clamp > 0 && m.mlp != MlpKind::swiglu) {
    f.fail("activation_clamp", "a clamp needs a gated MLP (mlp: swiglu)",
           "mlp: swiglu, or leave activation_clamp out");
  }
  m.sliding_window = static_cast<int>(f.integer("sliding_window", 1, 100000000).value_or(0));
  m.sliding_layers = static_cast<int>(f.integer("sliding_layers", 0, 100000).value_or(0));
  if (m.sliding_layers > m.layers) {
    f.fail("sliding_layers",
           fmt::format("{} sliding-window layers but the model has {} layers", m.sliding_layers,
                       m.layers),
           "at most layers");
  }
  if ((m.sliding_window > 0) != (m.sliding_layers > 0)) {
    f.fail(m.sliding_window > 0 ? "sliding_window" : "sliding_layers",
           "sliding_window and sliding_layers go together",
           "set both (the window in tokens and how many layers use it), or neither");
  }
  if (const YAML::Node moe = f.node("moe"); moe.IsDefined() && !moe.IsNull()) {
    Fields e(moe, f.file(), f.key_path("moe"));
    m.moe.experts = static_cast<int>(e.integer("experts", 1, 1000000).value_or(0));
    m.moe.top_k = static_cast<int>(e.integer("top_k", 1, 1000000).value_or(1));
    m.moe.shared_experts = static_cast<int>(e.integer("shared_experts", 0, 1000000).value_or(0));
    m.moe.expert_ffn = e.integer("expert_ffn", 1, 100000000).value_or(m.ffn);
    m.moe.dense_layers = static_cast<int>(e.integer("dense_layers", 0, 100000).value_or(0));
    // The capacity factor is a training setting, not the model's (docs/model.md,
    // "Token dropping"): the workload's moe.capacity_factor.
    if (e.has("capacity_factor")) {
      e.fail("capacity_factor",
             "capacity_factor is a setting of the training run, not of the model",
             "remove it here and give it in the workload: moe: {capacity_factor: F, "
             "pad_to_capacity: true} (absent: dropless)");
    }
    m.moe.sigmoid_router =
        choose(e, "score_function", {{"softmax", false}, {"sigmoid", true}}, false);
    m.moe.expert_bias = e.boolean("expert_bias").value_or(false);
    m.moe.router_groups = static_cast<int>(e.integer("router_groups", 1, 1000000).value_or(0));
    m.moe.router_group_topk =
        static_cast<int>(e.integer("router_group_topk", 1, 1000000).value_or(0));
    m.moe.routed_scaling = e.number("routed_scaling", 0.0001, 1e6).value_or(0);
    e.finish();
    if (m.moe.router_groups > 0 && m.moe.experts % m.moe.router_groups != 0) {
      e.fail("router_groups", "experts must divide into router_groups groups");
    }
    if (m.moe.router_group_topk > m.moe.router_groups) {
      e.fail("router_group_topk", "router_group_topk is larger than router_groups");
    }
    if (m.moe.top_k > m.moe.experts) e.fail("top_k", "top_k is larger than experts");
    if (m.moe.dense_layers > m.layers) e.fail("dense_layers", "more dense layers than layers");
  }
  if (const YAML::Node mla = f.node("mla"); mla.IsDefined() && !mla.IsNull()) {
    Fields x(mla, f.file(), f.key_path("mla"));
    m.mla.q_lora_rank = static_cast<int>(x.integer("q_lora_rank", 0, 1000000).value_or(0));
    m.mla.kv_lora_rank = static_cast<int>(x.integer("kv_lora_rank", 1, 1000000).value_or(512));
    m.mla.qk_nope_head_dim =
        static_cast<int>(x.integer("qk_nope_head_dim", 1, 100000).value_or(128));
    m.mla.qk_rope_head_dim =
        static_cast<int>(x.integer("qk_rope_head_dim", 0, 100000).value_or(64));
    m.mla.v_head_dim = static_cast<int>(x.integer("v_head_dim", 1, 100000).value_or(128));
    x.finish();
  }
  m.published_params = f.number("published_params_b", 0, 1e6).value_or(0) * 1e9;
  m.source = f.text("source").value_or("");
  f.text("note");
  check_model(m, f);
  return m;
}

void check_model(const ModelShape& m, const Fields& f) {
  if (m.head_dim == 0 && !m.is_mla() && m.hidden % m.heads != 0) {
    f.fail("heads", fmt::format("hidden {} is not divisible by heads {}", m.hidden, m.heads),
           "set head_dim, or choose heads that divide hidden");
  }
  if (m.heads % m.kv_heads != 0) {
    f.fail("kv_heads", fmt::format("kv_heads {} does not divide heads {}", m.kv_heads, m.heads),
           "grouped-query attention needs heads to be a multiple of kv_heads");
  }
  if (m.position == PositionKind::learned && m.max_position == 0) {
    f.fail("max_position", "learned positions need max_position (the table size)");
  }
}

void read_catalog(const std::string& text, const std::string& file, Catalog& into) {
  const YAML::Node root = load_yaml(text, file);
  if (!root.IsDefined() || root.IsNull()) {
    throw InputError(file, 0, "", "catalog file is empty",
                     "expected keys families, gpus, servers, fabrics, models, cloud, purchase, "
                     "failure_rates, storage or facilities");
  }
  Fields top(root, file, "");
  // Families first: a GPU of this file may name one of them.
  if (top.has("families")) read_list(top.node("families"), file, "families", into, read_family);
  if (top.has("gpus")) {
    read_list(top.node("gpus"), file, "gpus", into,
              [&into](Fields& f) { return read_gpu(f, into); });
  }
  if (top.has("servers")) read_list(top.node("servers"), file, "servers", into, read_server);
  if (top.has("fabrics")) read_list(top.node("fabrics"), file, "fabrics", into, read_fabric);
  if (top.has("models")) {
    read_list(top.node("models"), file, "models", into, [](Fields& f) {
      if (!f.has("id")) f.fail("id", "missing required key", "every catalog model needs an id");
      return read_model_fields(f, "");
    });
  }
  if (top.has("cloud")) read_list(top.node("cloud"), file, "cloud", into, read_cloud_price);
  if (top.has("purchase")) {
    read_list(top.node("purchase"), file, "purchase", into, read_purchase_price);
  }
  if (top.has("failure_rates")) {
    read_list(top.node("failure_rates"), file, "failure_rates", into, read_failure_rate);
  }
  if (top.has("storage")) read_list(top.node("storage"), file, "storage", into, read_storage);
  if (top.has("facilities")) {
    read_list(top.node("facilities"), file, "facilities", into, read_facility);
  }
  top.finish();
  // Every server of this file names a GPU that exists (earlier files were checked already).
  const YAML::Node servers = top.node("servers");
  for (size_t i = 0; servers.IsSequence() && i < servers.size(); ++i) {
    const YAML::Node gpu = servers[i]["gpu"];
    const std::string id = gpu.Scalar();
    if (!into.find_gpu(id)) {
      const std::string near = closest_match(id, into.ids<Gpu>());
      throw InputError(file, line_of(gpu), fmt::format("servers[{}].gpu", i),
                       fmt::format("unknown GPU '{}'", id),
                       near.empty() ? "add it under gpus"
                                    : fmt::format("did you mean '{}'? or add it under gpus", near));
    }
  }
}

}  // namespace scaleout::io
