// Fits catalog figures to a cluster's own measurements (`scaleout
// calibrate`, docs/model.md "Calibration"): the links' bus bandwidth and
// hop latency from nccl-tests tables, a GPU family's GEMM share from a GEMM
// benchmark, and its sustained factor from logged step times. Pure: the
// inputs are parsed by io/nccl_tests.cpp, io/gemm_log.cpp, io/step_log.cpp.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "hw/hardware.hpp"
#include "network/topology.hpp"
#include "perf/compute.hpp"
#include "workload/workload.hpp"

namespace scaleout {

// One row of an nccl-tests size table (the out-of-place columns).
struct NcclSample {
  int line = 0;
  double bytes = 0;       // the `size` column: the buffer as collective_time_s counts it
  double time_s = 0;      // out-of-place time
  double bus_bw_Bps = 0;  // out-of-place busbw
};

// One nccl-tests run (one *_perf binary's output).
struct NcclRun {
  std::string file;
  Collective collective = Collective::all_reduce;
  int ranks = 0;           // rank lines of the header
  int ranks_per_node = 0;  // ranks on one host (the most on any host)
  int nodes = 0;           // distinct hosts
  std::string gpu_name;    // "NVIDIA H100 80GB HBM3" from the rank lines
  std::vector<NcclSample> samples;
};

// The alpha-beta figures of one link level fitted on one run.
struct LinkFit {
  std::string file;
  Collective collective = Collective::all_reduce;
  bool inter = false;  // the inter-node level (the run spans hosts) or the node's
  GroupSpan span;
  LinkLevel fitted;
  LinkLevel catalog;
  double rms_error_before = 0;  // relative RMS error of the times, catalog figures
  double rms_error_after = 0;   // the same with the fitted figures
  int samples = 0;
};

// Fits the level the run exercises (inside a node when all ranks share a
// host, else between nodes) by weighted least squares on the relative time
// error: collective_time_s is affine in the level's hop latency and inverse
// bus bandwidth, the other level held at `links`. Throws std::invalid_argument
// when no positive bandwidth fits (the caller words it).
LinkFit fit_link(const NcclRun& run, const ClusterLinks& links);

// The server figure resolve_links turns into `bus_bw_Bps` inside a node
// (intra_node_bw_Bps) and between nodes (nic_bw_Bps, per NIC), and the fabric
// latency giving `hop_s` (never below 0).
double intra_node_bw_for(double bus_bw_Bps, const Server& server, const Gpu& gpu,
                         const NetworkConstants& k = {});
double nic_bw_for(double bus_bw_Bps, const Server& server, const Fabric* fabric,
                  const NetworkConstants& k = {});
double fabric_latency_for(double hop_s, const NetworkConstants& k = {});

// One GEMM of a benchmark log.
struct GemmSample {
  int line = 0;
  double m = 0, n = 0, k = 0;
  Precision precision = Precision::bf16;
  double time_s = 0;
};

struct ShareFit {
  double share = 0;          // fitted kernel share (rate / dense peak, before the shape factor)
  double catalog_share = 0;  // the family's
  double error_before = 0;   // mean absolute relative error of the times, catalog share
  double error_after = 0;
  int samples = 0;
};

// The GEMM share (16-bit samples) or FP8 GEMM share (`fp8`) of the GPU that
// makes gemm_time_s (with the compute model's shape factor, `base`'s
// gemm_half_dim and HBM efficiency) match the samples best (fit_scale).
// samples of the other kind are ignored; `samples` is 0 when none.
ShareFit fit_gemm_share(const std::vector<GemmSample>& samples, const Gpu& gpu, bool fp8,
                        const ComputeConstants& base = {});

// The scale s in [lo, hi] minimising sum_i |log(predict(s)_i / measured_i)|
// (golden-section search on log s; predict returns one time per measurement).
double fit_scale(const std::vector<double>& measured,
                 const std::function<std::vector<double>(double)>& predict, double lo = 0.05,
                 double hi = 20.0);

// Mean absolute relative error of predicted against measured.
double mean_abs_error(const std::vector<double>& predicted, const std::vector<double>& measured);

// A logged training run: the workload on its cluster and its step time.
struct StepSample {
  std::string file;  // the log
  Workload workload;
  Server server;
  Gpu gpu;
  const Fabric* fabric = nullptr;
  double measured_s = 0;  // median logged step time
  int steps = 0;          // step lines the median was taken over
};

// Predicted step time with the tensor-core rates scaled by `scale` (the
// family's sustained factor times `scale`).
double predicted_step_s(const StepSample& s, double scale);

struct StepFit {
  double scale = 1;                          // multiplies the family's sustained factor
  double error_before = 0, error_after = 0;  // on the samples fitted on
  // Held out (2 or more logs): fitted on the even-numbered logs (1st, 3rd,
  // ...), scored on the others; 0 when fewer than 2 logs.
  int heldout_fit_count = 0, heldout_count = 0;
  double heldout_scale = 1;
  double heldout_error_before = 0, heldout_error_after = 0;
};

// Fits the scale on every sample (the overlay's figure) and, with several,
// the held-out check.
StepFit fit_steps(const std::vector<StepSample>& samples);

}  // namespace scaleout
