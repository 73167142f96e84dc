#pragma once
// `floorsim lint CONFIG` (issue 9): configurations the literature warns about, each a named rule
// with a severity, a message and the location in the configuration (file:line for slurm.conf,
// sacctmgr dumps and Kueue YAML; file:JSON-pointer for scenario JSON). CONFIG is a scenario
// JSON (its scheduler block: inline settings, slurm.conf, sacctmgr dump or Kueue manifests), a
// slurm.conf (with --dump for the sacctmgr dump), or a Kueue YAML file.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace floorsim::app {

struct LintRule {
  std::string name;
  std::string severity;  // "error" or "warning"
  std::string what;      // what it checks and why (one line)
};
const std::vector<LintRule>& lint_rules();

struct LintFinding {
  std::string rule, severity, message, location;
};

struct LintOptions {
  std::string dump;                    // sacctmgr dump to read with a slurm.conf
  double review_cadence_s = 7 * 86400;  // how often usage/fair-share is reviewed (rule decay-half-life)
  int64_t high_priority_value = 1000;  // a priority class at or above this is "high"
  int64_t max_high_priority_classes = 2;
};

// Throws InputError on unreadable or malformed input (exit 2).
std::vector<LintFinding> lint_config(const std::string& path, const LintOptions& opts);
std::string lint_table(const std::vector<LintFinding>& f);
nlohmann::json to_json(const std::vector<LintFinding>& f);

}  // namespace floorsim::app
