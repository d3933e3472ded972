#include "cost/bom.hpp"

#include <algorithm>

namespace scaleout {

BillOfMaterials bill_of_materials(const BomInput& in) {
  BillOfMaterials b;
  const Server& s = in.server;
  b.nodes = in.nodes;
  b.gpus = static_cast<long long>(in.nodes) * s.gpus_per_node;
  b.server_id = s.id;
  b.server_gpus = s.whole_gpus;
  b.gpu_id = in.gpu.id;
  b.server_unit_usd = in.server_usd;
  b.scale_out = in.scale_out;
  const Fabric* f = in.fabric ? &*in.fabric : nullptr;
  b.fabric_id = f ? f->id : "";
  b.nic_Bps = s.nic_bw_Bps;
  if (f && f->port_bw_Bps > 0) {
    b.nic_capped = s.nic_bw_Bps > 0 && f->port_bw_Bps > s.nic_bw_Bps;
    b.nic_Bps = s.nic_bw_Bps > 0 ? std::min(s.nic_bw_Bps, f->port_bw_Bps) : f->port_bw_Bps;
  }
  // The same network as the whole run (cost/run.cpp): one port per NIC.
  if (in.scale_out) {
    b.nics = static_cast<long long>(in.nodes) * s.nics_per_node;
    b.switch_ports = f && f->switch_ports > 0 ? f->switch_ports : kDefaultSwitchPorts;
    b.oversubscription = f ? f->oversubscription : 1.0;
    b.switches = fat_tree(b.nics, b.switch_ports, b.oversubscription);
    b.transceivers = f && f->transceiver_W > 0 ? 2 * b.switches.cables : 0;
  }
  const Power p =
      estimate_power(power_input(s, in.gpu, in.nodes, in.busy, b.switches, f, in.facility));
  b.racks = p.racks;
  b.nodes_per_rack = p.nodes_per_rack;
  b.it_W = p.cluster_W;
  b.provisioned_W = in.nodes * p.node_max_W + p.network_W;
  b.facility_W = b.provisioned_W * std::max(1.0, in.facility.pue);
  b.cooling_W = b.facility_W - b.provisioned_W;

  CostInput ci;
  ci.nodes = in.nodes;
  ci.gpus = static_cast<int>(b.gpus);
  ci.server_usd = in.server_usd;
  ci.network = b.switches;
  ci.nics = static_cast<int>(b.nics);
  price_network(ci, f);
  ci.cluster_W = b.it_W;
  ci.provisioned_W = b.provisioned_W;
  ci.facility = in.facility;
  ci.cloud_usd_per_gpu_hour = in.cloud_usd_per_gpu_hour;
  b.cost = estimate_cost(ci);

  const Facility& fa = in.facility;
  if (b.cost.own_priced) {
    b.depreciation_usd_per_year = b.cost.capex_usd / std::max(fa.life_years, 0.1);
    b.colocation_usd_per_year = fa.colo_usd_per_kw_month * 12.0 * b.provisioned_W / 1e3;
    b.operations_usd_per_year = fa.operations_share * b.cost.capex_usd;
    b.energy_usd_per_year = b.it_W / 1e3 * fa.pue * fa.usd_per_kwh * kBomHoursPerYear;
    b.own_usd_per_year = b.depreciation_usd_per_year + b.colocation_usd_per_year +
                         b.operations_usd_per_year + b.energy_usd_per_year;
  }
  b.cloud_usd_per_year = b.cost.cloud_usd_per_hour * kBomHoursPerYear;
  for (const CloudPrice& c : in.prices) {
    if (c.gpu_id != in.gpu.id || c.pricing != "reserved" || c.usd_per_gpu_hour <= 0) continue;
    Commitment m;
    m.price = c;
    m.usd_per_year = static_cast<double>(b.gpus) * c.usd_per_gpu_hour * kBomHoursPerYear;
    m.breakeven_vs_cloud =
        in.cloud_usd_per_gpu_hour > 0 ? c.usd_per_gpu_hour / in.cloud_usd_per_gpu_hour : 0.0;
    b.commitments.push_back(m);
  }
  return b;
}

}  // namespace scaleout
