#include "perf/intervals.hpp"

#include <cmath>
#include <string_view>

namespace scaleout {

const char* to_string(IntervalMetric m) {
  switch (m) {
    case IntervalMetric::memory:
      return "memory";
    case IntervalMetric::run:
      return "run";
    default:
      return "time";
  }
}

const char* to_string(IntervalTask t) {
  switch (t) {
    case IntervalTask::finetune:
      return "finetune";
    case IntervalTask::serving:
      return "serving";
    default:
      return "pretrain";
  }
}

const char* to_string(ScaleBand s) {
  switch (s) {
    case ScaleBand::up_to_64:
      return "le64";
    case ScaleBand::over_64:
      return "gt64";
    default:
      return "1-domain";
  }
}

ScaleBand scale_band(long long gpus, long long domain_gpus) {
  if (gpus <= domain_gpus || gpus <= 1) return ScaleBand::one_domain;
  return gpus <= 64 ? ScaleBand::up_to_64 : ScaleBand::over_64;
}

std::string regime_name(const RegimeKey& k) {
  return std::string(to_string(k.metric)) + "/" + (k.family.empty() ? "none" : k.family) + "/" +
         (k.framework.empty() ? "other" : k.framework) + "/" + to_string(k.task) + "/" +
         (k.moe ? "moe" : "dense") + "/" + to_string(k.scale);
}

namespace {

const IntervalEntry* find(std::string_view metric, std::string_view family,
                          std::string_view framework, std::string_view task, std::string_view moe,
                          std::string_view scale) {
  for (const IntervalEntry& e : interval_table()) {
    if (e.metric == metric && e.family == family && e.framework == framework && e.task == task &&
        e.moe == moe && e.scale == scale && e.rows >= kMinIntervalRows) {
      return &e;
    }
  }
  return nullptr;
}

}  // namespace

PredictionInterval prediction_interval(const RegimeKey& k) {
  const std::string metric = to_string(k.metric), task = to_string(k.task);
  const std::string family = k.family.empty() ? "none" : k.family;
  const std::string moe = k.moe ? "moe" : "dense", scale = to_string(k.scale);
  const std::string framework = k.framework.empty() ? "other" : k.framework;
  const IntervalEntry* e = nullptr;
  // An MoE regime takes the MoE regime of every framework before MoE and
  // dense are pooled: an MoE step errs unlike a dense one more than one
  // framework's unlike another's.
  auto chain = [&](const std::string& m) {
    for (const std::string& fw : {framework, std::string("*")}) {
      if (!e) e = find(m, family, fw, task, moe, scale);
      if (!e) e = find(m, family, fw, task, moe, "*");
      if (!e && k.moe && fw != "*") e = find(m, family, "*", task, moe, scale);
      if (!e && k.moe && fw != "*") e = find(m, family, "*", task, moe, "*");
      if (!e) e = find(m, family, fw, task, "*", "*");
      if (!e && k.task != IntervalTask::serving) e = find(m, family, fw, "training", "*", "*");
    }
  };
  chain(metric);
  // A whole run is steps x the step time plus documented overheads
  // (docs/model.md "Whole runs"). With no whole-run regime of its family,
  // every family's runs pooled: a run errs mostly by what it adds to its
  // steps (restarts, evaluation, ramp-up, what the published figure counts),
  // not by its GPU; but only for a family with a validated step regime (else
  // unvalidated). Without that pool, the step-time regime of the same key
  // (scripts/fit_intervals.py lookup, RUN_POOL).
  if (!e && k.metric == IntervalMetric::run) {
    chain(to_string(IntervalMetric::time));
    if (e) {
      if (const IntervalEntry* pooled = find("run", "*", "*", "training", "*", "*")) e = pooled;
    }
  }
  PredictionInterval out;
  if (!e) {
    const bool memory = k.metric == IntervalMetric::memory;
    out.low = memory ? kUnvalidatedMemoryLow : kUnvalidatedTimeLow;
    out.high = memory ? kUnvalidatedMemoryHigh : kUnvalidatedTimeHigh;
    out.regime = "unvalidated";
    return out;
  }
  out.low = std::exp(e->low_log);
  out.high = std::exp(e->high_log);
  out.rows = e->rows;
  out.regime = std::string(e->metric) + "/" + e->family + "/" + e->framework + "/" + e->task + "/" +
               e->moe + "/" + e->scale;
  out.validated = true;
  return out;
}

}  // namespace scaleout
