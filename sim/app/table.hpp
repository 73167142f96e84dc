#pragma once
// A small text table rendered as CSV (RFC 4180, io::csv_field) or a Markdown pipe table: the
// tabular outputs of `cost` and `review`.
#include <string>
#include <vector>

namespace floorsim::app {

struct TextTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

std::string to_csv(const TextTable& t);
std::string to_markdown(const TextTable& t);
// A number as written in the tables: fixed with `decimals`, "" for NaN (unknown).
std::string cell(double v, int decimals = 2);

}  // namespace floorsim::app
