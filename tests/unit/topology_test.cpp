#include "network/topology.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "io/catalog_reader.hpp"

namespace scaleout {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

const Server& server(const char* id) { return *io::builtin_catalog().find_server(id); }
const Gpu& gpu_of(const Server& s) { return *io::builtin_catalog().find_gpu(s.gpu_id); }
const Fabric* fabric(const char* id) { return io::builtin_catalog().find_fabric(id); }

void expect_span(const GroupSpan& g, int size, int per_node, int nodes) {
  EXPECT_EQ(g.size, size);
  EXPECT_EQ(g.per_node, per_node);
  EXPECT_EQ(g.nodes, nodes);
}

TEST(SpanOf, TensorParallelStrideOneStaysInTheNode) {
  // TP 8 on 8-GPU nodes: all 8 on one node; TP 4: 4 on one node.
  expect_span(span_of(8, 1, 8), 8, 8, 1);
  expect_span(span_of(4, 1, 8), 4, 4, 1);
  expect_span(span_of(2, 1, 8), 2, 2, 1);
}

TEST(SpanOf, DataParallelStrideEightIsOnePerNode) {
  // DP 16 with TP 8 inside each node: neighbours 8 ranks apart, one per node, 16 nodes.
  expect_span(span_of(16, 8, 8), 16, 1, 16);
  // Strides beyond the node (TP 8 x CP 2 = 16) are one per node as well.
  expect_span(span_of(4, 16, 8), 4, 1, 4);
}

TEST(SpanOf, StrideTwoPutsFourOnANode) {
  // 8/2 = 4 members per node: DP 8 with TP 2 spans 2 nodes, DP 4 fits in one.
  expect_span(span_of(8, 2, 8), 8, 4, 2);
  expect_span(span_of(4, 2, 8), 4, 4, 1);
  expect_span(span_of(2, 2, 8), 2, 2, 1);
}

TEST(SpanOf, GroupsLargerThanANode) {
  // 64 ranks of stride 1: 8 per node on 64/8 = 8 nodes.
  expect_span(span_of(64, 1, 8), 64, 8, 8);
  // 32 ranks of stride 2: 4 per node on 8 nodes.
  expect_span(span_of(32, 2, 8), 32, 4, 8);
  // 12 ranks of stride 1: 8 + 4, ceil(12/8) = 2 nodes.
  expect_span(span_of(12, 1, 8), 12, 8, 2);
}

TEST(SpanOf, SingleRankIsTrivial) { expect_span(span_of(1, 8, 8), 1, 1, 1); }

TEST(ResolveLinks, DgxH100WithoutFabric) {
  // Intra: 450 GB/s NVSwitch x 0.80 = 360 GB/s, NVLink hop 3.4 us.
  // Inter: 8 NICs x 400 Gb/s (50 GB/s) / 8 GPUs x 0.92 (IB default) = 46 GB/s, hop 9.6 us.
  const ClusterLinks l = resolve_links(server("dgx-h100"), gpu_of(server("dgx-h100")), nullptr, 4);
  EXPECT_EQ(l.gpus_per_node, 8);
  EXPECT_EQ(l.nodes, 4);
  EXPECT_DOUBLE_EQ(l.intra.bus_bw_Bps, 360e9);
  EXPECT_DOUBLE_EQ(l.intra.hop_latency_s, 3.4e-6);
  EXPECT_DOUBLE_EQ(l.inter.bus_bw_Bps, 46e9);
  EXPECT_DOUBLE_EQ(l.inter.hop_latency_s, 9.6e-6);
}

TEST(ResolveLinks, PcieWithoutPeerToPeerIsStagedThroughHostMemory) {
  // GeForce RTX 4090 workstation: 32 GB/s PCIe Gen4 x16, no peer-to-peer:
  // NCCL's SHM transport at 0.20 of the link = 6.4 GB/s, PCIe hop latency.
  const Server& ws = server("workstation-4x-rtx-4090");
  const Gpu& rtx = gpu_of(ws);
  EXPECT_FALSE(rtx.peer_to_peer);
  const ClusterLinks l = resolve_links(ws, rtx, nullptr, 1);
  EXPECT_DOUBLE_EQ(l.intra.bus_bw_Bps, 32e9 * NetworkConstants{}.host_staged_efficiency);
  EXPECT_DOUBLE_EQ(l.intra.bus_bw_Bps, 6.4e9);
  EXPECT_DOUBLE_EQ(l.intra.hop_latency_s, 5.7e-6);
  EXPECT_DOUBLE_EQ(intra_node_efficiency(ws, rtx), 0.20);
  // The same PCIe link with peer-to-peer (L40S, a data-centre card): 0.80.
  const Server& l40s = server("smc-as-4125gs-tnrt-l40s");
  EXPECT_TRUE(gpu_of(l40s).peer_to_peer);
  EXPECT_DOUBLE_EQ(resolve_links(l40s, gpu_of(l40s), nullptr, 1).intra.bus_bw_Bps, 25.6e9);
  // Peer-to-peer matters only on PCIe: the same GPU behind NVSwitch keeps 0.80.
  Server nv = ws;
  nv.intra_node = IntraNodeKind::nvswitch;
  EXPECT_DOUBLE_EQ(resolve_links(nv, rtx, nullptr, 1).intra.bus_bw_Bps, 25.6e9);
  // A collective over the two GPUs of a 3090 pair takes 4x the peer-to-peer time.
  Gpu p2p = rtx;
  p2p.peer_to_peer = true;
  const GroupSpan g = span_of(2, 1, 4);
  const double staged = collective_time_s(Collective::all_gather, 1e9, g, l);
  const double direct =
      collective_time_s(Collective::all_gather, 1e9, g, resolve_links(ws, p2p, nullptr, 1));
  EXPECT_GT(staged, 3.9 * direct);
}

TEST(ResolveLinks, DgxH100OnIbNdr) {
  // NDR ports are 400 Gb/s like the NICs: 46 GB/s; NDR latency not published: 9.6 us.
  const ClusterLinks l =
      resolve_links(server("dgx-h100"), gpu_of(server("dgx-h100")), fabric("ib-ndr"), 4);
  EXPECT_DOUBLE_EQ(l.inter.bus_bw_Bps, 8 * 50e9 / 8 * 0.92);
  EXPECT_DOUBLE_EQ(l.inter.bus_bw_Bps, 46e9);
  EXPECT_DOUBLE_EQ(l.inter.hop_latency_s, 9.6e-6);
}

TEST(ResolveLinks, DgxA100) {
  // Intra: 300 GB/s x 0.80 = 240 GB/s. Inter: 8 x 200 Gb/s (25 GB/s) / 8 x 0.92 = 23 GB/s.
  const ClusterLinks l = resolve_links(server("dgx-a100"), gpu_of(server("dgx-a100")), nullptr, 2);
  EXPECT_DOUBLE_EQ(l.intra.bus_bw_Bps, 240e9);
  EXPECT_DOUBLE_EQ(l.inter.bus_bw_Bps, 23e9);
}

TEST(ResolveLinks, OversubscribedFatTreeHalvesTheRail) {
  // 2:1 at the leaf: 46 / 2 = 23 GB/s.
  const ClusterLinks l = resolve_links(server("dgx-h100"), gpu_of(server("dgx-h100")),
                                       fabric("ib-ndr-fat-tree-2to1"), 4);
  EXPECT_DOUBLE_EQ(l.inter.bus_bw_Bps, 50e9 * 0.92 / 2);
  EXPECT_DOUBLE_EQ(l.inter.bus_bw_Bps, 23e9);
}

TEST(ResolveLinks, RoceEfficiency) {
  // RoCE 400: 50 GB/s x 0.85 = 42.5 GB/s.
  const ClusterLinks l =
      resolve_links(server("dgx-h100"), gpu_of(server("dgx-h100")), fabric("roce-400"), 4);
  EXPECT_DOUBLE_EQ(l.inter.bus_bw_Bps, 42.5e9);
  // 2:1 RoCE fat tree: 42.5 / 2 = 21.25 GB/s.
  const ClusterLinks o = resolve_links(server("dgx-h100"), gpu_of(server("dgx-h100")),
                                       fabric("roce-400-fat-tree-2to1"), 4);
  EXPECT_DOUBLE_EQ(o.inter.bus_bw_Bps, 21.25e9);
}

TEST(ResolveLinks, SlowerFabricPortCapsTheNic) {
  // 400 Gb/s NICs on 200 Gb/s HDR ports: 25 GB/s x 0.92 = 23 GB/s; the HDR
  // switch adds 0.6 us to the 9.6 us hop: 10.2 us.
  const ClusterLinks l =
      resolve_links(server("dgx-h100"), gpu_of(server("dgx-h100")), fabric("ib-hdr"), 4);
  EXPECT_DOUBLE_EQ(l.inter.bus_bw_Bps, 23e9);
  EXPECT_DOUBLE_EQ(l.inter.hop_latency_s, 9.6e-6 + 0.6e-6);
  // RoCE 200 on the same NICs: 25 GB/s x 0.85 = 21.25 GB/s.
  const ClusterLinks r =
      resolve_links(server("dgx-h100"), gpu_of(server("dgx-h100")), fabric("roce-200"), 4);
  EXPECT_DOUBLE_EQ(r.inter.bus_bw_Bps, 21.25e9);
  // A faster port does not raise the NIC: XDR (800 Gb/s) on 400 Gb/s NICs stays 46 GB/s.
  const ClusterLinks x =
      resolve_links(server("dgx-h100"), gpu_of(server("dgx-h100")), fabric("ib-xdr"), 4);
  EXPECT_DOUBLE_EQ(x.inter.bus_bw_Bps, 46e9);
}

ClusterLinks h100_links() {
  return resolve_links(server("dgx-h100"), gpu_of(server("dgx-h100")), fabric("ib-ndr"), 8);
}

TEST(CollectiveTime, SingleNodeUsesTheIntraRing) {
  const ClusterLinks l = h100_links();
  const GroupSpan g = span_of(8, 1, 8);
  for (Collective c : {Collective::all_reduce, Collective::reduce_scatter, Collective::all_gather,
                       Collective::all_to_all}) {
    EXPECT_DOUBLE_EQ(collective_time_s(c, kGiB, g, l), ring_time_s(c, kGiB, 8, l.intra));
  }
  // All-reduce by hand: 8.4 + 14 * 3.4 = 56 us; 1.75 * 2^30 / 360e9 = 5.21957831 ms.
  EXPECT_NEAR(collective_time_s(Collective::all_reduce, kGiB, g, l), 5.275578311e-3, 1e-12);
}

TEST(CollectiveTime, HierarchicalAllReduce) {
  // 64 ranks, 8 per node on 8 nodes: intra reduce-scatter of S, inter all-reduce of
  // S/8 over the 8 nodes, intra all-gather of S.
  const ClusterLinks l = h100_links();
  const GroupSpan g = span_of(64, 1, 8);
  const double expected = ring_time_s(Collective::reduce_scatter, kGiB, 8, l.intra) +
                          ring_time_s(Collective::all_reduce, kGiB / 8, 8, l.inter) +
                          ring_time_s(Collective::all_gather, kGiB, 8, l.intra);
  EXPECT_DOUBLE_EQ(collective_time_s(Collective::all_reduce, kGiB, g, l), expected);
  // By hand: reduce-scatter 8.4 + 7*3.4 = 32.2 us + 0.875 * 2^30 / 360e9 = 2.64198916 ms;
  // inter 8.4 + 14*9.6 = 142.8 us + 1.75 * 2^27 / 46e9 = 5.24890922 ms; all-gather as the
  // reduce-scatter. Sum 10.53288753 ms.
  EXPECT_NEAR(expected, 10.532887529e-3, 1e-11);
}

TEST(CollectiveTime, HierarchicalReduceScatterAndAllGather) {
  // 32 ranks of stride 2: 4 per node on 8 nodes; intra of S, then inter of S/4.
  const ClusterLinks l = h100_links();
  const GroupSpan g = span_of(32, 2, 8);
  for (Collective c : {Collective::reduce_scatter, Collective::all_gather}) {
    EXPECT_DOUBLE_EQ(collective_time_s(c, kGiB, g, l),
                     ring_time_s(c, kGiB, 4, l.intra) + ring_time_s(c, kGiB / 4, 8, l.inter));
  }
}

TEST(CollectiveTime, OnePerNodeRunsAFlatRingOverTheRails) {
  // DP 16 of stride 8: a ring of 16 over the NICs.
  const ClusterLinks l = h100_links();
  const GroupSpan g = span_of(16, 8, 8);
  for (Collective c : {Collective::all_reduce, Collective::reduce_scatter, Collective::all_gather,
                       Collective::all_to_all}) {
    EXPECT_DOUBLE_EQ(collective_time_s(c, kGiB, g, l), ring_time_s(c, kGiB, 16, l.inter));
  }
}

TEST(CollectiveTime, FlatRingSkipsTheNodeLocalStage) {
  // 32 ranks, 4 per node on 8 nodes, as one ring of 32 over the rails
  // (DeepSpeed ZeRO-3's per-tensor gathers): every step crosses the network.
  const ClusterLinks l = h100_links();
  const GroupSpan g = span_of(32, 2, 8);
  const double flat = collective_time_s(Collective::all_gather, kGiB, g, l, CrossNode::flat_ring);
  EXPECT_DOUBLE_EQ(flat, ring_time_s(Collective::all_gather, kGiB, 32, l.inter));
  // By hand: 8.4 + 31 * 9.6 = 306 us; 31/32 * 2^30 / 46e9 = 22.6128 ms.
  EXPECT_NEAR(flat, 306e-6 + 31.0 / 32.0 * kGiB / 46e9, 1e-12);
  EXPECT_GT(flat, collective_time_s(Collective::all_gather, kGiB, g, l));
  // Inside one node, and without a network, the algorithm changes nothing.
  const GroupSpan node = span_of(8, 1, 8);
  EXPECT_DOUBLE_EQ(collective_time_s(Collective::all_gather, kGiB, node, l, CrossNode::flat_ring),
                   collective_time_s(Collective::all_gather, kGiB, node, l));
  ClusterLinks none = l;
  none.inter.bus_bw_Bps = 0;
  EXPECT_GE(collective_time_s(Collective::all_gather, kGiB, g, none, CrossNode::flat_ring), 1e29);
}

TEST(CollectiveTime, TreeCorrectionIsNcclsSimpleRow) {
  // treeCorrectionFactor, Simple protocol: 0.9 from 64 B, 0.5 at 128 KiB-1 MiB,
  // 0.9 at 256 MiB, 1 from 512 MiB (NCCL v2.14-v2.17 tuning.cc).
  EXPECT_DOUBLE_EQ(nccl_tree_correction(8), 0.9);
  EXPECT_DOUBLE_EQ(nccl_tree_correction(64), 0.9);
  EXPECT_DOUBLE_EQ(nccl_tree_correction(8 * 1024), 0.8);
  EXPECT_DOUBLE_EQ(nccl_tree_correction(128 * 1024), 0.5);
  EXPECT_DOUBLE_EQ(nccl_tree_correction(1024 * 1024 - 1), 0.5);
  EXPECT_DOUBLE_EQ(nccl_tree_correction(256.0 * 1024 * 1024), 0.9);
  EXPECT_DOUBLE_EQ(nccl_tree_correction(512.0 * 1024 * 1024), 1.0);
  EXPECT_DOUBLE_EQ(nccl_tree_correction(kGiB), 1.0);
}

TEST(CollectiveTime, LargeAllReduceOnFewNodesRunsTheRing) {
  // 1 GiB over 8 nodes: the tree's 0.92 bandwidth loses more than its
  // latency saves; the hierarchical ring of HierarchicalAllReduce stands.
  const ClusterLinks l = h100_links();
  const GroupSpan g = span_of(64, 1, 8);
  EXPECT_NEAR(collective_time_s(Collective::all_reduce, kGiB, g, l), 10.532887529e-3, 1e-11);
}

TEST(CollectiveTime, SmallAllReduceOnThousandsOfNodesRunsTheTree) {
  // 64 MiB (a gradient bucket) over 2,048 nodes, 8 per node: the ring's
  // 2 x 2047 network steps cost 39.3 ms of latency; the tree's
  // 2 (7 + 11) hops of 28 us cost 1.008 ms.
  const ClusterLinks l = h100_links();
  const double s = 64.0 * 1024 * 1024;
  const GroupSpan g = span_of(16384, 1, 8);
  ASSERT_EQ(g.nodes, 2048);
  const double bus =
      (bus_bytes(Collective::reduce_scatter, s, 8) + bus_bytes(Collective::all_gather, s, 8)) /
          l.intra.bus_bw_Bps +
      bus_bytes(Collective::all_reduce, s / 8, 2048) / l.inter.bus_bw_Bps;
  const double tree = 2.0 * (7 + 11) * 28e-6 + bus / (0.92 * 0.8);
  const double ring = ring_time_s(Collective::reduce_scatter, s, 8, l.intra) +
                      ring_time_s(Collective::all_reduce, s / 8, 2048, l.inter) +
                      ring_time_s(Collective::all_gather, s, 8, l.intra);
  EXPECT_GT(ring, 39e-3);
  EXPECT_NEAR(collective_time_s(Collective::all_reduce, s, g, l), tree, 1e-12);
  EXPECT_LT(tree, ring / 4);
  // One rank per node (DP across nodes): the tree's 2 x 11 network hops.
  const GroupSpan rails = span_of(2048, 8, 8);
  const double rail_bus = bus_bytes(Collective::all_reduce, s, 2048) / l.inter.bus_bw_Bps;
  EXPECT_NEAR(collective_time_s(Collective::all_reduce, s, rails, l),
              2.0 * 11 * 28e-6 + rail_bus / (0.92 * 0.8), 1e-12);
  // Only all-reduce has a tree, and a flat ring stays a ring.
  EXPECT_DOUBLE_EQ(collective_time_s(Collective::reduce_scatter, s, rails, l),
                   ring_time_s(Collective::reduce_scatter, s, 2048, l.inter));
  EXPECT_DOUBLE_EQ(collective_time_s(Collective::all_reduce, s, rails, l, CrossNode::flat_ring),
                   ring_time_s(Collective::all_reduce, s, 2048, l.inter));
}

TEST(CollectiveTime, TheTreeCarriesTheFabricsLatency) {
  // A fabric's per-hop latency is paid on every tree hop across nodes too.
  const Server& s = server("dgx-h100");
  ClusterLinks l = resolve_links(s, gpu_of(s), fabric("ib-ndr"), 2048);
  EXPECT_DOUBLE_EQ(l.inter.tree_hop_latency_s - 28e-6, l.inter.hop_latency_s - 9.6e-6);
  EXPECT_DOUBLE_EQ(l.intra.tree_hop_latency_s, 28e-6);
}

TEST(CollectiveTime, AllToAllAcrossNodes) {
  // 16 ranks, 8 per node on 2 nodes: 8/16 of the buffer leaves the node over the
  // rail, 7/16 stays on NVSwitch.
  const ClusterLinks l = h100_links();
  const GroupSpan g = span_of(16, 1, 8);
  const double expected = 8.4e-6 + 9.6e-6 + kGiB * 8 / 16 / 46e9 + kGiB * 7 / 16 / 360e9;
  EXPECT_DOUBLE_EQ(collective_time_s(Collective::all_to_all, kGiB, g, l), expected);
}

TEST(CollectiveTime, SendRecvAcrossNodesIsOneNetworkHop) {
  // PP stage boundary across nodes: 8.4 + 9.6 = 18 us + 2^30 / 46e9.
  const ClusterLinks l = h100_links();
  const GroupSpan g = span_of(4, 64, 8);
  EXPECT_DOUBLE_EQ(collective_time_s(Collective::send_recv, kGiB, g, l),
                   ring_time_s(Collective::send_recv, kGiB, 2, l.inter));
  EXPECT_DOUBLE_EQ(collective_time_s(Collective::send_recv, kGiB, g, l), 18e-6 + kGiB / 46e9);
}

TEST(CollectiveTime, NoNetworkMeansUnusable) {
  ClusterLinks l = h100_links();
  l.inter.bus_bw_Bps = 0;
  EXPECT_GE(collective_time_s(Collective::all_reduce, kGiB, span_of(16, 8, 8), l), 1e29);
  // Inside a node the network is not needed.
  EXPECT_LT(collective_time_s(Collective::all_reduce, kGiB, span_of(8, 1, 8), l), 1.0);
}

TEST(CollectiveTime, TrivialGroupsCostNothing) {
  const ClusterLinks l = h100_links();
  EXPECT_DOUBLE_EQ(collective_time_s(Collective::all_reduce, kGiB, span_of(1, 1, 8), l), 0.0);
  EXPECT_DOUBLE_EQ(collective_time_s(Collective::all_reduce, 0.0, span_of(64, 1, 8), l), 0.0);
}

TEST(Properties, MoreInterNodeBandwidthNeverSlowsACollective) {
  const Server& base = server("dgx-h100");
  for (Collective c : {Collective::all_reduce, Collective::reduce_scatter, Collective::all_gather,
                       Collective::all_to_all, Collective::send_recv}) {
    for (const GroupSpan& g :
         {span_of(8, 1, 8), span_of(16, 1, 8), span_of(64, 1, 8), span_of(16, 8, 8),
          span_of(32, 2, 8), span_of(8, 4, 8), span_of(128, 8, 8)}) {
      for (double bytes : {1e3, 1e6, 1e9, 1e11}) {
        double last = 1e300;
        for (double nic_gbit : {50.0, 100.0, 200.0, 400.0, 800.0, 1600.0}) {
          Server s = base;
          s.nic_bw_Bps = nic_gbit * 1e9 / 8;
          const ClusterLinks l = resolve_links(s, gpu_of(base), nullptr, 16);
          const double t = collective_time_s(c, bytes, g, l);
          EXPECT_LE(t, last) << "collective " << static_cast<int>(c) << " size " << g.size
                             << " per node " << g.per_node << " bytes " << bytes << " nic "
                             << nic_gbit;
          last = t;
        }
      }
    }
  }
}

// nccl-tests bus bandwidth of an all-reduce: 2(n-1)/n * S / time.
double all_reduce_busbw(double bytes, const GroupSpan& g, const ClusterLinks& l) {
  return 2.0 * (g.size - 1) / g.size * bytes /
         collective_time_s(Collective::all_reduce, bytes, g, l);
}

TEST(NcclTests, AllReduceSizeCurveOneH200Node) {
  // hardware-facts.md 3e: 8 x H200, default algorithm selection, busbw in GB/s
  // at 32 KiB, 1 MiB, 8 MiB, 64 MiB and 256 MiB.
  const ClusterLinks l = resolve_links(server("dgx-h200"), gpu_of(server("dgx-h200")), nullptr, 1);
  const GroupSpan g = span_of(8, 1, 8);
  const double kib = 1024.0;
  const std::vector<std::pair<double, double>> measured = {{32 * kib, 1.44},
                                                           {kib * kib, 39.93},
                                                           {8 * kib * kib, 155.53},
                                                           {64 * kib * kib, 346.51},
                                                           {256 * kib * kib, 436.15}};
  // The alpha-beta ring is within 30 % and never faster than measured: LL/LL128
  // protocols (small messages) and NVLS (256 MiB) are not modelled. By hand,
  // time = 8.4 + 14 x 3.4 = 56 us + 1.75 S / 360 GB/s, busbw = 1.75 S / time:
  // 32 KiB 1.02 (0.71 of 1.44); 1 MiB 30.0 (0.75); 8 MiB 151.7 (0.98);
  // 64 MiB 307.3 (0.89); 256 MiB 345.2 (0.79).
  for (const auto& [bytes, busbw] : measured) {
    const double ratio = all_reduce_busbw(bytes, g, l) / 1e9 / busbw;
    EXPECT_GE(ratio, 0.70) << bytes << " bytes";
    EXPECT_LE(ratio, 1.00) << bytes << " bytes";
  }
}

TEST(NcclTests, AllReduceSizeCurveFourB200Nodes) {
  // hardware-facts.md 3e: 4 x p6-b200 (EFAv4, 8 x 400G), hierarchical, busbw
  // in GB/s at 16 MiB, 256 MiB, 1 GiB and 16 GiB.
  const Server& s = server("aws-p6-b200.48xlarge");
  const ClusterLinks l = resolve_links(s, gpu_of(s), fabric("efa-v4"), 4);
  const GroupSpan g = span_of(32, 1, 8);
  const double mib = 1024.0 * 1024.0;
  const std::vector<std::pair<double, double>> measured = {
      {256 * mib, 229.09}, {kGiB, 361.99}, {16 * kGiB, 381.80}};
  // From 256 MiB up the hierarchy is within -33..+6 %: slower at 1 GiB and
  // more, where NCCL overlaps the node-local stages with the rails. By hand
  // (B200 node ring 900 x 0.8 = 720 GB/s, EFAv4 rail 50 x 0.74 = 37 GB/s):
  // RS and AG in the node 0.875 S / 720 each, all-reduce of S/8 over 4 nodes
  // 1.5 (S/8) / 37, plus 2 x 32.2 + 66 us of latency; at 16 GiB
  // 2 x 20.9 + 87.1 ms = 129.0 ms, busbw 1.9375 S / 129.0 ms = 258 GB/s
  // (0.68 of 381.8).
  for (const auto& [bytes, busbw] : measured) {
    const double ratio = all_reduce_busbw(bytes, g, l) / 1e9 / busbw;
    EXPECT_GE(ratio, 0.65) << bytes << " bytes";
    EXPECT_LE(ratio, 1.10) << bytes << " bytes";
  }
  // Known gap: at 16 MiB the model is about 2x faster than the 64.43 GB/s
  // measured (EFA's per-hop latency is not in the catalog).
  EXPECT_GT(all_reduce_busbw(16 * mib, g, l) / 1e9, 64.43);
}

}  // namespace
}  // namespace scaleout

namespace scaleout {
namespace {

// A GB200 NVL72 rack is 18 trays of 4 GPUs in one NVLink domain: a group of
// 16 GPUs over 4 trays stays on NVLink; only a group beyond 72 GPUs uses
// the NICs. A DGX H100's domain is its node.
TEST(ScaleUpDomain, Nvl72GroupsAcrossTraysStayOnNvlink) {
  const Server& rack = server("dgx-gb200-nvl72");
  const ClusterLinks l = resolve_links(rack, gpu_of(rack), fabric("ib-ndr"), 36);
  EXPECT_EQ(l.gpus_per_node, 4);
  EXPECT_EQ(l.gpus_per_domain, 72);
  const GroupSpan sixteen = span_of(16, 1, l.gpus_per_domain);
  EXPECT_EQ(sixteen.nodes, 1);
  const double bytes = 256e6;
  EXPECT_DOUBLE_EQ(collective_time_s(Collective::all_reduce, bytes, sixteen, l),
                   ring_time_s(Collective::all_reduce, bytes, 16, l.intra));
  EXPECT_EQ(span_of(144, 1, l.gpus_per_domain).nodes, 2);  // two racks: the NICs join them
  const Server& dgx = server("dgx-h100");
  EXPECT_EQ(resolve_links(dgx, gpu_of(dgx), fabric("ib-ndr"), 4).gpus_per_domain, 8);
}

}  // namespace
}  // namespace scaleout

namespace scaleout {
namespace {

// DeepEP sends a token across the network once per destination node: for 8
// experts over 8 nodes, (8 - 1)(1 - (7/8)^8) = 4.6 remote copies, where the
// plain all-to-all sends 8 x 7/8 = 7.
TEST(DeduplicatedDispatch, SendsOneNetworkCopyPerDestinationNode) {
  const Server& dgx = server("dgx-h100");
  const ClusterLinks l = resolve_links(dgx, gpu_of(dgx), fabric("ib-ndr"), 8);
  const GroupSpan ep = span_of(64, 1, l.gpus_per_domain);
  const double token_bytes = 4096 * 7168 * 2.0;
  const double remote = 7.0 * (1.0 - std::pow(7.0 / 8.0, 8));
  const double expected = kNcclBaseLatency_s + l.inter.hop_latency_s +
                          std::max(token_bytes * remote / l.inter.bus_bw_Bps,
                                   token_bytes * 8 * 7.0 / 8.0 / l.intra.bus_bw_Bps);
  EXPECT_DOUBLE_EQ(deduplicated_dispatch_s(token_bytes, 8, ep, l), expected);
  EXPECT_LT(expected, collective_time_s(Collective::all_to_all, token_bytes * 8, ep, l));
}

}  // namespace
}  // namespace scaleout

namespace scaleout {
namespace {

// Within a node DeepEP and HybridEP send a token once to every rank holding
// one of its experts: 8 x (1 - (7/8)^8) = 5.25 ranks for 8 experts over 8
// ranks, against the 8 routed copies of the all-to-all dispatcher; never more
// than top_k, and one rank gets one copy.
TEST(RankCopiesPerToken, CountsTheRanksATokenReaches) {
  EXPECT_NEAR(rank_copies_per_token(8, 8), 8.0 * (1.0 - std::pow(7.0 / 8.0, 8)), 1e-12);
  EXPECT_NEAR(rank_copies_per_token(8, 8), 5.25, 0.01);
  EXPECT_NEAR(rank_copies_per_token(8, 4), 3.31, 0.01);
  EXPECT_DOUBLE_EQ(rank_copies_per_token(1, 8), 1.0);
  for (int ranks : {2, 4, 8, 16, 32, 64, 256}) {
    for (int k : {1, 2, 4, 8}) {
      EXPECT_LE(rank_copies_per_token(ranks, k), k + 1e-12);
      EXPECT_GT(rank_copies_per_token(ranks, k), 0.0);
    }
  }
  EXPECT_NEAR(rank_copies_per_token(64, 1), 1.0, 1e-12);
}

}  // namespace
}  // namespace scaleout
