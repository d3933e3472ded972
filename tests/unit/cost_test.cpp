#include "cost/cost.hpp"

#include <gtest/gtest.h>

#include "io/catalog_reader.hpp"

namespace scaleout {
namespace {

TEST(FatTree, TwoTierMatchesSuperPodH100) {
  // DGX SuperPOD H100 with 64-port QM9700: 1 SU = 248 GPU ports -> 8 leaves +
  // 4 spines; 4 SU = 1,016 -> 32 + 16 [NV-SPOD-H100].
  SwitchCount s = fat_tree(248, 64, 1.0);
  EXPECT_EQ(s.tiers, 2);
  EXPECT_EQ(s.leaves, 8);
  EXPECT_EQ(s.spines, 4);
  EXPECT_EQ(s.cables, 248 + 8 * 32);
  s = fat_tree(1016, 64, 1.0);
  EXPECT_EQ(s.leaves, 32);
  EXPECT_EQ(s.spines, 16);
}

TEST(FatTree, ThreeTierMatchesSuperPodB200) {
  // 16 SU = 4,096 GPU ports: 128 leaves, 128 spines, 64 cores [NV-SPOD-B200];
  // a full 3-tier k-ary fat tree: k^3/4 hosts, k^2/2 + k^2/2 + k^2/4 switches.
  SwitchCount s = fat_tree(4096, 64, 1.0);
  EXPECT_EQ(s.tiers, 3);
  EXPECT_EQ(s.leaves, 128);
  EXPECT_EQ(s.spines, 128);
  EXPECT_EQ(s.cores, 64);
  s = fat_tree(16 * 16 * 16 / 4, 16, 1.0);  // k = 16: 1,024 hosts
  EXPECT_EQ(s.leaves, 16 * 16 / 2);
  EXPECT_EQ(s.spines, 16 * 16 / 2);
  EXPECT_EQ(s.cores, 16 * 16 / 4);
}

TEST(FatTree, SmallAndOversubscribed) {
  EXPECT_EQ(fat_tree(0, 64, 1.0).switches(), 0);
  EXPECT_EQ(fat_tree(64, 64, 1.0).switches(), 1);
  // 2:1 at the leaf: 42 ports down, 22 up; 1,000 ports -> 24 leaves and
  // ceil(24 x 22 / 64) = 9 spines.
  const SwitchCount s = fat_tree(1000, 64, 2.0);
  EXPECT_EQ(s.leaves, 24);
  EXPECT_EQ(s.spines, 9);
}

const Server& dgx() { return *io::builtin_catalog().find_server("dgx-h100"); }
const Gpu& h100() { return *io::builtin_catalog().find_gpu("h100-sxm"); }

TEST(Power, DgxH100AtLoad) {
  // Busy: 8 x 700 W + (10,200 - 5,600) x 0.45 = 7,670 W, 0.75 of the maximum
  // (Epoch's server power during training).
  EXPECT_DOUBLE_EQ(node_power_W(dgx(), h100(), 1.0), 7670.0);
  EXPECT_NEAR(node_power_W(dgx(), h100(), 1.0) / 10200.0, 0.75, 0.01);
  // Idle GPUs: 5,600 x 0.15 + 2,070 = 2,910 W.
  EXPECT_DOUBLE_EQ(node_power_W(dgx(), h100(), 0.0), 2910.0);
}

TEST(Power, MoreLoadNeverLowersPower) {
  for (double b = 0; b < 1.0; b += 0.1) {
    EXPECT_LE(node_power_W(dgx(), h100(), b), node_power_W(dgx(), h100(), b + 0.1));
  }
}

TEST(Power, NodeWithoutCatalogPowerUsesChipMultiplier) {
  Server s = dgx();
  s.power_W = 0;
  EXPECT_DOUBLE_EQ(node_max_W(s, h100()), 8 * 700 * 1.8);
}

TEST(Power, InputTakesTheFabricsSwitchPowerAndTheFacility) {
  Fabric f;
  f.switch_W = 1500;
  f.transceiver_W = 17;
  f.switch_usd = 30000;
  f.nic_usd = 1500;
  f.cable_usd = 400;
  Facility fa;
  fa.pue = 1.3;
  fa.rack_W = 40000;
  const SwitchCount net = fat_tree(32, 64, 1.0);
  const PowerInput with = power_input(dgx(), h100(), 4, 0.9, net, &f, fa);
  EXPECT_EQ(with.nodes, 4);
  EXPECT_DOUBLE_EQ(with.busy, 0.9);
  EXPECT_EQ(with.network.switches(), net.switches());
  EXPECT_DOUBLE_EQ(with.switch_W, 1500);
  EXPECT_DOUBLE_EQ(with.transceiver_W, 17);
  EXPECT_DOUBLE_EQ(with.pue, 1.3);
  EXPECT_DOUBLE_EQ(with.rack_W, 40000);
  const PowerInput without = power_input(dgx(), h100(), 4, 0.9, net, nullptr, fa);
  EXPECT_DOUBLE_EQ(without.switch_W, 0);
  EXPECT_DOUBLE_EQ(without.transceiver_W, 0);

  CostInput priced, unpriced;
  price_network(priced, &f);
  price_network(unpriced, nullptr);
  EXPECT_DOUBLE_EQ(priced.switch_usd, 30000);
  EXPECT_DOUBLE_EQ(priced.nic_usd, 1500);
  EXPECT_DOUBLE_EQ(priced.cable_usd, 400);
  EXPECT_DOUBLE_EQ(unpriced.switch_usd + unpriced.nic_usd + unpriced.cable_usd, 0);
}

PowerInput small_cluster() {
  PowerInput in;
  in.server = dgx();
  in.gpu = h100();
  in.nodes = 2;
  in.busy = 1.0;
  in.network = fat_tree(16, 64, 1.0);  // one switch, 16 cables
  in.transceiver_W = 8.5;
  in.wall_time_s = 100 * 3600.0;
  in.pue = 1.3;
  in.rack_W = 40000;
  return in;
}

TEST(Power, SmallClusterEnergyAndRacks) {
  const Power p = estimate_power(small_cluster());
  // 2 x 7,670 W + 2 x 16 cable ends x 8.5 W = 15,612 W.
  EXPECT_DOUBLE_EQ(p.network_W, 272.0);
  EXPECT_DOUBLE_EQ(p.cluster_W, 15612.0);
  // 15.612 kW x 1.3 x 100 h = 2,029.56 kWh.
  EXPECT_NEAR(p.energy_kWh, 2029.56, 1e-9);
  // 40 kW / 10.2 kW = 3 nodes per rack: 1 rack.
  EXPECT_EQ(p.nodes_per_rack, 3);
  EXPECT_EQ(p.racks, 1);
  EXPECT_FALSE(p.node_exceeds_rack);
}

TEST(Power, RackSystemComesInWholeRacks) {
  PowerInput in = small_cluster();
  in.server = *io::builtin_catalog().find_server("dgx-gb200-nvl72");
  in.gpu = *io::builtin_catalog().find_gpu("gb200");
  in.nodes = 36;  // two NVL72 racks of 18 trays
  const Power p = estimate_power(in);
  EXPECT_EQ(p.nodes_per_rack, 18);
  EXPECT_EQ(p.racks, 2);
  EXPECT_TRUE(p.node_exceeds_rack);  // 18 x 6,667 W = 120 kW > 40 kW
  in.rack_W = 135000;
  EXPECT_FALSE(estimate_power(in).node_exceeds_rack);
}

TEST(Cost, SmallClusterOwnAndCloud) {
  CostInput in;
  in.nodes = 2;
  in.gpus = 16;
  in.server_usd = 375000;
  in.network = fat_tree(16, 64, 1.0);
  in.nics = 16;
  in.cluster_W = 15612;
  in.provisioned_W = 2 * 10200 + 272;
  in.facility.pue = 1.3;
  in.facility.usd_per_kwh = 0.0826;
  in.facility.colo_usd_per_kw_month = 194.95;
  in.facility.life_years = 5;
  in.cloud_usd_per_gpu_hour = 6.155;
  in.wall_time_s = 100 * 3600.0;
  const Cost c = estimate_cost(in);
  // Network at Epoch's 19 % of the cluster: 750,000 x 0.19 / 0.81 = 175,925.93.
  EXPECT_NEAR(c.network_capex_usd, 175925.93, 0.01);
  EXPECT_FALSE(c.network_itemised);
  EXPECT_NEAR(c.capex_usd, 925925.93, 0.01);
  // Per hour: 925,925.93 / 43,830 h = 21.1254; colocation 194.95 x 20.672 kW /
  // 730.5 h = 5.5168; energy 15.612 kW x 1.3 x 0.0826 = 1.6764.
  const double amortised = 925925.93 / 43830.0, colo = 194.95 * 20.672 / 730.5,
               energy = 15.612 * 1.3 * 0.0826;
  EXPECT_NEAR(c.own_usd_per_hour, amortised + colo + energy, 1e-3);
  EXPECT_NEAR(c.own_usd, 100 * (amortised + colo + energy), 0.1);
  // Cloud: 16 x 6.155 = 98.48 $/h; 9,848 $ for 100 h.
  EXPECT_NEAR(c.cloud_usd, 9848.0, 1e-6);
  // Break-even: (21.1254 + 5.5168) / (98.48 - 1.6764) = 0.2752.
  EXPECT_NEAR(c.breakeven_utilisation, (amortised + colo) / (98.48 - energy), 1e-4);
  // Itemised network prices replace the share.
  in.switch_usd = 30000;
  in.nic_usd = 1500;
  in.cable_usd = 500;
  const Cost itemised = estimate_cost(in);
  EXPECT_TRUE(itemised.network_itemised);
  EXPECT_DOUBLE_EQ(itemised.network_capex_usd, 30000 + 16 * 1500 + 16 * 500);
}

TEST(Cost, RentingAlwaysCheaperWhenPowerCostsMoreThanTheCloud) {
  CostInput in;
  in.nodes = 1;
  in.gpus = 8;
  in.server_usd = 300000;
  in.cluster_W = 10000;
  in.facility.usd_per_kwh = 10;   // absurd power price: 100 $/h
  in.cloud_usd_per_gpu_hour = 1;  // 8 $/h
  EXPECT_GT(estimate_cost(in).breakeven_utilisation, 1.0);
}

}  // namespace
}  // namespace scaleout
