#include "report/bom_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/units.hpp"
#include "report/format.hpp"
#include "report/html_page.hpp"
#include "report/parts.hpp"

namespace scaleout::report {

using nlohmann::ordered_json;

namespace {

BomInput base_input(const HardwareOption& hw, const RunSettings& run,
                    const std::vector<CloudPrice>& prices, int nodes) {
  BomInput in;
  in.server = hw.server;
  in.gpu = hw.gpu;
  in.fabric = hw.fabric;
  in.nodes = nodes;
  in.server_usd = hw.server_usd;
  in.cloud_usd_per_gpu_hour = hw.usd_per_gpu_hour;
  in.facility = run.facility;
  in.prices = prices;
  return in;
}

ordered_json usd_or_null(double v, bool known) {
  return known ? ordered_json(v) : ordered_json(nullptr);
}

std::string gbit(double Bps) { return fmt::format("{:.0f} Gb/s", Bps / units::kGbps); }

std::string switch_words(const BillOfMaterials& b) {
  const SwitchCount& s = b.switches;
  std::string o = fmt::format("{} leaf", s.leaves);
  if (s.spines > 0) o += fmt::format(" + {} spine", s.spines);
  if (s.cores > 0) o += fmt::format(" + {} core", s.cores);
  return o + fmt::format(" switch{} ({} ports, {:g}:1)", s.switches() == 1 ? "" : "es",
                         b.switch_ports, b.oversubscription);
}

}  // namespace

BillOfMaterials plan_bom(const PlanReport& r, const PlanCandidate& c) {
  const HardwareOption& hw = r.request.hardware[c.hardware];
  BomInput in = base_input(hw, r.request.run, r.cloud_prices, c.nodes);
  in.scale_out = scaleup_domains(hw.server, c.nodes) > 1;
  in.busy = c.run.busy;
  return bill_of_materials(in);
}

BillOfMaterials serving_bom(const ServingPlanReport& r, const ServingCandidate& c) {
  const HardwareOption& hw = r.request.hardware[c.hardware];
  BomInput in = base_input(hw, r.request.run, r.cloud_prices, c.nodes);
  in.scale_out = needs_scaleout_fabric(c, hw.server);
  return bill_of_materials(in);
}

std::string bom_text(const BillOfMaterials& b) {
  const std::string rest(13, ' ');
  std::string o;
  if (b.server_gpus > 0) {
    // A plan below a node: its GPUs of one server, at their share of the price.
    o += wrap(b.cost.own_priced
                  ? fmt::format("{} of the {} GPUs of 1 x {} ({}), its share {}", b.gpus,
                                b.server_gpus, b.server_id, b.gpu_id, money(b.server_unit_usd))
                  : fmt::format("{} of the {} GPUs of 1 x {} ({}), unpriced", b.gpus, b.server_gpus,
                                b.server_id, b.gpu_id),
              "  servers    ", rest);
  } else {
    o += wrap(b.cost.own_priced ? fmt::format("{} x {} at {} = {} ({} x {})", b.nodes, b.server_id,
                                              money(b.server_unit_usd),
                                              money(b.cost.server_capex_usd), b.gpus, b.gpu_id)
                                : fmt::format("{} x {} ({} x {}), unpriced", b.nodes, b.server_id,
                                              b.gpus, b.gpu_id),
              "  servers    ", rest);
  }
  if (b.scale_out) {
    o += wrap(
        fmt::format(
            "{} x {} NICs{}; {}; {} cables{}", b.nics, gbit(b.nic_Bps),
            b.fabric_id.empty() ? "" : " (" + b.fabric_id + ")", switch_words(b), b.switches.cables,
            b.transceivers > 0 ? fmt::format(", {} transceivers", b.transceivers) : std::string()),
        "  network    ", rest, "; ");
  } else {
    o += "  network    no scale-out fabric needed\n";
  }
  o += wrap(fmt::format("{} rack{} ({} node{} per rack)", b.racks, b.racks == 1 ? "" : "s",
                        b.nodes_per_rack, b.nodes_per_rack == 1 ? "" : "s"),
            "  racks      ", rest);
  o += wrap(fmt::format("{} at load, {} provisioned, {} with cooling", power(b.it_W),
                        power(b.provisioned_W), power(b.facility_W)),
            "  power      ", rest, ", ");
  if (b.cost.own_priced) {
    o += wrap(fmt::format("{} (servers {}, network {}{})", money(b.cost.capex_usd),
                          money(b.cost.server_capex_usd), money(b.cost.network_capex_usd),
                          b.cost.network_itemised ? "" : " as a share of the servers"),
              "  purchase   ", rest);
    o += wrap(fmt::format("{} to own (depreciation {}, colocation {}, operations {}, energy {})",
                          money(b.own_usd_per_year), money(b.depreciation_usd_per_year),
                          money(b.colocation_usd_per_year), money(b.operations_usd_per_year),
                          money(b.energy_usd_per_year)),
              "  per year   ", rest, ", ");
  } else {
    o += "  purchase   unpriced (no purchase price for the server in the catalog)\n";
  }
  if (b.cost.cloud_priced) {
    std::string s =
        fmt::format("{}/year at {}/GPU-hour, every hour of the year", money(b.cloud_usd_per_year),
                    money_cents(b.cost.cloud_usd_per_hour / static_cast<double>(b.gpus)));
    // The break-even of the whole run (cost.hpp): owning's fixed cost against renting.
    if (b.cost.own_priced && b.cost.breakeven_utilisation > 0) {
      s += b.cost.breakeven_utilisation <= 1
               ? fmt::format("; owning is cheaper above {} utilisation",
                             percent(b.cost.breakeven_utilisation, 0))
               : std::string("; renting is cheaper at any utilisation");
    }
    o += wrap(s, "  cloud      ", rest, "; ");
  }
  for (const Commitment& m : b.commitments) {
    std::string s = fmt::format("{} {}: {}/GPU-hour, {}/year", m.price.provider, m.price.instance,
                                money_cents(m.price.usd_per_gpu_hour), money(m.usd_per_year));
    if (m.breakeven_vs_cloud > 0) {
      s += m.breakeven_vs_cloud < 1 ? fmt::format(", cheaper than on-demand above {} utilisation",
                                                  percent(m.breakeven_vs_cloud, 0))
                                    : std::string(", never cheaper than on-demand");
    }
    o += wrap(s, "  committed  ", rest);
  }
  return o;
}

ordered_json bom_json(const BillOfMaterials& b) {
  ordered_json commitments = ordered_json::array();
  for (const Commitment& m : b.commitments) {
    commitments.push_back(
        {{"provider", m.price.provider},
         {"instance", m.price.instance},
         {"pricing", m.price.pricing},
         {"date", m.price.date},
         {"usd_per_gpu_hour", m.price.usd_per_gpu_hour},
         {"usd_per_year", m.usd_per_year},
         {"breakeven_vs_cloud",
          m.breakeven_vs_cloud > 0 ? ordered_json(m.breakeven_vs_cloud) : ordered_json(nullptr)}});
  }
  const bool own = b.cost.own_priced;
  return {{"servers",
           {{"id", b.server_id},
            {"count", b.nodes},
            {"gpu", b.gpu_id},
            {"gpus", b.gpus},
            {"server_gpus", b.server_gpus > 0 ? b.server_gpus : b.gpus / std::max(1, b.nodes)},
            {"unit_usd", usd_or_null(b.server_unit_usd, own)},
            {"usd", usd_or_null(b.cost.server_capex_usd, own)}}},
          {"network",
           {{"scale_out", b.scale_out},
            {"fabric", b.fabric_id.empty() ? ordered_json(nullptr) : ordered_json(b.fabric_id)},
            {"nics", b.nics},
            {"nic_Bps", b.nic_Bps},
            {"nic_capped", b.nic_capped},
            {"switch_ports", b.switch_ports},
            {"oversubscription", b.oversubscription},
            {"tiers", b.switches.tiers},
            {"leaf_switches", b.switches.leaves},
            {"spine_switches", b.switches.spines},
            {"core_switches", b.switches.cores},
            {"cables", b.switches.cables},
            {"transceivers", b.transceivers},
            {"usd", usd_or_null(b.cost.network_capex_usd, own)},
            {"pricing", b.cost.network_itemised ? "itemised" : "share of cluster cost"}}},
          {"racks", {{"count", b.racks}, {"nodes_per_rack", b.nodes_per_rack}}},
          {"power",
           {{"it_kw", b.it_W / 1e3},
            {"provisioned_kw", b.provisioned_W / 1e3},
            {"facility_kw", b.facility_W / 1e3},
            {"cooling_kw", b.cooling_W / 1e3}}},
          {"purchase_usd", usd_or_null(b.cost.capex_usd, own)},
          {"yearly_usd",
           {{"own", usd_or_null(b.own_usd_per_year, own)},
            {"depreciation", usd_or_null(b.depreciation_usd_per_year, own)},
            {"colocation", usd_or_null(b.colocation_usd_per_year, own)},
            {"operations", usd_or_null(b.operations_usd_per_year, own)},
            {"energy", usd_or_null(b.energy_usd_per_year, own)},
            {"cloud", usd_or_null(b.cloud_usd_per_year, b.cost.cloud_priced)}}},
          {"commitments", commitments}};
}

std::vector<std::string> bom_csv_header() {
  return {"bom_nics",
          "bom_leaf_switches",
          "bom_spine_switches",
          "bom_core_switches",
          "bom_cables",
          "bom_racks",
          "bom_provisioned_kw",
          "bom_facility_kw",
          "bom_purchase_usd",
          "bom_own_usd_per_year",
          "bom_cloud_usd_per_year"};
}

std::vector<std::string> bom_csv_fields(const BillOfMaterials& b) {
  auto num = [](double v) { return fmt::format("{}", v); };
  auto priced = [&](double v, bool known) { return known ? num(v) : std::string(); };
  return {fmt::format("{}", b.nics),
          fmt::format("{}", b.switches.leaves),
          fmt::format("{}", b.switches.spines),
          fmt::format("{}", b.switches.cores),
          fmt::format("{}", b.switches.cables),
          fmt::format("{}", b.racks),
          num(b.provisioned_W / 1e3),
          num(b.facility_W / 1e3),
          priced(b.cost.capex_usd, b.cost.own_priced),
          priced(b.own_usd_per_year, b.cost.own_priced),
          priced(b.cloud_usd_per_year, b.cost.cloud_priced)};
}

std::string bom_html_rows(const BillOfMaterials& b) { return key_value_rows(bom_text(b)); }

}  // namespace scaleout::report
