// Pieces of the one-page HTML reports of serving plans, `estimate` and
// `simulate` (report-internal; the training plan's richer page is
// html_report.cpp): the page, a horizontal bar chart (inline SVG, no script),
// tables. Every string passed in is escaped here.
#pragma once

#include <string>
#include <vector>

namespace scaleout::report {

struct ChartBar {
  std::string label;
  double value = 0;
  std::string value_text;  // printed at the bar's end
};

// A self-contained page: <header id="verdict" class=verdict_class> with the
// heading and the reasons as a list, then `body` (already HTML).
std::string html_page(const std::string& title, const std::string& verdict_class,
                      const std::string& heading, const std::vector<std::string>& reasons,
                      const std::string& body);
// <svg id=id> with one bar per entry (scaled to the largest), four grid lines
// and the axis caption.
std::string bar_chart(const std::string& id, const std::string& title,
                      const std::vector<ChartBar>& bars, const std::string& axis);
// <table> with a header row.
std::string html_table(const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows);
// <section id=id><h2>title</h2>content</section>.
std::string html_section(const std::string& id, const std::string& title,
                         const std::string& content);
// Text-report lines "  key        value" (value at column `value_at`; a line
// with a blank key continues the previous value) as <tr><th>key</th><td>value</td></tr>.
std::string key_value_rows(const std::string& text, std::size_t value_at = 13);

}  // namespace scaleout::report
