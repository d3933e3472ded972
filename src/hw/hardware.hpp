// Hardware entries of the catalog, in internal units (bytes, bytes/s,
// FLOP/s, watts). Every entry carries the source it was transcribed from.
#pragma once

#include <string>

namespace scaleout {

enum class Precision { fp32, tf32, bf16, fp16, fp8 };

// Constants of a GPU family (data/catalog/families.json, each with its
// source or the data it was fitted on): the compute model's kernel shares,
// the uncertainty band plan quotes, and how validation rows on the family are
// networked. The defaults are those of a GPU that names no family (no
// measurement: the common large-GEMM share).
struct GpuFamily {
  std::string id;  // e.g. "hopper"
  std::string name;
  double gemm_share = 0.80;       // large-GEMM rate / dense peak (MAMF / peak)
  double fp8_gemm_share = 0.70;   // the same for FP8 GEMMs against the FP8 peak
  double attention_share = 0.50;  // FlashAttention kernels / dense peak
  // Share of those rates whole runs of fused kernels sustain (fitted; 1 without data).
  double sustained_factor = 1.0;
  // Eager PyTorch (FSDP, torchtitan, llm-foundry) against fused kernels (fitted),
  // on GPUs of `eager_flops_per_byte` dense 16-bit FLOPs per HBM byte; other
  // GPUs scale its unfused-kernel share by their own ratio (perf
  // `eager_efficiency`; 0: no scaling).
  double eager_efficiency = 0.70;
  double eager_flops_per_byte = 0;
  double step_time_band = 0.30;  // relative uncertainty of a predicted step time
  // Validation rows that do not say: per-GPU inter-node Gb/s, whether the
  // family's scale-up links are switched (NVSwitch), and whether Megatron-LM
  // runs on it used fused attention.
  double validation_nic_gbit_s = 400;
  bool validation_nvswitch = true;
  bool megatron_fused_attention = false;
  std::string validation_source;  // where those three assumptions come from
  // Published training measurements of data/validation on the family's GPUs;
  // 0: unvalidated (plans on it say so).
  int validation_rows = 0;

  bool operator==(const GpuFamily&) const = default;
};

struct Gpu {
  std::string id;         // e.g. "h100-sxm"
  std::string name;       // e.g. "NVIDIA H100 SXM5 80GB"
  std::string vendor;     // nvidia | amd | intel
  std::string family;     // volta | ampere | ada | hopper | blackwell | cdna3 | gaudi
  double hbm_bytes = 0;   // device memory capacity
  double hbm_bw_Bps = 0;  // device memory bandwidth
  double fp32_flops = 0;  // dense peak rates; 0 = not supported
  double tf32_flops = 0;
  double bf16_flops = 0;
  double fp16_flops = 0;
  double fp8_flops = 0;
  // Measured largest 16-bit matmul rate (torch.matmul BF16, FP32 accumulate);
  // 0: none, the family's `gemm` share applies. Where set it replaces that
  // share for this GPU (perf `compute_constants`): cards of one family differ
  // in clocks under their power limit (GeForce boosts above its rated clock,
  // 300 W workstation cards sit below it).
  double mamf_bf16_flops = 0;
  double scaleup_bw_Bps = 0;  // per-GPU NVLink/xGMI bandwidth, one direction; 0 = none
  double host_link_Bps = 0;   // PCIe to the host, one direction
  // CUDA peer-to-peer between two such GPUs on PCIe (cudaDeviceCanAccessPeer).
  // GeForce drivers refuse it: NCCL then stages every transfer through host
  // memory (its SHM transport), network/topology.cpp `resolve_links`.
  bool peer_to_peer = true;
  double tdp_W = 0;  // board power
  std::string source;
  GpuFamily family_data;  // the catalog's record of `family` (defaults when none)

  double peak_flops(Precision p) const;
  bool operator==(const Gpu&) const = default;
};

enum class IntraNodeKind { nvswitch, nvlink_bridge, pcie, xgmi };

struct Server {
  std::string id;  // e.g. "dgx-h100"
  std::string name;
  std::string kind;    // node | rack | cloud-instance
  std::string gpu_id;  // default GPU of this server
  int gpus_per_node = 0;
  IntraNodeKind intra_node = IntraNodeKind::nvswitch;
  double intra_node_bw_Bps = 0;  // per GPU, one direction, to any other GPU of the domain
  int scaleup_domain_gpus = 0;   // GPUs sharing one NVLink domain (8 for DGX, 72 for NVL72)
  int nics_per_node = 0;         // scale-out NICs
  double nic_bw_Bps = 0;         // per NIC, one direction
  double host_mem_bytes = 0;
  double local_nvme_bytes = 0;
  double power_W = 0;  // maximum system power
  // Interruptions per 1,000 days of one scale-up domain from its shared
  // switch trays (NVL72: 9 NVLink switch trays); counted once per domain a
  // job spans, beside the per-node rate. 0 = none or not known.
  double scaleup_switch_failures_per_1000_days = 0;
  std::string source;
  // A slice of a server (slice_server): the whole server's GPUs; 0: the
  // whole server. Every figure above is then the slice's.
  int whole_gpus = 0;

  bool operator==(const Server&) const = default;
};

// `gpus` GPUs of one server `s` (1 <= gpus <= s.gpus_per_node), as a server
// of its own, for plans and jobs below a node (docs/model.md, "Plans below a
// node"): gpus_per_node = gpus; the per-GPU links (NVLink/PCIe) unchanged; the
// NVLink domain the slice's GPUs; power, host memory, local NVMe and NICs
// (rounded up) its gpus / gpus_per_node share. The one place a slice is made.
Server slice_server(const Server& s, int gpus);
// The share of a whole server a (possibly sliced) server is: gpus_per_node /
// whole_gpus; 1 for a whole server. Prices a slice's purchase.
double server_share(const Server& s);

// GPUs of one NVLink domain: an NVSwitch server's scaleup_domain_gpus where
// the switched fabric spans chassis (72 for a GB200 NVL72 rack of 4-GPU
// trays), else the node.
int domain_gpus(const Server& s);
// Nodes (chassis, trays) of one scale-up domain: several where a switched
// NVLink fabric spans chassis (NVL72: 18 trays of 4 GPUs), else 1.
int nodes_per_domain(const Server& s);
// The NVLink domains `nodes` nodes of `s` span, each filled before the next
// (1 for one node, 0 for none): traffic between them, and only that, needs a
// scale-out network.
int scaleup_domains(const Server& s, int nodes);

enum class FabricKind { ib, roce, ethernet, efa, omnipath };
enum class FabricTopology { rail_optimized, fat_tree };

struct Fabric {
  std::string id;  // e.g. "ib-ndr"
  std::string name;
  FabricKind kind = FabricKind::ib;
  double port_bw_Bps = 0;  // per port, one direction
  double latency_s = 0;    // per switch hop; 0 = not published
  FabricTopology topology = FabricTopology::rail_optimized;
  double oversubscription = 1.0;  // >= 1; 1 = non-blocking
  int switch_ports = 0;           // ports per switch at port_bw_Bps (radix); 0 = not published
  double switch_W = 0;            // power of one switch; 0 = not published
  double transceiver_W = 0;       // power of one transceiver (one per cable end); 0 = none/unknown
  // Optional itemised prices; when any is 0 the network is priced as a share
  // of the cluster's cost instead (docs/model.md, "Cost").
  double switch_usd = 0;
  double nic_usd = 0;
  double cable_usd = 0;
  std::string source;

  bool operator==(const Fabric&) const = default;
};

// A cloud rental price for one GPU of a kind (catalog data/catalog/prices.json).
struct CloudPrice {
  std::string gpu_id;
  double usd_per_gpu_hour = 0;
  std::string pricing;  // on-demand | reserved | spot | capacity-block
  std::string provider;
  std::string instance;
  std::string date;
  std::string source;
  bool is_default = false;  // the price plans use for this GPU

  bool operator==(const CloudPrice&) const = default;
};

// A purchase price for a whole server.
struct PurchasePrice {
  std::string server_id;
  double usd = 0;
  std::string date;
  std::string source;

  bool operator==(const PurchasePrice&) const = default;
};

// Unexpected job interruptions per 1,000 node-days, a published rate
// (data/catalog/economics.json).
struct FailureRate {
  std::string id;
  double per_1000_node_days = 0;
  std::string source;
  bool is_default = false;

  bool operator==(const FailureRate&) const = default;
};

// Where checkpoints are written and training data is read from. A limit of
// 0 means "not limited by this term"; per-GPU limits scale with the cluster
// (storage sized to it), aggregate limits do not.
struct StorageSystem {
  std::string id;
  std::string name;
  bool shared = true;        // false: node-local drives (lost with the node)
  double node_read_Bps = 0;  // per node (client link or local drives)
  double node_write_Bps = 0;
  double gpu_read_Bps = 0;  // sized per GPU of the cluster
  double gpu_write_Bps = 0;
  double total_read_Bps = 0;  // whole system
  double total_write_Bps = 0;
  std::string source;
  bool is_default = false;

  bool operator==(const StorageSystem&) const = default;
};

// Site figures for owning hardware: power price, PUE, colocation, rack power,
// depreciation life, operations share (data/catalog/economics.json).
struct Facility {
  std::string id;
  double pue = 1.0;
  double usd_per_kwh = 0;
  double colo_usd_per_kw_month = 0;  // per kW of provisioned IT power
  double rack_W = 0;                 // power budget of one rack
  double life_years = 5;             // depreciation life of the hardware
  double operations_share = 0;       // yearly operations cost as a share of capex
  std::string source;
  bool is_default = false;

  bool operator==(const Facility&) const = default;
};

const char* to_string(Precision p);
const char* to_string(IntraNodeKind k);
const char* to_string(FabricKind k);
const char* to_string(FabricTopology t);

}  // namespace scaleout
