// Alpha-beta cost of NCCL collectives (primer, "Communication"): bandwidths
// are nccl-tests bus bandwidths, latencies NCCL's own tuning constants.
// Equations and sources: docs/model.md, "Communication".
#pragma once

namespace scaleout {

enum class Collective { all_reduce, reduce_scatter, all_gather, all_to_all, send_recv };

// One level of links a collective runs over.
struct LinkLevel {
  double bus_bw_Bps = 0;     // achievable bus bandwidth per rank, one direction
  double hop_latency_s = 0;  // per ring step (NCCL hwLat)
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

}  // namespace scaleout
