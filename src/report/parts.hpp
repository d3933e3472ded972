// Plain-text pieces shared by the writers (report-internal; defined in
// plan_report.cpp). Figures (bytes, money, durations) come from format.hpp.
#pragma once

#include <array>
#include <string>

#include "memory/memory.hpp"
#include "perf/step.hpp"
#include "report/format.hpp"
#include "search/planner.hpp"
#include "workload/workload.hpp"

namespace scaleout::report {

// The parts of a GPU's memory and of a step's time, in the order every writer
// lists them: the JSON key (and HTML bar part), the words of text reports and
// legends, and the member.
template <typename Whole>
struct NamedPart {
  const char* key;
  const char* words;
  double Whole::*value;
};
inline constexpr std::array<NamedPart<StageMemory>, 7> kMemoryParts = {{
    {"weights", "weights", &StageMemory::weights},
    {"gradients", "gradients", &StageMemory::gradients},
    {"optimizer", "optimizer state", &StageMemory::optimizer},
    {"activations", "activations", &StageMemory::activations},
    {"logits", "logits and loss", &StageMemory::logits},
    {"buffers", "comm/prefetch buffers", &StageMemory::buffers},
    {"overhead", "framework overhead", &StageMemory::overhead},
}};
inline constexpr std::array<NamedPart<StepBreakdown>, 9> kStepParts = {{
    {"compute", "compute", &StepBreakdown::compute},
    {"tp_comm", "tensor-parallel comm", &StepBreakdown::tp_comm},
    {"cp_comm", "context-parallel comm", &StepBreakdown::cp_comm},
    {"ep_comm", "expert-parallel comm", &StepBreakdown::ep_comm},
    {"pp_comm", "pipeline comm", &StepBreakdown::pp_comm},
    {"dp_comm", "data-parallel comm", &StepBreakdown::dp_comm},
    {"bubble", "pipeline bubble", &StepBreakdown::bubble},
    {"optimizer", "optimizer", &StepBreakdown::optimizer},
    {"other", "other", &StepBreakdown::other},
}};

// `text` broken at each `sep` (" " or ", ") into lines of at most `width`
// columns (a longer piece stays whole): the first line starts with `first`,
// the others with `rest`; a line broken after ", " ends with ","; every line
// ends with a newline.
std::string wrap(const std::string& text, const std::string& first, const std::string& rest,
                 const std::string& sep = " ", std::size_t width = 80);

// "tp 4 pp 2 dp 128 (interleave 4), micro-batch 1, zero 1, recompute none":
// the parallel sizes, then the settings.
std::string layout_line(const Layout& l);
std::string layout_parallel(const Layout& l);
std::string layout_settings(const Layout& l);
// ", first/last stage 7/7 layers", ", embedding/loss in split" (each in a
// layer's place), or "" for the even split.
std::string stage_split_label(const Layout& l);
// The fabric id, or "8 x 400 Gb/s NICs" for the server's own NICs.
std::string fabric_name(const HardwareOption& hw);
// Whether the options searched name more than one fabric, or a fabric and
// the servers' own NICs (a frontier then names each point's fabric).
bool several_fabrics(const std::vector<HardwareOption>& hw);
// "roce-400 runs at the server's 2 x 10 Gb/s NICs (the fabric's ports are
// 400 Gb/s)" when the fabric's port rate exceeds the server's NICs; "" else.
std::string nic_cap_words(const HardwareOption& hw);
// The scale-out network a plan uses: fabric_name, or "no scale-out network"
// for a plan inside one scale-up domain (one node, or one NVL72 rack).
std::string scale_out_name(const HardwareOption& hw, const PlanCandidate& c);
// Whether the server's scale-up domain spans several nodes (an NVL72 rack).
bool domain_spans_nodes(const Server& s);
// GPUs of the whole server (of a slice: the server it is part of).
int server_gpus(const Server& s);
// "2 x dgx-h100 (8 x h100-sxm, 16 GPUs)"; of a slice "1 x dgx-h100 (2 of 8
// GPUs, h100-sxm)".
std::string hardware_words(const Server& s, const Gpu& gpu, int nodes);
// "1 NVLink domain of 72 GPUs (18 nodes)": the scale-up domains a plan spans.
std::string domains_text(const HardwareOption& hw, const PlanCandidate& c);
// "validated" or "unvalidated": whether data/validation has rows on the GPU's family.
const char* validation_status(const Gpu& gpu);
// "unvalidated: no published training runs on the blackwell family in
// data/validation" or "validated on 74 rows (hopper)".
std::string validation_words(const Gpu& gpu);
// Whether frontier point `c` is the recommended plan (same hardware option and node count).
bool is_recommended(const PlanResult& p, const PlanCandidate& c);
// Whether a plan meets every constraint: deadline, budget, power and goodput.
bool feasible(const PlanCandidate& c);
// "Searched every node count 1-N; M divide the cluster and the batch; S of F
// points shown ...": the frontier's closing line ("" when one count was searched).
std::string frontier_counts_text(const PlanResult& p, std::size_t shown);
// "Search: N layouts, M evaluations in T s" and one line per rejection reason.
std::string search_text(const SearchStats& s, double seconds);

// A plan's recommended (or, when infeasible, closest) and best single-node
// candidates, each under its heading and written by `block(o, report, candidate)`;
// the single-node one only when it is not the verdict itself.
template <typename Report, typename Block>
void best_plans_text(std::string& o, const Report& r, Block block, const char* closest,
                     const char* single_node) {
  const auto& p = r.result;
  if (p.recommended) {
    o += p.verdict == Verdict::infeasible ? closest : "Recommended plan\n";
    block(o, r, *p.recommended);
    o += "\n";
  }
  if (p.single_node_best && p.verdict != Verdict::single_node) {
    o += single_node;
    block(o, r, *p.single_node_best);
    o += "\n";
  }
}

}  // namespace scaleout::report
