// Per-GPU memory of a training step: model state, activations, logits,
// communication buffers and framework overhead, for the most loaded rank.
// Equations, units and sources: docs/model.md, "Memory".
#pragma once

#include <string>

#include "hw/hardware.hpp"
#include "workload/workload.hpp"

namespace scaleout {

// NF4 with double quantisation (Dettmers et al. 2023, QLoRA §3; bitsandbytes
// Linear4bit's default compress_statistics=True): 4 bits per weight, an 8-bit
// absmax per 64 weights and an fp32 constant per 256 absmax values: 0.516
// B/param (0.5625 without double quantisation).
inline constexpr double kNf4BytesPerParam = 0.5 + 1.0 / 64.0 + 4.0 / (64.0 * 256.0);

// Framework overhead constants (docs/model.md, "Framework overhead").
struct OverheadModel {
  // CUDA context, cuBLAS/cuDNN workspaces and NCCL communicator buffers:
  // a fixed amount per GPU, bytes.
  double fixed_bytes = 1.0 * 1024 * 1024 * 1024;
  // Caching-allocator fragmentation: reserved minus allocated, as a share of
  // the memory that is allocated and freed every step (activations, logits,
  // gathered weights, buffers).
  double fragmentation = 0.10;
};

// Bytes each parameter costs, by what it is stored as (docs/model.md,
// "Model state"). Trainable parameters only have gradients and optimizer.
struct StatePolicy {
  double weight_bytes = 2;     // copy used for compute (or the fp32 parameter itself)
  double grad_bytes = 4;       // gradient buffer
  double master_bytes = 4;     // fp32 master copy held by the optimizer (0 = the weight is fp32)
  double optimizer_bytes = 8;  // optimizer moments
};

StatePolicy state_policy(const Workload& w);

// Parameters the run trains: all of them, or the LoRA adapters.
double trainable_params(const Workload& w);
// Bytes of one checkpoint of the whole model (docs/model.md, "Checkpoints").
double checkpoint_bytes(const Workload& w);

struct StageMemory {
  int stage = 0;   // 0-based pipeline stage
  int layers = 0;  // transformer layers on the stage
  bool has_embedding = false;
  bool has_output = false;
  double microbatches_in_flight = 0;  // activation sets held at the 1F1B/interleaved peak
  double params = 0;  // parameters held by one GPU of the stage (before ZeRO-3 sharding)
  double trainable_params = 0;
  // Of params and of trainable_params: the routed experts' (their weights,
  // gradients and optimizer state shard over the expert-data-parallel
  // replicas, Layout::expert_dp).
  double expert_params = 0;
  double trainable_expert_params = 0;
  double weights = 0;  // bytes, each part of the breakdown
  double gradients = 0;
  double optimizer = 0;
  // Of weights, gradients and optimizer: the routed experts' (sharded over
  // expert-data-parallel replicas; 0 for a dense model).
  double expert_state = 0;
  double activations = 0;
  double logits = 0;
  double buffers = 0;  // communication and prefetch buffers
  double overhead = 0;
  // Of overhead: the caching allocator's reserved-minus-allocated gap
  // (OverheadModel::fragmentation of the transient memory).
  double fragmentation = 0;
  // Parameters and gradients in host memory (offload: all); not in total().
  double host_bytes = 0;
  double total() const {
    return weights + gradients + optimizer + activations + logits + buffers + overhead;
  }
};

struct MemoryEstimate {
  StageMemory peak;  // the most loaded stage
  int stages = 1;
  double capacity_bytes = 0;              // device memory of the GPU
  double host_offload_bytes = 0;          // optimizer state moved to host memory
  double activation_bytes_per_layer = 0;  // one micro-batch, one layer, one GPU, as stored
  bool fits = false;
  double headroom_bytes = 0;  // capacity - total (negative: does not fit)
  double total() const { return peak.total(); }
  // What PyTorch's torch.cuda.max_memory_allocated() reports: the total
  // without the CUDA context, workspaces and NCCL buffers and without the
  // caching allocator's gap; and max_memory_reserved(): allocated plus that
  // gap (docs/model.md, "Allocated and reserved").
  double allocated_bytes() const { return peak.total() - peak.overhead; }
  double reserved_bytes() const { return allocated_bytes() + peak.fragmentation; }
};

// Activation bytes one GPU stores for one layer and one micro-batch under the
// workload's layout and recompute policy (Korthikanti et al. 2022 §4,
// generalised to the model's tensors).
double activation_bytes_per_layer(const Workload& w, bool moe_layer);

MemoryEstimate estimate_memory(const Workload& w, const Gpu& gpu,
                               const OverheadModel& overhead = {});
// The same with the workload's layers already described (describe_layers(w)).
MemoryEstimate estimate_memory(const Workload& w, const Gpu& gpu, const OverheadModel& overhead,
                               const DescribedLayers& layers);

}  // namespace scaleout
