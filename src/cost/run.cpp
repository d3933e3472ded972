#include "cost/run.hpp"

#include <algorithm>

#include "memory/memory.hpp"

namespace scaleout {

double default_bytes_per_token(const ModelShape& m) { return m.vocab <= 65536 ? 2.0 : 4.0; }

RunEconomics evaluate_run(const Workload& w, const Server& server, const Gpu& gpu,
                          const Fabric* fabric, int nodes, const StepEstimate& step,
                          double server_usd, double cloud_usd_per_gpu_hour,
                          const RunSettings& settings) {
  RunEconomics e;
  const double ideal_s = w.tokens > 0 && step.tokens_per_s > 0 ? w.tokens / step.tokens_per_s : 0.0;

  ReliabilityInput ri;
  ri.ideal_time_s = ideal_s;
  ri.nodes = nodes;
  ri.gpus_per_node = server.gpus_per_node;
  // A slice of a server (plans below a node) fails at its share of the
  // node's rate (docs/model.md, "Plans below a node").
  ri.failures_per_1000_node_days = settings.failures_per_1000_node_days * server_share(server);
  ri.domains = scaleup_domains(server, nodes);
  ri.domain_failures_per_1000_days = server.scaleup_switch_failures_per_1000_days;
  ri.checkpoint_bytes = checkpoint_bytes(w);
  ri.host_link_Bps = gpu.host_link_Bps;
  ri.requeue_s = settings.requeue_s;
  ri.async_checkpoint = settings.async_checkpoint;
  ri.storage = settings.storage;
  ri.tokens_per_s = step.tokens_per_s;
  ri.bytes_per_token =
      settings.bytes_per_token > 0 ? settings.bytes_per_token : default_bytes_per_token(w.model);
  ri.stall_target = settings.stall_target;
  e.reliability = estimate_reliability(ri);

  // One scale-out port per NIC; no network for a single node, nor for nodes
  // that all lie in one NVLink domain (one NVL72 rack).
  const bool scale_out = scaleup_domains(server, nodes) > 1;
  if (scale_out) {
    const long long endpoints = static_cast<long long>(nodes) * server.nics_per_node;
    const int ports =
        fabric && fabric->switch_ports > 0 ? fabric->switch_ports : kDefaultSwitchPorts;
    e.network = fat_tree(endpoints, ports, fabric ? fabric->oversubscription : 1.0);
  }

  e.busy = std::clamp(1.0 - step.network_wait_fraction, 0.0, 1.0);
  PowerInput pi = power_input(server, gpu, nodes, e.busy, e.network, fabric, settings.facility);
  pi.wall_time_s = e.reliability.wall_time_s;
  e.power = estimate_power(pi);

  CostInput ci;
  ci.nodes = nodes;
  ci.gpus = nodes * server.gpus_per_node;
  ci.server_usd = server_usd;
  ci.network = e.network;
  ci.nics = scale_out ? nodes * server.nics_per_node : 0;
  price_network(ci, fabric);
  ci.cluster_W = e.power.cluster_W;
  ci.provisioned_W = nodes * e.power.node_max_W + e.power.network_W;
  ci.facility = settings.facility;
  ci.cloud_usd_per_gpu_hour = cloud_usd_per_gpu_hour;
  ci.wall_time_s = e.reliability.wall_time_s;
  e.cost = estimate_cost(ci);
  return e;
}

}  // namespace scaleout
