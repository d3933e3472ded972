// The catalog: GPU families, GPUs, servers, fabrics, models, prices and the
// economics entries, each kind a table by id. Entries are added
// in order; an entry whose id already exists replaces it (user catalog files
// override the embedded one).
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "hw/hardware.hpp"
#include "model/transformer.hpp"

namespace scaleout {

class Catalog {
 public:
  // A family replaces the one of its id, also in the GPUs already added.
  void add(GpuFamily f);
  void add(Gpu g);
  void add(Server s);
  void add(Fabric f);
  void add(ModelShape m);
  void add(CloudPrice p);  // a default price replaces the GPU's previous default
  void add(PurchasePrice p);
  // A default entry replaces the previous default of its kind.
  void add(FailureRate f);
  void add(StorageSystem s);
  void add(Facility f);

  // The entry of kind T (GpuFamily, Gpu, Server, Fabric, ModelShape,
  // PurchasePrice by server id, FailureRate, StorageSystem, Facility) with
  // `id`, or nullptr.
  template <typename T>
  const T* find(const std::string& id) const {
    const auto& m = table<T>();
    const auto it = m.find(id);
    return it == m.end() ? nullptr : &it->second;
  }
  // The entries of kind T in id order, and their ids.
  template <typename T>
  std::vector<const T*> all() const {
    std::vector<const T*> out;
    for (const auto& [id, v] : table<T>()) out.push_back(&v);
    return out;
  }
  template <typename T>
  std::vector<std::string> ids() const {
    std::vector<std::string> out;
    for (const auto& [id, v] : table<T>()) out.push_back(id);
    return out;
  }
  // The entry of kind T marked default (FailureRate, StorageSystem,
  // Facility), or nullptr when the catalog has none.
  template <typename T>
  const T* default_entry() const {
    for (const auto& [id, v] : table<T>()) {
      if (v.is_default) return &v;
    }
    return nullptr;
  }

  const Gpu* find_gpu(const std::string& id) const { return find<Gpu>(id); }
  const Server* find_server(const std::string& id) const { return find<Server>(id); }
  const Fabric* find_fabric(const std::string& id) const { return find<Fabric>(id); }
  const ModelShape* find_model(const std::string& id) const { return find<ModelShape>(id); }
  // The price plans use for a GPU (the entry marked default), or nullptr.
  const CloudPrice* default_cloud_price(const std::string& gpu_id) const;
  const std::vector<CloudPrice>& cloud_prices() const { return cloud_prices_; }
  const PurchasePrice* find_purchase_price(const std::string& server_id) const {
    return find<PurchasePrice>(server_id);
  }
  // The cheapest price of a pricing kind for a GPU (the default one for
  // on-demand), or nullptr.
  const CloudPrice* cloud_price(const std::string& gpu_id, const std::string& pricing) const;

 private:
  // One id-ordered table per kind (purchase prices by server id).
  template <typename T>
  using Table = std::map<std::string, T>;
  template <typename T>
  Table<T>& table() {
    return std::get<Table<T>>(tables_);
  }
  template <typename T>
  const Table<T>& table() const {
    return std::get<Table<T>>(tables_);
  }
  // Adds `v` by its id; a default entry replaces the previous default.
  template <typename T>
  void add_entry(T v);

  std::tuple<Table<GpuFamily>, Table<Gpu>, Table<Server>, Table<Fabric>, Table<ModelShape>,
             Table<PurchasePrice>, Table<FailureRate>, Table<StorageSystem>, Table<Facility>>
      tables_;
  std::vector<CloudPrice> cloud_prices_;
};

}  // namespace scaleout
