// Readers of the measurements `scaleout calibrate` fits (docs/input-format.md,
// "Calibration inputs"): nccl-tests output (nccl_tests.cpp), a GEMM benchmark
// CSV (gemm_log.cpp) and training logs' step timing lines (step_log.cpp).
// Anything they cannot read is an InputError at its file and line.
#pragma once

#include <string>
#include <vector>

#include "calibration/calibration.hpp"

namespace scaleout::io {

// One run of all_reduce_perf, all_gather_perf, reduce_scatter_perf,
// alltoall_perf or sendrecv_perf as printed: the header's rank lines, the
// size table (out-of-place columns kept; #wrong must be 0 or N/A), the
// "# Out of bounds values" and "# Avg bus bandwidth" footer. The collective
// comes from the command line in the file ("all_reduce_perf -b 8 ...") or
// else from the file's name (all_reduce*, allreduce*, ...).
NcclRun read_nccl_tests(const std::string& text, const std::string& file);

// A GEMM benchmark CSV: header m,n,k,dtype and time_s or tflops (either
// order, '#' comment lines allowed); dtype bf16, fp16 or fp8.
std::vector<GemmSample> read_gemm_log(const std::string& text, const std::string& file);

// The step times a training log prints.
struct StepLog {
  std::string format;          // "megatron", "nemo", "torchtitan" or "hf-trainer"
  std::vector<double> step_s;  // in log order
  std::vector<int> lines;
  double median_s = 0;  // of the steps after the first (warm-up) when 3 or more
};

// Megatron-LM "elapsed time per iteration (ms): X", NeMo "train_step_timing
// in s: X", torchtitan "step: N ... tps: X" (tokens/s per GPU, converted with
// `tokens_per_step` and `gpus`) and Hugging Face Trainer
// "'train_steps_per_second': X".
StepLog read_step_log(const std::string& text, const std::string& file, double tokens_per_step,
                      int gpus);

}  // namespace scaleout::io
