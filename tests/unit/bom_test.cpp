#include "cost/bom.hpp"

#include <gtest/gtest.h>

namespace scaleout {
namespace {

Server dgx() {
  Server s;
  s.id = "dgx";
  s.gpus_per_node = 8;
  s.scaleup_domain_gpus = 8;
  s.nics_per_node = 8;
  s.nic_bw_Bps = 50e9;  // 400 Gb/s
  s.power_W = 10'000;
  return s;
}

Gpu h100() {
  Gpu g;
  g.id = "h100";
  g.tdp_W = 700;
  return g;
}

Facility site() {
  Facility f;
  f.pue = 1.25;
  f.usd_per_kwh = 0.10;
  f.colo_usd_per_kw_month = 100;
  f.rack_W = 40'000;
  f.life_years = 5;
  f.operations_share = 0.05;
  return f;
}

BomInput input(int nodes, bool scale_out) {
  BomInput in;
  in.server = dgx();
  in.gpu = h100();
  in.nodes = nodes;
  in.scale_out = scale_out;
  in.server_usd = 300'000;
  in.cloud_usd_per_gpu_hour = 4.0;
  in.facility = site();
  return in;
}

TEST(Bom, OneNodeHasNoNetwork) {
  const BillOfMaterials b = bill_of_materials(input(1, false));
  EXPECT_EQ(b.gpus, 8);
  EXPECT_EQ(b.nics, 0);
  EXPECT_EQ(b.switches.switches(), 0);
  EXPECT_EQ(b.racks, 1);  // 40 kW rack / 10 kW node: 4 per rack
  EXPECT_EQ(b.nodes_per_rack, 4);
  EXPECT_DOUBLE_EQ(b.cost.capex_usd, 300'000);
  // 10 kW provisioned x PUE 1.25 = 12.5 kW of facility power, 2.5 kW of it cooling.
  EXPECT_DOUBLE_EQ(b.provisioned_W, 10'000);
  EXPECT_DOUBLE_EQ(b.facility_W, 12'500);
  EXPECT_DOUBLE_EQ(b.cooling_W, 2'500);
}

TEST(Bom, FatTreeFromTheFabric) {
  BomInput in = input(32, true);
  Fabric f;
  f.id = "ib";
  f.port_bw_Bps = 50e9;
  f.switch_ports = 64;
  f.oversubscription = 1.0;
  f.transceiver_W = 15;
  in.fabric = f;
  const BillOfMaterials b = bill_of_materials(in);
  // 32 nodes x 8 NICs = 256 ports; 64-port leaves give 32 down: 8 leaves,
  // 8 x 32 uplinks / 64 = 4 spines; cables 256 + 256; two transceivers each.
  EXPECT_EQ(b.nics, 256);
  EXPECT_EQ(b.switches.leaves, 8);
  EXPECT_EQ(b.switches.spines, 4);
  EXPECT_EQ(b.transceivers, 2 * 512);
  EXPECT_EQ(b.racks, 8);  // 4 nodes per 40 kW rack
  EXPECT_FALSE(b.nic_capped);
}

TEST(Bom, OversubscriptionNeedsFewerSpines) {
  BomInput in = input(32, true);
  Fabric f;
  f.switch_ports = 64;
  f.oversubscription = 3.0;  // 48 down, 16 up
  in.fabric = f;
  const BillOfMaterials b = bill_of_materials(in);
  EXPECT_EQ(b.switches.leaves, 6);  // ceil(256 / 48)
  EXPECT_EQ(b.switches.spines, 2);  // ceil(6 x 16 / 64)
}

TEST(Bom, FabricFasterThanTheNicsIsCapped) {
  BomInput in = input(2, true);
  in.server.nic_bw_Bps = 1.25e9;  // 10 GbE
  Fabric f;
  f.id = "roce-400";
  f.port_bw_Bps = 50e9;
  in.fabric = f;
  const BillOfMaterials b = bill_of_materials(in);
  EXPECT_TRUE(b.nic_capped);
  EXPECT_DOUBLE_EQ(b.nic_Bps, 1.25e9);
}

TEST(Bom, YearlyCostIsTheHourlyCostTimesAYear) {
  const BillOfMaterials b = bill_of_materials(input(4, false));
  // 4 x $300k = $1.2M; depreciation 240k/y, operations 60k/y,
  // colocation 40 kW x $100 x 12 = 48k/y.
  EXPECT_DOUBLE_EQ(b.depreciation_usd_per_year, 240'000);
  EXPECT_DOUBLE_EQ(b.operations_usd_per_year, 60'000);
  EXPECT_DOUBLE_EQ(b.colocation_usd_per_year, 48'000);
  EXPECT_NEAR(b.own_usd_per_year, b.cost.own_usd_per_hour * kBomHoursPerYear, 1e-6);
  // 32 GPUs x $4 x 8,766 h.
  EXPECT_DOUBLE_EQ(b.cloud_usd_per_year, 32 * 4.0 * 8766);
}

TEST(Bom, ReservedPricesWithTheirBreakEven) {
  BomInput in = input(1, false);
  auto price = [](const char* gpu, double usd, const char* pricing) {
    CloudPrice p;
    p.gpu_id = gpu;
    p.usd_per_gpu_hour = usd;
    p.pricing = pricing;
    return p;
  };
  const CloudPrice od = price("h100", 4.0, "on-demand");
  const CloudPrice r1 = price("h100", 3.0, "reserved");
  const CloudPrice spot = price("h100", 1.0, "spot");
  const CloudPrice other = price("a100", 1.0, "reserved");
  in.prices = {od, r1, spot, other};
  const BillOfMaterials b = bill_of_materials(in);
  ASSERT_EQ(b.commitments.size(), 1u);
  EXPECT_DOUBLE_EQ(b.commitments[0].breakeven_vs_cloud, 0.75);  // 3 / 4
  EXPECT_DOUBLE_EQ(b.commitments[0].usd_per_year, 8 * 3.0 * 8766);
}

TEST(Bom, UnpricedServerHasNoOwnCost) {
  BomInput in = input(2, false);
  in.server_usd = 0;
  const BillOfMaterials b = bill_of_materials(in);
  EXPECT_FALSE(b.cost.own_priced);
  EXPECT_EQ(b.own_usd_per_year, 0);
}

}  // namespace
}  // namespace scaleout
