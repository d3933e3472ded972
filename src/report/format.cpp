#include "report/format.hpp"

#include <fmt/format.h>

#include "core/units.hpp"

namespace scaleout::report {

std::string gib(double bytes, int decimals) {
  return fmt::format("{:.{}f} GiB", bytes / units::kGiB, decimals);
}

std::string bytes(double b) {
  if (b >= 1e12) return fmt::format("{:.1f} TB", b / 1e12);
  if (b >= 1e9) return fmt::format("{:.1f} GB", b / 1e9);
  return fmt::format("{:.0f} MB", b / 1e6);
}

std::string rate(double Bps) {
  if (Bps >= 1e9) return fmt::format("{:.1f} GB/s", Bps / 1e9);
  return fmt::format("{:.0f} MB/s", Bps / 1e6);
}

std::string money(double usd) {
  if (usd >= 1e6) return fmt::format("${:.2f}M", usd / 1e6);
  if (usd >= 1e3) return fmt::format("${:.1f}k", usd / 1e3);
  return fmt::format("${:.0f}", usd);
}

std::string cost(double usd) { return usd <= 0 ? "unpriced" : money(usd); }

std::string money_cents(double usd) {
  if (usd >= 1e3) return fmt::format("${:.1f}k", usd / 1e3);
  return fmt::format("${:.2f}", usd);
}

std::string duration(double s) {
  return s < 86400.0 ? fmt::format("{:.1f} hours", s / 3600.0)
                     : fmt::format("{:.1f} days", s / 86400.0);
}

std::string duration_days(double s) { return fmt::format("{:.1f} days", s / 86400.0); }

std::string interval(double s) {
  if (s < 60.0) return fmt::format("{:.1f} s", s);
  if (s < 3600.0) return fmt::format("{:.0f} min", s / 60.0);
  if (s < 86400.0 * 2) return fmt::format("{:.1f} hours", s / 3600.0);
  return fmt::format("{:.1f} days", s / 86400.0);
}

std::string ms(double s) { return fmt::format("{:.1f} ms", s * 1e3); }

std::string percent(double share, int decimals) {
  return fmt::format("{:.{}f} %", 100.0 * share, decimals);
}

std::string kw(double W) { return fmt::format("{:.1f} kW", W / 1000.0); }

std::string power(double W) {
  if (W >= 1e6) return fmt::format("{:.2f} MW", W / 1e6);
  return kw(W);
}

std::string energy(double kWh) {
  if (kWh >= 1e6) return fmt::format("{:.2f} GWh", kWh / 1e6);
  if (kWh >= 1e3) return fmt::format("{:.1f} MWh", kWh / 1e3);
  return fmt::format("{:.0f} kWh", kWh);
}

}  // namespace scaleout::report
