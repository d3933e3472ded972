#include "hw/hardware.hpp"

#include <algorithm>

#include "core/enum_names.hpp"

namespace scaleout {

double Gpu::peak_flops(Precision p) const {
  switch (p) {
    case Precision::fp32:
      return fp32_flops;
    case Precision::tf32:
      return tf32_flops;
    case Precision::bf16:
      return bf16_flops;
    case Precision::fp16:
      return fp16_flops;
    case Precision::fp8:
      return fp8_flops;
  }
  return 0;
}

int domain_gpus(const Server& s) {
  return s.intra_node == IntraNodeKind::nvswitch ? std::max(s.gpus_per_node, s.scaleup_domain_gpus)
                                                 : s.gpus_per_node;
}

Server slice_server(const Server& s, int gpus) {
  if (gpus <= 0 || gpus >= s.gpus_per_node) return s;
  Server out = s;
  const double share = static_cast<double>(gpus) / s.gpus_per_node;
  out.gpus_per_node = gpus;
  out.whole_gpus = s.whole_gpus > 0 ? s.whole_gpus : s.gpus_per_node;
  out.scaleup_domain_gpus = std::min(domain_gpus(s), gpus);
  out.power_W = s.power_W * share;
  out.host_mem_bytes = s.host_mem_bytes * share;
  out.local_nvme_bytes = s.local_nvme_bytes * share;
  out.nics_per_node = (s.nics_per_node * gpus + s.gpus_per_node - 1) / s.gpus_per_node;
  return out;
}

double server_share(const Server& s) {
  return s.whole_gpus > 0 ? static_cast<double>(s.gpus_per_node) / s.whole_gpus : 1.0;
}

int nodes_per_domain(const Server& s) {
  if (s.gpus_per_node <= 0) return 1;
  return std::max(1, domain_gpus(s) / s.gpus_per_node);
}

int scaleup_domains(const Server& s, int nodes) {
  if (nodes <= 0) return 0;
  const int per = nodes_per_domain(s);
  return (nodes + per - 1) / per;
}

const char* to_string(Precision p) { return enum_name(p, {"fp32", "tf32", "bf16", "fp16", "fp8"}); }

const char* to_string(IntraNodeKind k) {
  return enum_name(k, {"nvswitch", "nvlink-bridge", "pcie", "xgmi"});
}

const char* to_string(FabricKind k) {
  return enum_name(k, {"ib", "roce", "ethernet", "efa", "omnipath"});
}

const char* to_string(FabricTopology t) { return enum_name(t, {"rail-optimized", "fat-tree"}); }

}  // namespace scaleout
