// The gang scheduler on tiny job mixes whose schedules are worked out by hand
// in the comments (times in hours), and its metrics.
#include "sim/scheduler.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace scaleout::sim {
namespace {

constexpr double kH = 3600.0;

Job job(int gpus, double duration_h, double at_h, int priority = 0) {
  return {gpus, duration_h * kH, at_h * kH, priority};
}

std::vector<double> starts_h(const Schedule& s) {
  std::vector<double> out;
  for (const JobOutcome& o : s.jobs) out.push_back(o.runs ? o.start_s / kH : -1);
  return out;
}

const Cluster kOneNode{1, 8};
const Cluster kTwoNodes{2, 8};
const SchedulerOptions kFifo{Policy::fifo, 1000};
const SchedulerOptions kBackfill{Policy::backfill, 1000};

TEST(Scheduler, StrictFifo) {
  // One 8-GPU node. A: 8 GPUs 0-10. B (4 GPUs, at 1) and C (4 GPUs, at 2)
  // both start at 10 when A ends, side by side on the node.
  const std::vector<Job> jobs = {job(8, 10, 0), job(4, 5, 1), job(4, 5, 2)};
  const Schedule s = simulate(jobs, kOneNode, kFifo);
  EXPECT_EQ(starts_h(s), (std::vector<double>{0, 10, 10}));
  const Metrics m = metrics(s, kOneNode);
  EXPECT_DOUBLE_EQ(m.wait_mean_s, (0 + 9 + 8) * kH / 3);  // waits 0, 9, 8 h
  EXPECT_DOUBLE_EQ(m.makespan_s, 15 * kH);                // 0 to 15 h
  // Busy: 8x10 + 4x5 + 4x5 = 120 GPU-h over 8 GPUs x 15 h = 120: 100 %.
  EXPECT_DOUBLE_EQ(m.utilisation, 1.0);
  EXPECT_DOUBLE_EQ(m.turnaround_mean_s, (10 + 14 + 13) * kH / 3);
}

TEST(Scheduler, StrictFifoDoesNotOvertake) {
  // A: 4 GPUs 0-10. B: 8 GPUs at 1, waits for A (10-15). C: 4 GPUs at 2 would
  // fit beside A but strict FIFO keeps it behind B: 15-20.
  const std::vector<Job> jobs = {job(4, 10, 0), job(8, 5, 1), job(4, 5, 2)};
  EXPECT_EQ(starts_h(simulate(jobs, kOneNode, kFifo)), (std::vector<double>{0, 10, 15}));
}

TEST(Scheduler, BackfillThatHelps) {
  // Same mix with EASY backfill: B's reservation is at 10 (when A ends). C
  // (4 GPUs, 5 h) fits beside A now and ends at 7 <= 10: it starts at 2.
  const std::vector<Job> jobs = {job(4, 10, 0), job(8, 5, 1), job(4, 5, 2)};
  const Schedule s = simulate(jobs, kOneNode, kBackfill);
  EXPECT_EQ(starts_h(s), (std::vector<double>{0, 10, 0 + 2}));
  EXPECT_DOUBLE_EQ(metrics(s, kOneNode).wait_mean_s, (0 + 9 + 0) * kH / 3);
}

TEST(Scheduler, BackfillMustNotDelayTheHead) {
  // C now runs 10 h: it would end at 12, after B's reservation at 10, on the
  // only node, which B needs whole. It must wait: B 10-15, C 15-25.
  const std::vector<Job> jobs = {job(4, 10, 0), job(8, 5, 1), job(4, 10, 2)};
  EXPECT_EQ(starts_h(simulate(jobs, kOneNode, kBackfill)), (std::vector<double>{0, 10, 15}));
}

TEST(Scheduler, BackfillBesideTheReservation) {
  // Two nodes. A: 8 GPUs 0-10 on node 0. B: 4 GPUs 0-20 on node 1. C (8 GPUs,
  // at 1) reserves node 0 at 10. D (4 GPUs, 30 h, at 2) outlives the
  // reservation but fits on node 1, which C does not need: it starts at 2.
  const std::vector<Job> jobs = {job(8, 10, 0), job(4, 20, 0), job(8, 5, 1), job(4, 30, 2)};
  const Schedule s = simulate(jobs, kTwoNodes, kBackfill);
  EXPECT_EQ(starts_h(s), (std::vector<double>{0, 0, 10, 2}));
  EXPECT_EQ(s.jobs[2].first_node, 0);
  EXPECT_EQ(s.jobs[3].first_node, 1);
}

TEST(Scheduler, BackfillIntoTheReservedNodesLeftover) {
  // One node. A: 6 GPUs 0-10. B: 4 GPUs at 1 needs A's GPUs: reserved at 10,
  // when 8 are free, 4 more than B needs. C (2 GPUs, 50 h, at 2) outlives the
  // reservation but fits in the 2 free GPUs and in those 4 spare at 10: it
  // starts at 2, and B still starts at 10.
  const std::vector<Job> jobs = {job(6, 10, 0), job(4, 5, 1), job(2, 50, 2)};
  EXPECT_EQ(starts_h(simulate(jobs, kOneNode, kBackfill)), (std::vector<double>{0, 10, 2}));
  // A: 4 GPUs 0-10. B: 6 GPUs at 1, reserved at 10 with 2 GPUs to spare.
  // C (4 GPUs, 50 h, at 2) fits now but would take 2 of B's GPUs: refused.
  // D (2 GPUs, 50 h, at 3) fits in the spare 2: starts at 3. B 10-15, then
  // C at 15 (8 - 2 held by D = 6 free).
  const std::vector<Job> tight = {job(4, 10, 0), job(6, 5, 1), job(4, 50, 2), job(2, 50, 3)};
  EXPECT_EQ(starts_h(simulate(tight, kOneNode, kBackfill)), (std::vector<double>{0, 10, 15, 3}));
}

TEST(Scheduler, PrioritiesAreNonPreemptive) {
  // A: 8 GPUs 0-10 (priority 0). B: 8 GPUs at 1 (priority 0). C: 8 GPUs at 2
  // (priority 5) goes ahead of B but does not stop A: C 10-15, B 15-20.
  const std::vector<Job> jobs = {job(8, 10, 0), job(8, 5, 1), job(8, 5, 2, 5)};
  EXPECT_EQ(starts_h(simulate(jobs, kOneNode, kFifo)), (std::vector<double>{0, 15, 10}));
  EXPECT_EQ(starts_h(simulate(jobs, kOneNode, kBackfill)), (std::vector<double>{0, 15, 10}));
}

TEST(Scheduler, FifoWithinAPriority) {
  // Equal priority, arrival order decides; a tie of arrival keeps input order.
  const std::vector<Job> jobs = {job(8, 1, 0), job(8, 1, 0), job(8, 1, 0)};
  EXPECT_EQ(starts_h(simulate(jobs, kOneNode, kFifo)), (std::vector<double>{0, 1, 2}));
}

TEST(Scheduler, CompletionsBeforeArrivalsAtTheSameTime) {
  // A ends at 5 exactly when B arrives: B starts at 5 with no wait.
  const std::vector<Job> jobs = {job(8, 5, 0), job(8, 1, 5)};
  const Schedule s = simulate(jobs, kOneNode, kFifo);
  EXPECT_EQ(starts_h(s), (std::vector<double>{0, 5}));
  EXPECT_DOUBLE_EQ(metrics(s, kOneNode).wait_max_s, 0);
}

TEST(Scheduler, MultiNodeJobsHoldWholeNodes) {
  // Two 8-GPU nodes. A (12 GPUs) holds both nodes, 16 GPUs, 0-10. B (1 GPU,
  // at 1) waits for it. Busy: 16 x 10 + 1 x 1 = 161 GPU-h over 16 x 11 = 176.
  const Cluster c = kTwoNodes;
  EXPECT_EQ(nodes_held(job(12, 1, 0), c), 2);
  EXPECT_EQ(nodes_held(job(8, 1, 0), c), 0);  // one node's GPUs: a one-node job
  EXPECT_EQ(gpus_held(job(12, 1, 0), c), 16);
  const std::vector<Job> jobs = {job(12, 10, 0), job(1, 1, 1)};
  const Schedule s = simulate(jobs, c, kFifo);
  EXPECT_EQ(starts_h(s), (std::vector<double>{0, 10}));
  EXPECT_DOUBLE_EQ(metrics(s, c).utilisation, 161.0 / 176.0);
}

TEST(Scheduler, BestFitKeepsAWholeNodeFree) {
  // A: 6 GPUs on node 0. B (2 GPUs) goes to node 0 (the fullest it fits on),
  // so C (8 GPUs) still finds node 1 whole.
  const std::vector<Job> jobs = {job(6, 10, 0), job(2, 10, 1), job(8, 10, 2)};
  const Schedule s = simulate(jobs, kTwoNodes, kFifo);
  EXPECT_EQ(starts_h(s), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(s.jobs[1].first_node, 0);
  EXPECT_EQ(s.jobs[2].first_node, 1);
}

TEST(Scheduler, TooBigNeverRunsAndBlocksNothing) {
  // A needs 16 GPUs on an 8-GPU cluster: never queued; B runs at once.
  const std::vector<Job> jobs = {job(16, 1, 0), job(8, 1, 0)};
  const Schedule s = simulate(jobs, kOneNode, kFifo);
  EXPECT_FALSE(s.jobs[0].runs);
  EXPECT_EQ(starts_h(s), (std::vector<double>{-1, 0}));
  const Metrics m = metrics(s, kOneNode);
  EXPECT_EQ(m.jobs_run, 1);
  EXPECT_EQ(m.jobs_unrunnable, 1);
}

TEST(Scheduler, BackfillDepthLimitsTheScan) {
  // A: 4 GPUs 0-10; B: 8 GPUs waits. C (8 GPUs) cannot backfill; D (4 GPUs,
  // 1 h) can, but with a depth of 1 only C is looked at: D then waits for B
  // (10-15) and C (15-16) and starts at 16.
  const std::vector<Job> jobs = {job(4, 10, 0), job(8, 5, 1), job(8, 1, 1), job(4, 1, 1)};
  EXPECT_EQ(starts_h(simulate(jobs, kOneNode, kBackfill))[3], 1);
  EXPECT_EQ(starts_h(simulate(jobs, kOneNode, {Policy::backfill, 1}))[3], 16);
}

TEST(Scheduler, Percentiles) {
  // Nearest rank: p50 of 1..10 is the 5th value, p90 the 9th, p99 the 10th.
  const std::vector<double> v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(percentile(v, 50), 5);
  EXPECT_EQ(percentile(v, 90), 9);
  EXPECT_EQ(percentile(v, 99), 10);
  EXPECT_EQ(percentile({}, 50), 0);
  EXPECT_EQ(percentile({7}, 1), 7);
}

TEST(Scheduler, RejectsBadInput) {
  EXPECT_THROW(simulate({job(0, 1, 0)}, kOneNode, kFifo), std::invalid_argument);
  EXPECT_THROW(simulate({job(1, 1, 0)}, {0, 8}, kFifo), std::invalid_argument);
}

}  // namespace
}  // namespace scaleout::sim
