#include "hw/catalog.hpp"

namespace scaleout {

template <typename T>
void Catalog::add_entry(T v) {
  if constexpr (requires { v.is_default; }) {
    if (v.is_default) {
      for (auto& [id, x] : table<T>()) x.is_default = false;
    }
  }
  std::string id = v.id;
  table<T>()[id] = std::move(v);
}

void Catalog::add(GpuFamily f) {
  for (auto& [id, g] : table<Gpu>()) {
    if (g.family == f.id) g.family_data = f;
  }
  add_entry(std::move(f));
}

void Catalog::add(Gpu g) {
  if (const GpuFamily* f = find<GpuFamily>(g.family)) g.family_data = *f;
  add_entry(std::move(g));
}
void Catalog::add(Server s) { add_entry(std::move(s)); }
void Catalog::add(Fabric f) { add_entry(std::move(f)); }
void Catalog::add(ModelShape m) { add_entry(std::move(m)); }

void Catalog::add(CloudPrice p) {
  if (p.is_default) {
    for (CloudPrice& q : cloud_prices_) {
      if (q.gpu_id == p.gpu_id) q.is_default = false;
    }
  }
  cloud_prices_.push_back(std::move(p));
}

void Catalog::add(PurchasePrice p) {
  std::string id = p.server_id;
  table<PurchasePrice>()[id] = std::move(p);
}

void Catalog::add(FailureRate f) { add_entry(std::move(f)); }
void Catalog::add(StorageSystem s) { add_entry(std::move(s)); }
void Catalog::add(Facility f) { add_entry(std::move(f)); }

const CloudPrice* Catalog::cloud_price(const std::string& gpu_id,
                                       const std::string& pricing) const {
  if (pricing == "on-demand") {
    if (const CloudPrice* p = default_cloud_price(gpu_id)) return p;
  }
  const CloudPrice* best = nullptr;
  for (const CloudPrice& p : cloud_prices_) {
    if (p.gpu_id == gpu_id && p.pricing == pricing &&
        (!best || p.usd_per_gpu_hour < best->usd_per_gpu_hour)) {
      best = &p;
    }
  }
  return best;
}

const CloudPrice* Catalog::default_cloud_price(const std::string& gpu_id) const {
  for (const CloudPrice& p : cloud_prices_) {
    if (p.gpu_id == gpu_id && p.is_default) return &p;
  }
  return nullptr;
}

}  // namespace scaleout
