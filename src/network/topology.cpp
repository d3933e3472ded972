#include "network/topology.hpp"

#include <algorithm>
#include <cmath>

namespace scaleout {

double intra_node_efficiency(const Server& s, const Gpu& gpu, const NetworkConstants& k) {
  // GPUs on PCIe without peer-to-peer stage every transfer through host memory.
  const bool host_staged = s.intra_node == IntraNodeKind::pcie && !gpu.peer_to_peer;
  return host_staged ? k.host_staged_efficiency : k.intra_node_efficiency;
}

ClusterLinks resolve_links(const Server& s, const Gpu& gpu, const Fabric* fabric, int nodes,
                           const NetworkConstants& k) {
  ClusterLinks l;
  l.gpus_per_node = s.gpus_per_node;
  // A switched NVLink domain may span several chassis (NVL72: 18 trays of 4).
  l.gpus_per_domain = domain_gpus(s);
  l.nodes = nodes;
  double intra_bw = s.intra_node_bw_Bps > 0 ? s.intra_node_bw_Bps : gpu.scaleup_bw_Bps;
  if (intra_bw <= 0) intra_bw = gpu.host_link_Bps;
  l.intra.bus_bw_Bps = intra_bw * intra_node_efficiency(s, gpu, k);
  l.intra.hop_latency_s = s.intra_node == IntraNodeKind::pcie ? k.pcie_hop_s : k.nvlink_hop_s;
  l.intra.tree_hop_latency_s = k.tree_hop_s;

  // Each GPU drives its share of the node's NICs (one rail per GPU on DGX-class
  // nodes); a slower fabric port caps the NIC; oversubscription divides it.
  double nic = s.nic_bw_Bps;
  FabricKind kind = FabricKind::ib;
  double oversubscription = 1.0;
  if (fabric) {
    nic = std::min(nic, fabric->port_bw_Bps);
    kind = fabric->kind;
    oversubscription = fabric->oversubscription;
  }
  const double eff = kind == FabricKind::ib     ? k.ib_efficiency
                     : kind == FabricKind::roce ? k.roce_efficiency
                     : kind == FabricKind::efa  ? k.efa_efficiency
                                                : k.other_efficiency;
  const double per_gpu = s.nics_per_node * nic / std::max(1, s.gpus_per_node);
  l.inter.bus_bw_Bps = per_gpu * eff / oversubscription;
  l.inter.hop_latency_s = k.net_hop_s + (fabric ? fabric->latency_s : 0.0);
  l.inter.tree_hop_latency_s = k.tree_hop_s + (fabric ? fabric->latency_s : 0.0);
  return l;
}

GroupSpan span_of(int size, long long stride, int gpus_per_node) {
  GroupSpan g;
  g.size = size;
  if (size <= 1) return g;
  if (stride >= gpus_per_node) {
    g.per_node = 1;
  } else {
    g.per_node = static_cast<int>(std::min<long long>(size, gpus_per_node / stride));
  }
  g.nodes = (size + g.per_node - 1) / g.per_node;
  return g;
}

namespace {

// NCCL's tree all-reduce across nodes (tuning.cc, Simple protocol): a chain
// through the node's members and a double binary tree over the nodes, up and
// down, each hop at the tree's latency (2 ((g - 1) intra + floor(log2 N)
// inter) hops, base latency 0), moving what the ring moves at 0.92 of its bus
// bandwidth and NCCL's medium-size correction. `ring_bus_s`: the ring's
// bandwidth time for the same buffer.
double tree_all_reduce_s(double bytes, const GroupSpan& g, const ClusterLinks& l,
                         double ring_bus_s) {
  const double levels = std::floor(std::log2(static_cast<double>(g.nodes)));
  const double latency =
      2.0 * ((g.per_node - 1) * l.intra.tree_hop_latency_s + levels * l.inter.tree_hop_latency_s);
  return latency + ring_bus_s / (kNcclTreeBwFactor * nccl_tree_correction(bytes));
}

}  // namespace

double collective_time_s(Collective c, double bytes, const GroupSpan& g, const ClusterLinks& l,
                         CrossNode algo) {
  if (g.size <= 1 || bytes <= 0) return 0;
  if (g.nodes <= 1) return ring_time_s(c, bytes, g.size, l.intra);
  if (l.inter.bus_bw_Bps <= 0) return 1e30;  // no scale-out network: unusable
  const bool tree = c == Collective::all_reduce && algo == CrossNode::hierarchical &&
                    l.inter.tree_hop_latency_s > 0;
  if (g.per_node <= 1 || algo == CrossNode::flat_ring) {
    const double ring = ring_time_s(c, bytes, g.size, l.inter);
    if (!tree) return ring;
    const double bus = bus_bytes(c, bytes, g.size) / l.inter.bus_bw_Bps;
    return std::min(ring, tree_all_reduce_s(bytes, g, l, bus));
  }
  switch (c) {
    case Collective::all_reduce: {
      // NCCL hierarchy: reduce-scatter in the node, all-reduce of 1/g of the
      // data across nodes on every rail at once, all-gather in the node.
      const double slice = bytes / g.per_node;
      const double ring = ring_time_s(Collective::reduce_scatter, bytes, g.per_node, l.intra) +
                          ring_time_s(Collective::all_reduce, slice, g.nodes, l.inter) +
                          ring_time_s(Collective::all_gather, bytes, g.per_node, l.intra);
      if (!tree) return ring;
      const double bus = (bus_bytes(Collective::reduce_scatter, bytes, g.per_node) +
                          bus_bytes(Collective::all_gather, bytes, g.per_node)) /
                             l.intra.bus_bw_Bps +
                         bus_bytes(Collective::all_reduce, slice, g.nodes) / l.inter.bus_bw_Bps;
      return std::min(ring, tree_all_reduce_s(bytes, g, l, bus));
    }
    case Collective::reduce_scatter:
    case Collective::all_gather:
      return ring_time_s(c, bytes, g.per_node, l.intra) +
             ring_time_s(c, bytes / g.per_node, g.nodes, l.inter);
    case Collective::all_to_all: {
      // (n - g)/n of each rank's data leaves the node over its rail.
      const double n = g.size;
      const double out_bytes = bytes * (n - g.per_node) / n;
      const double in_bytes = bytes * (g.per_node - 1) / n;
      return kNcclBaseLatency_s + l.inter.hop_latency_s + out_bytes / l.inter.bus_bw_Bps +
             in_bytes / l.intra.bus_bw_Bps;
    }
    case Collective::send_recv:
      return ring_time_s(c, bytes, 2, l.inter);
  }
  return 0;
}

double rank_copies_per_token(int ranks, int top_k) {
  if (ranks <= 1) return 1.0;
  const double n = ranks;
  return n * (1.0 - std::pow(1.0 - 1.0 / n, top_k));
}

// With routing balanced over the group's N nodes, a token's k experts hit a
// given node with probability 1 - (1 - 1/N)^k: (N - 1) of those are remote.
double deduplicated_dispatch_s(double token_bytes, int top_k, const GroupSpan& g,
                               const ClusterLinks& l) {
  const double n = g.nodes;
  const double remote = (n - 1.0) * (1.0 - std::pow(1.0 - 1.0 / n, top_k));
  const double rdma = token_bytes * remote;
  const double per_node = g.per_node;
  const double nvlink = token_bytes * top_k * (per_node - 1.0) / per_node;
  return kNcclBaseLatency_s + l.inter.hop_latency_s +
         std::max(rdma / l.inter.bus_bw_Bps, nvlink / l.intra.bus_bw_Bps);
}

}  // namespace scaleout
