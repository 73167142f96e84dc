#pragma once
// The scenario's "governance" block and "changes" list (issue 9), and the approval log.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/app/governance.hpp"
#include "sim/core/config_spec.hpp"
#include "sim/core/engine.hpp"

namespace floorsim::app {

std::shared_ptr<const cfg::ObjectSpec> governance_spec();
std::shared_ptr<const cfg::ObjectSpec> change_spec();

// From the resolved scenario: the settings and the changes in scenario order (stable-sorted by
// time). Cross-field checks (a QOS field name, a Kueue quota field, a weight name) throw
// InputError with the change's JSON pointer.
gov::Settings load_governance(const nlohmann::json& resolved);
std::vector<PolicyChange> load_changes(const nlohmann::json& resolved, const std::string& file);

// The gate the runner puts in front of the scheduler: computes the model's scope and applies
// gov::review; keeps each review for the approval log.
class GovernanceGate final : public ChangeGate {
 public:
  GovernanceGate(gov::Settings s, const StringTable& strings, const std::vector<PolicyChange>& changes,
                 std::vector<std::string> forced = {})
      : settings_(std::move(s)), strings_(strings), changes_(changes), reviews_(changes.size()), forced_(std::move(forced)) {}
  ChangeOutcome review(const PolicyChange& c, const Scheduler& sched, const Snapshot& view) override;
  const std::vector<gov::Review>& reviews() const { return reviews_; }

 private:
  gov::Settings settings_;
  const StringTable& strings_;
  const std::vector<PolicyChange>& changes_;
  std::vector<gov::Review> reviews_;  // by change index
  std::vector<std::string> forced_;   // impact analysis: these ids are applied as proposed
};

// The approval log: one entry per change, in delivery order.
nlohmann::json approval_log_json(const std::vector<PolicyChange>& changes, const std::vector<ChangeRecord>& log,
                                 const std::vector<gov::Review>& reviews);
std::string approval_log_csv(const nlohmann::json& log);
// Columns of approval_log.csv, in order.
const std::vector<std::string>& approval_log_columns();

}  // namespace floorsim::app
