// report/reasons: which reasons are said (the "N x faster" rule).
#include "report/reasons.hpp"

#include <gtest/gtest.h>

namespace scaleout {
namespace {

PlanReason faster(double compared_s, double speedup) {
  PlanReason r{.kind = PlanReasonKind::scale_out_faster};
  r.nodes = 512;
  r.speedup = speedup;
  r.time_s = compared_s / speedup;  // the faster plan's time
  return r;
}

TEST(Reasons, SpeedupIsSaidOnlyForJobsOfMoreThanADay) {
  // A 5-hour job 254 x faster on 512 nodes: not a decision, not said.
  EXPECT_FALSE(report::said(faster(5 * 3600.0, 254)));
  // Exactly a day: not said; a day and a second: said.
  EXPECT_FALSE(report::said(faster(86400.0, 2)));
  EXPECT_TRUE(report::said(faster(86401.0, 2)));
  // 30 days, 3 x faster: said, and the sentence has the speed-up.
  const PlanReason r = faster(30 * 86400.0, 3);
  EXPECT_TRUE(report::said(r));
  EXPECT_NE(report::sentence(r).find("(3.0x faster)"), std::string::npos);
  // sentences() leaves out what is not said; other kinds are always said.
  PlanReason fit{.kind = PlanReasonKind::smallest_fit};
  fit.nodes = 1;
  EXPECT_EQ(report::sentences({fit, faster(3600.0, 10)}).size(), 1u);
  EXPECT_EQ(report::sentences({fit, faster(10 * 86400.0, 10)}).size(), 2u);
}

TEST(Reasons, IndependentReplicasAreNotMultiNode) {
  ServingReason r{.kind = ServingReasonKind::independent_replicas};
  r.nodes = 8;
  EXPECT_EQ(report::sentence(r),
            "Replicated: 8 nodes of independent one-node replicas; no inter-node fabric needed.");
}

}  // namespace
}  // namespace scaleout
