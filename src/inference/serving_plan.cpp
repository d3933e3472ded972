#include "inference/serving_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "model/params.hpp"

namespace scaleout {

namespace {

// Relative uncertainty of predicted serving throughput and latency: the
// largest per-source MAPE of data/validation/inference.csv (MoE, 13.6 %) with
// a margin for single rows (docs/validation.md, "Inference").
constexpr double kServingBand = 0.20;

std::string gib(double bytes) { return fmt::format("{:.1f} GiB", bytes / (1024.0 * 1024 * 1024)); }
std::string ms(double s) { return fmt::format("{:.1f} ms", s * 1e3); }
std::string usd(double v) {
  if (v >= 1e3) return fmt::format("${:.1f}k", v / 1e3);
  return fmt::format("${:.2f}", v);
}

double latency_s(const ServingCandidate& c, const Workload& w) {
  return c.estimate.ttft_s + static_cast<double>(w.inference.output_tokens) * c.estimate.tpot_s;
}

// Orders plans by the objective ($/hour or request latency); values within
// 0.1 % count as equal, then the other measure (whole nodes are paid for, so
// at one price the faster layout wins), then fewer GPUs, then the hardware's
// order.
bool better(const ServingCandidate& a, const ServingCandidate& b, Objective o, const Workload& w) {
  auto cost = [](const ServingCandidate& c) { return c.usd_per_hour > 0 ? c.usd_per_hour : 1e300; };
  auto cmp = [](double x, double y) {
    if (std::fabs(x - y) <= 1e-3 * std::max(std::fabs(x), std::fabs(y))) return 0;
    return x < y ? -1 : 1;
  };
  const int first =
      o == Objective::cost ? cmp(cost(a), cost(b)) : cmp(latency_s(a, w), latency_s(b, w));
  if (first != 0) return first < 0;
  const int second =
      o == Objective::cost ? cmp(latency_s(a, w), latency_s(b, w)) : cmp(cost(a), cost(b));
  if (second != 0) return second < 0;
  if (a.gpus() != b.gpus()) return a.gpus() < b.gpus();
  return std::tie(a.hardware, a.layout.tp, a.layout.pp, a.layout.ep) <
         std::tie(b.hardware, b.layout.tp, b.layout.pp, b.layout.ep);
}

std::vector<int> powers_of_two(int max) {
  std::vector<int> out;
  for (int v = 1; v <= max; v *= 2) out.push_back(v);
  return out;
}

}  // namespace

ServingPlanResult plan_serving(const PlanRequest& r, const ServingConstants& k) {
  ServingPlanResult res;
  const Workload& base = r.workload;
  const ModelShape& m = base.model;
  const InferenceSpec& in = base.inference;
  const int max_nodes = r.fixed.nodes ? *r.fixed.nodes : r.constraints.max_nodes;
  const double wb = weight_bytes_per_param(in.weights, k);
  const ParamCounts pc = count_params(m);
  const double weight_bytes =
      (pc.total() - pc.embedding - pc.output) * wb + (pc.embedding + pc.output) * 2.0;

  // What the single-node reason quotes.
  bool single_fit = false, single_latency = false;
  double single_best_rps = 0;
  std::string single_best_server;
  double roomiest_node = 0;
  std::string roomiest_server;
  std::optional<ServingCandidate> closest_latency;  // fits but misses the objectives

  for (size_t hi = 0; hi < r.hardware.size(); ++hi) {
    const HardwareOption& hw = r.hardware[hi];
    const int gpn = hw.server.gpus_per_node;
    const Fabric* fabric = hw.fabric ? &*hw.fabric : nullptr;
    const double node_bytes = gpn * hw.gpu.hbm_bytes;
    if (node_bytes > roomiest_node) {
      roomiest_node = node_bytes;
      roomiest_server = hw.server.id;
    }
    const std::vector<int> tps = r.fixed.tp ? std::vector<int>{*r.fixed.tp} : powers_of_two(gpn);
    std::vector<int> pps =
        r.fixed.pp ? std::vector<int>{*r.fixed.pp} : powers_of_two(std::min(m.layers, 64));
    for (int tp : tps) {
      for (int pp : pps) {
        std::vector<int> eps = {1};
        if (r.fixed.ep) {
          eps = {*r.fixed.ep};
        } else if (m.is_moe() && tp > 1 && m.moe.experts % tp == 0) {
          eps = {1, tp};
        }
        for (int ep : eps) {
          ++res.stats.candidates;
          const long long gpr = static_cast<long long>(tp) * pp;
          const bool heads_ok =
              m.heads % tp == 0 && (m.kv_heads >= tp ? m.kv_heads % tp == 0 : tp % m.kv_heads == 0);
          const bool ep_ok =
              ep == 1 || (m.is_moe() && ep <= tp && tp % ep == 0 && m.moe.experts % ep == 0);
          if (!heads_ok || !ep_ok || pp > m.layers) {
            res.stats.rejected_by_reason["divisibility"] += 1;
            continue;
          }
          const long long replica_nodes = (gpr + gpn - 1) / gpn;
          if (replica_nodes > max_nodes) {
            res.stats.rejected_by_reason["max nodes"] += 1;
            continue;
          }
          if (replica_nodes > 1 && hw.server.nics_per_node == 0) {
            res.stats.rejected_by_reason["no scale-out network"] += 1;
            continue;
          }
          Workload w = base;
          w.layout = Layout{};
          w.layout.tp = tp;
          w.layout.pp = pp;
          w.layout.ep = ep;
          w.cluster.nodes = static_cast<int>(replica_nodes);
          ++res.stats.evaluated;
          const ServingMemory mem = serving_memory(w, hw.gpu, 0, k);
          if (!mem.fits) {
            res.stats.rejected_by_reason["memory"] += 1;
            continue;
          }
          if (replica_nodes == 1) single_fit = true;
          ServingCandidate c;
          c.hardware = static_cast<int>(hi);
          c.layout = w.layout;
          c.estimate = estimate_serving(w, hw.server, hw.gpu, fabric, k);
          c.band = kServingBand;
          c.nodes = static_cast<int>(replica_nodes);  // one replica; replicas come below
          if (!c.estimate.meets_ttft || !c.estimate.meets_tpot) {
            res.stats.rejected_by_reason["latency"] += 1;
            if (!closest_latency || latency_s(c, base) < latency_s(*closest_latency, base)) {
              closest_latency = c;
            }
            continue;
          }
          c.replicas = c.estimate.replicas;
          if (gpr <= gpn) {
            const long long per_node = gpn / gpr;
            c.nodes = static_cast<int>((c.replicas + per_node - 1) / per_node);
            if (replica_nodes == 1) {
              single_latency = true;
              const double rps = static_cast<double>(per_node) * c.estimate.capacity_requests_per_s;
              if (rps > single_best_rps) {
                single_best_rps = rps;
                single_best_server = hw.server.id;
              }
            }
          } else {
            c.nodes = static_cast<int>(c.replicas * replica_nodes);
          }
          c.layout.dp = c.replicas;
          if (c.nodes > max_nodes) {
            res.stats.rejected_by_reason["max nodes"] += 1;
            continue;
          }
          c.served_rps =
              in.request_rate > 0 ? in.request_rate : c.replicas * c.estimate.requests_per_s;
          c.usd_per_hour = static_cast<double>(c.nodes) * gpn * hw.usd_per_gpu_hour;
          if (c.usd_per_hour > 0) {
            const double tokens_per_hour =
                c.served_rps * static_cast<double>(in.output_tokens) * 3600.0;
            c.usd_per_mtok = c.usd_per_hour / tokens_per_hour * 1e6;
          }
          // One frontier point per hardware and node count: the best by the objective.
          auto same = std::find_if(res.frontier.begin(), res.frontier.end(),
                                   [&](const ServingCandidate& q) {
                                     return q.hardware == c.hardware && q.nodes == c.nodes;
                                   });
          if (same == res.frontier.end()) {
            res.frontier.push_back(c);
          } else if (better(c, *same, r.objective, base)) {
            *same = c;
          }
        }
      }
    }
  }
  // Keep the Pareto front of cost (GPUs when unpriced) and request latency
  // per hardware: a bigger deployment that is no faster is no option.
  auto price = [](const ServingCandidate& c) {
    return c.usd_per_hour > 0 ? c.usd_per_hour : static_cast<double>(c.gpus());
  };
  std::vector<ServingCandidate> front;
  for (const ServingCandidate& c : res.frontier) {
    const bool dominated =
        std::any_of(res.frontier.begin(), res.frontier.end(), [&](const ServingCandidate& q) {
          return q.hardware == c.hardware && price(q) <= price(c) &&
                 latency_s(q, base) <= latency_s(c, base) &&
                 (price(q) < price(c) || latency_s(q, base) < latency_s(c, base));
        });
    if (!dominated) front.push_back(c);
  }
  res.frontier = std::move(front);
  std::sort(res.frontier.begin(), res.frontier.end(),
            [](const ServingCandidate& a, const ServingCandidate& b) {
              return std::tie(a.hardware, a.nodes) < std::tie(b.hardware, b.nodes);
            });

  std::optional<ServingCandidate> best, best_single, best_multi;
  for (const ServingCandidate& c : res.frontier) {
    if (!best || better(c, *best, r.objective, base)) best = c;
    if (c.nodes == 1 && (!best_single || better(c, *best_single, r.objective, base))) {
      best_single = c;
    }
    if (c.nodes > 1 && (!best_multi || better(c, *best_multi, r.objective, base))) best_multi = c;
    // Fewest nodes of a plan where one replica fits (the deployment's size).
    const int replica_nodes =
        (c.gpus_per_replica() + r.hardware[c.hardware].server.gpus_per_node - 1) /
        r.hardware[c.hardware].server.gpus_per_node;
    if (!res.min_nodes_fit || replica_nodes < *res.min_nodes_fit) res.min_nodes_fit = replica_nodes;
  }
  res.single_node_best = best_single;
  res.best_multi_node = best_multi;

  const std::string fmt_name = to_string(in.weights);
  const long long seq = in.prompt_tokens + in.output_tokens;
  if (!single_fit) {
    res.single_node_reason = fmt::format(
        "the weights alone take {} in {}; the roomiest node ({}) has {} of GPU memory, of "
        "which {:.0f} % is usable, and no TP x PP split of one node leaves room for the KV cache "
        "of one {}-token sequence",
        gib(weight_bytes), fmt_name, roomiest_server, gib(roomiest_node),
        100.0 * k.memory_utilization, seq);
  } else if (!single_latency) {
    res.single_node_reason =
        fmt::format("every single-node layout misses the latency objectives (TTFT {}, TPOT {})",
                    in.ttft_s > 0 ? ms(in.ttft_s) : std::string("none"),
                    in.tpot_s > 0 ? ms(in.tpot_s) : std::string("none"));
  } else if (!best_single) {
    res.single_node_reason = fmt::format(
        "one {} node serves at most {:.2f} requests/s within the objectives; the target is "
        "{:.2f} requests/s",
        single_best_server, single_best_rps, in.request_rate);
  }

  auto rejected = [&](const char* reason) {
    const auto it = res.stats.rejected_by_reason.find(reason);
    return it == res.stats.rejected_by_reason.end() ? 0LL : it->second;
  };
  auto describe = [&](const ServingCandidate& c) {
    return fmt::format("{} replica{} of TP {} x PP {}{} on {} node{} of {}", c.replicas,
                       c.replicas == 1 ? "" : "s", c.layout.tp, c.layout.pp,
                       c.layout.ep > 1 ? fmt::format(" x EP {}", c.layout.ep) : std::string(),
                       c.nodes, c.nodes == 1 ? "" : "s", r.hardware[c.hardware].server.id);
  };
  auto figures = [&](const ServingCandidate& c) {
    return fmt::format("{} of {} per GPU, TTFT {}, TPOT {}, {:.2f} requests/s per replica",
                       gib(c.estimate.memory.total()), gib(c.estimate.memory.capacity_bytes),
                       ms(c.estimate.ttft_s), ms(c.estimate.tpot_s), c.estimate.requests_per_s);
  };
  if (best_single) {
    res.verdict = Verdict::single_node;
    res.recommended = best_single;
    res.reasons.push_back(
        fmt::format("One node serves it: {}; {}.", describe(*best_single), figures(*best_single)));
    if (best_multi && best_multi->usd_per_hour > 0 && best_single->usd_per_hour > 0) {
      res.reasons.push_back(fmt::format(
          "The best multi-node plan ({}) would cost {}/hour instead of {}/hour.",
          describe(*best_multi), usd(best_multi->usd_per_hour), usd(best_single->usd_per_hour)));
    }
  } else if (best) {
    res.verdict = Verdict::multi_node;
    res.recommended = best;
    const std::string head = !single_fit ? "Capacity" : !single_latency ? "Latency" : "Throughput";
    res.reasons.push_back(head + ": " + res.single_node_reason + ".");
    res.reasons.push_back(fmt::format("Recommended: {}; {}.", describe(*best), figures(*best)));
    if (res.min_nodes_fit && *res.min_nodes_fit > 1) {
      res.reasons.push_back(
          fmt::format("One replica needs at least {} nodes.", *res.min_nodes_fit));
    }
  } else {
    res.verdict = Verdict::infeasible;
    if (closest_latency) {
      res.recommended = closest_latency;
      const ServingEstimate& e = closest_latency->estimate;
      res.reasons.push_back(fmt::format(
          "Latency: no layout meets the objectives (TTFT {}, TPOT {}); the closest ({}) reaches "
          "TTFT {} and TPOT {}.",
          in.ttft_s > 0 ? ms(in.ttft_s) : std::string("none"),
          in.tpot_s > 0 ? ms(in.tpot_s) : std::string("none"), describe(*closest_latency),
          ms(e.ttft_s), ms(e.tpot_s)));
    } else if (res.stats.evaluated == 0) {
      res.reasons.push_back(fmt::format(
          "Nothing fits: no legal layout of the model's heads and layers up to {} nodes.",
          max_nodes));
    } else if (rejected("max nodes") > 0 && rejected("memory") < res.stats.evaluated) {
      res.reasons.push_back(
          fmt::format("Throughput: the request rate ({:.2f} requests/s) needs more than {} nodes.",
                      in.request_rate, max_nodes));
    } else {
      res.reasons.push_back(fmt::format(
          "Capacity: the weights take {} in {} and no layout up to {} nodes leaves room for the "
          "KV cache of one {}-token sequence.",
          gib(weight_bytes), fmt_name, max_nodes, seq));
    }
  }
  if (res.recommended && res.verdict != Verdict::infeasible && in.tpot_s > 0) {
    const double slack = in.tpot_s / res.recommended->estimate.tpot_s - 1.0;
    if (slack < res.recommended->band) {
      res.reasons.push_back(fmt::format(
          "It meets the TPOT objective unless the model is more than {:.0f} % optimistic (its "
          "validation error band is {:.0f} %).",
          100.0 * slack, 100.0 * res.recommended->band));
    }
  }
  return res;
}

}  // namespace scaleout
