// `plan --format html`: one self-contained HTML page (no scripts, no
// network): the verdict and its reasons, then four SVG charts drawn here
// (per-GPU memory against HBM capacity, time to train and cost against node
// count with the knee marked, step-time breakdown) and tables of the plan's
// figures, the frontier and the search counts. Every string that comes from
// the user or a catalog file is escaped. Numbers in the SVG are rounded to
// 0.1 px, so the page is the same byte for byte for the same plan.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "core/units.hpp"
#include "report/bom_report.hpp"
#include "report/html_page.hpp"
#include "report/json_parts.hpp"
#include "report/parts.hpp"
#include "report/reasons.hpp"
#include "report/report.hpp"
#include "search/frontier.hpp"
#include "search/knee.hpp"

namespace scaleout::report {

std::string html_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

namespace {

using Str = std::string;

Str esc(const Str& s) { return html_escape(s); }
Str px(double v) { return fmt::format("{:.1f}", v); }

// Chart geometry (SVG user units = CSS pixels at 100 %).
constexpr double kWidth = 880;
constexpr double kLeft = 200;  // room for bar labels / y-axis labels
constexpr double kRight = 24;

// Colour-blind-safe palette (Okabe & Ito 2008), then greys.
constexpr const char* kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9",
                                    "#D55E00", "#F0E442", "#000000", "#999999", "#6A3D9A"};
constexpr std::size_t kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);

Str svg_open(const Str& id, double height, const Str& label) {
  return fmt::format(
      "<svg class=\"chart\" id=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" "
      "width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"{}\"><title>{}</title>\n",
      id, px(kWidth), px(height), px(kWidth), px(height), esc(label), esc(label));
}

Str text(double x, double y, const Str& s, const Str& anchor = "start", const Str& cls = "") {
  return fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\"{}>{}</text>\n", px(x), px(y),
                     anchor, cls.empty() ? "" : " class=\"" + cls + "\"", esc(s));
}

Str line(double x1, double y1, double x2, double y2, const Str& cls) {
  return fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" class=\"{}\"/>\n", px(x1),
                     px(y1), px(x2), px(y2), cls);
}

// --- stacked horizontal bars (memory, step time) ------------------------------------------------

struct Part {
  Str name;
  double value = 0;
};

// The legend of a bar chart of named parts.
template <typename Parts>
std::vector<Str> words_of(const Parts& parts) {
  std::vector<Str> words;
  for (const auto& part : parts) words.emplace_back(part.words);
  return words;
}

struct Bar {
  Str role;                     // left of the bar, first line ("Recommended")
  Str label;                    // left of the bar, second line ("128 x dgx-h200")
  Str total;                    // right of the bar
  std::vector<Part> parts;      // in legend order
  std::optional<double> limit;  // a marker across the bar (HBM capacity)
  Str limit_label;
};

// Bars scaled so that `scale` spans the plot width; `tick` formats an axis value.
Str stacked_bars(const Str& id, const Str& label, const std::vector<Bar>& bars,
                 const std::vector<Str>& legend, double scale, double tick_step,
                 Str (*tick)(double), Str (*tip)(double), const Str& unit_note) {
  const double bar_h = 34, gap = 30, top = 28;
  const double plot_w = kWidth - kLeft - kRight - 90;
  const double axis_y = top + static_cast<double>(bars.size()) * (bar_h + gap);
  const double height = axis_y + 44 + 22.0 * static_cast<double>((legend.size() + 2) / 3);
  Str o = svg_open(id, height, label);
  auto x_of = [&](double v) { return kLeft + plot_w * v / scale; };
  for (double v = 0; v <= scale * (1 + 1e-9); v += tick_step) {
    o += line(x_of(v), top - 6, x_of(v), axis_y, "grid");
    o += text(x_of(v), axis_y + 16, tick(v), "middle", "tick");
  }
  o += text(kLeft + plot_w / 2, axis_y + 34, unit_note, "middle", "axis");
  for (std::size_t b = 0; b < bars.size(); ++b) {
    const Bar& bar = bars[b];
    const double y = top + static_cast<double>(b) * (bar_h + gap);
    o += text(kLeft - 10, y + bar_h / 2 - 3, bar.role, "end", "label");
    o += text(kLeft - 10, y + bar_h / 2 + 12, bar.label, "end", "label");
    double x = 0;
    for (std::size_t i = 0; i < bar.parts.size(); ++i) {
      const Part& p = bar.parts[i];
      if (p.value <= 0) continue;
      const double w = x_of(x + p.value) - x_of(x);
      o += fmt::format(
          "<rect class=\"part\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
          "fill=\"{}\"><title>{}: {}</title></rect>\n",
          px(x_of(x)), px(y), px(std::max(w, 0.5)), px(bar_h), kPalette[i % kPaletteSize],
          esc(bar.role + ", " + p.name), esc(tip(p.value)));
      x += p.value;
    }
    // The total right of the bar, or right of the limit marker when that is close.
    double label_x = x_of(x);
    if (bar.limit && x_of(*bar.limit) >= label_x && x_of(*bar.limit) - label_x < 60) {
      label_x = x_of(*bar.limit);
    }
    o += text(label_x + 6, y + bar_h / 2 + 5, bar.total, "start", "value");
    if (bar.limit) {
      const double lx = x_of(*bar.limit);
      o += line(lx, y - 6, lx, y + bar_h + 6, "limit");
      o += text(lx, y - 9, bar.limit_label, "middle", "limit-label");
    }
  }
  // Legend, three to a row.
  for (std::size_t i = 0; i < legend.size(); ++i) {
    const double lx = kLeft + static_cast<double>(i % 3) * 220;
    const double ly = axis_y + 56 + 22.0 * static_cast<double>(i / 3);
    o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>\n", px(lx),
                     px(ly - 10), kPalette[i % kPaletteSize]);
    o += text(lx + 18, ly, legend[i], "start", "legend");
  }
  return o + "</svg>\n";
}

Str gib_tick(double v) { return fmt::format("{:.0f}", v / units::kGiB); }
Str pct_tick(double v) { return fmt::format("{:.0f} %", 100 * v); }

// "2.00 T", "15.0 B": token counts.
Str count(double n) {
  if (n >= 1e12) return fmt::format("{:.2f} T", n / 1e12);
  if (n >= 1e9) return fmt::format("{:.2f} B", n / 1e9);
  if (n >= 1e6) return fmt::format("{:.1f} M", n / 1e6);
  return fmt::format("{:.0f}", n);
}

// A step of 1, 2 or 5 x 10^k giving about `n` intervals over `range`.
double nice_step(double range, int n) {
  const double raw = range / n;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * mag >= raw) return m * mag;
  }
  return 10 * mag;
}

Str plan_title(const PlanReport& r, const PlanCandidate& c) {
  return fmt::format("{} x {}", c.nodes, r.request.hardware[c.hardware].server.id);
}

// The plans the charts and the figures table show, with their roles: the
// recommended (or closest) plan, then the best single-node plan when it is
// another plan.
std::vector<std::pair<Str, const PlanCandidate*>> shown_plans(const PlanResult& p) {
  std::vector<std::pair<Str, const PlanCandidate*>> plans;
  if (p.recommended) {
    plans.emplace_back(p.verdict == Verdict::infeasible ? "Closest" : "Recommended",
                       &*p.recommended);
  }
  if (p.single_node_best && !is_recommended(p, *p.single_node_best)) {
    plans.emplace_back("Best single node", &*p.single_node_best);
  }
  return plans;
}

Str memory_chart(const PlanReport& r) {
  std::vector<Bar> bars;
  double scale = 0;
  for (const auto& [role, c] : shown_plans(r.result)) {
    const StageMemory& m = c->memory.peak;
    Bar b;
    b.role = role;
    b.label = plan_title(r, *c);
    b.total = gib(c->memory.total());
    for (const auto& part : kMemoryParts) b.parts.push_back({part.key, m.*part.value});
    b.limit = c->memory.capacity_bytes;
    b.limit_label = fmt::format("HBM {:.0f} GiB", c->memory.capacity_bytes / units::kGiB);
    scale = std::max({scale, c->memory.total(), c->memory.capacity_bytes});
    bars.push_back(std::move(b));
  }
  if (bars.empty()) {
    return svg_open("chart-memory", 60, "per-GPU memory") +
           text(20, 35, "No plan fits: no memory breakdown to show.", "start", "label") +
           "</svg>\n";
  }
  const double step = nice_step(scale / units::kGiB, 7) * units::kGiB;
  scale = std::ceil(scale / step) * step;
  return stacked_bars(
      "chart-memory", "Per-GPU memory against HBM capacity", bars, words_of(kMemoryParts), scale,
      step, gib_tick, [](double b) { return gib(b); }, "GiB per GPU (most loaded pipeline stage)");
}

Str step_chart(const PlanReport& r) {
  std::vector<Bar> bars;
  for (const auto& [role, c] : shown_plans(r.result)) {
    const StepBreakdown& b = c->step.breakdown;
    const double total = b.total() > 0 ? b.total() : 1;
    Bar bar;
    bar.role = role;
    bar.label = plan_title(r, *c);
    bar.total = fmt::format("{:.2f} s", c->step.step_s);
    for (const auto& part : kStepParts) bar.parts.push_back({part.words, b.*part.value / total});
    bars.push_back(std::move(bar));
  }
  if (bars.empty()) {
    return svg_open("chart-step", 60, "step-time breakdown") +
           text(20, 35, "No plan fits: no step time to show.", "start", "label") + "</svg>\n";
  }
  return stacked_bars(
      "chart-step", "Step-time breakdown", bars, words_of(kStepParts), 1.0, 0.1, pct_tick,
      [](double f) { return percent(f); }, "share of one step (exposed, not overlapped, time)");
}

// --- frontier line charts ------------------------------------------------------------------------

struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  std::vector<double> ticks;
};

// A log axis from the power of `base` at or below `lo` to the one at or above
// `hi` (`log_base`: the logarithm to that base); no ticks yet.
Axis log_bounds(double lo, double hi, double base, double (*log_base)(double)) {
  Axis a;
  a.log = true;
  a.lo = std::pow(base, std::floor(log_base(lo)));
  a.hi = std::pow(base, std::ceil(log_base(hi)));
  if (a.hi <= a.lo) a.hi = a.lo * base;
  return a;
}

Axis log2_axis(double lo, double hi) {
  Axis a = log_bounds(lo, hi, 2.0, [](double x) { return std::log2(x); });
  for (double v = a.lo; v <= a.hi * (1 + 1e-9); v *= 2) a.ticks.push_back(v);
  return a;
}

Axis log10_axis(double lo, double hi) {
  Axis a = log_bounds(lo, hi, 10.0, [](double x) { return std::log10(x); });
  const bool sparse = a.hi / a.lo > 1e4;  // many decades: label the decades only
  for (double d = a.lo; d < a.hi * (1 + 1e-9); d *= 10) {
    for (double m : {1.0, 2.0, 5.0}) {
      if ((sparse && m > 1) || d * m > a.hi * (1 + 1e-9)) continue;
      a.ticks.push_back(d * m);
    }
  }
  return a;
}

Axis linear_axis(double lo, double hi) {
  Axis a;
  if (hi <= lo) hi = lo + 1;
  const double step = nice_step(hi - lo, 5);
  a.lo = std::floor(lo / step) * step;
  a.hi = std::ceil(hi / step) * step;
  for (double v = a.lo; v <= a.hi + step * 1e-9; v += step) a.ticks.push_back(v);
  return a;
}

double frac(const Axis& a, double v) {
  return a.log ? (std::log(v) - std::log(a.lo)) / (std::log(a.hi) - std::log(a.lo))
               : (v - a.lo) / (a.hi - a.lo);
}

Str usd_tick(double v) { return v == 0 ? Str("$0") : cost(v); }

struct Marker {
  double y;
  Str label;
};

// One line per hardware option over the frontier: x = nodes (log 2),
// y = value(c). Knees are ringed diamonds, the recommended plan a large ring,
// plans that miss a constraint hollow.
Str frontier_chart(const PlanReport& r, const Str& id, const Str& label, const Str& y_title,
                   const std::function<double(const PlanCandidate&)>& value, bool log_y,
                   const std::function<Str(double)>& tick, std::optional<Marker> limit) {
  const PlanResult& p = r.result;
  const std::vector<bool> knees = frontier_knees(p.frontier, kKneePremium, &r.request.hardware);
  // The line runs through every point; markers only on the points the
  // frontier table shows.
  const std::vector<bool> shown = frontier_shown(p, r.request);
  double x_lo = 1e300, x_hi = 0, y_lo = 1e300, y_hi = 0;
  for (const PlanCandidate& c : p.frontier) {
    if (value(c) <= 0) continue;
    x_lo = std::min(x_lo, static_cast<double>(c.nodes));
    x_hi = std::max(x_hi, static_cast<double>(c.nodes));
    y_lo = std::min(y_lo, value(c));
    y_hi = std::max(y_hi, value(c));
  }
  const double top = 20, plot_h = 300, bottom = top + plot_h;
  std::vector<int> options;
  for (const PlanCandidate& c : p.frontier) {
    if (value(c) > 0 && std::find(options.begin(), options.end(), c.hardware) == options.end()) {
      options.push_back(c.hardware);
    }
  }
  const double height = bottom + 56 + 22.0 * static_cast<double>((options.size() + 2) / 3 + 1);
  if (x_hi == 0) {
    return svg_open(id, 60, label) +
           text(20, 35, "No plan to draw: nothing fits, or no plan that fits has a price.", "start",
                "label") +
           "</svg>\n";
  }
  Str o = svg_open(id, height, label);
  if (limit && limit->y > 0) {
    y_lo = std::min(y_lo, limit->y);
    y_hi = std::max(y_hi, limit->y);
  }
  const Axis xa = log2_axis(x_lo, x_hi);
  const Axis ya = log_y ? log10_axis(y_lo, y_hi) : linear_axis(0, y_hi * 1.05);
  const double plot_w = kWidth - 90 - kRight;
  const double left = 90;
  auto X = [&](double v) { return left + plot_w * frac(xa, v); };
  auto Y = [&](double v) { return bottom - plot_h * frac(ya, v); };
  for (double v : xa.ticks) {
    o += line(X(v), top, X(v), bottom, "grid");
    o += text(X(v), bottom + 16, fmt::format("{:g}", v), "middle", "tick");
  }
  for (double v : ya.ticks) {
    o += line(left, Y(v), left + plot_w, Y(v), "grid");
    o += text(left - 8, Y(v) + 4, tick(v), "end", "tick");
  }
  o += line(left, bottom, left + plot_w, bottom, "axis-line");
  o += line(left, top, left, bottom, "axis-line");
  o += text(left + plot_w / 2, bottom + 36, "nodes (log scale)", "middle", "axis");
  o += fmt::format(
      "<text x=\"14\" y=\"{}\" text-anchor=\"middle\" class=\"axis\" "
      "transform=\"rotate(-90 14 {})\">{}</text>\n",
      px(top + plot_h / 2), px(top + plot_h / 2), esc(y_title));
  if (limit && limit->y > 0) {
    o += line(left, Y(limit->y), left + plot_w, Y(limit->y), "limit");
    o += text(left + 6, Y(limit->y) - 6, limit->label, "start", "limit-label");
  }
  for (std::size_t s = 0; s < options.size(); ++s) {
    const int hw = options[s];
    const char* colour = kPalette[s % kPaletteSize];
    // Past the palette's ten colours, lines repeat them dashed, then dotted.
    const std::size_t cycle = (s / kPaletteSize) % 3;
    const Str dash = cycle == 0   ? Str()
                     : cycle == 1 ? Str(" stroke-dasharray=\"8 4\"")
                                  : Str(" stroke-dasharray=\"2 3\"");
    const HardwareOption& opt = r.request.hardware[static_cast<std::size_t>(hw)];
    const Str name = opt.server.id + (opt.fabric ? " / " + opt.fabric->id : Str());
    Str path;
    for (const PlanCandidate& c : p.frontier) {
      if (c.hardware != hw || value(c) <= 0) continue;
      path += fmt::format("{}{},{}", path.empty() ? "M" : " L", px(X(c.nodes)), px(Y(value(c))));
    }
    o += fmt::format("<path class=\"series\" d=\"{}\" stroke=\"{}\"{}/>\n", path, colour, dash);
    for (std::size_t i = 0; i < p.frontier.size(); ++i) {
      const PlanCandidate& c = p.frontier[i];
      if (c.hardware != hw || value(c) <= 0 || !shown[i]) continue;
      const double x = X(c.nodes), y = Y(value(c));
      const bool ok = feasible(c);
      const Str tip = fmt::format("{}: {} nodes, {}, {}{}{}", name, c.nodes,
                                  duration(c.time_to_train_s), cost(c.cost_usd),
                                  ok ? "" : ", misses a constraint", knees[i] ? " (knee)" : "");
      o += fmt::format(
          "<circle class=\"point\" cx=\"{}\" cy=\"{}\" r=\"3.5\" stroke=\"{}\" fill=\"{}\">"
          "<title>{}</title></circle>\n",
          px(x), px(y), colour, ok ? colour : "#ffffff", esc(tip));
      if (knees[i]) {
        o += fmt::format(
            "<path class=\"knee\" d=\"M{},{} l8,8 l-8,8 l-8,-8 z\" stroke=\"{}\"><title>knee: "
            "{}</title></path>\n",
            px(x), px(y - 8), colour, esc(tip));
      }
      if (is_recommended(p, c)) {
        o += fmt::format(
            "<circle class=\"recommended\" cx=\"{}\" cy=\"{}\" r=\"12\"><title>recommended: "
            "{}</title></circle>\n",
            px(x), px(y), esc(tip));
      }
    }
    const double lx = left + static_cast<double>(s % 3) * 250;
    const double ly = bottom + 60 + 22.0 * static_cast<double>(s / 3);
    o += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" class=\"legend-line\" stroke=\"{}\"{}/>\n",
        px(lx), px(ly - 4), px(lx + 22), px(ly - 4), colour, dash);
    o += text(lx + 28, ly, name, "start", "legend");
  }
  const double ky = bottom + 60 + 22.0 * static_cast<double>((options.size() + 2) / 3);
  o += fmt::format("<path class=\"knee\" d=\"M{},{} l7,7 l-7,7 l-7,-7 z\" stroke=\"#333\"/>\n",
                   px(left + 8), px(ky - 15));
  o += text(left + 22, ky, "knee", "start", "legend");
  o += fmt::format("<circle class=\"recommended\" cx=\"{}\" cy=\"{}\" r=\"8\"/>\n", px(left + 110),
                   px(ky - 4));
  o += text(left + 124, ky, "recommended", "start", "legend");
  o += fmt::format(
      "<circle cx=\"{}\" cy=\"{}\" r=\"3.5\" stroke=\"#333\" fill=\"#ffffff\" class=\"point\"/>\n",
      px(left + 240), px(ky - 4));
  o += text(left + 250, ky, "misses a constraint (deadline, budget, power, goodput)", "start",
            "legend");
  return o + "</svg>\n";
}

double cost_usd(const PlanCandidate& c) { return c.cost_usd; }

// --- tables --------------------------------------------------------------------------------------

Str row(const Str& head, const std::vector<Str>& cells) {
  Str o = "<tr><th scope=\"row\">" + esc(head) + "</th>";
  for (const Str& c : cells) o += "<td>" + esc(c) + "</td>";
  return o + "</tr>\n";
}

using Cell = std::function<Str(const PlanCandidate&)>;

// A table with one column per shown plan and one row per (heading, cell).
Str plans_table(const PlanReport& r, const Str& cls,
                const std::vector<std::pair<Str, Cell>>& rows) {
  const std::vector<std::pair<Str, const PlanCandidate*>> plans = shown_plans(r.result);
  if (plans.empty()) return "<p>No plan fits in memory.</p>\n";
  Str o = "<table class=\"" + cls + "\"><thead><tr><th></th>";
  for (const auto& [role, c] : plans) o += "<th scope=\"col\">" + esc(role) + " plan</th>";
  o += "</tr></thead><tbody>\n";
  for (const auto& [head, cell] : rows) {
    std::vector<Str> cells;
    for (const auto& pc : plans) cells.push_back(cell(*pc.second));
    o += row(head, cells);
  }
  return o + "</tbody></table>\n";
}

Str met(bool ok) { return ok ? "met" : "missed"; }

Str figures_table(const PlanReport& r) {
  std::vector<std::pair<Str, Cell>> rows;
  auto each = [&](const Str& head, Cell f) { rows.emplace_back(head, std::move(f)); };
  auto hw = [&](const PlanCandidate& c) -> const HardwareOption& {
    return r.request.hardware[static_cast<std::size_t>(c.hardware)];
  };
  each("hardware", [&](const PlanCandidate& c) {
    return hardware_words(hw(c).server, hw(c).gpu, c.nodes);
  });
  each("scale-out network", [&](const PlanCandidate& c) { return scale_out_name(hw(c), c); });
  each("scale-up domains", [&](const PlanCandidate& c) { return domains_text(hw(c), c); });
  each("validation", [&](const PlanCandidate& c) { return validation_words(hw(c).gpu); });
  each("parallel layout", [](const PlanCandidate& c) { return layout_parallel(c.layout); });
  each("settings", [](const PlanCandidate& c) { return layout_settings(c.layout); });
  each("global batch",
       [](const PlanCandidate& c) { return fmt::format("{} sequences per step", c.global_batch); });
  each("memory per GPU", [](const PlanCandidate& c) {
    return fmt::format("{} of {} ({} headroom; 80 %: {} - {}{}{})", gib(c.memory.total()),
                       gib(c.memory.capacity_bytes), gib(c.memory.headroom_bytes),
                       gib(c.memory_low_bytes), gib(c.memory_high_bytes),
                       c.memory_interval.validated ? "" : ", unvalidated",
                       c.memory_safe ? "" : ", tight: over capacity at the high end");
  });
  each("step time", [](const PlanCandidate& c) { return fmt::format("{:.3f} s", c.step.step_s); });
  each("throughput", [](const PlanCandidate& c) {
    return fmt::format("{:.0f} tokens/s ({:.0f} per GPU)", c.step.tokens_per_s,
                       c.step.tokens_per_s_per_gpu);
  });
  each("MFU", [](const PlanCandidate& c) { return percent(c.step.mfu); });
  each("network wait", [](const PlanCandidate& c) {
    return percent(c.step.network_wait_fraction) + " of the step";
  });
  each("time to train", [](const PlanCandidate& c) {
    return fmt::format("{} (80 %: {} - {}{})", duration(c.time_to_train_s),
                       duration(c.time_to_train_low_s), duration(c.time_to_train_high_s),
                       c.time_interval.validated ? "" : ", unvalidated");
  });
  each("cost", [&](const PlanCandidate& c) {
    return c.cost_usd > 0
               ? fmt::format("{} ({} basis)", cost(c.cost_usd), to_string(r.request.cost_basis))
               : Str("unpriced");
  });
  each("deadline", [](const PlanCandidate& c) { return met(c.meets_deadline); });
  each("budget", [](const PlanCandidate& c) { return met(c.within_budget); });
  each("power limit", [](const PlanCandidate& c) { return met(c.within_power); });
  each("goodput floor", [](const PlanCandidate& c) { return met(c.meets_goodput); });
  return plans_table(r, "figures", rows);
}

Str hours(double s) { return std::isfinite(s) ? duration(s) : Str("none"); }
Str bytes(double b) {
  return b >= 1e12 ? fmt::format("{:.1f} TB", b / 1e12) : fmt::format("{:.1f} GB", b / 1e9);
}
Str rate(double Bps) { return fmt::format("{:.2f} GB/s", Bps / 1e9); }
Str kw(double W) { return fmt::format("{:.1f} kW", W / 1e3); }

// The whole run (docs/model.md, "Whole run"): failures and checkpoints,
// storage, power, network size and cost, per shown plan.
Str economics_table(const PlanReport& r) {
  const RunSettings& s = r.request.run;
  std::vector<std::pair<Str, Cell>> rows;
  auto each = [&](const Str& head, Cell f) { rows.emplace_back(head, std::move(f)); };
  each("failures", [&](const PlanCandidate& c) {
    const Reliability& x = c.run.reliability;
    return fmt::format("{:.2f} per 1000 node-days ({}); job MTBF {}", x.failures_per_1000_node_days,
                       s.failure_rate_id, hours(x.mtbf_s));
  });
  each("interruptions", [](const PlanCandidate& c) {
    return fmt::format("{:.1f} expected", c.run.reliability.expected_interruptions);
  });
  each("goodput", [](const PlanCandidate& c) {
    return percent(c.run.reliability.goodput) + " of wall time on useful steps";
  });
  each("checkpoint", [&](const PlanCandidate& c) {
    const Reliability& x = c.run.reliability;
    return fmt::format("{} {}, every {}, stops training {:.2f} s, restart {}",
                       bytes(x.checkpoint_bytes), s.async_checkpoint ? "async" : "blocking",
                       hours(x.checkpoint_interval_s), x.checkpoint_block_s, hours(x.restart_s));
  });
  each("storage", [&](const PlanCandidate& c) {
    const StorageCheck& x = c.run.reliability.storage;
    return fmt::format("{}: needs {} write, {} read; has {} write, {} read; bottleneck {}",
                       s.storage.id, rate(x.required_write_Bps), rate(x.required_read_Bps),
                       rate(x.available_write_Bps), rate(x.available_read_Bps), x.bottleneck);
  });
  each("power", [](const PlanCandidate& c) {
    const Power& x = c.run.power;
    return fmt::format("{} per node ({} max), network {}, {} in all", kw(x.node_W),
                       kw(x.node_max_W), kw(x.network_W), kw(x.cluster_W));
  });
  each("racks", [&](const PlanCandidate& c) {
    const Power& x = c.run.power;
    return fmt::format("{} of {} ({} nodes per rack){}", x.racks, kw(s.facility.rack_W),
                       x.nodes_per_rack, x.node_exceeds_rack ? "; one node exceeds a rack" : "");
  });
  each("energy", [&](const PlanCandidate& c) {
    return fmt::format("{:.1f} MWh at PUE {:.2f}", c.run.power.energy_kWh / 1e3, s.facility.pue);
  });
  each("scale-out switches", [](const PlanCandidate& c) {
    const SwitchCount& x = c.run.network;
    return fmt::format("{} tier(s): {} leaf, {} spine, {} core; {} cables", x.tiers, x.leaves,
                       x.spines, x.cores, x.cables);
  });
  each("own hardware", [](const PlanCandidate& c) {
    const Cost& x = c.run.cost;
    return x.own_priced ? fmt::format("{} ({}/h; capex {})", cost(x.own_usd),
                                      cost(x.own_usd_per_hour), cost(x.capex_usd))
                        : Str("unpriced");
  });
  each("cloud", [&](const PlanCandidate& c) {
    const Cost& x = c.run.cost;
    return x.cloud_priced ? fmt::format("{} ({}/h, {})", cost(x.cloud_usd),
                                        cost(x.cloud_usd_per_hour), s.cloud_pricing)
                          : Str("unpriced");
  });
  each("break-even", [](const PlanCandidate& c) {
    const Cost& x = c.run.cost;
    if (!x.own_priced || !x.cloud_priced) return Str("-");
    return x.breakeven_utilisation <= 1 ? fmt::format("owning is cheaper above {} utilisation",
                                                      percent(x.breakeven_utilisation, 0))
                                        : Str("renting is cheaper at any utilisation");
  });
  return plans_table(r, "economics", rows);
}

Str frontier_table(const PlanReport& r) {
  const PlanResult& p = r.result;
  const std::vector<bool> knees = frontier_knees(p.frontier, kKneePremium, &r.request.hardware);
  const std::vector<bool> shown = frontier_shown(p, r.request);
  Str o =
      "<table class=\"frontier\"><thead><tr><th scope=\"col\">server</th><th "
      "scope=\"col\">network</th><th scope=\"col\">nodes</th><th scope=\"col\">GPUs</th><th "
      "scope=\"col\">layout</th><th scope=\"col\">memory per GPU</th><th scope=\"col\">step</th>"
      "<th scope=\"col\">MFU</th><th scope=\"col\">time to train</th><th "
      "scope=\"col\">cost</th><th scope=\"col\">notes</th></tr></thead><tbody>\n";
  for (std::size_t i = 0; i < p.frontier.size(); ++i) {
    const PlanCandidate& c = p.frontier[i];
    if (!shown[i]) continue;
    const HardwareOption& hw = r.request.hardware[static_cast<std::size_t>(c.hardware)];
    std::vector<Str> notes;
    if (is_recommended(p, c)) notes.emplace_back("recommended");
    if (knees[i]) notes.emplace_back("knee");
    if (!c.meets_deadline) notes.emplace_back("misses the deadline");
    if (!c.within_budget) notes.emplace_back("misses the budget");
    if (!c.within_power) notes.emplace_back("over the power limit");
    if (!c.meets_goodput) notes.emplace_back("under the goodput floor");
    Str note;
    for (const Str& n : notes) note += (note.empty() ? "" : ", ") + n;
    o += fmt::format(
        "<tr{}><td class=\"id\">{}</td><td>{}</td><td class=\"num\">{}</td><td "
        "class=\"num\">{}</td>"
        "<td>{}</td><td class=\"num\">{}</td><td class=\"num\">{:.2f} s</td><td "
        "class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
        feasible(c) ? "" : " class=\"missed\"", esc(hw.server.id), esc(fabric_name(hw)), c.nodes,
        c.gpus(), esc(layout_parallel(c.layout)), gib(c.memory.total()), c.step.step_s,
        percent(c.step.mfu), duration(c.time_to_train_s), cost(c.cost_usd), esc(note));
  }
  o += "</tbody></table>\n";
  const std::size_t n_shown =
      static_cast<std::size_t>(std::count(shown.begin(), shown.end(), true));
  if (n_shown < p.frontier.size()) {
    o += fmt::format(
        "<p class=\"note\">{} of {} points: the ladder of node counts, each server's smallest "
        "count, knee and deadline crossing, and the recommended plan; the charts' lines run "
        "through all of them, and <code>--format json</code> or <code>csv</code> lists "
        "them.</p>\n",
        n_shown, p.frontier.size());
  }
  return o;
}

Str search_table(const PlanReport& r) {
  const SearchStats& s = r.result.stats;
  Str o = "<table class=\"search\"><tbody>\n";
  if (s.node_counts > 1) {
    o += row("node counts searched", {fmt::format("1-{} ({} divide the cluster and the batch)",
                                                  s.node_counts, s.node_counts_divisible)});
  }
  o += row("layouts enumerated", {fmt::format("{}", s.candidates)});
  o += row("memory evaluations", {fmt::format("{}", s.evaluated)});
  for (Rejection why : rejections_by_name()) {
    if (const long long n = s.rejected_by_reason[why]) {
      o += row(Str("rejected for ") + rejection_name(why), {fmt::format("{}", n)});
    }
  }
  return o + "</tbody></table>\n";
}

Str workload_line(const PlanReport& r) {
  const Workload& w = r.request.workload;
  const PlanConstraints& k = r.request.constraints;
  Str s = fmt::format("{}: {}, {} tokens, sequence {} tokens, {} / {} / {}", w.model.name,
                      to_string(w.task), count(w.tokens), w.seq_len, to_string(w.precision),
                      to_string(w.optimizer), to_string(w.framework));
  if (w.task == Task::finetune) s += fmt::format(", fine-tuning {}", to_string(w.finetune.method));
  s += k.deadline_s ? fmt::format("; deadline {}", duration(*k.deadline_s)) : "; no deadline";
  s += k.budget_usd ? fmt::format(", budget {}", cost(*k.budget_usd)) : ", no budget";
  if (k.max_power_W) s += fmt::format(", power limit {}", kw(*k.max_power_W));
  if (k.min_goodput) s += fmt::format(", goodput at least {}", percent(*k.min_goodput));
  s += fmt::format(", up to {} nodes, objective {}, cost basis {}", k.max_nodes,
                   to_string(r.request.objective), to_string(r.request.cost_basis));
  return s;
}

constexpr const char* kStyle = R"(
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1b;margin:0;background:#fafafa}
main{max-width:920px;margin:0 auto;padding:24px}
header.verdict{border-left:8px solid #0072B2;background:#fff;padding:12px 20px;margin-bottom:20px}
header.verdict.single-domain{border-color:#009E73}
header.verdict.multi-node{border-color:#E69F00}
header.verdict.infeasible{border-color:#D55E00}
h1{margin:.2em 0;font-size:28px}
h2{font-size:19px;margin:28px 0 8px}
.workload{color:#555}
section{background:#fff;padding:8px 20px 16px;margin-bottom:16px}
svg.chart{display:block;max-width:100%;height:auto}
svg text{font:12px system-ui,sans-serif;fill:#1b1b1b}
svg text.tick,svg text.axis{fill:#555}
svg text.label{font-weight:600}
svg .grid{stroke:#e4e4e4;stroke-width:1}
svg .axis-line{stroke:#777;stroke-width:1}
svg .limit{stroke:#b00020;stroke-width:2;stroke-dasharray:6 4}
svg text.limit-label{fill:#b00020}
svg .series{fill:none;stroke-width:2}
svg .point{stroke-width:1.5}
svg .knee{fill:none;stroke-width:2}
svg .recommended{fill:none;stroke:#b00020;stroke-width:2.5}
svg .legend-line{stroke-width:3}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{padding:3px 8px;border-bottom:1px solid #e4e4e4;text-align:left;vertical-align:top}
td.num,td.id{text-align:right;white-space:nowrap}
td.id{text-align:left}
tr.missed td{color:#777}
.note{color:#555;font-size:13px}
footer{color:#777;font-size:12px;text-align:center}
)";

}  // namespace

std::string plan_html(const PlanReport& r) {
  const PlanResult& p = r.result;
  const Str verdict = to_string(p.verdict);
  Str o;
  o += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  o += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  o += "<meta name=\"generator\" content=\"scaleout\">\n";
  o += fmt::format("<title>scaleout plan: {} ({})</title>\n", esc(r.request.workload.model.name),
                   esc(verdict));
  o += fmt::format("<style>{}</style>\n</head>\n<body>\n<main>\n", kStyle);

  o += fmt::format("<header class=\"verdict {}\" id=\"verdict\">\n<h1>Verdict: {}</h1>\n", verdict,
                   esc(verdict));
  o += "<ul class=\"reasons\">\n";
  for (const std::string& s : sentences(p.reasons)) o += "<li>" + esc(s) + "</li>\n";
  o += "</ul>\n";
  // A multi-node verdict already gives this as its first (capacity) reason.
  if (!p.single_node_best && p.verdict == Verdict::infeasible) {
    o += "<p>Single node: none (" + esc(clause(p.single_node_reason)) + ").</p>\n";
  }
  o += "<p class=\"workload\">" + esc(workload_line(r)) + "</p>\n</header>\n";

  o += "<section id=\"memory\">\n<h2>Memory per GPU</h2>\n";
  o += memory_chart(r);
  o += "<p class=\"note\">The most loaded GPU of each plan; the dashed line is the GPU's HBM "
       "capacity.</p>\n</section>\n";

  o += "<section id=\"frontier\">\n<h2>Time to train and cost against node count</h2>\n";
  // Time in days, or in hours when every plan and the deadline take under two days.
  double longest_s = r.request.constraints.deadline_s.value_or(0);
  for (const PlanCandidate& c : p.frontier) longest_s = std::max(longest_s, c.time_to_train_s);
  const double unit_s = longest_s < 2 * 86400.0 ? 3600.0 : 86400.0;
  const Str unit = unit_s == 3600.0 ? "h" : "d";
  std::optional<Marker> deadline, budget;
  if (r.request.constraints.deadline_s) {
    deadline = Marker{*r.request.constraints.deadline_s / unit_s,
                      "deadline " + duration(*r.request.constraints.deadline_s)};
  }
  if (r.request.constraints.budget_usd) {
    budget = Marker{*r.request.constraints.budget_usd,
                    "budget " + cost(*r.request.constraints.budget_usd)};
  }
  o += frontier_chart(
      r, "chart-time", "Time to train against node count",
      fmt::format("time to train, {} (log scale)", unit_s == 3600.0 ? "hours" : "days"),
      [unit_s](const PlanCandidate& c) { return c.time_to_train_s / unit_s; }, true,
      [unit](double v) { return fmt::format("{:g} {}", v, unit); }, deadline);
  o += frontier_chart(r, "chart-cost", "Cost against node count",
                      fmt::format("cost, USD ({} basis)", to_string(r.request.cost_basis)),
                      cost_usd, false, usd_tick, budget);
  o += fmt::format(
      "<p class=\"note\">One point per server and node count: the fastest layout that fits. "
      "Knee: the fastest point of a server whose GPU-hours are within {:.0f} % of that server's "
      "least; beyond it, going faster costs more than that premium.</p>\n</section>\n",
      100 * kKneePremium);

  o += "<section id=\"step\">\n<h2>Step-time breakdown</h2>\n";
  o += step_chart(r);
  o += "<p class=\"note\">Compute, then each kind of communication the model does not hide "
       "behind compute, the pipeline bubble and the optimizer step.</p>\n</section>\n";

  o += "<section id=\"economics\">\n<h2>Whole run: failures, storage, power and cost</h2>\n" +
       economics_table(r) +
       "<p class=\"note\">Time to train above is the expected wall time with these failures, "
       "restarts and checkpoints.</p>\n</section>\n";

  if (p.recommended) {
    o += "<section id=\"bom\">\n<h2>What to buy</h2>\n<table class=\"bom\">\n" +
         bom_html_rows(plan_bom(r, *p.recommended)) +
         "</table>\n<p class=\"note\">The bill of materials of the " +
         (p.verdict == Verdict::infeasible ? Str("closest") : Str("recommended")) +
         " plan (docs/model.md, \"Bill of materials\").</p>\n</section>\n";
  }
  o += "<section id=\"figures\">\n<h2>Plan figures</h2>\n" + figures_table(r) + "</section>\n";
  o += "<section id=\"frontier-table\">\n<h2>Frontier</h2>\n" + frontier_table(r) + "</section>\n";
  o += "<section id=\"search\">\n<h2>Search</h2>\n" + search_table(r) + "</section>\n";
  o += "<footer>scaleout plan report. Figures are model estimates; docs/model.md gives every "
       "equation.</footer>\n</main>\n</body>\n</html>\n";
  return o;
}

std::string estimate_html(const EstimateResult& r) {
  const Workload& w = r.workload;
  const MemoryEstimate& mem = r.memory;
  const StageMemory& st = mem.peak;
  const StepEstimate& t = r.step;
  std::vector<ChartBar> memory_bars, step_bars;
  for (const auto& part : kMemoryParts) {
    memory_bars.push_back({part.words, st.*part.value, gib(st.*part.value)});
  }
  memory_bars.push_back({"total", mem.total(), gib(mem.total())});
  memory_bars.push_back({"capacity", mem.capacity_bytes, gib(mem.capacity_bytes)});
  for (const auto& part : kStepParts) {
    const double v = t.breakdown.*part.value;
    step_bars.push_back({part.words, v, fmt::format("{:.3f} s", v)});
  }
  Str body;
  body += html_section("memory", "Memory per GPU",
                       bar_chart("chart-memory", "Memory per GPU (most loaded stage)", memory_bars,
                                 "bytes per GPU"));
  body += html_section("step", "Step-time breakdown",
                       bar_chart("chart-step", fmt::format("Step {:.3f} s", t.step_s), step_bars,
                                 "seconds per step"));
  std::vector<std::vector<Str>> figures = {
      {"step", fmt::format("{:.3f} s", t.step_s)},
      {"tokens/s", fmt::format("{:.0f} ({:.0f} per GPU)", t.tokens_per_s, t.tokens_per_s_per_gpu)},
      {"MFU", percent(t.mfu)},
      {"HFU", percent(t.hfu)},
      {"network wait", percent(t.network_wait_fraction)}};
  if (t.time_to_train_s > 0) figures.push_back({"time to train", duration(t.time_to_train_s)});
  body += html_section("figures", "Figures", html_table({"figure", "value"}, figures));
  if (r.run) {
    body += html_section(
        "economics", "Whole run",
        "<table>\n" + key_value_rows(run_text(*r.run, r.run_settings, "  ")) + "</table>\n");
  }
  const Str verdict = mem.fits ? "fits" : "infeasible";
  const std::vector<Str> head = {
      fmt::format("{} on {} x {} ({} x {}), {}", w.model.name, w.cluster.nodes, r.server.id,
                  r.server.gpus_per_node, r.gpu.id, to_string(w.task)),
      mem.fits ? fmt::format("{} of {} per GPU, {} headroom", gib(mem.total()),
                             gib(mem.capacity_bytes), gib(mem.headroom_bytes))
               : fmt::format("{} over capacity", gib(-mem.headroom_bytes))};
  return html_page(fmt::format("scaleout estimate: {}", w.model.name), verdict,
                   mem.fits ? "Fits: yes" : "Fits: NO", head, body);
}

}  // namespace scaleout::report
