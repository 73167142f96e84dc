#include "sim/core/policy_change.hpp"

namespace floorsim {

std::string_view to_string(ChangeKind k) {
  switch (k) {
    case ChangeKind::QosField: return "qos";
    case ChangeKind::ReservationCreate: return "reservation_create";
    case ChangeKind::ReservationUpdate: return "reservation_update";
    case ChangeKind::ReservationDelete: return "reservation_delete";
    case ChangeKind::QueueQuota: return "cluster_queue";
    case ChangeKind::PriorityWeight: return "priority_weight";
    case ChangeKind::AssociationDelete: return "association_delete";
  }
  return "?";
}

std::string_view to_string(ChangeOutcome::Status s) {
  switch (s) {
    case ChangeOutcome::Status::Applied: return "applied";
    case ChangeOutcome::Status::AppliedUnapproved: return "applied_unapproved";
    case ChangeOutcome::Status::Rejected: return "rejected";
  }
  return "?";
}

}  // namespace floorsim
