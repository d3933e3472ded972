// The English of the model's reasons (search/reason.hpp,
// inference/serving_plan.hpp): every writer (text, JSON, HTML, simulate)
// words a reason through these, so one reason reads the same everywhere.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "inference/serving_plan.hpp"
#include "search/reason.hpp"
#include "sim/mix.hpp"

namespace scaleout::report {

// A reason as one sentence: "Capacity: model state ... have 80.0 GiB." A
// single-node kind gets its heading (Capacity, Time, ...) and a full stop.
std::string sentence(const PlanReason& r);
std::string sentence(const ServingReason& r);
// The clause of a single-node kind, as in "Single node: none (CLAUSE)";
// "" for none.
std::string clause(const std::optional<PlanReason>& r);
std::string clause(const std::optional<ServingReason>& r);
// Whether a report says the reason at all. "Scaling out would finish N x
// faster" is said only when the plan it compares with takes more than
// kSpeedupWorthSayingS (a day): a few hours' job gains nothing worth a
// sentence from 254 x more nodes (docs/model.md, "Plan"). Every other reason
// is always said.
inline constexpr double kSpeedupWorthSayingS = 86400.0;
bool said(const PlanReason& r);
// Every reason of a plan that is said, in order.
std::vector<std::string> sentences(const std::vector<PlanReason>& rs);
std::vector<std::string> sentences(const std::vector<ServingReason>& rs);

// The name of a rejection as the search counts print it: "memory",
// "no scale-out network", ...
const char* rejection_name(Rejection r);
// Every rejection, in the order of their names (the order reports list them).
const std::vector<Rejection>& rejections_by_name();

// Why a job cannot run on a cluster of `cluster_gpus` GPUs: "needs 16 GPUs,
// the cluster has 8", or the planner's first reason.
std::string sizing_words(const sim::Sizing& z, long long cluster_gpus);

}  // namespace scaleout::report
