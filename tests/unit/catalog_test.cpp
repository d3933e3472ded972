// The embedded catalog is data: it is loaded and checked here (ids unique,
// every entry sourced, figures consistent with each other).
#include "hw/catalog.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/units.hpp"
#include "input_error.hpp"
#include "io/catalog_reader.hpp"

namespace scaleout {
namespace {

const Catalog& cat() { return io::builtin_catalog(); }

TEST(Catalog, HoldsTheSharedCatalogIdsAndValidationIds) {
  for (const char* id :
       {"a100-sxm-40g", "a100-pcie-40g", "a100-sxm-80g", "a100-pcie-80g", "h100-sxm", "h100-pcie",
        "h100-nvl", "h200-sxm", "h200-nvl", "b200", "gb200", "l40s", "mi300x", "mi325x", "gaudi3",
        "v100-sxm-32g", "h800", "rtx-a6000"}) {
    EXPECT_NE(cat().find_gpu(id), nullptr) << id;
  }
  for (const char* id : {"dgx-a100", "dgx-h100", "dgx-h200", "dgx-b200", "dgx-gb200-nvl72",
                         "smc-as-4125gs-tnrt", "amd-mi300x-platform", "aws-p5.48xlarge"}) {
    EXPECT_NE(cat().find_server(id), nullptr) << id;
  }
  for (const char* id : {"ib-hdr", "ib-ndr", "ib-xdr", "roce-200", "roce-400", "roce-800"}) {
    EXPECT_NE(cat().find_fabric(id), nullptr) << id;
  }
}

TEST(Catalog, EveryEntryHasASourceAndSaneFigures) {
  for (const Gpu* g : cat().all<Gpu>()) {
    EXPECT_FALSE(g->source.empty()) << g->id;
    EXPECT_GT(g->hbm_bytes, 8 * units::kGiB) << g->id;
    EXPECT_GT(g->hbm_bw_Bps, 100 * units::kGBps) << g->id;
    EXPECT_GT(g->bf16_flops + g->fp16_flops, 0) << g->id;
    // Dense FP8 is twice BF16 where both exist (NVIDIA and AMD tensor cores).
    if (g->fp8_flops > 0 && g->bf16_flops > 0 && g->vendor != "intel") {
      EXPECT_NEAR(g->fp8_flops / g->bf16_flops, 2.0, 0.05) << g->id;
    }
  }
  for (const Server* s : cat().all<Server>()) {
    EXPECT_FALSE(s->source.empty()) << s->id;
    EXPECT_NE(cat().find_gpu(s->gpu_id), nullptr) << s->id;
    EXPECT_GE(s->scaleup_domain_gpus, 1) << s->id;
  }
  for (const Fabric* f : cat().all<Fabric>()) {
    EXPECT_FALSE(f->source.empty()) << f->id;
    EXPECT_GE(f->oversubscription, 1.0) << f->id;
  }
  for (const ModelShape* m : cat().all<ModelShape>()) {
    EXPECT_FALSE(m->source.empty()) << m->id;
    EXPECT_EQ(m->heads % m->kv_heads, 0) << m->id;
  }
}

TEST(Catalog, EconomicsHasSourcedDefaults) {
  ASSERT_NE(cat().default_entry<FailureRate>(), nullptr);
  ASSERT_NE(cat().default_entry<StorageSystem>(), nullptr);
  ASSERT_NE(cat().default_entry<Facility>(), nullptr);
  // Llama 3: 419 unexpected interruptions / (2,048 nodes x 54 days) x 1,000.
  EXPECT_NEAR(cat().find<FailureRate>("llama3-h100")->per_1000_node_days, 419.0 / 2048 / 54 * 1000,
              0.01);
  for (const FailureRate* f : cat().all<FailureRate>()) EXPECT_FALSE(f->source.empty()) << f->id;
  for (const StorageSystem* s : cat().all<StorageSystem>()) {
    EXPECT_FALSE(s->source.empty()) << s->id;
    EXPECT_GT(s->node_write_Bps + s->gpu_write_Bps + s->total_write_Bps, 0) << s->id;
  }
  for (const Facility* f : cat().all<Facility>()) {
    EXPECT_FALSE(f->source.empty()) << f->id;
    EXPECT_GE(f->pue, 1.0) << f->id;
    EXPECT_GT(f->rack_W, 0) << f->id;
  }
  // Reserved prices: the cheapest listed for the GPU; on-demand: the default.
  const CloudPrice* od = cat().cloud_price("h100-sxm", "on-demand");
  ASSERT_NE(od, nullptr);
  EXPECT_TRUE(od->is_default);
  const CloudPrice* rs = cat().cloud_price("h100-sxm", "reserved");
  ASSERT_NE(rs, nullptr);
  EXPECT_EQ(rs->pricing, "reserved");
  EXPECT_LT(rs->usd_per_gpu_hour, od->usd_per_gpu_hour);
}

TEST(Catalog, KeyFiguresMatchTheSharedCatalog) {
  // hardware-catalog.json: H100 SXM 80 GB, 3350 GB/s, 989 TF/s bf16, NVLink4 450 GB/s one way.
  const Gpu& h100 = *cat().find_gpu("h100-sxm");
  EXPECT_DOUBLE_EQ(h100.hbm_bytes, 80 * units::kGiB);
  EXPECT_DOUBLE_EQ(h100.hbm_bw_Bps, 3350e9);
  EXPECT_DOUBLE_EQ(h100.bf16_flops, 989e12);
  EXPECT_DOUBLE_EQ(h100.scaleup_bw_Bps, 450e9);
  const Server& dgx = *cat().find_server("dgx-h100");
  EXPECT_EQ(dgx.gpus_per_node, 8);
  EXPECT_EQ(dgx.nics_per_node, 8);
  EXPECT_DOUBLE_EQ(dgx.nic_bw_Bps, 400e9 / 8);
}

TEST(Catalog, ModelZooHasTheNamedModels) {
  for (const char* id :
       {"gpt-1.7b",     "gpt-3.6b",      "gpt-7.5b",     "gpt-18.4b",     "gpt-39.1b",
        "gpt-76.1b",    "gpt-145.6b",    "gpt-310.1b",   "gpt-529.6b",    "gpt-1t",
        "gpt3-175b",    "llama2-7b",     "llama2-13b",   "llama2-70b",    "llama3-8b",
        "llama3-70b",   "llama3.1-8b",   "llama3.1-70b", "llama3.1-405b", "mistral-7b",
        "mixtral-8x7b", "mixtral-8x22b", "qwen2.5-7b",   "qwen2.5-72b",   "deepseek-v3",
        "bloom-176b",   "opt-175b",      "mpt-7b",       "mpt-30b"}) {
    EXPECT_NE(cat().find_model(id), nullptr) << id;
  }
}

TEST(Catalog, UserFileAddsAndOverrides) {
  Catalog c = cat();
  io::read_catalog(R"(
gpus:
  - {id: h100-sxm, name: tuned, hbm_gib: 80, hbm_bw_gbyte_s: 3000, tflops: {bf16: 900}, tdp_w: 700, source: mine}
  - {id: my-gpu, hbm_gib: 64, hbm_bw_gbyte_s: 2000, tflops: {bf16: 500}, tdp_w: 500, source: mine}
servers:
  - {id: my-box, gpu: my-gpu, gpus_per_node: 4, source: mine}
)",
                   "user.yaml", c);
  EXPECT_DOUBLE_EQ(c.find_gpu("h100-sxm")->hbm_bw_Bps, 3000e9);
  EXPECT_EQ(c.find_server("my-box")->gpus_per_node, 4);
  EXPECT_EQ(c.find_server("dgx-h100")->gpu_id, "h100-sxm");
}

TEST(Catalog, UserFileErrorsNameLineAndKey) {
  Catalog c;
  if (const auto e = input_error_of([&] {
        io::read_catalog(
            "gpus:\n  - {id: x, hbm_gib: 80, hbm_bw_gbyte_s: 1, tflops: {bf16: 1},\n"
            "     source: s, tdp_watts: 5}\n",
            "user.yaml", c);
      })) {
    EXPECT_STREQ(e->what(), "user.yaml:3: gpus[0].tdp_watts: unknown key (did you mean 'tdp_w'?)");
  }
}

TEST(Catalog, HoldsTheNewestAndSmallestHardware) {
  // Issue 18: Blackwell Ultra, CDNA 4 and the single-node fine-tuning cards.
  for (const char* id : {"b300", "gb300", "mi355x", "rtx-4090", "rtx-5090", "l4", "a10g",
                         "rtx-6000-ada", "rtx-pro-6000", "rtx-3090", "rtx-a5000"}) {
    const Gpu* g = cat().find_gpu(id);
    ASSERT_NE(g, nullptr) << id;
    EXPECT_FALSE(g->source.empty()) << id;
    EXPECT_GT(g->bf16_flops, 0) << id;
    EXPECT_GT(g->tdp_W, 0) << id;
    EXPECT_FALSE(g->family_data.id.empty()) << id << ": its family is in families.json";
  }
  EXPECT_EQ(cat().find_gpu("mi355x")->family_data.id, "cdna4");
  for (const char* id :
       {"dgx-gb300-nvl72", "dgx-b300", "amd-mi355x-platform", "workstation-4x-rtx-4090",
        "server-8x-rtx-4090", "workstation-4x-rtx-5090", "server-8x-rtx-5090", "server-8x-l4",
        "smc-as-4125gs-tnrt-l40s-400g", "server-8x-rtx-pro-6000", "aws-g5.48xlarge",
        "aws-g6.48xlarge", "aws-g6e.48xlarge", "gcp-a2-ultragpu-8g"}) {
    const Server* s = cat().find_server(id);
    ASSERT_NE(s, nullptr) << id;
    EXPECT_NE(cat().find_gpu(s->gpu_id), nullptr) << id;
  }
  // Every cloud instance of the issue has an on-demand price row of its own
  // (the planner prices a GPU at its default row, docs/model.md "Cost").
  for (const auto& [server, instance] : {std::pair{"aws-g5.48xlarge", "g5.48xlarge"},
                                         {"aws-g6.48xlarge", "g6.48xlarge"},
                                         {"aws-g6e.48xlarge", "g6e.48xlarge"},
                                         {"gcp-a2-ultragpu-8g", "a2-ultragpu-8g"}}) {
    const std::string gpu = cat().find_server(server)->gpu_id;
    bool priced = false;
    for (const CloudPrice& p : cat().cloud_prices()) {
      priced |= p.gpu_id == gpu && p.instance == instance && p.pricing == "on-demand" &&
                p.usd_per_gpu_hour > 0;
    }
    EXPECT_TRUE(priced) << server;
    EXPECT_NE(cat().default_cloud_price(gpu), nullptr) << server;
  }
}

TEST(Catalog, SpotChecksOfNewFigures) {
  // HGX B300: 2.25 PF dense BF16 per GPU, 8 TB/s, NVLink 5 900 GB/s one way.
  const Gpu& b300 = *cat().find_gpu("b300");
  EXPECT_DOUBLE_EQ(b300.bf16_flops, 2250e12);
  EXPECT_DOUBLE_EQ(b300.hbm_bw_Bps, 8000e9);
  EXPECT_DOUBLE_EQ(b300.scaleup_bw_Bps, 900e9);
  // GB300 NVL72: 360 PF dense FP8 / 72 GPUs; 1,400 W per GPU (Mission Control FAQ).
  EXPECT_DOUBLE_EQ(cat().find_gpu("gb300")->fp8_flops * 72, 360e15);
  EXPECT_DOUBLE_EQ(cat().find_gpu("gb300")->tdp_W, 1400);
  // RTX 4090: BF16 with FP32 accumulate, 165.2 dense; 24 GB at 1,008 GB/s; no NVLink.
  const Gpu& rtx = *cat().find_gpu("rtx-4090");
  EXPECT_DOUBLE_EQ(rtx.bf16_flops, 165.2e12);
  EXPECT_DOUBLE_EQ(rtx.hbm_bytes, 24 * units::kGiB);
  EXPECT_DOUBLE_EQ(rtx.scaleup_bw_Bps, 0);
  // RTX 3090 (GeForce GA102): FP32-accumulate BF16 is half the FP16-accumulate
  // 142, 71 dense; 936 GB/s; its NVLink bridge is not a scale-up domain.
  const Gpu& r3090 = *cat().find_gpu("rtx-3090");
  EXPECT_DOUBLE_EQ(r3090.bf16_flops, 71e12);
  EXPECT_DOUBLE_EQ(r3090.hbm_bw_Bps, 936e9);
  EXPECT_DOUBLE_EQ(r3090.scaleup_bw_Bps, 0);
  EXPECT_DOUBLE_EQ(r3090.fp8_flops, 0);
  // GeForce drivers refuse peer-to-peer; professional and data-centre cards allow it.
  for (const char* id : {"rtx-3090", "rtx-4090", "rtx-5090"}) {
    EXPECT_FALSE(cat().find_gpu(id)->peer_to_peer) << id;
  }
  for (const char* id : {"rtx-a5000", "rtx-6000-ada", "l40s", "h100-sxm", "a100-sxm-80g"}) {
    EXPECT_TRUE(cat().find_gpu(id)->peer_to_peer) << id;
  }
  // RTX A5000 (professional GA102): 222.2 sparse -> 111.1 dense, not halved; 230 W.
  const Gpu& a5000 = *cat().find_gpu("rtx-a5000");
  EXPECT_DOUBLE_EQ(a5000.bf16_flops, 111.1e12);
  EXPECT_DOUBLE_EQ(a5000.tdp_W, 230);
  EXPECT_EQ(a5000.family_data.id, "ampere");
  // L4: 242 sparse BF16 -> 121 dense, 300 GB/s, 72 W.
  EXPECT_DOUBLE_EQ(cat().find_gpu("l4")->bf16_flops, 121e12);
  EXPECT_DOUBLE_EQ(cat().find_gpu("l4")->tdp_W, 72);
  // GB300 NVL72: 18 trays of 4 in one domain, 135 kW per rack / 18 trays.
  const Server& nvl = *cat().find_server("dgx-gb300-nvl72");
  EXPECT_EQ(nvl.kind, "rack");
  EXPECT_EQ(nodes_per_domain(nvl), 18);
  EXPECT_DOUBLE_EQ(nvl.power_W * 18, 135000);
  EXPECT_GT(nvl.scaleup_switch_failures_per_1000_days, 0);
  // The GB200 NVL72 trays (DGX and CoreWeave) share the switch-tray rate; a
  // DGX's NVLink domain is its own chassis.
  EXPECT_DOUBLE_EQ(cat().find_server("dgx-gb200-nvl72")->scaleup_switch_failures_per_1000_days,
                   nvl.scaleup_switch_failures_per_1000_days);
  EXPECT_DOUBLE_EQ(cat().find_server("coreweave-gb200-tray")->scaleup_switch_failures_per_1000_days,
                   nvl.scaleup_switch_failures_per_1000_days);
  EXPECT_EQ(nodes_per_domain(*cat().find_server("dgx-b300")), 1);
  EXPECT_EQ(nodes_per_domain(*cat().find_server("server-8x-rtx-4090")), 1);
  // AWS g6e.48xlarge: 8 L40S, 400 Gb/s in all.
  const Server& g6e = *cat().find_server("aws-g6e.48xlarge");
  EXPECT_DOUBLE_EQ(g6e.nics_per_node * g6e.nic_bw_Bps, 400e9 / 8);
}

TEST(Catalog, ScaleUpDomainsAreWholeDomainsInOrder) {
  const Server& nvl = *cat().find_server("dgx-gb200-nvl72");
  EXPECT_EQ(scaleup_domains(nvl, 1), 1);
  EXPECT_EQ(scaleup_domains(nvl, 18), 1);
  EXPECT_EQ(scaleup_domains(nvl, 19), 2);
  EXPECT_EQ(scaleup_domains(nvl, 36), 2);
  const Server& dgx = *cat().find_server("dgx-h100");
  EXPECT_EQ(scaleup_domains(dgx, 16), 16);
}

TEST(Catalog, SwitchTrayRateIsCheckedLikeEveryKey) {
  Catalog c = cat();
  io::read_catalog(
      "servers:\n  - {id: my-rack, gpu: gb200, gpus_per_node: 4, scaleup_domain_gpus: 72,\n"
      "     scaleup_switch_failures_per_1000_days: 1.5, source: mine}\n",
      "user.yaml", c);
  EXPECT_DOUBLE_EQ(c.find_server("my-rack")->scaleup_switch_failures_per_1000_days, 1.5);
  if (const auto e = input_error_of([&] {
        io::read_catalog(
            "servers:\n  - {id: my-rack, gpu: gb200, gpus_per_node: 4,\n"
            "     scaleup_switch_failure_per_1000_days: 1.5, source: mine}\n",
            "user.yaml", c);
      })) {
    EXPECT_STREQ(e->what(),
                 "user.yaml:3: servers[0].scaleup_switch_failure_per_1000_days: unknown key (did "
                 "you mean 'scaleup_switch_failures_per_1000_days'?)");
  }
  expect_input_error(
      [&] {
        io::read_catalog(
            "servers:\n  - {id: my-rack, gpu: gb200, gpus_per_node: 4,\n"
            "     scaleup_switch_failures_per_1000_days: -1, source: mine}\n",
            "user.yaml", c);
      },
      {"user.yaml:3: servers[0].scaleup_switch_failures"});
}

// Every entry of `a` equals the entry of `b` at the same place.
template <typename T>
void expect_same(const std::vector<const T*>& a, const std::vector<const T*>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(*a[i] == *b[i]) << what << " " << i;
}

TEST(EmbeddedCatalog, EqualsTheJsonFilesReadAtRunTime) {
  // The build compiles data/catalog/*.json into code (tools/embed_catalog.cpp);
  // it must hold exactly what the reader makes of the files.
  Catalog parsed;
  for (const char* f :
       {"families", "gpus", "servers", "fabrics", "models", "prices", "economics"}) {
    const std::string path = std::string(SCALEOUT_SOURCE_DIR) + "/data/catalog/" + f + ".json";
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    ASSERT_FALSE(text.str().empty()) << path;
    io::read_catalog(text.str(), path, parsed);
  }
  const Catalog& built = cat();
  expect_same(parsed.all<GpuFamily>(), built.all<GpuFamily>(), "families");
  expect_same(parsed.all<Gpu>(), built.all<Gpu>(), "gpus");
  expect_same(parsed.all<Server>(), built.all<Server>(), "servers");
  expect_same(parsed.all<Fabric>(), built.all<Fabric>(), "fabrics");
  expect_same(parsed.all<ModelShape>(), built.all<ModelShape>(), "models");
  ASSERT_EQ(parsed.cloud_prices().size(), built.cloud_prices().size());
  for (std::size_t i = 0; i < parsed.cloud_prices().size(); ++i) {
    EXPECT_TRUE(parsed.cloud_prices()[i] == built.cloud_prices()[i]) << i;
  }
  for (const Server* s : parsed.all<Server>()) {
    const PurchasePrice* a = parsed.find_purchase_price(s->id);
    const PurchasePrice* b = built.find_purchase_price(s->id);
    ASSERT_EQ(a == nullptr, b == nullptr) << s->id;
    if (a) {
      EXPECT_TRUE(*a == *b) << s->id;
    }
  }
  expect_same(parsed.all<FailureRate>(), built.all<FailureRate>(), "failure rates");
  expect_same(parsed.all<StorageSystem>(), built.all<StorageSystem>(), "storage");
  expect_same(parsed.all<Facility>(), built.all<Facility>(), "facilities");
}

TEST(Families, EveryGpuNamesASourcedFamily) {
  EXPECT_EQ(cat().ids<GpuFamily>(),
            (std::vector<std::string>{"ada", "ampere", "blackwell", "cdna3", "cdna4", "gaudi",
                                      "hopper", "volta"}));
  for (const GpuFamily* f : cat().all<GpuFamily>())
    EXPECT_FALSE(f->validation_source.empty()) << f->id;
  for (const Gpu* g : cat().all<Gpu>()) {
    const GpuFamily* f = cat().find<GpuFamily>(g->family);
    ASSERT_NE(f, nullptr) << g->id;
    EXPECT_TRUE(g->family_data == *f) << g->id;
  }
  const GpuFamily& a = cat().find_gpu("a100-sxm-80g")->family_data;
  EXPECT_DOUBLE_EQ(a.gemm_share, 271.2 / 312.0);
  EXPECT_DOUBLE_EQ(a.step_time_band, 0.15);
  EXPECT_DOUBLE_EQ(a.validation_nic_gbit_s, 200);
  EXPECT_FALSE(cat().find<GpuFamily>("ada")->validation_nvswitch);
  EXPECT_TRUE(cat().find<GpuFamily>("hopper")->megatron_fused_attention);
}

TEST(Families, ANewFamilyIsADataChange) {
  Catalog c = cat();
  io::read_catalog(R"(
families:
  - id: nextgen
    gemm: {mamf_tflops: 1500, peak_tflops: 2000, source: a benchmark}
    fp8_gemm: {share: 0.7, source: chosen}
    attention: {share: 0.4, source: chosen}
    sustained_factor: {value: 0.95, fitted_on: my runs}
    eager_efficiency: {value: 0.7, source: chosen}
    step_time_band: {value: 0.25, source: chosen}
    validation: {nic_gbit_s: 800, nvswitch: true, megatron_fused_attention: true, source: chosen}
gpus:
  - {id: ng1, family: nextgen, hbm_gib: 192, hbm_bw_gbyte_s: 8000, tflops: {bf16: 2000}, tdp_w: 1000, source: mine}
)",
                   "user.yaml", c);
  const Gpu& g = *c.find_gpu("ng1");
  EXPECT_DOUBLE_EQ(g.family_data.gemm_share, 0.75);
  EXPECT_DOUBLE_EQ(g.family_data.sustained_factor, 0.95);
  EXPECT_DOUBLE_EQ(g.family_data.validation_nic_gbit_s, 800);
  // A later file that redefines a family updates the GPUs already read.
  io::read_catalog(R"(
families:
  - id: nextgen
    gemm: {share: 0.5, source: s}
    fp8_gemm: {share: 0.7, source: s}
    attention: {share: 0.4, source: s}
    sustained_factor: {value: 1, source: s}
    eager_efficiency: {value: 0.7, source: s}
    step_time_band: {value: 0.25, source: s}
    validation: {nic_gbit_s: 800, nvswitch: true, megatron_fused_attention: true, source: s}
)",
                   "user2.yaml", c);
  EXPECT_DOUBLE_EQ(c.find_gpu("ng1")->family_data.gemm_share, 0.5);
}

TEST(Catalog, MeasuredMatmulRatePerGpu) {
  // torch.mm BF16 (zzc0721/torch-performance-test-data): GeForce above its
  // rated-clock peak, the 300 W RTX A6000 below; cards without one use the family.
  EXPECT_DOUBLE_EQ(cat().find_gpu("rtx-4090")->mamf_bf16_flops, 167.2e12);
  EXPECT_DOUBLE_EQ(cat().find_gpu("rtx-3090")->mamf_bf16_flops, 76.5e12);
  EXPECT_DOUBLE_EQ(cat().find_gpu("rtx-a6000")->mamf_bf16_flops, 123.3e12);
  EXPECT_DOUBLE_EQ(cat().find_gpu("rtx-6000-ada")->mamf_bf16_flops, 0);
  EXPECT_DOUBLE_EQ(cat().find_gpu("h100-sxm")->mamf_bf16_flops, 0);
  auto error = [](const std::string& gpu) -> std::string {
    Catalog c = cat();
    try {
      io::read_catalog("gpus:\n  - {id: x, family: ada, hbm_gib: 24, hbm_bw_gbyte_s: 1000, " + gpu +
                           ", tdp_w: 450, source: s}\n",
                       "user.yaml", c);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error("tflops: {bf16: 100}, mamf_bf16_tflops: 125"), "");
  EXPECT_NE(error("tflops: {bf16: 100}, mamf_bf16_tflops: 126")
                .find("mamf_bf16_tflops: more than 1.25 times the tflops.bf16 peak"),
            std::string::npos);
  EXPECT_NE(error("tflops: {fp32: 10}, mamf_bf16_tflops: 50")
                .find("mamf_bf16_tflops: needs a tflops.bf16 (or fp16) peak"),
            std::string::npos);
  EXPECT_NE(error("tflops: {bf16: 100}, mamf_bf16_tflops: 0").find("mamf_bf16_tflops"),
            std::string::npos);
}

TEST(Families, ReaderIsStrict) {
  auto error = [](const std::string& text) -> std::string {
    Catalog c = cat();
    try {
      io::read_catalog(text, "user.yaml", c);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error("gpus:\n  - {id: x, family: hoper, hbm_gib: 80, hbm_bw_gbyte_s: 1, "
                  "tflops: {bf16: 1}, tdp_w: 5, source: s}\n"),
            "user.yaml:2: gpus[0].family: unknown value 'hoper' (did you mean 'hopper'?)");
  const std::string base =
      "families:\n  - id: f\n    gemm: {share: 0.5, source: s}\n"
      "    fp8_gemm: {share: 0.7, source: s}\n    attention: {share: 0.4, source: s}\n"
      "    sustained_factor: {value: 1, source: s}\n    eager_efficiency: {value: 0.7, source: s}\n"
      "    validation: {nic_gbit_s: 800, nvswitch: true, megatron_fused_attention: true, source: "
      "s}\n";
  EXPECT_NE(error(base).find("step_time_band: missing required key"), std::string::npos)
      << error(base);
  EXPECT_NE(error(base + "    step_time_band: {value: 0.2}\n").find("source: missing required key"),
            std::string::npos);
  EXPECT_NE(error(base + "    step_time_band: {value: 0.2, source: s, bogus: 1}\n")
                .find("bogus: unknown key"),
            std::string::npos);
  EXPECT_EQ(error(base + "    step_time_band: {value: 0.2, source: s}\n"), "");
  // The optional FLOPs-per-byte anchor of the eager efficiency.
  const std::string banded = base + "    step_time_band: {value: 0.2, source: s}\n";
  EXPECT_EQ(error(banded + "    eager_flops_per_byte: {value: 300, source: s}\n"), "");
  EXPECT_NE(error(banded + "    eager_flops_per_byte: {value: 0, source: s}\n")
                .find("eager_flops_per_byte"),
            std::string::npos)
      << error(banded + "    eager_flops_per_byte: {value: 0, source: s}\n");
  EXPECT_NE(error(banded + "    eager_flops_per_byte: {value: 300}\n")
                .find("source: missing required key"),
            std::string::npos);
}

}  // namespace
}  // namespace scaleout
