#pragma once
// `floorsim impact` (issue 9): the effect of proposed policy changes on every class. The
// scenario runs twice: without the selected changes, and with them applied as proposed (even if
// the review would reject them: the board needs the effect to decide). Other changes go through
// the review as usual in both runs.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/app/scenario.hpp"

namespace floorsim::app {

struct ClassImpact {
  std::string klass;
  double attain_before = 1, attain_after = 1;
  double margin_before_s = 0, margin_after_s = 0;  // NaN when the class has no deadline jobs
  double p99_before_s = 0, p99_after_s = 0;
};

struct Impact {
  std::vector<std::string> changes;  // ids analysed
  std::vector<ClassImpact> classes;  // in the scenario's class order
};

// `ids` empty = every change. Throws InputError when an id is unknown or there are no changes.
// The model's warnings go to `warnings` (null: printed), once for both runs.
Impact analyse_impact(const Scenario& sc, const std::vector<std::string>& ids, Warnings* warnings = nullptr);
nlohmann::json to_json(const Impact& im);
std::string impact_table(const Impact& im);

}  // namespace floorsim::app
