// Build-time generator of the built-in catalog: reads data/catalog/*.json
// with the catalog reader (the same strict checks as a --catalog file) and
// writes a C++ source whose add_embedded_catalog() adds every entry as
// code, so the binary parses no JSON at start-up. The JSON files stay the
// source of truth; CMake reruns this whenever one of them changes.
//
//   scaleout_embed_catalog OUTPUT ROOT FILE...
//
// FILEs are read in order (families first: GPUs name them); ROOT makes the
// file names in error messages relative.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "hw/catalog.hpp"
#include "io/catalog_reader.hpp"

namespace {

using namespace scaleout;

// A C++ string literal; every byte outside printable ASCII, the quote and
// the backslash as a three-digit octal escape (no ambiguity with what follows).
std::string lit(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '?') {
      o += static_cast<char>(c);
    } else {
      o += fmt::format("\\{:03o}", c);
    }
  }
  return o + "\"";
}

// A double literal that reads back to the same value (shortest round trip).
std::string lit(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}
std::string lit(long long v) { return fmt::format("{}LL", v); }
std::string lit(int v) { return fmt::format("{}", v); }
std::string lit(bool v) { return v ? "true" : "false"; }
const char* enum_name(IntraNodeKind) { return "IntraNodeKind"; }
const char* enum_name(FabricKind) { return "FabricKind"; }
const char* enum_name(FabricTopology) { return "FabricTopology"; }
const char* enum_name(MlpKind) { return "MlpKind"; }
const char* enum_name(PositionKind) { return "PositionKind"; }
const char* enum_name(NormKind) { return "NormKind"; }
template <typename E>
requires std::is_enum_v<E> std::string lit(E e) {
  return fmt::format("static_cast<{}>({})", enum_name(e), static_cast<int>(e));
}

// Writes one entry: `{ T x; x.field = value; ... c.add(std::move(x)); }`.
class Entry {
 public:
  Entry(std::string& out, const char* type) : out_(out) {
    out_ += fmt::format("  {{\n    {} x;\n", type);
  }
  ~Entry() { out_ += "    c.add(std::move(x));\n  }\n"; }
  Entry(const Entry&) = delete;
  Entry& operator=(const Entry&) = delete;
  template <typename V>
  Entry& set(const char* field, const V& v) {
    out_ += fmt::format("    x.{} = {};\n", field, lit(v));
    return *this;
  }

 private:
  std::string& out_;
};

void write_family(std::string& o, const GpuFamily& f) {
  Entry(o, "GpuFamily")
      .set("id", f.id)
      .set("name", f.name)
      .set("gemm_share", f.gemm_share)
      .set("fp8_gemm_share", f.fp8_gemm_share)
      .set("attention_share", f.attention_share)
      .set("sustained_factor", f.sustained_factor)
      .set("eager_efficiency", f.eager_efficiency)
      .set("eager_flops_per_byte", f.eager_flops_per_byte)
      .set("step_time_band", f.step_time_band)
      .set("validation_nic_gbit_s", f.validation_nic_gbit_s)
      .set("validation_nvswitch", f.validation_nvswitch)
      .set("megatron_fused_attention", f.megatron_fused_attention)
      .set("validation_source", f.validation_source)
      .set("validation_rows", f.validation_rows);
}

// family_data is not written: Catalog::add attaches the family's record.
void write_gpu(std::string& o, const Gpu& g) {
  Entry(o, "Gpu")
      .set("id", g.id)
      .set("name", g.name)
      .set("vendor", g.vendor)
      .set("family", g.family)
      .set("hbm_bytes", g.hbm_bytes)
      .set("hbm_bw_Bps", g.hbm_bw_Bps)
      .set("fp32_flops", g.fp32_flops)
      .set("tf32_flops", g.tf32_flops)
      .set("bf16_flops", g.bf16_flops)
      .set("fp16_flops", g.fp16_flops)
      .set("fp8_flops", g.fp8_flops)
      .set("mamf_bf16_flops", g.mamf_bf16_flops)
      .set("scaleup_bw_Bps", g.scaleup_bw_Bps)
      .set("host_link_Bps", g.host_link_Bps)
      .set("peer_to_peer", g.peer_to_peer)
      .set("tdp_W", g.tdp_W)
      .set("source", g.source);
}

void write_server(std::string& o, const Server& s) {
  Entry(o, "Server")
      .set("id", s.id)
      .set("name", s.name)
      .set("kind", s.kind)
      .set("gpu_id", s.gpu_id)
      .set("gpus_per_node", s.gpus_per_node)
      .set("intra_node", s.intra_node)
      .set("intra_node_bw_Bps", s.intra_node_bw_Bps)
      .set("scaleup_domain_gpus", s.scaleup_domain_gpus)
      .set("nics_per_node", s.nics_per_node)
      .set("nic_bw_Bps", s.nic_bw_Bps)
      .set("host_mem_bytes", s.host_mem_bytes)
      .set("local_nvme_bytes", s.local_nvme_bytes)
      .set("power_W", s.power_W)
      .set("scaleup_switch_failures_per_1000_days", s.scaleup_switch_failures_per_1000_days)
      .set("source", s.source);
}

void write_fabric(std::string& o, const Fabric& f) {
  Entry(o, "Fabric")
      .set("id", f.id)
      .set("name", f.name)
      .set("kind", f.kind)
      .set("port_bw_Bps", f.port_bw_Bps)
      .set("latency_s", f.latency_s)
      .set("topology", f.topology)
      .set("oversubscription", f.oversubscription)
      .set("switch_ports", f.switch_ports)
      .set("switch_W", f.switch_W)
      .set("transceiver_W", f.transceiver_W)
      .set("switch_usd", f.switch_usd)
      .set("nic_usd", f.nic_usd)
      .set("cable_usd", f.cable_usd)
      .set("source", f.source);
}

void write_model(std::string& o, const ModelShape& m) {
  Entry(o, "ModelShape")
      .set("id", m.id)
      .set("name", m.name)
      .set("layers", m.layers)
      .set("hidden", m.hidden)
      .set("heads", m.heads)
      .set("kv_heads", m.kv_heads)
      .set("head_dim", m.head_dim)
      .set("ffn", m.ffn)
      .set("vocab", m.vocab)
      .set("mlp", m.mlp)
      .set("tied_embeddings", m.tied_embeddings)
      .set("position", m.position)
      .set("max_position", m.max_position)
      .set("rope_theta", m.rope_theta)
      .set("rope_scaling", m.rope_scaling)
      .set("rope_scaling_factor", m.rope_scaling_factor)
      .set("norm", m.norm)
      .set("linear_bias", m.linear_bias)
      .set("qkv_bias", m.qkv_bias)
      .set("dropout", m.dropout)
      .set("sliding_window", m.sliding_window)
      .set("sliding_layers", m.sliding_layers)
      .set("activation_clamp", m.activation_clamp)
      .set("moe.experts", m.moe.experts)
      .set("moe.top_k", m.moe.top_k)
      .set("moe.shared_experts", m.moe.shared_experts)
      .set("moe.expert_ffn", m.moe.expert_ffn)
      .set("moe.dense_layers", m.moe.dense_layers)
      .set("moe.sigmoid_router", m.moe.sigmoid_router)
      .set("moe.expert_bias", m.moe.expert_bias)
      .set("moe.router_groups", m.moe.router_groups)
      .set("moe.router_group_topk", m.moe.router_group_topk)
      .set("moe.routed_scaling", m.moe.routed_scaling)
      .set("mla.q_lora_rank", m.mla.q_lora_rank)
      .set("mla.kv_lora_rank", m.mla.kv_lora_rank)
      .set("mla.qk_nope_head_dim", m.mla.qk_nope_head_dim)
      .set("mla.qk_rope_head_dim", m.mla.qk_rope_head_dim)
      .set("mla.v_head_dim", m.mla.v_head_dim)
      .set("published_params", m.published_params)
      .set("source", m.source);
}

void write_cloud_price(std::string& o, const CloudPrice& p) {
  Entry(o, "CloudPrice")
      .set("gpu_id", p.gpu_id)
      .set("usd_per_gpu_hour", p.usd_per_gpu_hour)
      .set("pricing", p.pricing)
      .set("provider", p.provider)
      .set("instance", p.instance)
      .set("date", p.date)
      .set("source", p.source)
      .set("is_default", p.is_default);
}

void write_purchase_price(std::string& o, const PurchasePrice& p) {
  Entry(o, "PurchasePrice")
      .set("server_id", p.server_id)
      .set("usd", p.usd)
      .set("date", p.date)
      .set("source", p.source);
}

void write_failure_rate(std::string& o, const FailureRate& f) {
  Entry(o, "FailureRate")
      .set("id", f.id)
      .set("per_1000_node_days", f.per_1000_node_days)
      .set("source", f.source)
      .set("is_default", f.is_default);
}

void write_storage(std::string& o, const StorageSystem& s) {
  Entry(o, "StorageSystem")
      .set("id", s.id)
      .set("name", s.name)
      .set("shared", s.shared)
      .set("node_read_Bps", s.node_read_Bps)
      .set("node_write_Bps", s.node_write_Bps)
      .set("gpu_read_Bps", s.gpu_read_Bps)
      .set("gpu_write_Bps", s.gpu_write_Bps)
      .set("total_read_Bps", s.total_read_Bps)
      .set("total_write_Bps", s.total_write_Bps)
      .set("source", s.source)
      .set("is_default", s.is_default);
}

void write_facility(std::string& o, const Facility& f) {
  Entry(o, "Facility")
      .set("id", f.id)
      .set("pue", f.pue)
      .set("usd_per_kwh", f.usd_per_kwh)
      .set("colo_usd_per_kw_month", f.colo_usd_per_kw_month)
      .set("rack_W", f.rack_W)
      .set("life_years", f.life_years)
      .set("operations_share", f.operations_share)
      .set("source", f.source)
      .set("is_default", f.is_default);
}

// The catalog as code: its entries in the order that rebuilds the same
// catalog (families before GPUs; prices in their list order; every default
// flag as read, at most one per kind and GPU, so no add() clears another).
std::string source_of(const Catalog& c) {
  std::string o =
      "// Generated by tools/embed_catalog.cpp from data/catalog/*.json; do not edit.\n"
      "#include <utility>\n\n"
      "#include \"io/embedded_catalog.hpp\"\n\n"
      "namespace scaleout::io {\n\n"
      "void add_embedded_catalog(Catalog& c) {\n";
  for (const GpuFamily* f : c.all<GpuFamily>()) write_family(o, *f);
  for (const Gpu* g : c.all<Gpu>()) write_gpu(o, *g);
  for (const Server* s : c.all<Server>()) write_server(o, *s);
  for (const Fabric* f : c.all<Fabric>()) write_fabric(o, *f);
  for (const ModelShape* m : c.all<ModelShape>()) write_model(o, *m);
  for (const CloudPrice& p : c.cloud_prices()) write_cloud_price(o, p);
  for (const Server* s : c.all<Server>()) {
    if (const PurchasePrice* p = c.find_purchase_price(s->id)) write_purchase_price(o, *p);
  }
  for (const FailureRate* f : c.all<FailureRate>()) write_failure_rate(o, *f);
  for (const StorageSystem* s : c.all<StorageSystem>()) write_storage(o, *s);
  for (const Facility* f : c.all<Facility>()) write_facility(o, *f);
  o += "}\n\n}  // namespace scaleout::io\n";
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: scaleout_embed_catalog OUTPUT ROOT FILE...\n";
    return 2;
  }
  try {
    Catalog c;
    for (int i = 3; i < argc; ++i) {
      std::ifstream in(argv[i], std::ios::binary);
      if (!in) {
        std::cerr << "scaleout_embed_catalog: cannot read " << argv[i] << "\n";
        return 1;
      }
      std::ostringstream text;
      text << in.rdbuf();
      const std::string name =
          std::filesystem::path(argv[i]).lexically_relative(argv[2]).generic_string();
      io::read_catalog(text.str(), name, c);
    }
    const std::string out = argv[1];
    const std::string code = source_of(c);
    // Rewritten only when different, so an unchanged catalog recompiles nothing.
    std::ifstream old(out, std::ios::binary);
    std::ostringstream was;
    if (old) was << old.rdbuf();
    if (!old || was.str() != code) {
      std::ofstream o(out + ".tmp", std::ios::binary);
      o << code;
      o.close();
      if (!o) {
        std::cerr << "scaleout_embed_catalog: cannot write " << out << "\n";
        return 1;
      }
      std::filesystem::rename(out + ".tmp", out);
    }
  } catch (const InputError& e) {
    std::cerr << "scaleout_embed_catalog: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
