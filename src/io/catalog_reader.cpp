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
    const auto peak = c.number("peak_tflops", 1e-6, 1e9);
    if (!peak)
      c.fail("peak_tflops", "missing required key", "the dense peak the MAMF is a share of");
    if (mamf > *peak) c.fail("mamf_tflops", "larger than peak_tflops");
    v = mamf / *peak;
  } else {
    const char* name = share ? "share" : "value";
    const auto x = c.number(name, min, max);
    if (!x) c.fail(name, "missing required key");
    v = *x;
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
  x.id = required_id(f, "id");
  x.name = f.text("name").value_or(x.id);
  x.gemm_share = read_constant(f, "gemm", 1e-3, 1, true);
  x.fp8_gemm_share = read_constant(f, "fp8_gemm", 1e-3, 1, true);
  x.attention_share = read_constant(f, "attention", 1e-3, 1, true);
  x.sustained_factor = read_constant(f, "sustained_factor", 1e-3, 1, false);
  x.eager_efficiency = read_constant(f, "eager_efficiency", 1e-3, 1, false);
  x.step_time_band = read_constant(f, "step_time_band", 0, 10, false);
  const YAML::Node vn = f.node("validation");
  if (!vn.IsDefined() || vn.IsNull()) {
    f.fail("validation", "missing required key",
           "e.g. {nic_gbit_s: 400, nvswitch: true, megatron_fused_attention: true, source: ...}");
  }
  Fields v(vn, f.file(), f.key_path("validation"));
  const auto nic = v.number("nic_gbit_s", 1, 1e6);
  if (!nic) v.fail("nic_gbit_s", "missing required key", "per-GPU inter-node rate, e.g. 400");
  x.validation_nic_gbit_s = *nic;
  const auto sw = v.boolean("nvswitch");
  if (!sw) v.fail("nvswitch", "missing required key", "whether NVLink GPUs sit on a switch");
  x.validation_nvswitch = *sw;
  const auto fa = v.boolean("megatron_fused_attention");
  if (!fa) v.fail("megatron_fused_attention", "missing required key");
  x.megatron_fused_attention = *fa;
  x.validation_source = required_text(v, "source");
  v.finish();
  f.text("note");
  return x;
}

Gpu read_gpu(Fields& f, const Catalog& into) {
  Gpu g;
  g.id = required_id(f, "id");
  g.name = f.text("name").value_or(g.id);
  g.vendor = f.choice("vendor", {"nvidia", "amd", "intel"}).value_or("nvidia");
  g.family = f.choice("family", into.family_ids()).value_or("");
  const auto hbm = f.number("hbm_gib", 1e-3, 1e6);
  if (!hbm) f.fail("hbm_gib", "missing required key", "device memory in GiB, e.g. 80");
  g.hbm_bytes = *hbm * units::kGiB;
  const auto bw = f.number("hbm_bw_gbyte_s", 1, 1e6);
  if (!bw) f.fail("hbm_bw_gbyte_s", "missing required key", "memory bandwidth in GB/s, e.g. 3350");
  g.hbm_bw_Bps = *bw * units::kGBps;
  const YAML::Node tf = f.node("tflops");
  if (!tf.IsDefined() || tf.IsNull()) f.fail("tflops", "missing required key", "e.g. {bf16: 989}");
  Fields t(tf, f.file(), f.key_path("tflops"));
  g.fp32_flops = t.number("fp32", 0, 1e6).value_or(0) * units::kTFLOPS;
  g.tf32_flops = t.number("tf32", 0, 1e6).value_or(0) * units::kTFLOPS;
  g.bf16_flops = t.number("bf16", 0, 1e6).value_or(0) * units::kTFLOPS;
  g.fp16_flops = t.number("fp16", 0, 1e6).value_or(0) * units::kTFLOPS;
  g.fp8_flops = t.number("fp8", 0, 1e6).value_or(0) * units::kTFLOPS;
  t.finish();
  g.scaleup_bw_Bps = f.number("scaleup_gbyte_s", 0, 1e6).value_or(0) * units::kGBps;
  g.host_link_Bps = f.number("host_link_gbyte_s", 0, 1e6).value_or(0) * units::kGBps;
  // Power, racks, energy and their cost all rest on it (a server's power_w
  // falls back to it): a GPU without it would print 0 W and divide by zero.
  const auto tdp = f.number("tdp_w", 1, 1e6);
  if (!tdp) f.fail("tdp_w", "missing required key", "the GPU's board power in W, e.g. 700");
  g.tdp_W = *tdp;
  g.source = required_text(f, "source");
  f.text("note");
  return g;
}

Server read_server(Fields& f) {
  Server s;
  s.id = required_id(f, "id");
  s.name = f.text("name").value_or(s.id);
  s.kind = f.choice("kind", {"node", "rack", "cloud-instance"}).value_or("node");
  s.gpu_id = required_id(f, "gpu");
  const auto n = f.integer("gpus_per_node", 1, 1024);
  if (!n) f.fail("gpus_per_node", "missing required key", "e.g. 8");
  s.gpus_per_node = static_cast<int>(*n);
  const std::string intra =
      f.choice("intra_node", {"nvswitch", "nvlink-bridge", "pcie", "xgmi"}).value_or("nvswitch");
  s.intra_node = intra == "nvswitch"        ? IntraNodeKind::nvswitch
                 : intra == "nvlink-bridge" ? IntraNodeKind::nvlink_bridge
                 : intra == "pcie"          ? IntraNodeKind::pcie
                                            : IntraNodeKind::xgmi;
  s.intra_node_bw_Bps = f.number("intra_node_gbyte_s", 0, 1e6).value_or(0) * units::kGBps;
  s.scaleup_domain_gpus =
      static_cast<int>(f.integer("scaleup_domain_gpus", 1, 1 << 20).value_or(s.gpus_per_node));
  s.nics_per_node = static_cast<int>(f.integer("nics", 0, 1024).value_or(0));
  s.nic_bw_Bps = f.number("nic_gbit_s", 0, 1e6).value_or(0) * units::kGbps;
  s.host_mem_bytes = f.number("host_mem_gib", 0, kHuge).value_or(0) * units::kGiB;
  s.local_nvme_bytes = f.number("local_nvme_tb", 0, kHuge).value_or(0) * units::kTB;
  s.power_W = f.number("power_w", 0, kHuge).value_or(0);
  s.source = required_text(f, "source");
  f.text("note");
  return s;
}

Fabric read_fabric(Fields& f) {
  Fabric x;
  x.id = required_id(f, "id");
  x.name = f.text("name").value_or(x.id);
  const std::string kind =
      f.choice("kind", {"ib", "roce", "ethernet", "efa", "omnipath"}).value_or("ib");
  x.kind = kind == "ib"         ? FabricKind::ib
           : kind == "roce"     ? FabricKind::roce
           : kind == "ethernet" ? FabricKind::ethernet
           : kind == "efa"      ? FabricKind::efa
                                : FabricKind::omnipath;
  const auto rate = f.number("port_gbit_s", 1, 1e6);
  if (!rate) f.fail("port_gbit_s", "missing required key", "port rate in Gb/s, e.g. 400");
  x.port_bw_Bps = *rate * units::kGbps;
  x.latency_s = f.number("latency_us", 0, 1e6).value_or(0) * 1e-6;
  const std::string topo =
      f.choice("topology", {"rail-optimized", "fat-tree"}).value_or("rail-optimized");
  x.topology = topo == "fat-tree" ? FabricTopology::fat_tree : FabricTopology::rail_optimized;
  x.oversubscription = f.number("oversubscription", 1, 1000).value_or(1);
  x.switch_ports = static_cast<int>(f.integer("switch_ports", 2, 100000).value_or(0));
  x.switch_W = f.number("switch_w", 0, 1e6).value_or(0);
  x.transceiver_W = f.number("transceiver_w", 0, 1e4).value_or(0);
  x.switch_usd = f.number("switch_usd", 0, 1e9).value_or(0);
  x.nic_usd = f.number("nic_usd", 0, 1e9).value_or(0);
  x.cable_usd = f.number("cable_usd", 0, 1e9).value_or(0);
  x.source = required_text(f, "source");
  f.text("note");
  return x;
}

CloudPrice read_cloud_price(Fields& f) {
  CloudPrice p;
  p.gpu_id = required_id(f, "gpu");
  const auto usd = f.number("usd_per_gpu_hour", 0, 1e6);
  if (!usd) f.fail("usd_per_gpu_hour", "missing required key", "dollars per GPU-hour, e.g. 2.5");
  p.usd_per_gpu_hour = *usd;
  p.pricing = f.choice("pricing", {"on-demand", "reserved", "spot", "capacity-block"})
                  .value_or("on-demand");
  p.provider = f.text("provider").value_or("");
  p.instance = f.text("instance").value_or("");
  p.date = required_text(f, "date");
  p.source = required_text(f, "source");
  p.is_default = f.boolean("default").value_or(false);
  f.text("note");
  return p;
}

PurchasePrice read_purchase_price(Fields& f) {
  PurchasePrice p;
  p.server_id = required_id(f, "server");
  const auto usd = f.number("usd", 0, 1e12);
  if (!usd) f.fail("usd", "missing required key", "the server's price in dollars");
  p.usd = *usd;
  p.date = required_text(f, "date");
  p.source = required_text(f, "source");
  f.text("note");
  return p;
}

FailureRate read_failure_rate(Fields& f) {
  FailureRate r;
  r.id = required_id(f, "id");
  const auto rate = f.number("per_1000_node_days", 0, 1e6);
  if (!rate) {
    f.fail("per_1000_node_days", "missing required key",
           "unexpected interruptions per 1,000 node-days, e.g. 3.8");
  }
  r.per_1000_node_days = *rate;
  r.source = required_text(f, "source");
  r.is_default = f.boolean("default").value_or(false);
  f.text("note");
  return r;
}

StorageSystem read_storage(Fields& f) {
  StorageSystem s;
  s.id = required_id(f, "id");
  s.name = f.text("name").value_or(s.id);
  s.shared = f.choice("kind", {"shared", "local"}).value_or("shared") == "shared";
  auto rate = [&](const char* key) { return f.number(key, 0, kHuge).value_or(0) * units::kGBps; };
  s.node_read_Bps = rate("node_read_gbyte_s");
  s.node_write_Bps = rate("node_write_gbyte_s");
  s.gpu_read_Bps = rate("gpu_read_gbyte_s");
  s.gpu_write_Bps = rate("gpu_write_gbyte_s");
  s.total_read_Bps = rate("total_read_gbyte_s");
  s.total_write_Bps = rate("total_write_gbyte_s");
  if (s.node_write_Bps + s.gpu_write_Bps + s.total_write_Bps <= 0) {
    f.fail("node_write_gbyte_s", "no write bandwidth given",
           "give node_write_gbyte_s, gpu_write_gbyte_s or total_write_gbyte_s");
  }
  if (s.node_read_Bps + s.gpu_read_Bps + s.total_read_Bps <= 0) {
    f.fail("node_read_gbyte_s", "no read bandwidth given",
           "give node_read_gbyte_s, gpu_read_gbyte_s or total_read_gbyte_s");
  }
  s.source = required_text(f, "source");
  s.is_default = f.boolean("default").value_or(false);
  f.text("note");
  return s;
}

Facility read_facility(Fields& f) {
  Facility x;
  x.id = required_id(f, "id");
  x.pue = f.number("pue", 1, 10).value_or(1.0);
  x.usd_per_kwh = f.number("usd_per_kwh", 0, 100).value_or(0);
  x.colo_usd_per_kw_month = f.number("colo_usd_per_kw_month", 0, 1e6).value_or(0);
  const auto rack = f.number("rack_kw", 0.1, 1e4);
  if (!rack) f.fail("rack_kw", "missing required key", "the power budget of one rack, e.g. 40");
  x.rack_W = *rack * 1000.0;
  x.life_years = f.number("life_years", 0.1, 100).value_or(5);
  x.operations_share = f.number("operations_share", 0, 10).value_or(0);
  x.source = required_text(f, "source");
  x.is_default = f.boolean("default").value_or(false);
  f.text("note");
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
    into.add(reader(f));
    f.finish();
  }
}

}  // namespace

ModelShape read_model_fields(Fields& f, const std::string& default_id) {
  ModelShape m;
  m.id = f.id("id").value_or(default_id);
  m.name = f.text("name").value_or(m.id);
  auto need_int = [&](const std::string& key, long long max) {
    const auto v = f.integer(key, 1, max);
    if (!v) f.fail(key, "missing required key");
    return *v;
  };
  m.layers = static_cast<int>(need_int("layers", 100000));
  m.hidden = need_int("hidden", 10000000);
  m.heads = static_cast<int>(need_int("heads", 100000));
  m.kv_heads = static_cast<int>(f.integer("kv_heads", 1, 100000).value_or(m.heads));
  m.head_dim = static_cast<int>(f.integer("head_dim", 1, 100000).value_or(0));
  m.ffn = f.integer("ffn", 1, 100000000).value_or(4 * m.hidden);
  m.vocab = need_int("vocab", 100000000);
  m.mlp = f.choice("mlp", {"gelu", "swiglu"}).value_or("gelu") == "swiglu" ? MlpKind::swiglu
                                                                           : MlpKind::gelu;
  m.tied_embeddings = f.boolean("tied_embeddings").value_or(false);
  const std::string pos = f.choice("position", {"learned", "rope", "alibi"}).value_or("rope");
  m.position = pos == "learned" ? PositionKind::learned
               : pos == "alibi" ? PositionKind::alibi
                                : PositionKind::rope;
  m.max_position = f.integer("max_position", 1, 100000000).value_or(0);
  m.norm = f.choice("norm", {"layernorm", "rmsnorm"}).value_or("layernorm") == "rmsnorm"
               ? NormKind::rmsnorm
               : NormKind::layernorm;
  m.linear_bias = f.boolean("linear_bias").value_or(false);
  m.qkv_bias = f.boolean("qkv_bias").value_or(false);
  m.dropout = f.boolean("dropout").value_or(false);
  if (const YAML::Node moe = f.node("moe"); moe.IsDefined() && !moe.IsNull()) {
    Fields e(moe, f.file(), f.key_path("moe"));
    m.moe.experts = static_cast<int>(e.integer("experts", 1, 1000000).value_or(0));
    m.moe.top_k = static_cast<int>(e.integer("top_k", 1, 1000000).value_or(1));
    m.moe.shared_experts = static_cast<int>(e.integer("shared_experts", 0, 1000000).value_or(0));
    m.moe.expert_ffn = e.integer("expert_ffn", 1, 100000000).value_or(m.ffn);
    m.moe.dense_layers = static_cast<int>(e.integer("dense_layers", 0, 100000).value_or(0));
    m.moe.capacity_factor = e.number("capacity_factor", 0.01, 1000).value_or(1.0);
    e.finish();
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
      const std::string near = closest_match(id, into.gpu_ids());
      throw InputError(file, line_of(gpu), fmt::format("servers[{}].gpu", i),
                       fmt::format("unknown GPU '{}'", id),
                       near.empty() ? "add it under gpus"
                                    : fmt::format("did you mean '{}'? or add it under gpus", near));
    }
  }
}

}  // namespace scaleout::io
