#include "network/collectives.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace scaleout {

double bus_bytes(Collective c, double bytes, int n) {
  if (n <= 1) return 0;
  const double f = static_cast<double>(n - 1) / n;
  switch (c) {
    case Collective::all_reduce:
      return 2.0 * f * bytes;
    case Collective::reduce_scatter:
    case Collective::all_gather:
    case Collective::all_to_all:
      return f * bytes;
    case Collective::send_recv:
      return bytes;
  }
  return 0;
}

double ring_time_s(Collective c, double bytes, int n, const LinkLevel& link) {
  if (n <= 1 || bytes <= 0) return 0;
  // Ring steps: all-reduce 2(n-1), reduce-scatter/all-gather n-1, all-to-all
  // and send/recv one exchange.
  double steps = 1;
  if (c == Collective::all_reduce) steps = 2.0 * (n - 1);
  if (c == Collective::reduce_scatter || c == Collective::all_gather) steps = n - 1;
  return kNcclBaseLatency_s + steps * link.hop_latency_s + bus_bytes(c, bytes, n) / link.bus_bw_Bps;
}

double nccl_tree_correction(double bytes) {
  // treeCorrectionFactor[NCCL_PROTO_SIMPLE], 64 B to 256 MiB in powers of two.
  static constexpr std::array<double, 23> kSimple = {0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.8,
                                                     0.7, 0.6, 0.6, 0.5, 0.5, 0.5, 0.5, 0.6,
                                                     0.7, 0.8, 0.7, 0.7, 0.8, 0.9, 0.9};
  const double units = std::max(1.0, std::floor(bytes / 64.0));
  const int log_size = static_cast<int>(std::floor(std::log2(units)));
  return log_size < static_cast<int>(kSimple.size()) ? kSimple[static_cast<size_t>(log_size)] : 1.0;
}

}  // namespace scaleout
