#include "report/html_page.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "report/report.hpp"

namespace scaleout::report {

namespace {

constexpr const char* kPageStyle = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#fafafa;color:#222}
main{max-width:1000px;margin:0 auto;padding:16px 24px 40px}
header.verdict{border-left:6px solid #2b6cb0;background:#fff;padding:12px 18px;margin:12px 0 20px}
header.infeasible,header.none{border-left-color:#c53030}
h1{font-size:22px;margin:4px 0 8px}
h2{font-size:17px;margin:26px 0 8px}
section{background:#fff;padding:10px 18px 14px;margin:14px 0;border:1px solid #e4e4e4}
svg{display:block;width:100%;height:auto}
svg .bar{fill:#2b6cb0}
svg .grid{stroke:#e4e4e4;stroke-width:1}
svg .axis{stroke:#555;stroke-width:1}
svg text{font-size:12px;fill:#333}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{padding:3px 8px;border-bottom:1px solid #e4e4e4;text-align:left;vertical-align:top}
footer{color:#777;font-size:12px;text-align:center}
)";

}  // namespace

std::string html_page(const std::string& title, const std::string& verdict_class,
                      const std::string& heading, const std::vector<std::string>& reasons,
                      const std::string& body) {
  std::string o;
  o += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  o += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  o += "<meta name=\"generator\" content=\"scaleout\">\n";
  o += fmt::format("<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n<main>\n",
                   html_escape(title), kPageStyle);
  o += fmt::format("<header class=\"verdict {}\" id=\"verdict\">\n<h1>{}</h1>\n",
                   html_escape(verdict_class), html_escape(heading));
  if (!reasons.empty()) {
    o += "<ul class=\"reasons\">\n";
    for (const std::string& r : reasons) o += "<li>" + html_escape(r) + "</li>\n";
    o += "</ul>\n";
  }
  o += "</header>\n" + body;
  o += "<footer>scaleout report. Figures are model estimates; docs/model.md gives every "
       "equation.</footer>\n</main>\n</body>\n</html>\n";
  return o;
}

std::string bar_chart(const std::string& id, const std::string& title,
                      const std::vector<ChartBar>& bars, const std::string& axis) {
  constexpr double kWidth = 900, kLeft = 230, kRight = 120, kBar = 20, kGap = 8, kTop = 30;
  const double plot = kWidth - kLeft - kRight;
  const double height = kTop + static_cast<double>(bars.size()) * (kBar + kGap) + 40;
  double top = 0;
  for (const ChartBar& b : bars) top = std::max(top, b.value);
  if (top <= 0) top = 1;
  std::string o = fmt::format(
      "<svg id=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n"
      "<text x=\"{}\" y=\"18\">{}</text>\n",
      html_escape(id), kWidth, height, html_escape(title), kLeft, html_escape(title));
  const double bottom = height - 30;
  for (int i = 0; i <= 4; ++i) {
    const double x = kLeft + plot * i / 4.0;
    o += fmt::format("<line class=\"grid\" x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>\n",
                     x, kTop - 4, x, bottom);
  }
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const ChartBar& b = bars[i];
    const double y = kTop + static_cast<double>(i) * (kBar + kGap);
    const double w = std::max(1.0, plot * std::max(0.0, b.value) / top);
    o += fmt::format(
        "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n"
        "<rect class=\"bar\" x=\"{}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\"/>\n"
        "<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n",
        kLeft - 8, y + kBar * 0.7, html_escape(b.label), kLeft, y, w, kBar, kLeft + w + 6,
        y + kBar * 0.7, html_escape(b.value_text));
  }
  o += fmt::format("<line class=\"axis\" x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\"/>\n",
                   kLeft, bottom, kLeft + plot, bottom);
  o += fmt::format("<text x=\"{}\" y=\"{:.1f}\">{}</text>\n</svg>\n", kLeft, bottom + 20,
                   html_escape(axis));
  return o;
}

std::string html_table(const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows) {
  std::string o = "<table>\n<tr>";
  for (const std::string& h : header) o += "<th>" + html_escape(h) + "</th>";
  o += "</tr>\n";
  for (const auto& row : rows) {
    o += "<tr>";
    for (const std::string& f : row) o += "<td>" + html_escape(f) + "</td>";
    o += "</tr>\n";
  }
  return o + "</table>\n";
}

std::string html_section(const std::string& id, const std::string& title,
                         const std::string& content) {
  return fmt::format("<section id=\"{}\">\n<h2>{}</h2>\n{}</section>\n", html_escape(id),
                     html_escape(title), content);
}

std::string key_value_rows(const std::string& text, std::size_t value_at) {
  std::string o, head, body;
  auto flush = [&] {
    if (head.empty() && body.empty()) return;
    o += "<tr><th>" + html_escape(head) + "</th><td>" + html_escape(body) + "</td></tr>\n";
    head.clear();
    body.clear();
  };
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t end = std::min(text.find('\n', i), text.size());
    const std::string line = text.substr(i, end - i);
    i = end + 1;
    if (line.find_first_not_of(' ') == std::string::npos) continue;
    const std::string key = line.substr(0, std::min(value_at, line.size()));
    const std::string value = line.size() > value_at ? line.substr(value_at) : "";
    const std::size_t k = key.find_first_not_of(' ');
    if (k != std::string::npos) {
      flush();
      head = key.substr(k, key.find_last_not_of(' ') + 1 - k);
      body = value;
    } else {
      body += (body.empty() ? "" : " ") + value;
    }
  }
  flush();
  return o;
}

}  // namespace scaleout::report
