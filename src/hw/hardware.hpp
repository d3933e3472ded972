// Hardware entries of the catalog, in internal units (bytes, bytes/s,
// FLOP/s, watts). Every entry carries the source it was transcribed from.
#pragma once

#include <string>

namespace scaleout {

enum class Precision { fp32, tf32, bf16, fp16, fp8 };

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
  double scaleup_bw_Bps = 0;  // per-GPU NVLink/xGMI bandwidth, one direction; 0 = none
  double host_link_Bps = 0;   // PCIe to the host, one direction
  double tdp_W = 0;           // board power
  std::string source;

  double peak_flops(Precision p) const;
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
  std::string source;
};

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
  std::string source;
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
};

// A purchase price for a whole server.
struct PurchasePrice {
  std::string server_id;
  double usd = 0;
  std::string date;
  std::string source;
};

const char* to_string(Precision p);
const char* to_string(IntraNodeKind k);
const char* to_string(FabricKind k);
const char* to_string(FabricTopology t);

}  // namespace scaleout
