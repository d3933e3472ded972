// Where a parallel group's ranks sit on the cluster, and what its collectives
// cost there: NVSwitch/PCIe inside a node, the GPU's own NIC rail between
// nodes, hierarchical algorithms when a group spans both (docs/model.md,
// "Communication").
#pragma once

#include "hw/hardware.hpp"
#include "network/collectives.hpp"

namespace scaleout {

// Named constants of the network model, with their sources in docs/model.md.
struct NetworkConstants {
  // Large-message ring bus bandwidth as a share of the one-way link rate:
  // 8xA100 234.9/300 = 78 %, 8xH200 367.6/450 = 82 % (ml-engineering network
  // benchmarks, hardware-facts.md 3e): 0.80.
  double intra_node_efficiency = 0.80;
  // PCIe between GPUs without peer-to-peer (GeForce, Gpu::peer_to_peer
  // false): NCCL's SHM transport writes into and reads from pinned host
  // memory, every byte crossing the host link twice and the CPU's memory,
  // which handles the two directions at once poorly. All-gather and
  // reduce-scatter bus bandwidth 3.17 GB/s on a PCIe Gen3 x16 link
  // (15.75 GB/s one way), 2 GPUs, NCCL_P2P_DISABLE=1 (NVIDIA/nccl issue 384,
  // with the maintainer's reply): 0.20 of the one-way link.
  double host_staged_efficiency = 0.20;
  // Inter-node all-reduce bus bandwidth per NIC: InfiniBand NDR 46-48 of 50 GB/s
  // (NCCL maintainer, nccl-tests #290): 0.92; AWS EFAv4 36.95 of 50 GB/s
  // (ml-engineering): 0.74; RoCE is taken between the two (0.85, an assumption
  // until a measurement is in the catalog); Omni-Path and plain Ethernet 0.7.
  double ib_efficiency = 0.92;
  double roce_efficiency = 0.85;
  double efa_efficiency = 0.74;
  double other_efficiency = 0.70;
  // NCCL hwLat per ring step, Simple protocol (tuning.cc): NVLink 3.4 us,
  // PCIe 5.7 us, network 9.6 us.
  double nvlink_hop_s = 3.4e-6;
  double pcie_hop_s = 5.7e-6;
  double net_hop_s = 9.6e-6;
  // NCCL hwLat per tree hop, Simple protocol, same releases (v2.14-v2.17,
  // tuning.cc): 28 us on NVLink, PCIe and the network alike.
  double tree_hop_s = 28e-6;
};

// The links of one cluster, resolved once.
struct ClusterLinks {
  int gpus_per_node = 8;
  // GPUs joined by one NVLink domain: the node, or more where the fabric
  // spans chassis (72 in a GB200 NVL72 rack). Groups inside it use `intra`.
  int gpus_per_domain = 8;
  int nodes = 1;
  LinkLevel intra;  // inside a node (NVSwitch / NVLink / xGMI / PCIe)
  LinkLevel inter;  // between nodes, per GPU (its share of the node's NICs)
};

ClusterLinks resolve_links(const Server& server, const Gpu& gpu, const Fabric* fabric, int nodes,
                           const NetworkConstants& k = {});

// Share of the server's intra-node link rate that large NCCL collectives
// reach: `host_staged_efficiency` on PCIe without peer-to-peer (the GPU's
// `peer_to_peer` false), `intra_node_efficiency` otherwise.
double intra_node_efficiency(const Server& server, const Gpu& gpu, const NetworkConstants& k = {});

// A group of `size` ranks whose neighbours are `stride` ranks apart in the
// global rank order (Megatron: TP innermost, then CP, DP, PP outermost).
struct GroupSpan {
  int size = 1;
  int per_node = 1;  // group members on one node
  int nodes = 1;     // nodes the group spans
};

GroupSpan span_of(int size, long long stride, int gpus_per_node);

// How a collective over a group that spans several nodes is run.
enum class CrossNode {
  hierarchical,  // NCCL: a node-local stage, then every rail at once
  flat_ring,     // one ring over all ranks on the inter-node rail, no node-local
                 // stage (2021-era DeepSpeed ZeRO-3 per-tensor gathers)
};

// Time of one collective of `bytes` over the group; across nodes as `algo`
// says (hierarchical: only when several members share a node). An
// all-reduce across nodes takes NCCL's faster of ring and tree (its tuner
// picks by predicted time; docs/model.md, "Ring or tree"), except under
// flat_ring.
double collective_time_s(Collective c, double bytes, const GroupSpan& g, const ClusterLinks& l,
                         CrossNode algo = CrossNode::hierarchical);

// Ranks a token's top_k routed copies reach when the experts are spread
// evenly over `ranks` ranks and routing is balanced: each rank holds one of
// them with probability 1 - (1 - 1/ranks)^top_k (DeepEP's is_token_in_rank;
// the dispatch sends one copy per such rank). At most top_k; 1 for one rank.
double rank_copies_per_token(int ranks, int top_k);

// DeepEP's normal MoE dispatch (or combine) over an EP group that spans
// nodes (deepseek-ai/DeepEP README; DeepSeek-V3 report §3.2.2): a token
// crosses the network once per destination node, not once per expert, and
// is forwarded to its experts' GPUs over NVLink, the two stages pipelined.
// `token_bytes`: one copy of the rank's tokens; each goes to top_k experts
// (the flex dispatcher never pads to capacity).
double deduplicated_dispatch_s(double token_bytes, int top_k, const GroupSpan& g,
                               const ClusterLinks& l);

}  // namespace scaleout
