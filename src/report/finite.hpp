// Finite or refused: the check at the edge of the model that every figure a
// command reports is a finite number in its documented range
// (docs/input-format.md, "Exit codes"). The CLI runs it on every result
// before anything is written, so no report prints "inf s", "-nan %", "$0"
// for an unpriced infinity or "infx faster".
//
// Ranges: sizes, times, rates, costs, power and energy are finite and >= 0;
// a step time, a decode step and TTFT/TPOT are finite and > 0; MFU, HFU,
// goodput, utilisation and shares (network wait, busy) lie in [0, 1].
#pragma once

#include <map>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "hw/hardware.hpp"
#include "report/report.hpp"
#include "report/serving_report.hpp"
#include "report/sim_report.hpp"
#include "validation/serving_validation.hpp"

namespace scaleout::report {

// A reported figure that is not finite or lies outside its range.
struct BadFigure {
  std::string where;   // "recommended plan", "frontier entry 3", "cluster 'a'", "row 'x'"
  std::string figure;  // "step time (s)"
  double value = 0;
  std::string range;  // "finite and > 0"
  // The hardware it was computed for (empty when none).
  std::string server_id, gpu_id, fabric_id;
};

// The first bad figure of a result, or none. None allocates when all is well
// except the optional's own storage.
std::optional<BadFigure> check_estimate(const EstimateResult& r);
std::optional<BadFigure> check_serving_estimate(const ServingEstimateReport& r);
std::optional<BadFigure> check_plan(const PlanReport& r);
std::optional<BadFigure> check_serving_plan(const ServingPlanReport& r);
std::optional<BadFigure> check_simulate(const SimulateReport& r);
std::optional<BadFigure> check_validation(const ValidationReport& r);
std::optional<BadFigure> check_serving_validation(const ServingValidationReport& r);

// The --catalog file each user catalog entry came from, by id (entries of
// the built-in catalog are not listed).
struct EntryFiles {
  std::map<std::string, std::string> gpus, servers, fabrics;
};

// Throws for a bad figure: an InputError (exit 2) naming the catalog entry
// and file when the figure's GPU, server or fabric came from a --catalog
// file; otherwise an internal error (std::logic_error, exit 1).
[[noreturn]] void refuse_bad_figure(const BadFigure& bad, const EntryFiles& files);

// The catalog key ("tflops.bf16") of the FLOP rate the model needs for
// precision `p` on `gpu` when the GPU has none, else empty. The model's
// fallbacks count as a rate: FP8 runs at the BF16 rate on a GPU without FP8
// units, BF16 at the FP16 rate (V100), and MFU divides by the precision's
// rate, else BF16, else FP16 (docs/model.md).
std::string missing_flop_rate(const Gpu& gpu, Precision p);

// The input error for a GPU without a FLOP rate for the workload's precision:
// in the GPU's catalog file when it came from one (key "tflops.<precision>"),
// else in `workload_file` at `key`.
InputError no_flop_rate_error(const Gpu& gpu, Precision p, const EntryFiles& files,
                              const std::string& workload_file, const std::string& key);

}  // namespace scaleout::report
