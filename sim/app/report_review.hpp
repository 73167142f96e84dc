#pragma once
// `floorsim report DIR` over a `floorsim review --out DIR` directory (review.json, alerts.yml,
// weekly.csv, monthly.csv): the review as one self-contained HTML page, with the same charts and
// markup as the run and sweep reports.
#include <filesystem>
#include <string>

namespace floorsim::app::report {

// Renders the HTML from DIR/review.json. Throws InputError naming the file and JSON pointer at fault.
std::string review_report(const std::filesystem::path& dir);

}  // namespace floorsim::app::report
