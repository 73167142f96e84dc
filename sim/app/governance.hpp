#pragma once
// Change control (issue 9): who may change scheduler policy, and whose sign-off a change needs.
//
// The rule (a pure function, review()):
//   1. Roles. `admin_roles` (default cluster_admin, change_board) may change QOS fields
//      (priorities, limits, preemption), reservations, ClusterQueue quotas, priority weights and
//      delete associations. `submit_roles` (default quant) only submit jobs: every change they
//      ask for is rejected, except the loophole below. Any other role is rejected as unknown.
//   2. "Could affect" is the model's scope of the change (Scheduler::change_scope), concretely:
//      Slurm: a QOS field change affects every class whose jobs can run on a node that the
//        QOS's jobs can run on (partitions sharing nodes), plus classes in a preemption relation
//        with the QOS; a priority weight affects every class; a reservation affects the classes
//        that can run on its nodes plus those allowed in it; deleting an association affects the
//        classes of its jobs (they are cancelled).
//      Kueue: a ClusterQueue quota change affects the classes queued in any ClusterQueue of the
//        same cohort tree (borrowing and lending move quota between them), and every class when
//        the new nominal quotas of that resource sum past the cluster's capacity.
//      The teams affected are the owners of those classes (`class_teams`, default: a class is
//      owned by the team of the same name), minus the requester's own team.
//   3. Sign-off. Each affected team must have signed off: an approval by a person of that team
//      who is not the requester. Missing sign-off -> rejected (the change never takes effect).
//   4. Loopholes (settings, as in Slurm): with `user_resv_delete` (SlurmctldParameters) or the
//      reservation's USER_DELETE flag, a submit-only user may delete a reservation they can use
//      (listed in Users=, their team in Accounts=, or an open reservation). It then takes effect
//      even without sign-off, and the log marks it "applied_unapproved".
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/policy_change.hpp"

namespace floorsim::app::gov {

struct Settings {
  std::vector<std::string> admin_roles{"cluster_admin", "change_board"};
  std::vector<std::string> submit_roles{"quant"};
  std::map<std::string, std::string> class_teams;  // class -> owning team (absent: the class name)
  bool user_resv_delete = false;                   // SlurmctldParameters=user_resv_delete
};

struct Review {
  ChangeOutcome::Status status = ChangeOutcome::Status::Rejected;
  std::string reason;
  std::vector<std::string> affected_classes;  // from the model's scope
  std::vector<std::string> affected_teams;    // their owners, other than the requester's team
  std::vector<std::string> signed_off;        // affected teams with a valid sign-off
  std::vector<std::string> missing;           // affected teams without one
};

// Pure: the same inputs always give the same review. `scope_classes` are the names of
// scope.classes (sorted, unique).
Review review(const PolicyChange& c, const ChangeScope& scope, const std::vector<std::string>& scope_classes,
              const Settings& s);

std::string team_of(const std::string& klass, const Settings& s);

}  // namespace floorsim::app::gov
