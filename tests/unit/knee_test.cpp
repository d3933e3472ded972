// The knee of the frontier (search/knee.cpp): per hardware option, the
// fastest point whose GPU-hours are within 10 % of the option's least.
#include "search/knee.hpp"

#include <gtest/gtest.h>

namespace scaleout {
namespace {

// A frontier point of `gpus` GPUs that trains in `hours`.
PlanCandidate point(int hardware, int nodes, int gpus, double hours) {
  PlanCandidate c;
  c.hardware = hardware;
  c.nodes = nodes;
  c.layout.dp = gpus;  // gpus() = tp x pp x dp x cp
  c.time_to_train_s = hours * 3600.0;
  return c;
}

TEST(Knee, FastestPointWithinTheGpuHourPremium) {
  // GPU-hours: 8 x 100 = 800 (least), 16 x 52 = 832 (+4 %), 32 x 27 = 864
  // (+8 %), 64 x 15 = 960 (+20 %). Within 10 %: 1, 2 and 4 nodes; the
  // fastest of them is 4 nodes.
  const std::vector<PlanCandidate> f = {point(0, 1, 8, 100), point(0, 2, 16, 52),
                                        point(0, 4, 32, 27), point(0, 8, 64, 15)};
  EXPECT_EQ(frontier_knees(f), (std::vector<bool>{false, false, true, false}));
  // With a 25 % premium, 960 <= 1000 GPU-hours: 8 nodes is the knee.
  EXPECT_EQ(frontier_knees(f, 0.25), (std::vector<bool>{false, false, false, true}));
}

TEST(Knee, PerfectScalingPutsTheKneeAtTheLargestCount) {
  // 800 GPU-hours at every count: nothing costs a premium, so the fastest wins.
  const std::vector<PlanCandidate> f = {point(0, 1, 8, 100), point(0, 2, 16, 50),
                                        point(0, 4, 32, 25)};
  EXPECT_EQ(frontier_knees(f), (std::vector<bool>{false, false, true}));
}

TEST(Knee, TheLeastGpuHoursNeedNotBeTheSmallestCount) {
  // 8 x 100 = 800, 16 x 40 = 640 (least; super-linear), 32 x 22 = 704
  // (+10 % exactly: in), 64 x 12 = 768 (+20 %): the knee is 4 nodes.
  const std::vector<PlanCandidate> f = {point(0, 1, 8, 100), point(0, 2, 16, 40),
                                        point(0, 4, 32, 22), point(0, 8, 64, 12)};
  EXPECT_EQ(frontier_knees(f), (std::vector<bool>{false, false, true, false}));
}

TEST(Knee, OnePerHardwareOption) {
  // Option 0: 800, 1600 GPU-hours -> knee at 1 node. Option 1: 800, 832 ->
  // knee at 2 nodes. A lone point is its option's knee.
  const std::vector<PlanCandidate> f = {point(0, 1, 8, 100), point(0, 2, 16, 100),
                                        point(1, 1, 8, 100), point(1, 2, 16, 52),
                                        point(2, 3, 24, 10)};
  EXPECT_EQ(frontier_knees(f), (std::vector<bool>{true, false, false, true, true}));
  EXPECT_TRUE(frontier_knees({}).empty());
}

TEST(Knee, ATieOfTimesGoesToFewerNodes) {
  // Same time, 8 x 10 = 80 and 16 x 10 = 160 GPU-hours with premium 1.0:
  // both qualify, fewer nodes wins.
  const std::vector<PlanCandidate> f = {point(0, 1, 8, 10), point(0, 2, 16, 10)};
  EXPECT_EQ(frontier_knees(f, 1.0), (std::vector<bool>{true, false}));
}

}  // namespace
}  // namespace scaleout
