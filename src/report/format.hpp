// One formatting module for the figures every writer prints: bytes, money,
// durations, percentages and power, each in one fixed format (the text, HTML
// and reason sentences all call these; docs/model.md gives the units).
#pragma once

#include <string>

namespace scaleout::report {

// Bytes in binary gigabytes: "12.3 GiB" (`decimals` after the point).
std::string gib(double bytes, int decimals = 1);
// Bytes in decimal units: "1.2 TB", "12.3 GB", "950 MB".
std::string bytes(double b);
// Bytes per second: "1.2 GB/s", "950 MB/s".
std::string rate(double Bps);

// Whole dollars in three sizes: "$5.71M", "$12.3k", "$950".
std::string money(double usd);
// money, or "unpriced" for 0 (or less).
std::string cost(double usd);
// Dollars to the cent below $1000: "$12.3k", "$98.40" (hourly serving prices).
std::string money_cents(double usd);

// A run's length: "5.2 hours" below a day, else "22.2 days".
std::string duration(double seconds);
// Days only: "0.4 days", "22.2 days" (launch-file comments).
std::string duration_days(double seconds);
// An interval from seconds to days: "42.0 s", "12 min", "5.2 hours" (below
// two days), "22.2 days".
std::string interval(double seconds);
// Milliseconds: "12.3 ms".
std::string ms(double seconds);

// A share as a percentage: "12.3 %" (`decimals` after the point).
std::string percent(double share, int decimals = 1);

// Watts in kilowatts: "12.3 kW".
std::string kw(double W);
// Watts in kilowatts, megawatts from 1 MW: "12.3 kW", "1.23 MW".
std::string power(double W);
// Energy: "950 kWh", "12.3 MWh", "1.23 GWh".
std::string energy(double kWh);

}  // namespace scaleout::report
