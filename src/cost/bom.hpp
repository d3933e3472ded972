// What to buy for a plan (docs/model.md, "Bill of materials"): servers, the
// scale-out NICs, switches (leaf/spine/core of a fat tree at the fabric's
// radix and oversubscription) and cables, racks, power and cooling, the
// purchase price and the yearly running cost of owning, beside the cloud
// price and the catalog's committed (reserved) prices with their break-even.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cost/cost.hpp"
#include "hw/hardware.hpp"

namespace scaleout {

struct BomInput {
  Server server;
  Gpu gpu;
  std::optional<Fabric> fabric;  // none: the server's own NICs, default switch radix
  int nodes = 1;
  // Whether the nodes talk over a scale-out network (several scale-up domains
  // of one job or replica); false: no NIC, switch or cable is counted.
  bool scale_out = false;
  double busy = 1;                    // share of the step the GPUs compute (power at load)
  double server_usd = 0;              // purchase price of one server; 0: not priced
  double cloud_usd_per_gpu_hour = 0;  // the plan's cloud price; 0: not priced
  Facility facility;
  // The catalog's cloud prices for the GPU; those with pricing "reserved"
  // become commitment options, the others are ignored.
  std::vector<CloudPrice> prices;
};

// A committed cloud price: paid for every hour of the term, used or not.
struct Commitment {
  CloudPrice price;
  double usd_per_year = 0;  // the cluster's GPUs x price x 8,766 h
  // Utilisation above which the commitment costs less than the plan's cloud
  // (on-demand) price: price / on-demand; 0 when on-demand is unpriced.
  double breakeven_vs_cloud = 0;
};

struct BillOfMaterials {
  int nodes = 0;
  long long gpus = 0;
  std::string server_id, gpu_id;
  // A plan below a node: the whole server's GPUs (the plan buys or rents
  // gpus of them, at its share of the price); 0: whole servers.
  int server_gpus = 0;
  double server_unit_usd = 0;  // 0: not priced (a slice: its share of the server's)
  // Scale-out network (all 0 without one).
  bool scale_out = false;
  std::string fabric_id;    // "" : the server's own NICs
  long long nics = 0;       // one port each
  double nic_Bps = 0;       // per port, one direction: the lower of NIC and fabric port
  bool nic_capped = false;  // the fabric's port rate exceeds the server's NICs
  SwitchCount switches;
  int switch_ports = 0;
  double oversubscription = 1;
  long long transceivers = 0;  // two per cable where the fabric's transceivers draw power
  // Racks, power and cooling.
  long long racks = 0;
  int nodes_per_rack = 0;
  double it_W = 0;           // nodes at the plan's load + network
  double provisioned_W = 0;  // nodes at maximum + network: what the site provides
  double facility_W = 0;     // provisioned x PUE: power and cooling of the site
  double cooling_W = 0;      // facility - provisioned
  // Purchase (0 when the server is not priced).
  Cost cost;  // capex split, own and cloud per hour, break-even utilisation
  // Yearly running cost of owning at the plan's load all year (8,766 h).
  double depreciation_usd_per_year = 0;  // capex / life
  double colocation_usd_per_year = 0;    // per kW provisioned
  double operations_usd_per_year = 0;    // share of capex
  double energy_usd_per_year = 0;        // IT power x PUE x price
  double own_usd_per_year = 0;           // the four together
  double cloud_usd_per_year = 0;         // GPUs x the plan's cloud price x 8,766 h
  std::vector<Commitment> commitments;
};

// Hours in a year (365.25 days), the unit of the yearly figures.
inline constexpr double kBomHoursPerYear = 8766.0;

BillOfMaterials bill_of_materials(const BomInput& in);

}  // namespace scaleout
