#include "hw/catalog.hpp"

namespace scaleout {

namespace {
template <typename T>
const T* find_in(const std::map<std::string, T>& m, const std::string& id) {
  auto it = m.find(id);
  return it == m.end() ? nullptr : &it->second;
}
template <typename T>
std::vector<const T*> values(const std::map<std::string, T>& m) {
  std::vector<const T*> out;
  out.reserve(m.size());
  for (const auto& [id, v] : m) out.push_back(&v);
  return out;
}
template <typename T>
void add_with_default(std::map<std::string, T>& m, T v) {
  if (v.is_default) {
    for (auto& [id, x] : m) x.is_default = false;
  }
  m[v.id] = std::move(v);
}
template <typename T>
const T* default_of(const std::map<std::string, T>& m) {
  for (const auto& [id, x] : m) {
    if (x.is_default) return &x;
  }
  return nullptr;
}
template <typename T>
std::vector<std::string> keys(const std::map<std::string, T>& m) {
  std::vector<std::string> out;
  out.reserve(m.size());
  for (const auto& [id, v] : m) out.push_back(id);
  return out;
}
}  // namespace

void Catalog::add(GpuFamily f) {
  for (auto& [id, g] : gpus_) {
    if (g.family == f.id) g.family_data = f;
  }
  families_[f.id] = std::move(f);
}

void Catalog::add(Gpu g) {
  if (const GpuFamily* f = find_family(g.family)) g.family_data = *f;
  gpus_[g.id] = std::move(g);
}
void Catalog::add(Server s) { servers_[s.id] = std::move(s); }
void Catalog::add(Fabric f) { fabrics_[f.id] = std::move(f); }
void Catalog::add(ModelShape m) { models_[m.id] = std::move(m); }

void Catalog::add(CloudPrice p) {
  if (p.is_default) {
    for (CloudPrice& q : cloud_prices_) {
      if (q.gpu_id == p.gpu_id) q.is_default = false;
    }
  }
  cloud_prices_.push_back(std::move(p));
}

void Catalog::add(PurchasePrice p) { purchase_prices_[p.server_id] = std::move(p); }

void Catalog::add(FailureRate f) { add_with_default(failure_rates_, std::move(f)); }
void Catalog::add(StorageSystem s) { add_with_default(storage_, std::move(s)); }
void Catalog::add(Facility f) { add_with_default(facilities_, std::move(f)); }

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

const FailureRate* Catalog::find_failure_rate(const std::string& id) const {
  return find_in(failure_rates_, id);
}
const StorageSystem* Catalog::find_storage(const std::string& id) const {
  return find_in(storage_, id);
}
const Facility* Catalog::find_facility(const std::string& id) const {
  return find_in(facilities_, id);
}
const FailureRate* Catalog::default_failure_rate() const { return default_of(failure_rates_); }
const StorageSystem* Catalog::default_storage() const { return default_of(storage_); }
const Facility* Catalog::default_facility() const { return default_of(facilities_); }
std::vector<const FailureRate*> Catalog::failure_rates() const { return values(failure_rates_); }
std::vector<const StorageSystem*> Catalog::storage_systems() const { return values(storage_); }
std::vector<const Facility*> Catalog::facilities() const { return values(facilities_); }
std::vector<std::string> Catalog::failure_rate_ids() const { return keys(failure_rates_); }
std::vector<std::string> Catalog::storage_ids() const { return keys(storage_); }
std::vector<std::string> Catalog::facility_ids() const { return keys(facilities_); }

const CloudPrice* Catalog::default_cloud_price(const std::string& gpu_id) const {
  for (const CloudPrice& p : cloud_prices_) {
    if (p.gpu_id == gpu_id && p.is_default) return &p;
  }
  return nullptr;
}

const PurchasePrice* Catalog::find_purchase_price(const std::string& server_id) const {
  return find_in(purchase_prices_, server_id);
}

const GpuFamily* Catalog::find_family(const std::string& id) const {
  return find_in(families_, id);
}
std::vector<const GpuFamily*> Catalog::families() const { return values(families_); }
std::vector<std::string> Catalog::family_ids() const { return keys(families_); }

const Gpu* Catalog::find_gpu(const std::string& id) const { return find_in(gpus_, id); }
const Server* Catalog::find_server(const std::string& id) const { return find_in(servers_, id); }
const Fabric* Catalog::find_fabric(const std::string& id) const { return find_in(fabrics_, id); }
const ModelShape* Catalog::find_model(const std::string& id) const { return find_in(models_, id); }

std::vector<const Gpu*> Catalog::gpus() const { return values(gpus_); }
std::vector<const Server*> Catalog::servers() const { return values(servers_); }
std::vector<const Fabric*> Catalog::fabrics() const { return values(fabrics_); }
std::vector<const ModelShape*> Catalog::models() const { return values(models_); }

std::vector<std::string> Catalog::gpu_ids() const { return keys(gpus_); }
std::vector<std::string> Catalog::server_ids() const { return keys(servers_); }
std::vector<std::string> Catalog::fabric_ids() const { return keys(fabrics_); }
std::vector<std::string> Catalog::model_ids() const { return keys(models_); }

}  // namespace scaleout
