#include "sim/app/table.hpp"

#include <cmath>

#include <fmt/format.h>

#include "sim/core/io.hpp"

namespace floorsim::app {

namespace {
std::string csv_line(const std::vector<std::string>& cells) {
  std::string s;
  for (size_t i = 0; i < cells.size(); ++i) s += (i ? "," : "") + io::csv_field(cells[i]);
  return s + "\n";
}
std::string md_line(const std::vector<std::string>& cells) {
  std::string s = "|";
  for (const auto& c : cells) s += " " + (c.empty() ? std::string("-") : c) + " |";
  return s + "\n";
}
}  // namespace

std::string to_csv(const TextTable& t) {
  std::string s = csv_line(t.header);
  for (const auto& r : t.rows) s += csv_line(r);
  return s;
}

std::string to_markdown(const TextTable& t) {
  std::string s = md_line(t.header) + "|";
  for (size_t i = 0; i < t.header.size(); ++i) s += "---|";
  s += "\n";
  for (const auto& r : t.rows) s += md_line(r);
  return s;
}

std::string cell(double v, int decimals) {
  if (std::isnan(v)) return "";
  return fmt::format("{:.{}f}", v, decimals);
}

}  // namespace floorsim::app
