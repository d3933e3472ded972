// The catalog: GPUs, servers, fabrics and models by id. Entries are added
// in order; an entry whose id already exists replaces it (user catalog files
// override the embedded one).
#pragma once

#include <map>
#include <string>
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

  const GpuFamily* find_family(const std::string& id) const;
  const Gpu* find_gpu(const std::string& id) const;
  const Server* find_server(const std::string& id) const;
  const Fabric* find_fabric(const std::string& id) const;
  const ModelShape* find_model(const std::string& id) const;
  // The price plans use for a GPU (the entry marked default), or nullptr.
  const CloudPrice* default_cloud_price(const std::string& gpu_id) const;
  const std::vector<CloudPrice>& cloud_prices() const { return cloud_prices_; }
  const PurchasePrice* find_purchase_price(const std::string& server_id) const;
  // The cheapest price of a pricing kind for a GPU (the default one for
  // on-demand), or nullptr.
  const CloudPrice* cloud_price(const std::string& gpu_id, const std::string& pricing) const;

  const FailureRate* find_failure_rate(const std::string& id) const;
  const StorageSystem* find_storage(const std::string& id) const;
  const Facility* find_facility(const std::string& id) const;
  // The entries marked default, or nullptr when the catalog has none.
  const FailureRate* default_failure_rate() const;
  const StorageSystem* default_storage() const;
  const Facility* default_facility() const;
  std::vector<const FailureRate*> failure_rates() const;
  std::vector<const StorageSystem*> storage_systems() const;
  std::vector<const Facility*> facilities() const;
  std::vector<std::string> failure_rate_ids() const;
  std::vector<std::string> storage_ids() const;
  std::vector<std::string> facility_ids() const;

  // Entries in id order.
  std::vector<const GpuFamily*> families() const;
  std::vector<std::string> family_ids() const;
  std::vector<const Gpu*> gpus() const;
  std::vector<const Server*> servers() const;
  std::vector<const Fabric*> fabrics() const;
  std::vector<const ModelShape*> models() const;

  std::vector<std::string> gpu_ids() const;
  std::vector<std::string> server_ids() const;
  std::vector<std::string> fabric_ids() const;
  std::vector<std::string> model_ids() const;

 private:
  std::map<std::string, GpuFamily> families_;
  std::map<std::string, Gpu> gpus_;
  std::map<std::string, Server> servers_;
  std::map<std::string, Fabric> fabrics_;
  std::map<std::string, ModelShape> models_;
  std::vector<CloudPrice> cloud_prices_;
  std::map<std::string, PurchasePrice> purchase_prices_;
  std::map<std::string, FailureRate> failure_rates_;
  std::map<std::string, StorageSystem> storage_;
  std::map<std::string, Facility> facilities_;
};

}  // namespace scaleout
