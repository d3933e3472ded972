#include "io/jobs_reader.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "core/error.hpp"
#include "core/ids.hpp"
#include "core/spelling.hpp"
#include "io/workload_reader.hpp"
#include "io/yaml_fields.hpp"

namespace scaleout::io {

namespace {

constexpr double kS = 3600.0;  // seconds per hour

std::string item_path(const std::string& list, size_t i) { return fmt::format("{}[{}]", list, i); }

sim::CandidateCluster read_cluster(const YAML::Node& n, const std::string& file,
                                   const std::string& path, const Catalog& catalog) {
  Fields f(n, file, path);
  sim::CandidateCluster c;
  const std::string id = f.id("server").value_or("");
  if (id.empty()) f.fail("server", "missing required key", "e.g. server: dgx-h100");
  const Server* server = catalog.find_server(id);
  if (!server)
    f.fail("server", fmt::format("unknown server '{}'", id), suggestion(id, catalog.ids<Server>()));
  c.server = *server;
  c.nodes = static_cast<int>(f.integer("nodes", 1, kMaxSimNodes).value_or(1));
  if (auto fabric = f.id("fabric")) {
    const Fabric* fb = catalog.find_fabric(*fabric);
    if (!fb) {
      f.fail("fabric", fmt::format("unknown fabric '{}'", *fabric),
             suggestion(*fabric, catalog.ids<Fabric>()));
    }
    c.fabric = *fb;
  }
  f.finish();
  c.gpu = *catalog.find_gpu(c.server.gpu_id);
  const CloudPrice* price = catalog.default_cloud_price(c.gpu.id);
  c.usd_per_gpu_hour = price ? price->usd_per_gpu_hour : 0.0;
  return c;
}

WorkloadFile read_job_workload(Fields& f, const std::string& file, const std::string& dir,
                               const Catalog& catalog) {
  const YAML::Node n = f.node("workload");
  WorkloadFile wf;
  if (n.IsMap()) {
    wf = read_workload(n, file, dir, catalog, false);
  } else {
    const std::string name = scalar_string(n, file, f.key_path("workload"));
    check_text(name, file, line_of(n), f.key_path("workload"));
    std::filesystem::path p(name);
    if (p.is_relative() && !dir.empty()) p = std::filesystem::path(dir) / p;
    std::error_code ec;
    if (!std::filesystem::exists(p, ec)) {
      throw InputError(file, line_of(n), f.key_path("workload"),
                       fmt::format("file '{}' not found", p.string()),
                       "relative paths are resolved from the jobs file's folder");
    }
    wf = read_workload(read_text_file(p.string()), p.string(), p.parent_path().string(), catalog,
                       false);
  }
  const PlanInput& pin = wf.plan;
  if (wf.has_cluster || wf.has_layout || pin.deadline_days || pin.budget_usd || pin.max_nodes ||
      !pin.servers.empty() || !pin.fabrics.empty() || pin.global_batches.size() > 1) {
    f.fail("workload",
           "a job's workload may not give cluster, layout, constraints, hardware or a list of "
           "global batches",
           "the simulator sizes it on each candidate cluster; remove those keys");
  }
  if (wf.workload.tokens <= 0 || wf.workload.global_batch <= 0) {
    f.fail("workload", "a job's workload needs tokens and global_batch",
           "the job runs for the time to train its tokens; add e.g. tokens: 1e9, "
           "global_batch: 64");
  }
  return wf;
}

sim::JobSpec read_job(const YAML::Node& n, const std::string& file, const std::string& path,
                      const std::string& dir, const Catalog& catalog) {
  Fields f(n, file, path);
  sim::JobSpec s;
  if (!f.has("name")) f.fail("name", "missing required key", "give each job a name");
  s.name = *f.id("name");
  const bool has_workload = f.has("workload");
  const YAML::Node gpus = f.node("gpus");
  const bool gpus_auto = gpus.IsScalar() && gpus.Scalar() == "auto";
  if (has_workload) {
    const WorkloadFile wf = read_job_workload(f, file, dir, catalog);
    s.workload = wf.workload;
    s.run = resolve_run_settings(catalog, wf.run, file);
    s.kind = s.workload->task == Task::finetune    ? sim::JobKind::finetune
             : s.workload->task == Task::inference ? sim::JobKind::inference
                                                   : sim::JobKind::pretrain;
    if (gpus.IsDefined() && !gpus_auto) {
      f.fail("gpus", "with a workload, gpus is chosen by the planner",
             "write gpus: auto or leave it out; for a fixed size give gpus and duration_h "
             "without a workload");
    }
    if (f.has("duration_h")) {
      f.fail("duration_h", "with a workload, the duration is the time to train its tokens",
             "remove duration_h, or remove the workload and give gpus and duration_h");
    }
    if (f.has("kind")) f.fail("kind", "with a workload, the kind is its task", "remove kind");
    if (auto by = f.choice("size_by", {"time", "cost"})) {
      s.size_by = *by == "time" ? sim::SizeBy::time : sim::SizeBy::cost;
    }
  } else {
    if (gpus_auto) {
      f.fail("gpus", "gpus: auto needs a workload to size",
             "add workload: (a path or a mapping), or give a number of GPUs");
    }
    const auto g = f.integer("gpus", 1, 1000000);
    if (!g) {
      f.fail("gpus", "missing required key",
             "give gpus and duration_h, or a workload for the planner to size");
    }
    s.gpus = static_cast<int>(*g);
    const auto d = f.number("duration_h", 1e-6, 1e6);
    if (!d) f.fail("duration_h", "missing required key", "the job's run time in hours, e.g. 12");
    s.duration_s = *d * kS;
    const std::string kind =
        f.choice("kind", {"pretrain", "finetune", "inference", "other"}).value_or("other");
    s.kind = kind == "pretrain"    ? sim::JobKind::pretrain
             : kind == "finetune"  ? sim::JobKind::finetune
             : kind == "inference" ? sim::JobKind::inference
                                   : sim::JobKind::other;
    if (f.has("size_by")) {
      f.fail("size_by", "size_by chooses among the planner's plans; it needs a workload",
             "remove size_by");
    }
  }
  s.at_s = f.number("at", 0, 1e6).value_or(0) * kS;
  s.count = static_cast<int>(f.integer("count", 1, kMaxSimJobs).value_or(1));
  s.rate_per_s = f.number("rate_per_h", 1e-9, 1e9).value_or(0) / kS;
  s.priority = static_cast<int>(f.integer("priority", -1000000, 1000000).value_or(0));
  f.finish();
  return s;
}

// A top-level list a jobs file must give: present, non-empty, at most `max` entries.
struct RequiredList {
  const char* key;
  const char* missing_hint;  // what to write when the key is absent
  const char* example;       // when it is not a list or is empty
  std::size_t max;
  const char* too_many;  // format of the message: the entries, then `max`
  const char* too_many_hint;
};

YAML::Node required_list(Fields& top, const RequiredList& l) {
  const YAML::Node list = top.node(l.key);
  if (!list.IsDefined() || list.IsNull()) top.fail(l.key, "missing required key", l.missing_hint);
  if (!list.IsSequence() || list.size() == 0) {
    top.fail(l.key, fmt::format("expected a non-empty list of {}", l.key), l.example);
  }
  if (list.size() > l.max) {
    top.fail(l.key, fmt::format(fmt::runtime(l.too_many), list.size(), l.max), l.too_many_hint);
  }
  return list;
}

}  // namespace

sim::JobMix read_jobs(const std::string& text, const std::string& file, const std::string& dir,
                      const Catalog& catalog) {
  const YAML::Node root = load_yaml(text, file);
  if (!root.IsDefined() || root.IsNull()) {
    throw InputError(file, 0, "", "jobs file is empty", "start from examples/simulate-team.yaml");
  }
  Fields top(root, file, "");
  sim::JobMix mix;
  mix.seed =
      static_cast<unsigned long long>(top.integer("seed", 0, 9007199254740992LL).value_or(1));
  const std::string policy = top.choice("policy", {"fifo", "backfill"}).value_or("backfill");
  mix.scheduler.policy = policy == "fifo" ? sim::Policy::fifo : sim::Policy::backfill;
  mix.scheduler.backfill_depth =
      static_cast<int>(top.integer("backfill_depth", 1, 1000000).value_or(1000));
  mix.wait_target_s = top.number("wait_target_h", 0, 1e6).value_or(1) * kS;

  const YAML::Node clusters =
      required_list(top, {"clusters",
                          "list the candidates, e.g. clusters: [{server: dgx-h100, nodes: 1}, "
                          "{server: dgx-h100, nodes: 4}]",
                          "e.g. clusters: [{server: dgx-h100, nodes: 1}]", kMaxSimClusters,
                          "{} candidate clusters; a jobs file compares at most {}",
                          "simulate the candidates in several runs"});
  for (size_t i = 0; i < clusters.size(); ++i) {
    mix.clusters.push_back(read_cluster(clusters[i], file, item_path("clusters", i), catalog));
  }

  const YAML::Node jobs = required_list(
      top, {"jobs", "list the jobs, e.g. jobs: [{name: lora, gpus: 1, duration_h: 4}]",
            "e.g. jobs: [{name: lora, gpus: 1, duration_h: 4}]",
            static_cast<std::size_t>(kMaxSimJobEntries),
            "{} entries; a jobs file holds at most {} entries",
            "use count on one entry for many jobs of the same kind"});
  std::set<std::string> names;
  long long total = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const std::string path = item_path("jobs", i);
    sim::JobSpec s = read_job(jobs[i], file, path, dir, catalog);
    if (!names.insert(s.name).second) {
      throw InputError(file, line_of(jobs[i]), path + ".name",
                       fmt::format("job name '{}' is used twice", s.name),
                       "give each job its own name");
    }
    total += s.count;
    if (total > kMaxSimJobs) {
      throw InputError(file, line_of(jobs[i]), path + ".count",
                       fmt::format("the jobs add up to more than {}", kMaxSimJobs),
                       "lower the counts");
    }
    mix.jobs.push_back(std::move(s));
  }
  top.finish();
  return mix;
}

}  // namespace scaleout::io
