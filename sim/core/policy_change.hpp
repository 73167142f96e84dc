#pragma once
// Policy change events (issue 9): at time at_s a requester asks to change a scheduler policy
// (a QOS field, a reservation, a ClusterQueue quota, a priority weight) or to delete an
// association. The engine delivers each change at its time (engine.hpp, step 4 of the
// simultaneous-event order) through an optional ChangeGate (the governance review) and then to
// Scheduler::on_policy_change, which applies it with its real effect at once or rejects it.
// Changes are rare (a few per night), so they are plain value types with strings.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/types.hpp"

namespace floorsim {

enum class ChangeKind : uint8_t {
  QosField,           // target = QOS name, field = QOS field, value = new value
  ReservationCreate,  // target = reservation name, value = the reservation object
  ReservationUpdate,  // target = reservation name, value = the fields to replace
  ReservationDelete,  // target = reservation name
  QueueQuota,         // target = ClusterQueue, field = nominalQuota|borrowingLimit|lendingLimit
  PriorityWeight,     // target = weight name (PriorityWeightQOS, ...), value = number
  AssociationDelete,  // target = "user@account" (a user association) or "account" (its subtree)
};

std::string_view to_string(ChangeKind k);

// Someone who asks for or signs off a change.
struct Person {
  std::string user, role, team;
};

struct PolicyChange {
  std::string id;
  SimTime at_s = 0;
  ChangeKind kind = ChangeKind::QosField;
  std::string target;
  std::string field;
  std::string flavor;    // QueueQuota: ResourceFlavor ("" = the CQ's first flavor)
  std::string resource;  // QueueQuota: resource name ("" = nvidia.com/gpu)
  nlohmann::json value;  // the new value (null for deletions; "null" limit = nil for Kueue)
  Person requester;
  std::vector<Person> approvals;
  std::string justification, expected_effect;
};

// The result of delivering a change.
struct ChangeOutcome {
  enum class Status : uint8_t { Applied, AppliedUnapproved, Rejected };
  Status status = Status::Rejected;
  std::string reason;          // rejection reason, or how it got through (loophole)
  std::string before, after;   // the changed value, rendered (model's words)
  std::vector<int64_t> cancelled_job_ids;  // jobs cancelled by the change (association deletion)
  bool applied() const { return status != Status::Rejected; }
  static ChangeOutcome rejected(std::string why) {
    ChangeOutcome o;
    o.reason = std::move(why);
    return o;
  }
};
std::string_view to_string(ChangeOutcome::Status s);

// Who a change could affect, as the model sees it (the governance rule's input; see
// sim/app/governance.hpp for the rule).
struct ChangeScope {
  bool known = false;               // false: the model cannot tell (the change will be rejected)
  std::vector<StrId> classes;       // job classes whose share of the cluster the change may move
  std::string basis;                // why these classes (for the approval log)
  // Reservation deletions: who may use the reservation (Users=, Accounts=; both empty = open)
  // and whether it has the USER_DELETE flag.
  std::vector<std::string> resv_users, resv_accounts;
  bool resv_user_delete_flag = false;
};

}  // namespace floorsim
