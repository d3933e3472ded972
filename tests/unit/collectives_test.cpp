#include "network/collectives.hpp"

#include <gtest/gtest.h>

namespace scaleout {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

TEST(BusBytes, RingAllReduceMovesTwiceNMinusOneOverN) {
  // 2(n-1)/n * S: n = 8 -> 1.75 S, n = 2 -> 1.0 S, n = 4 -> 1.5 S.
  EXPECT_DOUBLE_EQ(bus_bytes(Collective::all_reduce, kGiB, 8), 1.75 * kGiB);
  EXPECT_DOUBLE_EQ(bus_bytes(Collective::all_reduce, kGiB, 2), 1.0 * kGiB);
  EXPECT_DOUBLE_EQ(bus_bytes(Collective::all_reduce, 1000.0, 4), 1500.0);
}

TEST(BusBytes, ReduceScatterAndAllGatherMoveNMinusOneOverN) {
  // (n-1)/n * S: n = 8 -> 0.875 S, n = 4 -> 0.75 S.
  EXPECT_DOUBLE_EQ(bus_bytes(Collective::reduce_scatter, kGiB, 8), 0.875 * kGiB);
  EXPECT_DOUBLE_EQ(bus_bytes(Collective::all_gather, kGiB, 8), 0.875 * kGiB);
  EXPECT_DOUBLE_EQ(bus_bytes(Collective::reduce_scatter, 1000.0, 4), 750.0);
  EXPECT_DOUBLE_EQ(bus_bytes(Collective::all_gather, 1000.0, 4), 750.0);
}

TEST(BusBytes, AllToAllAndSendRecv) {
  // All-to-all keeps 1/n of the buffer local: (n-1)/n * S = 0.875 S for n = 8.
  EXPECT_DOUBLE_EQ(bus_bytes(Collective::all_to_all, kGiB, 8), 0.875 * kGiB);
  // Send/recv moves the whole buffer, whatever n (> 1).
  EXPECT_DOUBLE_EQ(bus_bytes(Collective::send_recv, kGiB, 2), kGiB);
  EXPECT_DOUBLE_EQ(bus_bytes(Collective::send_recv, kGiB, 8), kGiB);
}

TEST(BusBytes, SingleRankMovesNothing) {
  for (Collective c : {Collective::all_reduce, Collective::reduce_scatter, Collective::all_gather,
                       Collective::all_to_all, Collective::send_recv}) {
    EXPECT_DOUBLE_EQ(bus_bytes(c, kGiB, 1), 0.0);
    EXPECT_DOUBLE_EQ(bus_bytes(c, kGiB, 0), 0.0);
  }
}

// 8 ranks, 1 GiB, 240 GB/s bus bandwidth (8xA100 nccl-tests), 3.4 us per hop.
const LinkLevel kLink{240e9, 3.4e-6};

TEST(RingTime, AllReduceByHand) {
  // 8.4 us base + 2*7 steps * 3.4 us = 56 us; 1.75 * 2^30 B / 240e9 B/s = 7.82936747 ms.
  // Total 7.88536747 ms.
  const double t = ring_time_s(Collective::all_reduce, kGiB, 8, kLink);
  EXPECT_DOUBLE_EQ(t, 8.4e-6 + 14 * 3.4e-6 + 1.75 * kGiB / 240e9);
  EXPECT_NEAR(t, 7.885367467e-3, 1e-12);
}

TEST(RingTime, ReduceScatterAndAllGatherByHand) {
  // 8.4 us + 7 * 3.4 us = 32.2 us; 0.875 * 2^30 / 240e9 = 3.91468373 ms. Total 3.94688373 ms.
  for (Collective c : {Collective::reduce_scatter, Collective::all_gather}) {
    const double t = ring_time_s(c, kGiB, 8, kLink);
    EXPECT_DOUBLE_EQ(t, 8.4e-6 + 7 * 3.4e-6 + 0.875 * kGiB / 240e9);
    EXPECT_NEAR(t, 3.946883733e-3, 1e-12);
  }
}

TEST(RingTime, AllToAllAndSendRecvAreOneExchange) {
  // All-to-all: 8.4 + 3.4 = 11.8 us; 0.875 * 2^30 / 240e9 = 3.91468373 ms -> 3.92648373 ms.
  const double a2a = ring_time_s(Collective::all_to_all, kGiB, 8, kLink);
  EXPECT_DOUBLE_EQ(a2a, 8.4e-6 + 3.4e-6 + 0.875 * kGiB / 240e9);
  EXPECT_NEAR(a2a, 3.926483733e-3, 1e-12);
  // Send/recv: 11.8 us + 2^30 / 240e9 = 4.47392427 ms -> 4.48572427 ms.
  const double p2p = ring_time_s(Collective::send_recv, kGiB, 2, kLink);
  EXPECT_DOUBLE_EQ(p2p, 8.4e-6 + 3.4e-6 + kGiB / 240e9);
  EXPECT_NEAR(p2p, 4.485724267e-3, 1e-12);
}

TEST(RingTime, BaseLatencyIsNcclSimple) {
  // NCCL tuning.cc baseLat for the Simple protocol: 8.4 us.
  EXPECT_DOUBLE_EQ(kNcclBaseLatency_s, 8.4e-6);
}

TEST(RingTime, NothingToDoCostsNothing) {
  // One rank, or an empty buffer: no collective is launched.
  EXPECT_DOUBLE_EQ(ring_time_s(Collective::all_reduce, kGiB, 1, kLink), 0.0);
  EXPECT_DOUBLE_EQ(ring_time_s(Collective::all_reduce, 0.0, 8, kLink), 0.0);
}

TEST(RingTime, SmallMessagesAreLatencyBound) {
  // 8 bytes over 8 ranks: 8.4 + 14 * 3.4 = 56 us; the volume term is 14 B / 240e9 = 5.8e-11 s.
  const double t = ring_time_s(Collective::all_reduce, 8.0, 8, kLink);
  EXPECT_NEAR(t, 56e-6, 1e-9);
}

TEST(RingTime, MoreBandwidthOrFewerHopsNeverSlower) {
  for (Collective c : {Collective::all_reduce, Collective::reduce_scatter, Collective::all_gather,
                       Collective::all_to_all, Collective::send_recv}) {
    for (int n : {2, 4, 8, 64}) {
      double last = 1e300;
      for (double bw : {25e9, 50e9, 100e9, 240e9, 400e9}) {
        const double t = ring_time_s(c, kGiB, n, LinkLevel{bw, 3.4e-6});
        EXPECT_LE(t, last) << "n " << n << " bw " << bw;
        last = t;
      }
      EXPECT_LE(ring_time_s(c, kGiB, n, LinkLevel{240e9, 1e-6}),
                ring_time_s(c, kGiB, n, LinkLevel{240e9, 10e-6}));
    }
  }
}

}  // namespace
}  // namespace scaleout
