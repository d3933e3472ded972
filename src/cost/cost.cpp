#include "cost/cost.hpp"

#include <algorithm>
#include <cmath>

namespace scaleout {

namespace {

constexpr double kHoursPerYear = 8766.0;  // 365.25 days
constexpr double kHoursPerMonth = kHoursPerYear / 12.0;

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

}  // namespace

SwitchCount fat_tree(long long endpoints, int ports, double oversubscription) {
  SwitchCount s;
  if (endpoints <= 0) return s;
  ports = std::max(ports, 2);
  if (endpoints <= ports) {
    s.tiers = 1;
    s.leaves = 1;
    s.cables = endpoints;
    return s;
  }
  const double o = std::max(1.0, oversubscription);
  const long long down = std::max<long long>(1, static_cast<long long>(ports * o / (1.0 + o)));
  const long long up = std::max<long long>(1, ports - down);
  const long long half = ports / 2;
  s.leaves = ceil_div(endpoints, down);
  const long long leaf_uplinks = s.leaves * up;
  if (s.leaves <= ports) {
    // Two tiers: every spine port goes down to a leaf.
    s.tiers = 2;
    s.spines = ceil_div(leaf_uplinks, ports);
    s.cables = endpoints + leaf_uplinks;
    return s;
  }
  // Three tiers: aggregation switches with half their ports down, half up to
  // the core (a k-ary fat tree holds up to k^3/4 endpoints this way; larger
  // networks are counted with the same three tiers).
  s.tiers = 3;
  s.spines = ceil_div(leaf_uplinks, half);
  s.cores = ceil_div(s.spines * half, ports);
  s.cables = endpoints + leaf_uplinks + s.spines * half;
  return s;
}

double node_max_W(const Server& server, const Gpu& gpu) {
  if (server.power_W > 0) return server.power_W;
  return server.gpus_per_node * gpu.tdp_W * kChipToServerPower;
}

double node_power_W(const Server& server, const Gpu& gpu, double busy) {
  busy = std::clamp(busy, 0.0, 1.0);
  const double gpus_W = server.gpus_per_node * gpu.tdp_W;
  const double host_W = std::max(0.0, node_max_W(server, gpu) - gpus_W);
  return gpus_W * (kGpuIdlePowerFraction + (1.0 - kGpuIdlePowerFraction) * busy) +
         host_W * kHostPowerFraction;
}

Power estimate_power(const PowerInput& in) {
  Power p;
  p.node_W = node_power_W(in.server, in.gpu, in.busy);
  p.node_max_W = node_max_W(in.server, in.gpu);
  p.network_W = static_cast<double>(in.network.switches()) * in.switch_W +
                2.0 * static_cast<double>(in.network.cables) * in.transceiver_W;
  p.cluster_W = in.nodes * p.node_W + p.network_W;
  p.energy_kWh = p.cluster_W * in.pue * in.wall_time_s / 3.6e6;
  // A rack-scale system (NVL72) comes in whole racks of its NVLink domain.
  const bool rack_system = in.server.kind == "rack" && in.server.gpus_per_node > 0;
  const int unit_nodes =
      rack_system ? std::max(1, in.server.scaleup_domain_gpus / in.server.gpus_per_node) : 1;
  const double unit_W = unit_nodes * p.node_max_W;
  if (in.rack_W <= 0 || p.node_max_W <= 0 || unit_W > in.rack_W) {
    p.node_exceeds_rack = in.rack_W > 0;
    p.nodes_per_rack = unit_nodes;
  } else {
    p.nodes_per_rack =
        rack_system ? unit_nodes : static_cast<int>(std::floor(in.rack_W / p.node_max_W));
  }
  p.racks = ceil_div(in.nodes, std::max(1, p.nodes_per_rack));
  return p;
}

PowerInput power_input(const Server& server, const Gpu& gpu, int nodes, double busy,
                       const SwitchCount& network, const Fabric* fabric, const Facility& facility) {
  PowerInput pi;
  pi.server = server;
  pi.gpu = gpu;
  pi.nodes = nodes;
  pi.busy = busy;
  pi.network = network;
  pi.switch_W = fabric ? fabric->switch_W : 0.0;
  pi.transceiver_W = fabric ? fabric->transceiver_W : 0.0;
  pi.pue = facility.pue;
  pi.rack_W = facility.rack_W;
  return pi;
}

void price_network(CostInput& in, const Fabric* fabric) {
  if (!fabric) return;
  in.switch_usd = fabric->switch_usd;
  in.nic_usd = fabric->nic_usd;
  in.cable_usd = fabric->cable_usd;
}

Cost estimate_cost(const CostInput& in) {
  Cost c;
  const Facility& f = in.facility;
  c.server_capex_usd = in.nodes * in.server_usd;
  const bool itemised = in.switch_usd > 0 && in.nic_usd > 0 && in.cable_usd > 0;
  if (in.network.switches() == 0) {
    c.network_capex_usd = 0;
    c.network_itemised = true;
  } else if (itemised) {
    c.network_capex_usd = static_cast<double>(in.network.switches()) * in.switch_usd +
                          in.nics * in.nic_usd +
                          static_cast<double>(in.network.cables) * in.cable_usd;
    c.network_itemised = true;
  } else {
    c.network_capex_usd =
        c.server_capex_usd * kInterconnectCostFraction / (1.0 - kInterconnectCostFraction);
  }
  c.capex_usd = c.server_capex_usd + c.network_capex_usd;
  c.own_priced = in.server_usd > 0;
  c.cloud_priced = in.cloud_usd_per_gpu_hour > 0;
  const double life_h = std::max(f.life_years, 0.1) * kHoursPerYear;
  const double energy_per_h = in.cluster_W / 1000.0 * f.pue * f.usd_per_kwh;
  c.own_fixed_usd_per_hour = c.capex_usd / life_h +
                             f.colo_usd_per_kw_month * in.provisioned_W / 1000.0 / kHoursPerMonth +
                             f.operations_share * c.capex_usd / kHoursPerYear;
  c.own_usd_per_hour = c.own_fixed_usd_per_hour + energy_per_h;
  c.cloud_usd_per_hour = in.gpus * in.cloud_usd_per_gpu_hour;
  const double hours = in.wall_time_s / 3600.0;
  c.own_usd = c.own_priced ? c.own_usd_per_hour * hours : 0.0;
  c.cloud_usd = c.cloud_usd_per_hour * hours;
  if (c.own_priced && c.cloud_priced) {
    // Per year of ownership at utilisation u: fixed + u x energy (owning)
    // against u x cloud (renting the same busy hours).
    const double margin = c.cloud_usd_per_hour - energy_per_h;
    c.breakeven_utilisation = margin > 0 ? c.own_fixed_usd_per_hour / margin : 1e9;
    c.breakeven_utilisation = std::min(c.breakeven_utilisation, 1e9);
  }
  return c;
}

}  // namespace scaleout
