#include "sim/app/governance.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace floorsim::app::gov {

namespace {

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

}  // namespace

std::string team_of(const std::string& klass, const Settings& s) {
  auto it = s.class_teams.find(klass);
  return it == s.class_teams.end() ? klass : it->second;
}

Review review(const PolicyChange& c, const ChangeScope& scope, const std::vector<std::string>& scope_classes,
              const Settings& s) {
  Review r;
  const Person& who = c.requester;
  const bool admin = has(s.admin_roles, who.role);
  const bool submitter = has(s.submit_roles, who.role);
  if (!admin && !submitter) {
    r.reason = fmt::format("unknown role '{}' of {}; expected one of: {}", who.role, who.user,
                           join([&] { auto v = s.admin_roles; v.insert(v.end(), s.submit_roles.begin(), s.submit_roles.end()); return v; }()));
    return r;
  }
  if (!scope.known) {
    r.reason = fmt::format("the model cannot tell whom a {} change affects (not supported)", to_string(c.kind));
    return r;
  }
  // Who is affected, and who signed off.
  r.affected_classes = scope_classes;
  for (const auto& k : scope_classes) {
    const std::string t = team_of(k, s);
    if (t != who.team && !has(r.affected_teams, t)) r.affected_teams.push_back(t);
  }
  std::sort(r.affected_teams.begin(), r.affected_teams.end());
  for (const auto& t : r.affected_teams) {
    const bool ok = std::any_of(c.approvals.begin(), c.approvals.end(), [&](const Person& a) {
      return a.team == t && !a.user.empty() && a.user != who.user;  // self-approval never counts
    });
    (ok ? r.signed_off : r.missing).push_back(t);
  }
  if (!admin) {
    // Submit-only roles: only the reservation-deletion loophole.
    const bool loophole = s.user_resv_delete || scope.resv_user_delete_flag;
    if (c.kind != ChangeKind::ReservationDelete || !loophole) {
      r.reason = fmt::format("role '{}' may only submit jobs; a {} change needs one of: {}", who.role, to_string(c.kind),
                             join(s.admin_roles));
      return r;
    }
    const bool open = scope.resv_users.empty() && scope.resv_accounts.empty();
    const bool may_use = open || has(scope.resv_users, who.user) || (!who.team.empty() && has(scope.resv_accounts, who.team));
    if (!may_use) {
      r.reason = fmt::format("{} may delete only a reservation they can use (Users=/Accounts=)", who.user);
      return r;
    }
    const std::string how = s.user_resv_delete ? "user_resv_delete" : "the reservation's USER_DELETE flag";
    if (r.missing.empty()) {
      r.status = ChangeOutcome::Status::Applied;
      r.reason = fmt::format("{} lets {} delete it; every affected team signed off", how, who.user);
    } else {
      r.status = ChangeOutcome::Status::AppliedUnapproved;
      r.reason = fmt::format("loophole: {} lets {} delete a reservation they can use without sign-off from {}", how,
                             who.user, join(r.missing));
    }
    return r;
  }
  if (!r.missing.empty()) {
    r.reason = fmt::format("needs sign-off from team{} {} (someone other than the requester {})",
                           r.missing.size() > 1 ? "s" : "", join(r.missing), who.user);
    return r;
  }
  r.status = ChangeOutcome::Status::Applied;
  r.reason = r.affected_teams.empty() ? "affects only the requester's team" : "signed off by " + join(r.signed_off);
  return r;
}

}  // namespace floorsim::app::gov
