// One-row validation CSVs for the unit tests of validation columns: the
// canonical header with every column empty except the cells given.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "io/validation_csv.hpp"

namespace scaleout {

// The canonical header and one record; `cells` are (column, value), a later
// cell of the same column replacing an earlier one.
inline std::string one_row_validation_csv(
    const std::vector<std::pair<std::string, std::string>>& cells) {
  std::string header, row;
  for (const std::string& c : io::validation_csv_columns()) {
    if (!header.empty()) {
      header += ",";
      row += ",";
    }
    header += c;
    std::string value;
    for (const auto& cell : cells) {
      if (cell.first == c) value = cell.second;
    }
    row += value;
  }
  return header + "\n" + row + "\n";
}

}  // namespace scaleout
