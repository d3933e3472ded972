// read_jobs on the bundled example and on one bad input per kind of mistake,
// each with the exact text the user sees: "file:line: key: message (hint)".
#include "io/jobs_reader.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "io/catalog_reader.hpp"
#include "io/workload_reader.hpp"

namespace scaleout::io {
namespace {

sim::JobMix read(const std::string& text) {
  return read_jobs(text, "j.yaml", SCALEOUT_SOURCE_DIR "/examples", builtin_catalog());
}

std::string error_of(const std::string& text) {
  try {
    read(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

const std::string kClusters = "clusters: [{server: dgx-h100, nodes: 2}]\n";  // line 1

TEST(JobsReader, Example) {
  const std::string path = SCALEOUT_SOURCE_DIR "/examples/simulate-team.yaml";
  const sim::JobMix mix = read_jobs(read_text_file(path), path, "", builtin_catalog());
  EXPECT_EQ(mix.seed, 7u);
  EXPECT_EQ(mix.scheduler.policy, sim::Policy::backfill);
  EXPECT_DOUBLE_EQ(mix.wait_target_s, 0.25 * 3600);  // wait_target_h: 0.25
  ASSERT_EQ(mix.clusters.size(), 3u);
  EXPECT_EQ(mix.clusters[2].nodes, 4);
  EXPECT_EQ(mix.clusters[2].gpus(), 32);  // 4 x 8
  EXPECT_GT(mix.clusters[0].usd_per_gpu_hour, 0);
  ASSERT_EQ(mix.jobs.size(), 5u);
  EXPECT_TRUE(mix.jobs[0].workload.has_value());
  EXPECT_EQ(mix.jobs[0].size_by, sim::SizeBy::cost);
  EXPECT_EQ(mix.jobs[1].kind, sim::JobKind::finetune);  // from the workload's task
  EXPECT_EQ(mix.jobs[2].gpus, 2);
  EXPECT_DOUBLE_EQ(mix.jobs[2].duration_s, 3 * 3600.0);     // duration_h: 3
  EXPECT_DOUBLE_EQ(mix.jobs[2].rate_per_s, 0.33 / 3600.0);  // rate_per_h: 0.33
  EXPECT_EQ(mix.jobs[3].kind, sim::JobKind::other);         // kind left out
  EXPECT_EQ(mix.jobs[4].kind, sim::JobKind::inference);
  EXPECT_EQ(mix.jobs[4].priority, 10);
}

TEST(JobsReader, Defaults) {
  const sim::JobMix mix = read(kClusters + "jobs: [{name: a, gpus: 1, duration_h: 2}]\n");
  EXPECT_EQ(mix.seed, 1u);
  EXPECT_EQ(mix.scheduler.policy, sim::Policy::backfill);
  EXPECT_EQ(mix.scheduler.backfill_depth, 1000);
  EXPECT_DOUBLE_EQ(mix.wait_target_s, 3600);
  EXPECT_EQ(mix.jobs[0].count, 1);
  EXPECT_EQ(mix.jobs[0].at_s, 0);
  EXPECT_EQ(mix.jobs[0].rate_per_s, 0);
  EXPECT_EQ(mix.jobs[0].priority, 0);
}

TEST(JobsReader, WorkloadByPath) {
  // Relative to the jobs file's folder.
  const std::string dir = SCALEOUT_TEST_DATA_DIR "/sim";
  const sim::JobMix mix =
      read_jobs(kClusters + "jobs: [{name: a, workload: llama3-8b-lora.yaml}]\n", "j.yaml", dir,
                builtin_catalog());
  ASSERT_TRUE(mix.jobs[0].workload.has_value());
  EXPECT_EQ(mix.jobs[0].kind, sim::JobKind::finetune);
  EXPECT_EQ(mix.jobs[0].workload->tokens, 2.0e8);
  EXPECT_EQ(error_of(kClusters + "jobs: [{name: a, workload: nope.yaml}]\n"),
            "j.yaml:2: jobs[0].workload: file '" SCALEOUT_SOURCE_DIR
            "/examples/nope.yaml' not found (relative paths are resolved from the jobs file's "
            "folder)");
  // A workload file written for estimate (with cluster and layout) is refused.
  EXPECT_EQ(error_of(kClusters + "jobs: [{name: a, workload: llama3-8b-lora.yaml}]\n"),
            "j.yaml:2: jobs[0].workload: a job's workload may not give cluster, layout, "
            "constraints, hardware or a list of global batches (the simulator sizes it on each "
            "candidate cluster; remove those keys)");
}

TEST(JobsReader, Errors) {
  EXPECT_EQ(error_of(""), "j.yaml: jobs file is empty (start from examples/simulate-team.yaml)");
  EXPECT_EQ(error_of(kClusters + "jobs: [{name: a, gpus: 1, duration_h: 2}]\nsed: 3\n"),
            "j.yaml:3: sed: unknown key (did you mean 'seed'?)");
  EXPECT_EQ(error_of(kClusters + "jobs: [{name: a, gpus: 1, duration_h: 2}]\npolicy: lifo\n"),
            "j.yaml:3: policy: unknown value 'lifo' (did you mean 'fifo'?)");
  EXPECT_EQ(error_of("jobs: [{name: a, gpus: 1, duration_h: 2}]\n"),
            "j.yaml:1: clusters: missing required key (list the candidates, e.g. clusters: "
            "[{server: dgx-h100, nodes: 1}, {server: dgx-h100, nodes: 4}])");
  EXPECT_EQ(error_of("clusters: [{server: dgx-h10}]\njobs: [{name: a, gpus: 1, duration_h: 2}]\n"),
            "j.yaml:1: clusters[0].server: unknown server 'dgx-h10' (did you mean 'dgx-h100'?)");
  EXPECT_EQ(error_of("clusters: [{server: dgx-h100, node: 2}]\n"
                     "jobs: [{name: a, gpus: 1, duration_h: 2}]\n"),
            "j.yaml:1: clusters[0].node: unknown key (did you mean 'nodes'?)");
  EXPECT_EQ(error_of(kClusters + "jobs: []\n"),
            "j.yaml:2: jobs: expected a non-empty list of jobs (e.g. jobs: [{name: lora, gpus: "
            "1, duration_h: 4}])");
  EXPECT_EQ(error_of(kClusters + "jobs:\n  - name: a\n    gpu: 1\n    duration_h: 2\n"),
            "j.yaml:4: jobs[0].gpu: unknown key (did you mean 'gpus'?)");
  EXPECT_EQ(error_of(kClusters + "jobs:\n  - name: a\n    gpus: 1\n"),
            "j.yaml:3: jobs[0].duration_h: missing required key (the job's run time in hours, "
            "e.g. 12)");
  EXPECT_EQ(error_of(kClusters + "jobs:\n  - name: a\n    gpus: auto\n"),
            "j.yaml:4: jobs[0].gpus: gpus: auto needs a workload to size (add workload: (a path "
            "or a mapping), or give a number of GPUs)");
  EXPECT_EQ(error_of(kClusters + "jobs:\n  - name: a\n    gpus: 0\n    duration_h: 1\n"),
            "j.yaml:4: jobs[0].gpus: 0 is out of range (expected a whole number from 1 to "
            "1000000)");
  EXPECT_EQ(error_of(kClusters + "jobs:\n  - name: a\n    gpus: 1\n    duration_h: -1\n"),
            "j.yaml:5: jobs[0].duration_h: -1 is out of range (expected a value from 1e-06 to "
            "1e+06)");
  EXPECT_EQ(error_of(kClusters + "jobs:\n  - {name: a, gpus: 1, duration_h: 1}\n"
                                 "  - {name: a, gpus: 1, duration_h: 1}\n"),
            "j.yaml:4: jobs[1].name: job name 'a' is used twice (give each job its own name)");
  EXPECT_EQ(error_of(kClusters + "jobs:\n  - {name: a, gpus: 1, duration_h: 1, count: 600000}\n"
                                 "  - {name: b, gpus: 1, duration_h: 1, count: 600000}\n"),
            "j.yaml:4: jobs[1].count: the jobs add up to more than 1000000 (lower the counts)");
  EXPECT_EQ(error_of(kClusters + "jobs:\n  - {name: a, gpus: 1, duration_h: 1, kind: serving}\n"),
            "j.yaml:3: jobs[0].kind: unknown value 'serving' (expected one of: pretrain, "
            "finetune, inference, other)");
}

TEST(JobsReader, WorkloadErrors) {
  const std::string w = "{model: llama3-8b, tokens: 1e9, global_batch: 64}";
  EXPECT_EQ(error_of(kClusters + "jobs:\n  - name: a\n    workload: " + w + "\n    gpus: 8\n"),
            "j.yaml:5: jobs[0].gpus: with a workload, gpus is chosen by the planner (write "
            "gpus: auto or leave it out; for a fixed size give gpus and duration_h without a "
            "workload)");
  EXPECT_EQ(
      error_of(kClusters + "jobs:\n  - name: a\n    workload: " + w + "\n    duration_h: 8\n"),
      "j.yaml:5: jobs[0].duration_h: with a workload, the duration is the time to train "
      "its tokens (remove duration_h, or remove the workload and give gpus and "
      "duration_h)");
  EXPECT_EQ(error_of(kClusters + "jobs:\n  - name: a\n    workload: {model: llama3-8b}\n"),
            "j.yaml:4: jobs[0].workload: a job's workload needs tokens and global_batch (the "
            "job runs for the time to train its tokens; add e.g. tokens: 1e9, global_batch: "
            "64)");
  EXPECT_EQ(
      error_of(kClusters + "jobs:\n  - name: a\n    workload: {model: llama3-8b, tokens: 1e9, "
                           "global_batch: 64, cluster: {server: dgx-h100}}\n"),
      "j.yaml:4: jobs[0].workload: a job's workload may not give cluster, layout, "
      "constraints, hardware or a list of global batches (the simulator sizes it on each "
      "candidate cluster; remove those keys)");
  // An inline workload's own errors keep their lines.
  EXPECT_EQ(error_of(kClusters + "jobs:\n  - name: a\n    workload:\n      model: llama3-8b\n"
                                 "      tokenz: 1e9\n"),
            "j.yaml:6: tokenz: unknown key (did you mean 'tokens'?)");
  EXPECT_EQ(
      error_of(kClusters + "jobs:\n  - name: a\n    workload: " + w + "\n    size_by: speed\n"),
      "j.yaml:5: jobs[0].size_by: unknown value 'speed' (expected one of: time, cost)");
  EXPECT_EQ(error_of(kClusters + "jobs:\n  - {name: a, gpus: 1, duration_h: 1, size_by: cost}\n"),
            "j.yaml:3: jobs[0].size_by: size_by chooses among the planner's plans; it needs a "
            "workload (remove size_by)");
}

}  // namespace
}  // namespace scaleout::io
