#include "sim/app/changes.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/io.hpp"

namespace floorsim::app {
using namespace cfg;
using json = nlohmann::json;

namespace {

std::shared_ptr<const ObjectSpec> person_spec() {
  return obj("person", "someone who asks for or signs off a change",
             {string("user", nullptr, "user name").must(),
              string("role", nullptr, "role: one of governance.admin_roles or governance.submit_roles").must(),
              string("team", "", "team (owner of classes, see governance.class_teams; a Slurm account for reservation access)")});
}

// sacctmgr's QOS field names (the model's QOS fields, spec slurm §4-5).
const std::vector<std::string>& qos_fields() {
  static const std::vector<std::string> f{"Priority", "GrpTRES", "MaxTRESPerUser", "MaxTRESPerJob", "MaxWall",
                                          "MaxJobsPerUser", "GrpJobs", "Preempt", "PreemptMode", "Flags",
                                          "UsageFactor", "GraceTime", "PreemptExemptTime"};
  return f;
}
const std::vector<std::string>& weight_names() {
  static const std::vector<std::string> w{"PriorityWeightAge", "PriorityWeightFairshare", "PriorityWeightJobSize",
                                          "PriorityWeightPartition", "PriorityWeightQOS", "PriorityWeightAssoc",
                                          "PriorityWeightTRES:gres/gpu", "PriorityWeightTRES:cpu", "PriorityWeightTRES:node"};
  return w;
}
const std::vector<std::string> kQueueFields{"nominalQuota", "borrowingLimit", "lendingLimit"};

std::string list(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

const std::vector<std::string> kKinds{"qos", "reservation_create", "reservation_update", "reservation_delete",
                                      "cluster_queue", "priority_weight", "association_delete"};

std::shared_ptr<const ObjectSpec> what_spec() {
  auto s = obj("change_what", "what the change does",
               {choice("kind", kKinds, nullptr,
                       "qos: a QOS field; reservation_create/update/delete; cluster_queue: a ClusterQueue quota; "
                       "priority_weight; association_delete").must(),
                string("target", nullptr, "QOS, reservation, ClusterQueue, weight (PriorityWeightQOS, ...) or association (user@account, or account) name").must(),
                string("field", "", "qos: Priority, GrpTRES, MaxTRESPerUser, MaxTRESPerJob, MaxWall, MaxJobsPerUser, GrpJobs, Preempt, PreemptMode, Flags, UsageFactor, GraceTime, PreemptExemptTime; cluster_queue: nominalQuota, borrowingLimit, lendingLimit"),
                string("flavor", "", "cluster_queue: ResourceFlavor (empty = the ClusterQueue's first flavor)"),
                string("resource", "", "cluster_queue: resource (empty = nvidia.com/gpu)"),
                any("value", "the new value: qos as in the scheduler's qos block (numbers, TRES strings such as \"gres/gpu=16\", lists); a reservation object for create/update; a number for weights and quotas (null = no limit)")});
  s->check = [](const json& r, const std::string& ptr, const std::string& file) {
    const std::string kind = r["kind"], field = r["field"];
    const json v = r.contains("value") ? r["value"] : json();  // "value" may be absent
    if (kind == "qos" && std::find(qos_fields().begin(), qos_fields().end(), field) == qos_fields().end())
      fail(file, child(ptr, "field"), fmt::format("got \"{}\"; expected one of: {}", field, list(qos_fields())));
    if (kind == "cluster_queue" && std::find(kQueueFields.begin(), kQueueFields.end(), field) == kQueueFields.end())
      fail(file, child(ptr, "field"), fmt::format("got \"{}\"; expected one of: {}", field, list(kQueueFields)));
    if (kind == "priority_weight") {
      const std::string t = r["target"];
      if (std::find(weight_names().begin(), weight_names().end(), t) == weight_names().end())
        fail(file, child(ptr, "target"), fmt::format("got \"{}\"; expected one of: {}", t, list(weight_names())));
      if (!v.is_number() || v.get<double>() < 0)
        fail(file, child(ptr, "value"), "expected a number >= 0 (the new weight)");
    }
    if (kind == "cluster_queue" && !(v.is_null() || (v.is_number_integer() && v.get<int64_t>() >= 0)))
      fail(file, child(ptr, "value"), "expected an integer >= 0 (quota in the resource's units: GPUs) or null (no limit)");
    if (kind == "qos" && !r.contains("value")) fail(file, child(ptr, "value"), "expected the new value");
    if ((kind == "reservation_create" || kind == "reservation_update") && !v.is_object())
      fail(file, child(ptr, "value"), "expected a reservation object (the scheduler's reservations item)");
  };
  return s;
}

}  // namespace

std::shared_ptr<const ObjectSpec> governance_spec() {
  return obj("governance", "change control: roles, team ownership of classes, loopholes",
             {array_of("admin_roles", Type::String, "roles that may change QOS, limits, reservations, quotas, weights and associations")
                  .with_default(json::array({"cluster_admin", "change_board"})),
              array_of("submit_roles", Type::String, "roles that may only submit jobs").with_default(json::array({"quant"})),
              map_of("class_teams", Type::String, "class -> owning team (a class not listed is owned by the team of its name)")
                  .with_default(json::object()),
              boolean("user_resv_delete", false, "loophole: SlurmctldParameters=user_resv_delete lets a user delete a reservation they can use")});
}

std::shared_ptr<const ObjectSpec> change_spec() {
  return obj("change", "a policy change at a time: applied at once with its real effect, or rejected",
             {string("id", "", "change id (empty = change-N, N its position from 1)"),
              number("time_s", nullptr, "when it is asked for (and, if allowed, takes effect)").at_least(0).in_unit("s").must(),
              object("requester", person_spec(), "who asks").must(),
              object("what", what_spec(), "what it changes").must(),
              array_of("approvals", person_spec(), "sign-offs"),
              string("justification", "", "why"),
              string("expected_effect", "", "expected effect on other classes")});
}

gov::Settings load_governance(const json& r) {
  gov::Settings s;
  if (!r.contains("governance")) return s;
  const json& g = r["governance"];
  s.admin_roles = g["admin_roles"].get<std::vector<std::string>>();
  s.submit_roles = g["submit_roles"].get<std::vector<std::string>>();
  for (auto it = g["class_teams"].begin(); it != g["class_teams"].end(); ++it) s.class_teams[it.key()] = it.value();
  s.user_resv_delete = g["user_resv_delete"];
  return s;
}

namespace {
Person person(const json& p) { return Person{p["user"], p["role"], p["team"]}; }
ChangeKind kind_of(const std::string& k) {
  if (k == "qos") return ChangeKind::QosField;
  if (k == "reservation_create") return ChangeKind::ReservationCreate;
  if (k == "reservation_update") return ChangeKind::ReservationUpdate;
  if (k == "reservation_delete") return ChangeKind::ReservationDelete;
  if (k == "cluster_queue") return ChangeKind::QueueQuota;
  if (k == "priority_weight") return ChangeKind::PriorityWeight;
  return ChangeKind::AssociationDelete;
}
}  // namespace

std::vector<PolicyChange> load_changes(const json& r, const std::string& file) {
  std::vector<PolicyChange> out;
  if (!r.contains("changes")) return out;
  const json& cs = r["changes"];
  std::vector<std::string> ids;
  for (size_t i = 0; i < cs.size(); ++i) {
    const json& c = cs[i];
    PolicyChange pc;
    pc.id = c["id"].get<std::string>().empty() ? fmt::format("change-{}", i + 1) : c["id"].get<std::string>();
    if (std::find(ids.begin(), ids.end(), pc.id) != ids.end())
      fail(file, child(child("/changes", i), "id"), fmt::format("change id \"{}\" is used twice; expected unique ids", pc.id));
    ids.push_back(pc.id);
    pc.at_s = c["time_s"];
    pc.requester = person(c["requester"]);
    const json& w = c["what"];
    pc.kind = kind_of(w["kind"]);
    pc.target = w["target"];
    pc.field = w["field"];
    pc.flavor = w["flavor"];
    pc.resource = w["resource"];
    pc.value = w.contains("value") ? w["value"] : json();
    if (c.contains("approvals"))
      for (const auto& a : c["approvals"]) pc.approvals.push_back(person(a));
    pc.justification = c["justification"];
    pc.expected_effect = c["expected_effect"];
    out.push_back(std::move(pc));
  }
  std::stable_sort(out.begin(), out.end(), [](const PolicyChange& a, const PolicyChange& b) { return a.at_s < b.at_s; });
  return out;
}

ChangeOutcome GovernanceGate::review(const PolicyChange& c, const Scheduler& sched, const Snapshot& view) {
  const size_t idx = static_cast<size_t>(&c - changes_.data());
  const ChangeScope scope = sched.change_scope(c, view);
  std::vector<std::string> names;
  for (StrId k : scope.classes) names.push_back(strings_.str(k));
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  gov::Review r = gov::review(c, scope, names, settings_);
  if (std::find(forced_.begin(), forced_.end(), c.id) != forced_.end()) {
    // `floorsim impact`: the proposal's effect is measured as if it were approved.
    r.reason = "impact analysis: applied as proposed (review said: " + std::string(to_string(r.status)) +
               (r.reason.empty() ? "" : ", " + r.reason) + ")";
    r.status = ChangeOutcome::Status::Applied;
  } else if (!scope.known) r.reason = fmt::format("model {} does not support {} changes", sched.name(), to_string(c.kind));
  ChangeOutcome o;
  o.status = r.status;
  o.reason = r.reason;
  if (idx < reviews_.size()) reviews_[idx] = std::move(r);
  return o;
}

const std::vector<std::string>& approval_log_columns() {
  static const std::vector<std::string> c{"change_id", "time_s", "requester", "requester_role", "requester_team",
                                          "approvers", "kind", "target", "field", "value", "before", "after",
                                          "justification", "expected_effect", "affected_classes", "affected_teams",
                                          "missing_signoff", "outcome", "reason", "cancelled_jobs"};
  return c;
}

json approval_log_json(const std::vector<PolicyChange>& changes, const std::vector<ChangeRecord>& log,
                       const std::vector<gov::Review>& reviews) {
  json out = json::array();
  for (const auto& rec : log) {
    const PolicyChange& c = changes[rec.index];
    const gov::Review& rv = reviews[rec.index];
    json approvers = json::array();
    for (const auto& a : c.approvals) approvers.push_back({{"user", a.user}, {"role", a.role}, {"team", a.team}});
    std::string what = c.field;
    if (c.kind == ChangeKind::QueueQuota && (!c.flavor.empty() || !c.resource.empty()))
      what += fmt::format("[{}/{}]", c.flavor, c.resource);
    out.push_back({{"change_id", c.id},
                   {"time_s", rec.at_s},
                   {"requester", {{"user", c.requester.user}, {"role", c.requester.role}, {"team", c.requester.team}}},
                   {"approvers", approvers},
                   {"kind", std::string(to_string(c.kind))},
                   {"target", c.target},
                   {"field", what},
                   {"value", c.value},
                   {"before", rec.outcome.before},
                   {"after", rec.outcome.after},
                   {"justification", c.justification},
                   {"expected_effect", c.expected_effect},
                   {"affected_classes", rv.affected_classes},
                   {"affected_teams", rv.affected_teams},
                   {"missing_signoff", rv.missing},
                   {"outcome", std::string(to_string(rec.outcome.status))},
                   {"reason", rec.outcome.reason},
                   {"cancelled_jobs", rec.outcome.cancelled_job_ids}});
  }
  return out;
}

namespace {
using io::csv_field;
std::string joined(const json& a, const char* sep = ";") {
  std::string s;
  for (const auto& x : a) s += (s.empty() ? "" : sep) + (x.is_string() ? x.get<std::string>() : x.dump());
  return s;
}
}  // namespace

std::string approval_log_csv(const json& log) {
  std::string out;
  for (const auto& c : approval_log_columns()) out += (out.empty() ? "" : ",") + c;
  out += "\n";
  for (const auto& e : log) {
    std::string approvers;
    for (const auto& a : e["approvers"])
      approvers += (approvers.empty() ? "" : ";") + fmt::format("{} ({}, {})", a["user"].get<std::string>(),
                                                                a["role"].get<std::string>(), a["team"].get<std::string>());
    const json& v = e["value"];
    const std::vector<std::string> row{
        e["change_id"], fmt::format("{}", e["time_s"].get<double>()), e["requester"]["user"], e["requester"]["role"],
        e["requester"]["team"], approvers, e["kind"], e["target"], e["field"],
        v.is_null() ? std::string() : v.is_string() ? v.get<std::string>() : v.dump(), e["before"], e["after"],
        e["justification"], e["expected_effect"], joined(e["affected_classes"]), joined(e["affected_teams"]),
        joined(e["missing_signoff"]), e["outcome"], e["reason"], joined(e["cancelled_jobs"])};
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) line += (i ? "," : "") + csv_field(row[i]);
    out += line + "\n";
  }
  return out;
}

}  // namespace floorsim::app
