// `estimate`: memory and step time of one workload on its cluster (serving:
// memory, TTFT, TPOT, throughput, replicas).
#include <filesystem>

#include "app/commands.hpp"
#include "app/inputs.hpp"
#include "core/error.hpp"
#include "io/files.hpp"
#include "report/report.hpp"
#include "report/serving_report.hpp"

namespace scaleout::app {

Output run_estimate(const Options& o) {
  report::EntryFiles files;
  const Catalog catalog = load_catalog(o, &files);
  const std::string dir = std::filesystem::path(o.workload).parent_path().string();
  const io::WorkloadFile wf =
      io::read_workload(io::read_text_file(o.workload), o.workload, dir, catalog);
  if (wf.plan.global_batches.size() > 1) {
    throw InputError(o.workload, 0, "global_batch", "estimate takes one global batch, not a list",
                     "give one number, or use plan to search the list");
  }
  if (!wf.has_cluster) {
    throw InputError(o.workload, 0, "cluster", "estimate needs a cluster",
                     "add cluster: {server: dgx-h100, nodes: 1}");
  }
  // The cluster's server, GPU (the server's own unless cluster.gpu names one) and fabric.
  const ClusterSpec& cs = wf.workload.cluster;
  // cluster.gpus: that many GPUs of one node (a slice of the server).
  const Server server = slice_server(*catalog.find_server(cs.server_id), cs.gpus);
  const Gpu& gpu = *catalog.find_gpu(cs.gpu_id.empty() ? server.gpu_id : cs.gpu_id);
  const Fabric* fabric = cs.fabric_id.empty() ? nullptr : catalog.find_fabric(cs.fabric_id);
  const bool serving = wf.workload.task == Task::inference;
  // Serving runs its matmuls at the 16-bit rate (FP8 weights fall back to it).
  const Precision precision = serving ? Precision::bf16 : wf.workload.precision;
  if (!report::missing_flop_rate(gpu, precision).empty()) {
    throw report::no_flop_rate_error(gpu, precision, files, o.workload,
                                     cs.gpu_id.empty() ? "cluster.server" : "cluster.gpu");
  }
  // What both reports name: the workload, its hardware and its parameter count.
  auto describe = [&](auto& r) {
    r.workload = wf.workload;
    r.server = server;
    r.gpu = gpu;
    r.fabric_id = cs.fabric_id;
    r.params = count_params(wf.workload.model);
  };
  if (serving) {
    report::ServingEstimateReport r;
    describe(r);
    r.cluster_replicas = r.workload.layout.dp;
    r.estimate = estimate_serving(r.workload, r.server, r.gpu, fabric);
    require_finite(r, report::check_serving_estimate, files);
    switch (o.format) {
      case Format::json:
        return {report::serving_estimate_json(r)};
      case Format::csv:
        return {report::serving_estimate_csv(r)};
      case Format::html:
        return {report::serving_estimate_html(r)};
      case Format::text:
        break;
    }
    return {report::serving_estimate_text(r)};
  }
  report::EstimateResult r;
  describe(r);
  r.memory = estimate_memory(r.workload, r.gpu);
  r.step = estimate_step(r.workload, r.server, r.gpu, fabric,
                         perf_constants(r.gpu, r.workload.framework, r.workload.compile), r.memory);
  if (r.workload.tokens > 0) {
    const RunSettings settings = io::resolve_run_settings(catalog, wf.run, o.workload);
    r.run_settings = settings;
    r.run = evaluate_run(r.workload, r.server, r.gpu, fabric, r.workload.cluster.nodes, r.step,
                         server_price(catalog, wf.run, r.server.id) * server_share(r.server),
                         cloud_price(catalog, wf.run, settings, r.gpu.id), settings);
  }
  require_finite(r, report::check_estimate, files);
  switch (o.format) {
    case Format::json:
      return {report::estimate_json(r)};
    case Format::csv:
      return {report::estimate_csv(r)};
    case Format::html:
      return {report::estimate_html(r)};
    case Format::text:
      break;
  }
  return {report::estimate_text(r)};
}

}  // namespace scaleout::app
