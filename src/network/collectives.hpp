// Alpha-beta cost of NCCL collectives (primer, "Communication"): bandwidths
// are nccl-tests bus bandwidths, latencies NCCL's own tuning constants.
// Equations and sources: docs/model.md, "Communication".
#pragma once

namespace scaleout {

enum class Collective { all_reduce, reduce_scatter, all_gather, all_to_all, send_recv };

// One level of links a collective runs over.
struct LinkLevel {
  double bus_bw_Bps = 0;          // achievable bus bandwidth per rank, one direction
  double hop_latency_s = 0;       // per ring step (NCCL hwLat)
  double tree_hop_latency_s = 0;  // per tree hop (NCCL hwLat, Tree); 0: no tree
};

// Time of one collective of `bytes` (the full buffer each rank holds: the
// all-reduce input, the all-gather output, the reduce-scatter input) over a
// flat ring of n ranks: base latency + steps * hop latency + volume / bus bandwidth.
double ring_time_s(Collective c, double bytes, int n, const LinkLevel& link);

// Bytes each rank moves for the collective, in bus-bandwidth terms:
// all-reduce 2(n-1)/n * S, reduce-scatter and all-gather (n-1)/n * S,
// all-to-all (n-1)/n * S, send/recv S.
double bus_bytes(Collective c, double bytes, int n);

// NCCL's base latency of one collective (tuning.cc baseLat, Simple protocol).
inline constexpr double kNcclBaseLatency_s = 8.4e-6;

// NCCL's tree all-reduce (tuning.cc, Simple protocol, v2.14-v2.17, the
// releases of the ring constants above; NVIDIA/nccl c4e2aa6c
// src/graph/tuning.cc): bus bandwidth 0.92 of the graph's (`busBw * .92`),
// base latency 0, and NCCL's static correction of the tree's bandwidth for
// medium sizes (`treeCorrectionFactor`, Simple row, by log2(bytes / 64); 1
// from 512 MiB). docs/model.md, "Ring or tree".
inline constexpr double kNcclTreeBwFactor = 0.92;
double nccl_tree_correction(double bytes);

}  // namespace scaleout
