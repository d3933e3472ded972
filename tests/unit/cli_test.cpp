// run_cli end to end, in process: bad input exits 2 with nothing on standard
// output and one exact message on standard error; good input exits 0.
#include "cli/cli.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "io/catalog_reader.hpp"
#include "run_cli.hpp"

namespace scaleout {
namespace {

using testing_cli::Result;
using testing_cli::run;

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
                   "simulate, validate, catalog, calibrate)\n" +
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
                   "scaleout: --format: xml not in {text,json,csv,html}\n" + kUsageLine);
}

TEST(Cli, BadFormatPerCommand) {
  // plan, estimate and simulate take csv and html, validate csv, catalog neither.
  expect_bad_input({"plan", example("plan-llama3-8b-lora.yaml"), "--format", "pdf"},
                   "scaleout: --format: pdf not in {text,json,csv,html}\n" + kUsageLine);
  expect_bad_input({"validate", example("llama3-8b-lora.yaml"), "--format", "html"},
                   "scaleout: --format: html not in {text,json,csv}\n" + kUsageLine);
  expect_bad_input({"catalog", "gpus", "--format", "html"},
                   "scaleout: --format: html not in {text,json}\n" + kUsageLine);
}

TEST(Cli, OutputIntoAMissingFolder) {
  const std::string path = std::string(SCALEOUT_SOURCE_DIR) + "/no-such-folder/report.html";
  expect_bad_input({"plan", example("plan-llama3-8b-lora.yaml"), "--format", "html", "-o", path},
                   "scaleout: " + path + ": cannot write the file: the folder " +
                       SCALEOUT_SOURCE_DIR +
                       "/no-such-folder does not exist (give a file path "
                       "in a writable folder with free space)\n");
}

TEST(Cli, OutputOntoAFolder) {
  const std::string dir =
      std::filesystem::path(write_temp("marker.txt", "")).parent_path().string();
  expect_bad_input({"catalog", "gpus", "-o", dir},
                   "scaleout: " + dir +
                       ": cannot write the file: this is a folder (give a file path in a "
                       "writable folder with free space)\n");
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

TEST(Cli, SimulateProgressLine) {
  // simulate names its own work: 10 of 40 steps fills 30 x 1/4 = 7 (rounded down).
  EXPECT_EQ(progress_line(10, 40, 0.4, "simulating", "steps"),
            "simulating [#######.......................]  25 % 10/40 steps, 0 s");
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
                                      "    tdp_w: 700\n"
                                      "    hbm_bw_gbyte_s: 3000\n"
                                      "    tflops: {bf16: 900}\n"
                                      "    source: unit test\n"
                                      "    notes: misspelt\n");
  expect_bad_input({"--catalog", path, "catalog", "gpus"},
                   "scaleout: " + path + ":8: gpus[0].notes: unknown key (did you mean 'note'?)\n");
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
                   "scaleout: " + path + ":1: grup: unknown column (did you mean 'group'?)\n");
}

TEST(Cli, ValidationCsvNonNumericCell) {
  const std::string row =
      "r1,g,Tiny,twenty,1024,16,16,4096,32000,gelu,,,2048,8,1,1,1,8,1,1,n,1,none,0,full,,bf16,"
      "h100-sxm,8,8,8,400,ib,megatron,peak_mem_gib,10,measured,test,";  // compile empty
  const std::string path = write_temp("bad-cell.csv", validation_header() + "\n" + row + "\n");
  expect_bad_input({"validate", path}, "scaleout: " + path +
                                           ":2: layers: expected a non-negative whole number, got "
                                           "'twenty' (plain decimal digits)\n");
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
  EXPECT_NE(p.out.find("\nVerdict: multi-node\n"), std::string::npos);  // after the request line(s)
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
  EXPECT_EQ(r.out.rfind("{\n  \"schema_version\": 1,\n  \"models\": [", 0), 0u);
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
    "    tdp_w: 700\n"
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
                       "a100-pcie-40g, a100-pcie-80g, a100-sxm-40g, a100-sxm-80g, a10g, b200, "
                       "b300, gaudi3, gb200, gb300, h100-nvl, h100-pcie, ... (" +
                       std::to_string(io::builtin_catalog().ids<Gpu>().size()) + " in all))\n");
}

TEST(Cli, UserCatalogOverridesAGpu) {
  const Result before = run({"estimate", example("llama3-8b-lora.yaml")});
  ASSERT_EQ(before.code, 0);
  EXPECT_NE(before.out.find("80.00 GiB"), std::string::npos) << before.out;

  const std::string cat = write_temp("catalog-override.yaml",
                                     "gpus:\n"
                                     "  - id: h100-sxm\n"
                                     "    hbm_gib: 16\n"
                                     "    tdp_w: 700\n"
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

TEST(Cli, ServingPlanWritesCsvAndHtml) {
  const Result h = run({"plan", example("plan-llama3-70b-inference.yaml"), "--format", "html"});
  ASSERT_EQ(h.code, 0) << h.err;
  EXPECT_EQ(h.out.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* id :
       {"id=\"verdict\"", "id=\"chart-cost\"", "id=\"chart-latency\"", "id=\"bom\""}) {
    EXPECT_NE(h.out.find(id), std::string::npos) << id;
  }
  // CSV: one header and one CRLF record per frontier point, with replica_nodes.
  const Result c = run({"plan", example("plan-llama3-70b-inference.yaml"), "--format", "csv"});
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(c.out.rfind("server,gpu,fabric,nodes,gpus,replicas,replica_nodes,", 0), 0u) << c.out;
  EXPECT_NE(c.out.find("bom_racks"), std::string::npos);
  EXPECT_NE(c.out.find("\r\n"), std::string::npos);
}

// estimate (training and serving) and simulate write CSV and HTML too.
TEST(Cli, EstimateAndSimulateWriteCsvAndHtml) {
  struct Case {
    std::vector<std::string> args;
    const char* csv_head;
    std::vector<const char*> charts;
  };
  const std::vector<Case> cases = {
      {{"estimate", example("llama3-70b-pretrain.yaml")},
       "model,task,server,",
       {"chart-memory", "chart-step"}},
      {{"estimate", example("llama3-70b-inference.yaml")},
       "model,server,gpu,",
       {"chart-memory", "chart-latency"}},
      {{"simulate", example("simulate-team.yaml"), "--threads", "2"},
       "cluster,server,gpu,",
       {"chart-wait", "chart-utilisation"}},
  };
  for (const Case& k : cases) {
    std::vector<std::string> csv = k.args, html = k.args;
    csv.insert(csv.end(), {"--format", "csv"});
    html.insert(html.end(), {"--format", "html"});
    const Result c = run(csv);
    ASSERT_EQ(c.code, 0) << c.err;
    EXPECT_EQ(c.out.rfind(k.csv_head, 0), 0u) << c.out;
    EXPECT_GE(std::count(c.out.begin(), c.out.end(), '\n'), 2);
    const Result h = run(html);
    ASSERT_EQ(h.code, 0) << h.err;
    EXPECT_EQ(h.out.rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_NE(h.out.find("id=\"verdict\""), std::string::npos);
    for (const char* id : k.charts) {
      EXPECT_NE(h.out.find(std::string("<svg id=\"") + id + "\""), std::string::npos) << id;
    }
  }
}

// Every plan says whether it needs a scale-out fabric; serving plans of
// independent one-node replicas are not called multi-node.
TEST(Cli, PlansSayWhetherTheyNeedAScaleOutFabric) {
  const Result t = run({"plan", example("plan-llama3-70b-pretrain.yaml"), "--format", "json"});
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("\"needs_scaleout_fabric\": true"), std::string::npos);
  EXPECT_NE(t.out.find("\"bill_of_materials\""), std::string::npos);
  const Result s = run({"plan", example("plan-llama3-70b-inference.yaml"), "--format", "json"});
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_NE(s.out.find("\"replica_nodes\": 1"), std::string::npos);
  EXPECT_NE(s.out.find("\"needs_scaleout_fabric\": false"), std::string::npos);
  EXPECT_NE(s.out.find("\"scaleup_domains\""), std::string::npos);
  EXPECT_NE(s.out.find("\"bill_of_materials\""), std::string::npos);
  EXPECT_EQ(s.out.find("\"verdict\": \"multi-node\""), std::string::npos);
}

// --full-frontier lists every point; the default text is compact.
TEST(Cli, FullFrontierListsEveryPoint) {
  const Result a = run({"plan", example("plan-llama3-70b-pretrain.yaml"), "--threads", "2"});
  const Result b =
      run({"plan", example("plan-llama3-70b-pretrain.yaml"), "--threads", "2", "--full-frontier"});
  ASSERT_EQ(a.code, 0) << a.err;
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_GT(std::count(b.out.begin(), b.out.end(), '\n'),
            std::count(a.out.begin(), a.out.end(), '\n') + 10);  // 34 points against 22
  EXPECT_NE(a.out.find("points shown (all with --full-frontier"), std::string::npos);
}

}  // namespace
}  // namespace scaleout

namespace scaleout {
namespace {

// --- issue 23: never destroy a user's file, atomic writes, --emit, standard output ------------

// A fresh, empty folder under the test temporary folder.
std::filesystem::path fresh_dir(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::path(testing::TempDir()) / "scaleout_cli_test" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream text;
  text << f.rdbuf();
  return text.str();
}

void put(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

const std::string kLoraWorkload = slurp(SCALEOUT_SOURCE_DIR "/examples/llama3-8b-lora.yaml");

// `-o` naming the run's input, however it is spelt, exits 2 and leaves the input as it was.
void expect_input_kept(const std::vector<std::string>& args, const std::filesystem::path& input,
                       const std::string& output) {
  const std::string before = slurp(input);
  const Result r = run(args);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(output + ": -o: refusing to write over a file this run reads"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(slurp(input), before);
}

TEST(CliOutputSafety, OutputOverTheWorkloadIsRefused) {
  // Before issue 23 `estimate w.yaml -o w.yaml` replaced the workload with the report.
  const auto dir = fresh_dir("own-input");
  const std::string wl = (dir / "w.yaml").string();
  put(wl, kLoraWorkload);
  expect_input_kept({"estimate", wl, "-o", wl}, wl, wl);
  // The same file through another spelling, a symbolic link and a hard link.
  const std::string dotted = (dir / "." / "w.yaml").string();
  expect_input_kept({"estimate", wl, "-o", dotted}, wl, dotted);
  std::filesystem::create_symlink(wl, dir / "link.yaml");
  expect_input_kept({"estimate", wl, "-o", (dir / "link.yaml").string()}, wl,
                    (dir / "link.yaml").string());
  std::filesystem::create_hard_link(wl, dir / "hard.yaml");
  expect_input_kept({"estimate", wl, "-o", (dir / "hard.yaml").string()}, wl,
                    (dir / "hard.yaml").string());
  // The message names the input the output would replace.
  const Result r = run({"estimate", wl, "-o", (dir / "hard.yaml").string()});
  EXPECT_NE(r.err.find("(the same file as " + wl + ")"), std::string::npos) << r.err;
}

TEST(CliOutputSafety, OutputOverAnInputIsRefusedBeforeTheWorkStarts) {
  // -o naming a command-line input is refused before the input is even read:
  // a broken workload gives the -o refusal, not its parse error (a long plan
  // is not run only to be thrown away).
  const auto dir = fresh_dir("refused-first");
  const std::string wl = (dir / "w.yaml").string();
  put(wl, "model: [unclosed\n");
  const Result r = run({"plan", wl, "-o", wl});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("-o: refusing to write over a file this run reads"), std::string::npos)
      << r.err;
  EXPECT_EQ(slurp(wl), "model: [unclosed\n");
}

TEST(CliOutputSafety, OutputOverACatalogFileIsRefused) {
  const auto dir = fresh_dir("catalog-input");
  const std::string cat = (dir / "cat.yaml").string();
  put(cat, kTestGpu);
  expect_input_kept({"--catalog", cat, "catalog", "gpus", "-o", cat}, cat, cat);
  const std::string wl = (dir / "w.yaml").string();
  put(wl, kLoraWorkload);
  expect_input_kept({"--catalog", cat, "estimate", wl, "-o", cat}, cat, cat);
}

TEST(CliOutputSafety, OutputOverTheValidationCsvOrItsOverridesIsRefused) {
  const auto dir = fresh_dir("validate-input");
  const std::string csv = (dir / "rows.csv").string();
  put(csv, slurp(SCALEOUT_SOURCE_DIR "/data/validation/external.csv"));
  expect_input_kept({"validate", csv, "-o", csv}, csv, csv);
  // The default overrides file beside the CSV, present or not.
  const std::string side = (dir / "rows.gpu-overrides.csv").string();
  const Result absent = run({"validate", csv, "-o", side});
  EXPECT_EQ(absent.code, 2) << absent.err;
  EXPECT_FALSE(std::filesystem::exists(side));
  put(side, "id,gpu,reason\n");
  expect_input_kept({"validate", csv, "-o", side}, side, side);
  // An explicit --gpu-overrides file.
  const std::string other = (dir / "other.csv").string();
  put(other, "id,gpu,reason\n");
  expect_input_kept({"validate", csv, "--gpu-overrides", other, "-o", other}, other, other);
}

TEST(CliOutputSafety, OutputOverFilesNamedByInputsIsRefused) {
  const auto dir = fresh_dir("named-inputs");
  // A Hugging Face config.json named by a workload.
  const std::string config = (dir / "config.json").string();
  put(config, slurp(SCALEOUT_SOURCE_DIR "/tests/data/hf/llama3-8b.json"));
  const std::string wl = (dir / "w.yaml").string();
  put(wl,
      "model: config.json\nseq_len: 4096\nlayout: {dp: 8, zero: 3}\n"
      "cluster: {server: dgx-h100, nodes: 1}\n");
  expect_input_kept({"estimate", wl, "-o", config}, config, config);
  // A jobs file and a workload file it names.
  const std::string job_wl = (dir / "job.yaml").string();
  put(job_wl, "model: llama3-8b\ntokens: 1.0e9\nseq_len: 4096\nglobal_batch: 64\n");
  const std::string jobs = (dir / "jobs.yaml").string();
  put(jobs,
      "clusters:\n  - {server: dgx-h100, nodes: 1}\n"
      "jobs:\n  - {name: a, workload: job.yaml}\n  - {name: b, gpus: 8, duration_h: 1}\n");
  expect_input_kept({"simulate", jobs, "-o", jobs}, jobs, jobs);
  expect_input_kept({"simulate", jobs, "-o", job_wl}, job_wl, job_wl);
}

TEST(CliOutputSafety, OutputReplacesAnOlderReportAndKeepsItsMode) {
  const auto dir = fresh_dir("replace-report");
  const auto path = dir / "report.txt";
  put(path, "old report");
  std::filesystem::permissions(path, std::filesystem::perms(0640));
  const Result r = run({"catalog", "gpus", "-o", path.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(path), run({"catalog", "gpus"}).out);
  EXPECT_EQ(std::filesystem::status(path).permissions(), std::filesystem::perms(0640));
  // Nothing else is left in the folder (no temporary file).
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                          std::filesystem::directory_iterator()),
            1);
}

// The launch files of a LoRA plan, as --emit writes them.
const std::vector<std::string> kLaunchFiles = {
    "slurm.sbatch",  "torchrun.sh",          "deepspeed.json",     "pytorchjob.yaml",
    "trainjob.yaml", "accelerate_fsdp.yaml", "finetune_peft.yaml", "plan.json"};

TEST(CliOutputSafety, EmitRefusesToReplaceFilesWithoutForce) {
  // Before issue 23 --emit silently replaced a user's own slurm.sbatch.
  const auto dir = fresh_dir("emit-existing");
  put(dir / "slurm.sbatch", "#!/bin/sh\n# my own script\n");
  expect_bad_input(
      {"plan", example("plan-llama3-8b-lora.yaml"), "--threads", "2", "--emit", dir.string()},
      "scaleout: " + dir.string() +
          ": --emit: the folder already holds slurm.sbatch (give --force to "
          "replace them, or another folder)\n");
  // All or nothing: the refused run wrote none of the other files.
  EXPECT_EQ(slurp(dir / "slurm.sbatch"), "#!/bin/sh\n# my own script\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "torchrun.sh"));

  const Result forced = run({"plan", example("plan-llama3-8b-lora.yaml"), "--threads", "2",
                             "--emit", dir.string(), "--force"});
  ASSERT_EQ(forced.code, 0) << forced.err;
  EXPECT_NE(slurp(dir / "slurm.sbatch"), "#!/bin/sh\n# my own script\n");
  for (const std::string& name : kLaunchFiles) {
    EXPECT_TRUE(std::filesystem::exists(dir / name)) << name;
    EXPECT_NE(forced.out.find("wrote " + (dir / name).string() + "\n"), std::string::npos);
  }
  const auto exec = std::filesystem::perms::owner_exec;
  EXPECT_NE(std::filesystem::status(dir / "torchrun.sh").permissions() & exec,
            std::filesystem::perms::none);
  EXPECT_EQ(std::filesystem::status(dir / "finetune_peft.yaml").permissions() & exec,
            std::filesystem::perms::none);
}

TEST(CliOutputSafety, EmitNeverReplacesAnInputEvenWithForce) {
  // A workload named like a launch file, in the --emit folder.
  const auto dir = fresh_dir("emit-input");
  const auto wl = dir / "pytorchjob.yaml";
  put(wl, slurp(example("plan-llama3-8b-lora.yaml")));
  const std::string before = slurp(wl);
  const Result r = run({"plan", wl.string(), "--threads", "2", "--emit", dir.string(), "--force"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "scaleout: " + wl.string() +
                       ": --emit: refusing to write over a file this run reads (write the output "
                       "to another file or folder)\n");
  EXPECT_EQ(slurp(wl), before);
  EXPECT_FALSE(std::filesystem::exists(dir / "slurm.sbatch"));
}

// A stream buffer that refuses every byte, like a full disk.
class FailingBuffer : public std::streambuf {
 protected:
  int_type overflow(int_type) override { return traits_type::eof(); }
  std::streamsize xsputn(const char*, std::streamsize) override { return 0; }
};

TEST(CliOutputSafety, AFailedWriteToStandardOutputExitsNonZero) {
  // Before issue 23 the report was lost and the command exited 0.
  std::vector<std::string> args = {"scaleout", "catalog", "gpus"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  FailingBuffer buffer;
  std::ostream out(&buffer);
  std::ostringstream err;
  EXPECT_EQ(run_cli(static_cast<int>(args.size()), argv.data(), out, err), 1);
  EXPECT_EQ(err.str(), "scaleout: cannot write to standard output: the stream failed\n");
}

TEST(CliOutputSafety, WritingToDevFullExitsNonZero) {
  std::ofstream full("/dev/full", std::ios::binary);
  ASSERT_TRUE(full.is_open());
  std::vector<std::string> args = {"scaleout", "catalog", "gpus"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  std::ostringstream err;
  EXPECT_EQ(run_cli(static_cast<int>(args.size()), argv.data(), full, err), 1);
  EXPECT_EQ(err.str(), "scaleout: cannot write to standard output: No space left on device\n");
}

// --- issue 23: finite or refused -------------------------------------------------------------

const std::string kNoRateGpu =
    "gpus:\n"
    "  - id: norate\n"
    "    hbm_gib: 80\n"
    "    tdp_w: 700\n"
    "    hbm_bw_gbyte_s: 3350\n"
    "    tflops: {}\n"
    "    source: unit test\n"
    "servers:\n"
    "  - id: norate-server\n"
    "    gpu: norate\n"
    "    gpus_per_node: 8\n"
    "    intra_node_gbyte_s: 450\n"
    "    nics: 8\n"
    "    nic_gbit_s: 400\n"
    "    source: unit test\n";

TEST(CliFinite, EstimateOnAGpuWithoutAFlopRateIsAnInputError) {
  // Before issue 23 this printed "Step time inf s", "MFU -nan%" and exited 0.
  const auto dir = fresh_dir("norate-estimate");
  const std::string cat = (dir / "cat.yaml").string();
  put(cat, kNoRateGpu);
  const std::string wl = (dir / "w.yaml").string();
  put(wl,
      "model: llama3-8b\nseq_len: 4096\nlayout: {dp: 8, zero: 3}\n"
      "cluster: {server: norate-server, nodes: 1}\n");
  expect_bad_input({"--catalog", cat, "estimate", wl},
                   "scaleout: " + cat +
                       ": tflops.bf16: GPU 'norate' has no FLOP rate for the workload's precision "
                       "bf16 (tflops.bf16 is 0 or missing) (add the GPU's dense bf16 rate to its "
                       "catalog entry, e.g. tflops: {bf16: 989}, or choose another GPU)\n");
}

TEST(CliFinite, PlanOnAChosenGpuWithoutAFlopRateIsAnInputError) {
  const auto dir = fresh_dir("norate-plan");
  const std::string cat = (dir / "cat.yaml").string();
  put(cat, kNoRateGpu);
  const std::string wl = (dir / "w.yaml").string();
  put(wl,
      "model: llama3-8b\ntokens: 1.0e9\nseq_len: 4096\nglobal_batch: 64\n"
      "hardware: {servers: [dgx-h100, norate-server]}\n");
  const Result r = run({"--catalog", cat, "plan", wl, "--threads", "2"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("scaleout: " + cat + ": tflops.bf16: GPU 'norate' has no FLOP rate", 0), 0u)
      << r.err;
}

}  // namespace
}  // namespace scaleout
