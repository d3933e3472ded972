// Network size, power and total cost of ownership of a cluster
// (docs/model.md, "Power" and "Cost"): leaf/spine/core switch counts of a
// fat tree, node and cluster power at the plan's load, racks, energy, and
// the cost of a run on owned hardware and in the cloud.
#pragma once

#include <string>

#include "hw/hardware.hpp"

namespace scaleout {

// Switches of a folded-Clos (fat-tree) network with `ports`-port switches
// for `endpoints` NIC ports (Al-Fares et al. 2008: a 3-tier k-ary fat tree
// holds k^3/4 hosts with k^2/2 edge, k^2/2 aggregation and k^2/4 core
// switches; 2 tiers hold k^2/2). A leaf gives ports x o / (1 + o) ports to
// endpoints and the rest up (oversubscription o); each higher tier has half
// as many switches as the one below at full bisection.
struct SwitchCount {
  int tiers = 0;  // 0: no switch (one node), 1: one switch
  long long leaves = 0;
  long long spines = 0;
  long long cores = 0;
  long long cables = 0;  // endpoint-leaf plus inter-switch links
  long long switches() const { return leaves + spines + cores; }
};

SwitchCount fat_tree(long long endpoints, int ports, double oversubscription);

// Ports of one switch when the fabric does not say (a 64-port NDR/400GbE
// switch, QM9700 or SN5400 class [NV-QM9700], [NV-SN5600]).
inline constexpr int kDefaultSwitchPorts = 64;

// Power of one node at a load (docs/model.md, "Power"). `busy` is the share
// of the step the GPUs compute (1 - network wait); the GPUs draw between
// kGpuIdlePowerFraction and all of their TDP in proportion; the rest of the
// node (CPUs, memory, NICs, NVSwitch, fans, conversion losses) draws
// kHostPowerFraction of its share of the node's maximum power.
inline constexpr double kGpuIdlePowerFraction = 0.15;  // assumption (docs/model.md)
inline constexpr double kHostPowerFraction = 0.45;     // fitted: DGX H100 at full load = 0.75 x max
// Node maximum power when the catalog has none: GPUs x TDP x 1.8 (Epoch's
// chip_to_server_power for GPUs other than A100/H100 [EPOCH-COST]).
inline constexpr double kChipToServerPower = 1.8;

double node_max_W(const Server& server, const Gpu& gpu);
double node_power_W(const Server& server, const Gpu& gpu, double busy);

struct PowerInput {
  Server server;
  Gpu gpu;
  int nodes = 1;
  double busy = 1;           // share of the step the GPUs compute
  SwitchCount network;       // scale-out switches and cables
  double switch_W = 0;       // per switch; 0 = not published
  double transceiver_W = 0;  // per cable end
  double wall_time_s = 0;    // the run, failures included
  double pue = 1;
  double rack_W = 0;  // budget of one rack
};

struct Power {
  double node_W = 0;       // one node at the plan's load
  double node_max_W = 0;   // one node at its maximum (what racks are sized for)
  double network_W = 0;    // switches and transceivers
  double cluster_W = 0;    // nodes at load + network (IT power)
  double energy_kWh = 0;   // facility energy of the run: cluster x PUE x wall time
  int nodes_per_rack = 0;  // at the rack budget, by maximum node power
  long long racks = 0;
  bool node_exceeds_rack = false;  // one node alone is over the rack budget
};

Power estimate_power(const PowerInput& in);

// The power input of `nodes` servers on a scale-out `network` of `fabric`
// (nullptr: none) at `busy`; the whole run and the bill of materials share it.
PowerInput power_input(const Server& server, const Gpu& gpu, int nodes, double busy,
                       const SwitchCount& network, const Fabric* fabric, const Facility& facility);

// Epoch's share of the interconnect in a cluster's cost (interconnect =
// servers x 0.19 / 0.81) [EPOCH-COST], used when the fabric has no
// itemised switch, NIC and cable prices.
inline constexpr double kInterconnectCostFraction = 0.19;

struct CostInput {
  int nodes = 1;
  int gpus = 1;
  double server_usd = 0;  // purchase price of one server; 0 = not priced
  SwitchCount network;
  int nics = 0;                                       // scale-out NICs in the cluster
  double switch_usd = 0, nic_usd = 0, cable_usd = 0;  // itemised network prices (all or none)
  double cluster_W = 0;                               // IT power at the plan's load
  double provisioned_W = 0;                           // IT power the site must provide (maximum)
  Facility facility;
  double cloud_usd_per_gpu_hour = 0;  // 0 = not priced
  double wall_time_s = 0;             // the run, failures included
};

struct Cost {
  double capex_usd = 0;  // servers + network
  double server_capex_usd = 0;
  double network_capex_usd = 0;
  bool network_itemised = false;      // false: priced as kInterconnectCostFraction
  double own_usd_per_hour = 0;        // amortised capex + colocation + operations + energy
  double own_fixed_usd_per_hour = 0;  // the part paid whether the cluster runs or not
  double cloud_usd_per_hour = 0;      // GPUs x cloud price
  double own_usd = 0;                 // the run's hours on owned hardware
  double cloud_usd = 0;               // the run's GPU-hours in the cloud
  // Share of the hardware's life it must be busy for owning to cost less per
  // useful hour than renting; > 1: renting is always cheaper; 0: unpriced.
  double breakeven_utilisation = 0;
  bool own_priced = false;
  bool cloud_priced = false;
};

Cost estimate_cost(const CostInput& in);

// Sets the itemised network prices of `in` from `fabric` (nullptr: unpriced).
void price_network(CostInput& in, const Fabric* fabric);

}  // namespace scaleout
