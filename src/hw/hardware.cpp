#include "hw/hardware.hpp"

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

const char* to_string(Precision p) {
  switch (p) {
    case Precision::fp32:
      return "fp32";
    case Precision::tf32:
      return "tf32";
    case Precision::bf16:
      return "bf16";
    case Precision::fp16:
      return "fp16";
    case Precision::fp8:
      return "fp8";
  }
  return "?";
}

const char* to_string(IntraNodeKind k) {
  switch (k) {
    case IntraNodeKind::nvswitch:
      return "nvswitch";
    case IntraNodeKind::nvlink_bridge:
      return "nvlink-bridge";
    case IntraNodeKind::pcie:
      return "pcie";
    case IntraNodeKind::xgmi:
      return "xgmi";
  }
  return "?";
}

const char* to_string(FabricKind k) {
  switch (k) {
    case FabricKind::ib:
      return "ib";
    case FabricKind::roce:
      return "roce";
    case FabricKind::ethernet:
      return "ethernet";
    case FabricKind::efa:
      return "efa";
    case FabricKind::omnipath:
      return "omnipath";
  }
  return "?";
}

const char* to_string(FabricTopology t) {
  switch (t) {
    case FabricTopology::rail_optimized:
      return "rail-optimized";
    case FabricTopology::fat_tree:
      return "fat-tree";
  }
  return "?";
}

}  // namespace scaleout
