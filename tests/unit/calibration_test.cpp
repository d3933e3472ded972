// scaleout calibrate: the fits (src/calibration), the readers of its inputs
// (src/io/nccl_tests.cpp, gemm_log.cpp, step_log.cpp) and the command end to
// end, with the done-when test of issue 24: a degraded two-node nccl-tests
// log slows the data-parallel traffic `estimate` predicts, only with the overlay.
#include "calibration/calibration.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli.hpp"
#include "core/error.hpp"
#include "io/calibration_inputs.hpp"
#include "io/catalog_reader.hpp"
#include "io/files.hpp"
#include "report/calibration_report.hpp"
#include "run_cli.hpp"

namespace scaleout {
namespace {

std::string data(const std::string& name) {
  return std::string(SCALEOUT_TEST_DATA_DIR) + "/calibration/" + name;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

using testing_cli::Result;
using testing_cli::run;

std::string temp(const std::string& name) {
  const auto dir = std::filesystem::path(testing::TempDir()) / "scaleout_calibration_test";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string p = temp(name);
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

const Catalog& catalog() { return io::builtin_catalog(); }

// The error text reading `text` as nccl-tests output gives.
std::string nccl_error(const std::string& text) {
  try {
    io::read_nccl_tests(text, "x_all_reduce.log");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// --- fits ----------------------------------------------------------------------------------------

TEST(CalibrationFit, RecoversTheLinksTheTimesWereMadeWith) {
  const Server& s = *catalog().find_server("dgx-h100");
  const Gpu& g = *catalog().find_gpu(s.gpu_id);
  const ClusterLinks links = resolve_links(s, g, nullptr, 2);
  // 16 ranks, 8 per host: times from the model with the inter level at 20 GB/s, 12 us per hop.
  NcclRun run;
  run.collective = Collective::all_reduce;
  run.ranks = 16;
  run.ranks_per_node = 8;
  run.nodes = 2;
  ClusterLinks slow = links;
  slow.inter = {20e9, 12e-6};
  const GroupSpan span{16, 8, 2};
  for (double bytes = 1 << 10; bytes <= 1e10; bytes *= 4) {
    const double t = collective_time_s(Collective::all_reduce, bytes, span, slow);
    run.samples.push_back({0, bytes, t, 0});
  }
  const LinkFit f = fit_link(run, links);
  EXPECT_TRUE(f.inter);
  EXPECT_NEAR(f.fitted.bus_bw_Bps, 20e9, 1e6);
  EXPECT_NEAR(f.fitted.hop_latency_s, 12e-6, 1e-9);
  EXPECT_NEAR(f.rms_error_after, 0, 1e-9);
  EXPECT_GT(f.rms_error_before, 0.1);
  // The catalog's inter level: 8 x 400 Gb/s / 8 GPUs x 0.92 = 46 GB/s.
  EXPECT_NEAR(f.catalog.bus_bw_Bps, 46e9, 1e6);
}

TEST(CalibrationFit, CatalogFiguresInvertResolveLinks) {
  const Server& s = *catalog().find_server("dgx-h100");
  const Fabric& roce = *catalog().find_fabric("roce-400");
  // bus 23 GB/s per GPU through RoCE's 0.85: nic = 23 / 0.85 * 8 / 8 GB/s = 216.5 Gb/s.
  const double nic = nic_bw_for(23e9, s, &roce);
  Server t = s;
  t.nic_bw_Bps = nic;
  const ClusterLinks l = resolve_links(t, *catalog().find_gpu(s.gpu_id), &roce, 2);
  EXPECT_NEAR(l.inter.bus_bw_Bps, 23e9, 1);
  EXPECT_NEAR(intra_node_bw_for(360e9, s, *catalog().find_gpu(s.gpu_id)), 450e9,
              1);  // 360 / 0.80
  // Without peer-to-peer (GeForce on PCIe) the measured bus bandwidth is the
  // host-staged share of the link: 6.4 / 0.20 = 32 GB/s.
  const Server& ws = *catalog().find_server("workstation-4x-rtx-4090");
  const Gpu& rtx = *catalog().find_gpu(ws.gpu_id);
  EXPECT_NEAR(intra_node_bw_for(6.4e9, ws, rtx), 32e9, 1);
  Server w2 = ws;
  w2.intra_node_bw_Bps = intra_node_bw_for(6.4e9, ws, rtx);
  EXPECT_NEAR(resolve_links(w2, rtx, nullptr, 1).intra.bus_bw_Bps, 6.4e9, 1);
  EXPECT_NEAR(fabric_latency_for(12e-6), 2.4e-6, 1e-12);
  EXPECT_EQ(fabric_latency_for(5e-6), 0);
}

TEST(CalibrationFit, ScaleOfAPowerLaw) {
  // predict(s) = 2 / s against measured 4: s = 0.5.
  const double s = fit_scale({4.0, 4.0}, [](double x) {
    return std::vector<double>{2 / x, 2 / x};
  });
  EXPECT_NEAR(s, 0.5, 1e-5);
}

TEST(CalibrationFit, GemmShare) {
  const Gpu& h100 = *catalog().find_gpu("h100-sxm");
  const auto samples = io::read_gemm_log(slurp(data("gemm-h100.csv")), "gemm-h100.csv");
  ASSERT_EQ(samples.size(), 8u);
  const ShareFit f = fit_gemm_share(samples, h100, false);
  EXPECT_EQ(f.samples, 8);
  EXPECT_NEAR(f.share, 0.70, 0.01);                 // the share the file was made with
  EXPECT_NEAR(f.catalog_share, 794.5 / 989, 1e-6);  // families.json hopper
  EXPECT_LT(f.error_after, 0.03);
  EXPECT_GT(f.error_before, 0.1);
  EXPECT_EQ(fit_gemm_share(samples, h100, true).samples, 0);
}

// --- nccl-tests ---------------------------------------------------------------------------------

TEST(NcclTests, ReadsHeaderAndTable) {
  const std::string path = data("all_reduce_2node_degraded.log");
  const NcclRun r = io::read_nccl_tests(slurp(path), path);
  EXPECT_EQ(r.collective, Collective::all_reduce);
  EXPECT_EQ(r.ranks, 16);
  EXPECT_EQ(r.ranks_per_node, 8);
  EXPECT_EQ(r.nodes, 2);
  EXPECT_EQ(r.gpu_name, "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(r.samples.size(), 16u);  // 8 B to 8 GiB, step 4
  EXPECT_EQ(r.samples.front().bytes, 8);
  EXPECT_NEAR(r.samples.front().time_s, 92.82e-6, 1e-12);
  const NcclRun g = io::read_nccl_tests(slurp(data("all_gather_1node.log")), "x.log");
  EXPECT_EQ(g.collective, Collective::all_gather);  // from the command line in the file
  EXPECT_EQ(g.nodes, 1);
}

TEST(NcclTests, RefusesWhatItCannotTrust) {
  const std::string good = slurp(data("all_reduce_1node.log"));
  // #wrong non-zero on a row (line 22: the 3rd row).
  std::string wrong = good;
  const auto row = wrong.find("\n         128");
  const auto end = wrong.find('\n', row + 1);
  wrong.replace(end - 1, 1, "3");
  EXPECT_EQ(nccl_error(wrong),
            "x_all_reduce.log:19: #wrong: nccl-tests counted 3 wrong values "
            "(the run's results are wrong; fix the cluster and rerun)");
  // Out-of-bounds values.
  std::string oob = good;
  oob.replace(oob.find(": 0 OK"), 6, ": 2 FAILED");
  EXPECT_NE(nccl_error(oob).find("out-of-bounds values"), std::string::npos);
  // Truncated: the footer is missing.
  const std::string cut = good.substr(0, good.find("# Out of bounds"));
  EXPECT_NE(nccl_error(cut).find("without the '# Out of bounds values'"), std::string::npos);
  // A row cut short.
  std::string shortrow = good.substr(0, good.find("# Out of bounds")) +
                         "  33554432  8388608  float\n" + good.substr(good.find("# Out of bounds"));
  EXPECT_NE(nccl_error(shortrow).find("has 3 columns, the header 13"), std::string::npos);
  // Units it does not know.
  std::string ms = good;
  ms.replace(ms.find("(us)"), 4, "(ms)");
  EXPECT_NE(nccl_error(ms).find("unknown unit (ms)"), std::string::npos);
  // No rank lines.
  std::string bare;
  std::istringstream in(good);
  for (std::string l; std::getline(in, l);) {
    if (l.find("Rank") == std::string::npos) bare += l + "\n";
  }
  EXPECT_NE(nccl_error(bare).find("no '#  Rank"), std::string::npos);
  // A collective it cannot tell: no command line, no name.
  std::string anon = good.substr(good.find('\n') + 1);
  try {
    io::read_nccl_tests(anon, "run1.log");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("which collective"), std::string::npos);
  }
}

// --- GEMM and step logs --------------------------------------------------------------------------

TEST(GemmLog, RateColumnAndErrors) {
  const auto s = io::read_gemm_log("m,n,k,dtype,tflops\n4096,4096,4096,fp8,1000\n", "g.csv");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].precision, Precision::fp8);
  EXPECT_NEAR(s[0].time_s, 2.0 * 4096.0 * 4096 * 4096 / 1e15, 1e-12);  // 137.4 us
  auto error = [](const std::string& text) {
    try {
      io::read_gemm_log(text, "g.csv");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error("m,n,k,dtype,time_s\n1,2,3,int4,1\n"),
            "g.csv:2: dtype: unknown dtype 'int4' (bf16, fp16 or fp8)");
  EXPECT_EQ(error("m,n,k,dtype,time_ms\n"),
            "g.csv:1: time_ms: unknown column (did you mean 'time_s'?)");
  EXPECT_EQ(error("m,n,k,dtype,time_s,tflops\n"),
            "g.csv:1: time_s: give one of time_s and tflops (seconds per GEMM, or TFLOP/s (2 m n k "
            "/ time))");
  EXPECT_NE(error("m,n,k,dtype,time_s\n1,2,3,bf16\n").find("g.csv:2"), std::string::npos);
}

TEST(StepLog, Formats) {
  const std::string megatron =
      " [2026-01-01 10:00:00] iteration       10/    1000 | consumed samples: 640 | elapsed "
      "time per iteration (ms): 2500.0 | learning rate: 1.0E-04 |\n"
      " iteration       20/    1000 | elapsed time per iteration (ms): 2000.0 |\n"
      " iteration       30/    1000 | elapsed time per iteration (ms): 2100.0 |\n"
      " iteration       40/    1000 | elapsed time per iteration (ms): 2050.0 |\n";
  const io::StepLog m = io::read_step_log(megatron, "m.log", 0, 0);
  EXPECT_EQ(m.format, "megatron");
  EXPECT_EQ(m.step_s.size(), 4u);
  EXPECT_NEAR(m.median_s, 2.05, 1e-12);  // 2.0, 2.05, 2.1 after the first
  const io::StepLog n = io::read_step_log(
      "Epoch 0: 10/100 [..., train_step_timing in s=1.5]\ntrain_step_timing in s: 1.5\n", "n.log",
      0, 0);
  EXPECT_EQ(n.format, "nemo");
  EXPECT_NEAR(n.median_s, 1.5, 1e-12);
  // torchtitan: tokens/s per GPU; 64 x 4096 tokens on 16 GPUs at 4,096 tps = 4 s.
  const io::StepLog t = io::read_step_log(
      "[rank0]:2026 - root - INFO - step:  1  loss: 10.9  memory: 30.1GiB(37.9%)  tps: 1,000  "
      "tflops: 40.0  mfu: 4.0%\n"
      "[rank0]:2026 - root - INFO - step: 10  loss:  7.9  memory: 30.1GiB(37.9%)  tps: 4,096  "
      "tflops: 180.0  mfu: 18.2%\n",
      "t.log", 64.0 * 4096, 16);
  EXPECT_EQ(t.format, "torchtitan");
  EXPECT_NEAR(t.median_s, (16.384 + 4.0) / 2, 1e-9);  // 262144 / (1000 x 16), / (4096 x 16)
  const io::StepLog h = io::read_step_log(
      "{'train_runtime': 400.0, 'train_samples_per_second': 12.8, 'train_steps_per_second': 0.25, "
      "'train_loss': 1.2, 'epoch': 1.0}\n",
      "h.log", 0, 0);
  EXPECT_EQ(h.format, "hf-trainer");
  EXPECT_NEAR(h.median_s, 4.0, 1e-12);
  try {
    io::read_step_log("x\n iteration 1 | elapsed time per iteration (min): 2 |\n", "u.log", 0, 0);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "u.log:2: unknown time unit 'min' (ms or s)");
  }
  EXPECT_THROW(io::read_step_log("nothing here\n", "e.log", 0, 0), InputError);
}

// --- the overlay ---------------------------------------------------------------------------------

// Every server, fabric and family of the catalog, written as an overlay and
// read back, comes back with the same figures (the overlay changes nothing it
// did not fit).
TEST(CalibrationOverlay, RoundTripsEveryEntry) {
  const Catalog& c = catalog();
  for (const Server* s : c.all<Server>()) {
    const Gpu& gpu = *c.find_gpu(s->gpu_id);
    report::CalibrationResult r;
    r.server = *s;
    r.gpu = gpu;
    r.new_server = *s;
    r.server_source = "x";
    if (!gpu.family.empty()) r.new_family = gpu.family_data;
    Catalog back = c;
    const std::string text = report::calibration_overlay_yaml(r);
    io::read_catalog(text, "overlay.yaml", back);
    const Server& t = *back.find_server(s->id);
    EXPECT_EQ(t.gpus_per_node, s->gpus_per_node) << s->id;
    EXPECT_DOUBLE_EQ(t.intra_node_bw_Bps, s->intra_node_bw_Bps) << s->id;
    EXPECT_DOUBLE_EQ(t.nic_bw_Bps, s->nic_bw_Bps) << s->id;
    EXPECT_DOUBLE_EQ(t.host_mem_bytes, s->host_mem_bytes) << s->id;
    EXPECT_DOUBLE_EQ(t.local_nvme_bytes, s->local_nvme_bytes) << s->id;
    EXPECT_EQ(t.intra_node, s->intra_node) << s->id;
    EXPECT_EQ(t.scaleup_domain_gpus, s->scaleup_domain_gpus) << s->id;
    EXPECT_EQ(t.nics_per_node, s->nics_per_node) << s->id;
    EXPECT_EQ(t.power_W, s->power_W) << s->id;
    EXPECT_EQ(t.kind, s->kind) << s->id;
    if (!gpu.family.empty()) {
      GpuFamily f = back.find_gpu(gpu.id)->family_data;
      EXPECT_EQ(f, gpu.family_data) << gpu.family;
    }
  }
  for (const Fabric* f : c.all<Fabric>()) {
    report::CalibrationResult r;
    r.server = *c.all<Server>().front();
    r.fabric = *f;
    r.new_fabric = *f;
    Catalog back = c;
    io::read_catalog(report::calibration_overlay_yaml(r), "overlay.yaml", back);
    Fabric t = *back.find_fabric(f->id);
    t.source = f->source;
    EXPECT_EQ(t.kind, f->kind) << f->id;
    EXPECT_DOUBLE_EQ(t.port_bw_Bps, f->port_bw_Bps) << f->id;
    EXPECT_DOUBLE_EQ(t.latency_s, f->latency_s) << f->id;
    t.port_bw_Bps = f->port_bw_Bps;
    t.latency_s = f->latency_s;
    EXPECT_EQ(t, *f) << f->id;
  }
}

// --- the command ---------------------------------------------------------------------------------

// The data-parallel part of `estimate`'s step (JSON), with the given extra arguments.
double dp_comm_s(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"estimate", data("llama3-8b-2node.yaml"), "--format", "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const Result r = run(args);
  EXPECT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  return j.at("time").at("breakdown_s").at("dp_comm").get<double>();
}

TEST(CalibrateCommand, DegradedTwoNodePairSlowsDataParallelTraffic) {
  const std::string overlay = temp("degraded.yaml");
  const Result c = run({"calibrate", "--server", "dgx-h100", "--fabric", "ib-ndr", "--nccl-tests",
                        data("all_reduce_2node_degraded.log"), "-o", overlay});
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_NE(c.out.find("inter-node"), std::string::npos);
  // The overlay reads back: dgx-h100's NICs at half their rate, 46 -> 23 GB/s bus bandwidth.
  Catalog cat = io::builtin_catalog();
  io::read_catalog(slurp(overlay), overlay, cat);
  const Server& s = *cat.find_server("dgx-h100");
  EXPECT_NEAR(s.nic_bw_Bps / 50e9, 0.5, 0.03);  // 400 Gb/s = 50 GB/s per NIC before
  EXPECT_EQ(s.intra_node_bw_Bps, 450e9);        // not measured: unchanged
  EXPECT_EQ(s.host_mem_bytes, catalog().find_server("dgx-h100")->host_mem_bytes);
  EXPECT_NE(s.source.find("all_reduce_2node_degraded.log"), std::string::npos);

  const double before = dp_comm_s({});
  const double with = dp_comm_s({"--catalog", overlay});
  const double again = dp_comm_s({});
  EXPECT_GT(with, before * 1.3);  // the gradient all-reduce's inter-node half at half the rate
  EXPECT_EQ(again, before);       // without the overlay nothing changes
}

TEST(CalibrateCommand, GemmAndStepsWriteTheFamily) {
  // Step logs made 1.25x the catalog's prediction for the workload.
  const Result e = run({"estimate", data("llama3-8b-2node.yaml"), "--format", "json"});
  ASSERT_EQ(e.code, 0) << e.err;
  const double predicted = nlohmann::json::parse(e.out).at("time").at("step_s").get<double>();
  std::string log;
  for (int i = 1; i <= 5; ++i) {
    log += " iteration " + std::to_string(i * 10) +
           "/ 100 | elapsed time per iteration (ms): " + std::to_string(1250.0 * predicted) +
           " |\n";
  }
  const std::string steps = write_temp("megatron.log", log);
  const std::string overlay = temp("family.yaml");
  const Result c = run({"calibrate", "--server", "dgx-h100", "--steps", steps, "--workload",
                        data("llama3-8b-2node.yaml"), "--steps", steps, "--workload",
                        data("llama3-8b-2node.yaml"), "--format", "json", "-o", overlay});
  ASSERT_EQ(c.code, 0) << c.err;
  const auto j = nlohmann::json::parse(c.out);
  EXPECT_EQ(j.at("schema_version"), 1);
  EXPECT_LT(j.at("steps").at("scale").get<double>(), 0.85);
  EXPECT_LT(j.at("steps").at("error_after").get<double>(), 0.005);
  EXPECT_NEAR(j.at("steps").at("error_before").get<double>(), 0.2, 0.005);  // 1 - 1/1.25
  EXPECT_EQ(j.at("steps").at("heldout").at("count"), 1);
  Catalog cat = io::builtin_catalog();
  io::read_catalog(slurp(overlay), overlay, cat);
  const Gpu& h100 = *cat.find_gpu("h100-sxm");
  EXPECT_LT(h100.family_data.sustained_factor,
            catalog().find_gpu("h100-sxm")->family_data.sustained_factor);
  EXPECT_EQ(h100.family_data.gemm_share, catalog().find_gpu("h100-sxm")->family_data.gemm_share);
  // With the overlay, estimate predicts the logged step.
  const Result after =
      run({"estimate", data("llama3-8b-2node.yaml"), "--format", "json", "--catalog", overlay});
  const double now = nlohmann::json::parse(after.out).at("time").at("step_s").get<double>();
  EXPECT_NEAR(now / (1.25 * predicted), 1.0, 0.005);
}

TEST(CalibrateCommand, Errors) {
  const std::string o = temp("x.yaml");
  Result r = run({"calibrate", "--server", "dgx-h10", "--gemm", data("gemm-h100.csv"), "-o", o});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "scaleout: --server: unknown server 'dgx-h10' (did you mean 'dgx-h100'?)\n");
  r = run({"calibrate", "--server", "dgx-h100", "-o", o});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("nothing to calibrate"), std::string::npos);
  r = run({"calibrate", "--server", "dgx-h100", "--steps", data("gemm-h100.csv"), "-o", o});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--workload"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(o));
}

}  // namespace
}  // namespace scaleout
