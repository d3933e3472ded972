// run_cli end to end, in process: bad input exits 2 with nothing on standard
// output and one exact message on standard error; good input exits 0.
#include "cli/cli.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace scaleout {
namespace {

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

Result run(std::vector<std::string> args) {
  args.insert(args.begin(), "scaleout");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::ostringstream out, err;
  Result r;
  r.code = run_cli(static_cast<int>(args.size()), argv.data(), out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

std::string example(const std::string& name) {
  return std::string(SCALEOUT_SOURCE_DIR) + "/examples/" + name;
}

// Writes `text` to a fresh file under the test temporary folder; returns its path.
std::string write_temp(const std::string& name, const std::string& text) {
  const std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "scaleout_cli_test";
  std::filesystem::create_directories(dir);
  const std::filesystem::path p = dir / name;
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

const std::string kUsageLine = "Run 'scaleout --help' for the commands and options.\n";

// Exit 2, no standard output, and exactly `err` on standard error.
void expect_bad_input(const std::vector<std::string>& args, const std::string& err) {
  const Result r = run(args);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, err);
}

// --- bad command lines -------------------------------------------------------------------------

TEST(Cli, UnknownSubcommand) {
  expect_bad_input({"frobnicate"},
                   "scaleout: unknown command 'frobnicate' (expected one of: plan, estimate, "
                   "simulate, validate, catalog)\n" +
                       kUsageLine);
}

TEST(Cli, MisspeltSubcommand) {
  expect_bad_input({"estimte", example("llama3-8b-lora.yaml")},
                   "scaleout: unknown command 'estimte' (did you mean 'estimate'?)\n" + kUsageLine);
}

TEST(Cli, NoSubcommand) {
  expect_bad_input({}, "scaleout: A subcommand is required\n" + kUsageLine);
}

TEST(Cli, UnknownFlag) {
  expect_bad_input({"estimate", "--bogus", example("llama3-8b-lora.yaml")},
                   "scaleout: The following argument was not expected: --bogus\n" + kUsageLine);
}

TEST(Cli, MissingWorkloadFile) {
  const std::string path = example("no-such-workload.yaml");
  expect_bad_input({"estimate", path},
                   "scaleout: workload: File does not exist: " + path + "\n" + kUsageLine);
}

TEST(Cli, MissingCatalogFile) {
  const std::string path = example("no-such-catalog.yaml");
  expect_bad_input({"--catalog", path, "catalog", "gpus"},
                   "scaleout: --catalog: File does not exist: " + path + "\n" + kUsageLine);
}

TEST(Cli, BadFormat) {
  expect_bad_input({"estimate", example("llama3-8b-lora.yaml"), "--format", "xml"},
                   "scaleout: --format: xml not in {text,json}\n" + kUsageLine);
}

TEST(Cli, BadFormatPerCommand) {
  // plan takes csv and html, validate csv, estimate and catalog neither.
  expect_bad_input({"plan", example("plan-llama3-8b-lora.yaml"), "--format", "pdf"},
                   "scaleout: --format: pdf not in {text,json,csv,html}\n" + kUsageLine);
  expect_bad_input({"estimate", example("llama3-8b-lora.yaml"), "--format", "csv"},
                   "scaleout: --format: csv not in {text,json}\n" + kUsageLine);
  expect_bad_input({"validate", example("llama3-8b-lora.yaml"), "--format", "html"},
                   "scaleout: --format: html not in {text,json,csv}\n" + kUsageLine);
  expect_bad_input({"catalog", "gpus", "--format", "html"},
                   "scaleout: --format: html not in {text,json}\n" + kUsageLine);
}

TEST(Cli, OutputIntoAMissingFolder) {
  const std::string path = std::string(SCALEOUT_SOURCE_DIR) + "/no-such-folder/report.html";
  expect_bad_input({"plan", example("plan-llama3-8b-lora.yaml"), "--format", "html", "-o", path},
                   "scaleout: " + path + ": -o: cannot write the report: the folder " +
                       SCALEOUT_SOURCE_DIR +
                       "/no-such-folder does not exist (give a file path "
                       "in a writable folder)\n");
}

TEST(Cli, OutputOntoAFolder) {
  const std::string dir =
      std::filesystem::path(write_temp("marker.txt", "")).parent_path().string();
  expect_bad_input({"catalog", "gpus", "-o", dir},
                   "scaleout: " + dir +
                       ": -o: cannot write the report: this is a folder (give a file path in a "
                       "writable folder)\n");
}

TEST(Cli, OutputGoesToTheFileAndNothingToStandardOutput) {
  const std::string path = write_temp("plan.csv", "old content that must be replaced");
  const Result r = run({"plan", example("plan-llama3-8b-lora.yaml"), "--format", "csv", "--output",
                        path, "--threads", "2"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
  std::ifstream f(path, std::ios::binary);
  std::stringstream text;
  text << f.rdbuf();
  // The file holds exactly what standard output would have held.
  const Result same = run({"plan", example("plan-llama3-8b-lora.yaml"), "--format", "csv"});
  EXPECT_EQ(text.str(), same.out);
  EXPECT_EQ(text.str().rfind("server,gpu,fabric,nodes,gpus,", 0), 0u);
}

TEST(Cli, NoProgressBarWhenStandardErrorIsNotATerminal) {
  // run() passes string streams: the bar must never be drawn into them.
  const Result r = run({"plan", example("plan-llama3-70b-pretrain.yaml"), "--threads", "1"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.err, "");
}

TEST(Cli, ProgressLine) {
  // 30-character bar: 45 of 90 cells fills 15.
  EXPECT_EQ(progress_line(45, 90, 2.4),
            "searching [###############...............]  50 % 45/90 cells, 2 s");
  EXPECT_EQ(progress_line(0, 0, 0),
            "searching [..............................]   0 % 0/0 cells, 0 s");
  EXPECT_EQ(progress_line(7, 7, 12.6),
            "searching [##############################] 100 % 7/7 cells, 13 s");
  EXPECT_LE(progress_line(123456789012LL, 123456789012LL, 1e9).size(), 79u);
}

TEST(Cli, ProgressBarDrawsAfterItsDelayAndErasesItself) {
  std::ostringstream err;
  {
    ProgressBar bar(err, std::chrono::milliseconds(0));
    bar.update(3, 10);  // drawn: no delay, first draw
    bar.update(4, 10);  // skipped: within 100 ms of the last draw
    const std::string line = "\rsearching [#########.....................]  30 % 3/10 cells, 0 s";
    EXPECT_EQ(err.str(), line);
    bar.finish();
    EXPECT_EQ(err.str().size(), line.size() + 81);
    EXPECT_EQ(err.str().substr(err.str().size() - 81), "\r" + std::string(79, ' ') + "\r");
  }
  EXPECT_EQ(err.str().size(), 65u + 81u);  // the destructor draws nothing more
  std::ostringstream quiet;
  {
    ProgressBar bar(quiet);  // one second's delay: a quick search draws nothing
    bar.update(1, 2);
    bar.update(2, 2);
  }
  EXPECT_EQ(quiet.str(), "");
}

TEST(Cli, CatalogUnknownKind) {
  expect_bad_input(
      {"catalog", "widgets"},
      "scaleout: kind: widgets not in {gpus,servers,fabrics,models,prices,economics}\n" +
          kUsageLine);
}

TEST(Cli, CatalogWithoutKind) {
  expect_bad_input({"catalog"}, "scaleout: kind is required\n" + kUsageLine);
}

// --- bad files ---------------------------------------------------------------------------------

TEST(Cli, BadWorkloadFile) {
  const std::string path = write_temp("bad-workload.yaml",
                                      "model: llama3-8b\n"
                                      "seq_lenght: 4096\n"
                                      "cluster: {server: dgx-h100, nodes: 1}\n");
  expect_bad_input({"estimate", path},
                   "scaleout: " + path + ":2: seq_lenght: unknown key (did you mean 'seq_len'?)\n");
}

TEST(Cli, WorkloadWithoutCluster) {
  const std::string path = write_temp("no-cluster.yaml", "model: llama3-8b\n");
  expect_bad_input({"estimate", path}, "scaleout: " + path +
                                           ": cluster: estimate needs a cluster (add cluster: "
                                           "{server: dgx-h100, nodes: 1})\n");
}

TEST(Cli, WorkloadIsADirectory) {
  const std::string path = std::string(SCALEOUT_SOURCE_DIR) + "/examples";
  const Result r = run({"estimate", path});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "scaleout: workload: File is actually a directory: " + path + "\n" + kUsageLine);
}

TEST(Cli, UserCatalogUnknownKey) {
  const std::string path = write_temp("catalog-unknown-key.yaml",
                                      "gpus:\n"
                                      "  - id: test-gpu\n"
                                      "    hbm_gib: 80\n"
                                      "    hbm_bw_gbyte_s: 3000\n"
                                      "    tflops: {bf16: 900}\n"
                                      "    source: unit test\n"
                                      "    notes: misspelt\n");
  expect_bad_input({"--catalog", path, "catalog", "gpus"},
                   "scaleout: " + path + ":7: gpus[0].notes: unknown key (did you mean 'note'?)\n");
}

TEST(Cli, UserCatalogServerWithUnknownGpu) {
  const std::string path = write_temp("catalog-unknown-gpu.yaml",
                                      "servers:\n"
                                      "  - id: test-box\n"
                                      "    gpu: h100-sx\n"
                                      "    gpus_per_node: 8\n"
                                      "    source: unit test\n");
  expect_bad_input({"--catalog", path, "catalog", "servers"},
                   "scaleout: " + path +
                       ":3: servers[0].gpu: unknown GPU 'h100-sx' (did you mean 'h100-sxm'? or add "
                       "it under gpus)\n");
}

TEST(Cli, UserCatalogServerWithFarOffGpu) {
  const std::string path = write_temp("catalog-far-gpu.yaml",
                                      "servers:\n"
                                      "  - id: test-box\n"
                                      "    gpu: zz-no-such-accelerator\n"
                                      "    gpus_per_node: 8\n"
                                      "    source: unit test\n");
  expect_bad_input({"--catalog", path, "catalog", "servers"},
                   "scaleout: " + path +
                       ":3: servers[0].gpu: unknown GPU 'zz-no-such-accelerator' (add it under "
                       "gpus)\n");
}

std::string validation_header() {
  std::ifstream in(std::string(SCALEOUT_SOURCE_DIR) + "/data/validation/training.csv");
  std::string header;
  std::getline(in, header);
  return header;
}

TEST(Cli, ValidationCsvWrongHeader) {
  std::string header = validation_header();
  ASSERT_EQ(header.rfind("id,group,", 0), 0u);
  header.replace(3, 5, "grup");
  const std::string path = write_temp("bad-header.csv", header + "\n");
  expect_bad_input({"validate", path},
                   "scaleout: " + path +
                       ":1: grup: column 2 must be 'group' (the canonical schema is in "
                       "data/validation/README.md)\n");
}

TEST(Cli, ValidationCsvNonNumericCell) {
  const std::string row =
      "r1,g,Tiny,twenty,1024,16,16,4096,32000,gelu,,,2048,8,1,1,1,8,1,1,n,1,none,0,full,,bf16,"
      "h100-sxm,8,8,8,400,ib,megatron,peak_mem_gib,10,measured,test";
  const std::string path = write_temp("bad-cell.csv", validation_header() + "\n" + row + "\n");
  expect_bad_input(
      {"validate", path},
      "scaleout: " + path + ":2: layers: expected a non-negative whole number, got 'twenty'\n");
}

const std::string kServingHeader =
    "id,source,model,server,weights,kv_cache,tp,pp,prompt_tokens,output_tokens,concurrency,"
    "max_batch,metric,measured,reference";

TEST(Cli, ServingCsvUnknownServer) {
  const std::string path =
      write_temp("serving-server.csv", kServingHeader +
                                           "\nr1,s,llama3-8b,dgx-h10,fp8,fp8,1,1,128,128,,256,"
                                           "output_tokens_per_s,1000,ref\n");
  expect_bad_input({"validate", path}, "scaleout: " + path +
                                           ":2: server: unknown server 'dgx-h10' (did you mean "
                                           "'dgx-h100'?)\n");
}

TEST(Cli, ServingCsvBadMetric) {
  const std::string path = write_temp(
      "serving-metric.csv",
      kServingHeader + "\nr1,s,llama3-8b,dgx-h100,fp8,fp8,1,1,128,128,,256,tokens,1000,ref\n");
  expect_bad_input({"validate", path},
                   "scaleout: " + path +
                       ":2: metric: unknown value 'tokens' (one of output_tokens_per_s, ttft_s, "
                       "tpot_s)\n");
}

TEST(Cli, ServingPlanRejectsEmit) {
  expect_bad_input({"plan", example("plan-llama3-70b-inference.yaml"), "--emit", "/tmp/x"},
                   "scaleout: " + example("plan-llama3-70b-inference.yaml") +
                       ": --emit writes training launch files; this is a serving workload "
                       "(task: inference) (run plan without --emit)\n");
}

TEST(Cli, ServingPlanRejectsEnergyObjective) {
  expect_bad_input({"plan", example("plan-llama3-70b-inference.yaml"), "--objective", "energy"},
                   "scaleout: " + example("plan-llama3-70b-inference.yaml") +
                       ": --objective energy ranks training runs; this is a serving workload "
                       "(task: inference) (use --objective cost or time)\n");
}

TEST(Cli, ServingEstimateAndPlanRun) {
  const Result e = run({"estimate", example("llama3-70b-inference.yaml"), "--format", "json"});
  EXPECT_EQ(e.code, 0) << e.err;
  EXPECT_NE(e.out.find("\"kv_bytes_per_token\": 81920.0"), std::string::npos);  // 2x80x4x128x1
  const Result p = run({"plan", example("plan-llama3.1-405b-inference-bf16-h100.yaml")});
  EXPECT_EQ(p.code, 0) << p.err;
  EXPECT_EQ(p.out.find("Verdict: multi-node"), p.out.find('\n') + 1);
}

// --- good input --------------------------------------------------------------------------------

TEST(Cli, CatalogGpus) {
  const Result r = run({"catalog", "gpus"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("h100-sxm"), std::string::npos);
}

TEST(Cli, CatalogModelsJson) {
  const Result r = run({"catalog", "models", "--format", "json"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.err, "");
  ASSERT_FALSE(r.out.empty());
  EXPECT_EQ(r.out.front(), '[');
  EXPECT_NE(r.out.find("\"llama3-8b\""), std::string::npos);
}

TEST(Cli, EstimateExample) {
  const Result r = run({"estimate", example("llama3-8b-lora.yaml")});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("Llama 3 8B"), std::string::npos);
  EXPECT_NE(r.out.find("Fits: yes"), std::string::npos);
}

TEST(Cli, EstimateJson) {
  const Result r = run({"estimate", example("llama3-8b-lora.yaml"), "--format", "json"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.err, "");
  ASSERT_FALSE(r.out.empty());
  EXPECT_EQ(r.out.front(), '{');
}

TEST(Cli, Help) {
  const Result r = run({"--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("estimate"), std::string::npos);
  EXPECT_NE(r.out.find("validate"), std::string::npos);
  EXPECT_NE(r.out.find("catalog"), std::string::npos);
}

TEST(Cli, Version) {
  const Result r = run({"--version"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, "0.1.0\n");
}

// --- user catalog files ------------------------------------------------------------------------

const std::string kTestGpu =
    "gpus:\n"
    "  - id: test-gpu-200g\n"
    "    name: Test GPU 200 GiB\n"
    "    hbm_gib: 200\n"
    "    hbm_bw_gbyte_s: 5000\n"
    "    tflops: {bf16: 1000}\n"
    "    source: unit test\n";

TEST(Cli, UserCatalogAddsAGpu) {
  const std::string cat = write_temp("catalog-new-gpu.yaml", kTestGpu);
  const Result list = run({"--catalog", cat, "catalog", "gpus"});
  EXPECT_EQ(list.code, 0);
  EXPECT_EQ(list.err, "");
  EXPECT_NE(list.out.find("test-gpu-200g"), std::string::npos);

  const std::string wl = write_temp("new-gpu.yaml",
                                    "model: llama3-8b\n"
                                    "seq_len: 4096\n"
                                    "cluster: {server: dgx-h100, gpu: test-gpu-200g}\n");
  const Result est = run({"--catalog", cat, "estimate", wl});
  EXPECT_EQ(est.code, 0) << est.err;
  EXPECT_EQ(est.err, "");
  EXPECT_NE(est.out.find("test-gpu-200g"), std::string::npos) << est.out;
  EXPECT_NE(est.out.find("200.00 GiB"), std::string::npos) << est.out;

  // Without the catalog file the GPU is unknown.
  expect_bad_input({"estimate", wl},
                   "scaleout: " + wl +
                       ":3: cluster.gpu: unknown GPU 'test-gpu-200g' (expected one of: "
                       "a100-pcie-40g, a100-pcie-80g, a100-sxm-40g, a100-sxm-80g, b200, gaudi3, "
                       "gb200, h100-nvl, h100-pcie, h100-sxm, h100-sxm-96g, h200-nvl, ...)\n");
}

TEST(Cli, UserCatalogOverridesAGpu) {
  const Result before = run({"estimate", example("llama3-8b-lora.yaml")});
  ASSERT_EQ(before.code, 0);
  EXPECT_NE(before.out.find("80.00 GiB"), std::string::npos) << before.out;

  const std::string cat = write_temp("catalog-override.yaml",
                                     "gpus:\n"
                                     "  - id: h100-sxm\n"
                                     "    hbm_gib: 16\n"
                                     "    hbm_bw_gbyte_s: 3350\n"
                                     "    tflops: {bf16: 989}\n"
                                     "    source: unit test (shrunk H100)\n");
  const Result after = run({"--catalog", cat, "estimate", example("llama3-8b-lora.yaml")});
  EXPECT_EQ(after.code, 0) << after.err;
  EXPECT_EQ(after.err, "");
  EXPECT_NE(after.out.find("16.00 GiB"), std::string::npos) << after.out;
  EXPECT_EQ(after.out.find("80.00 GiB"), std::string::npos) << after.out;
  EXPECT_NE(after.out.find("Fits: NO"), std::string::npos) << after.out;
}

// --- simulate ----------------------------------------------------------------------------------

TEST(Cli, SimulateMissingJobsFile) {
  expect_bad_input({"simulate", "/nonexistent/jobs.yaml"},
                   "scaleout: jobs: File does not exist: /nonexistent/jobs.yaml\n" + kUsageLine);
}

TEST(Cli, SimulateMisspeltKey) {
  const std::string jobs = write_temp("jobs-misspelt.yaml",
                                      "clusters: [{server: dgx-h100}]\n"
                                      "jobs:\n"
                                      "  - name: a\n"
                                      "    gpus: 1\n"
                                      "    duration_h: 1\n"
                                      "    priorty: 2\n");
  expect_bad_input({"simulate", jobs}, "scaleout: " + jobs +
                                           ":6: jobs[0].priorty: unknown key (did you mean "
                                           "'priority'?)\n");
}

TEST(Cli, SimulateBadPolicy) {
  const std::string jobs = write_temp("jobs-policy.yaml",
                                      "policy: backfil\nclusters: [{server: dgx-h100}]\n"
                                      "jobs: [{name: a, gpus: 1, duration_h: 1}]\n");
  expect_bad_input({"simulate", jobs}, "scaleout: " + jobs +
                                           ":1: policy: unknown value 'backfil' (did you mean "
                                           "'backfill'?)\n");
}

TEST(Cli, SimulateMisspeltCommand) {
  expect_bad_input({"simulat", "x.yaml"},
                   "scaleout: unknown command 'simulat' (did you mean 'simulate'?)\n" + kUsageLine);
}

TEST(Cli, SimulateIsDeterministic) {
  // Same seed: the same output, whatever the thread count of the planner.
  const std::string ex = example("simulate-team.yaml");
  const Result a = run({"simulate", ex, "--format", "json", "--threads", "1"});
  const Result b = run({"simulate", ex, "--format", "json", "--threads", "3"});
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.err, "");
  // Another seed moves the Poisson arrivals.
  std::string text = "seed: 8\n";
  std::ifstream in(ex);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("seed:", 0) != 0) text += line + "\n";
  }
  const std::string other = write_temp("simulate-seed8.yaml", text);
  // The example names its workloads inline, so it reads from any folder.
  const Result c = run({"simulate", other, "--format", "json", "--threads", "1"});
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_NE(a.out, c.out);
}

}  // namespace
}  // namespace scaleout

namespace scaleout {
namespace {

TEST(Cli, ServingPlanRefusesCsvAndHtml) {
  const Result r = run({"plan", example("plan-llama3-70b-inference.yaml"), "--format", "csv"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("--format csv: serving plans are written as text or json only"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace scaleout
