#include "sim/app/audit.hpp"

#include <cctype>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "schedulers/kueue/manifest.hpp"
#include "schedulers/registry.hpp"
#include "schedulers/slurm/slurm.hpp"
#include "sim/app/changes.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"

namespace floorsim::app {
using json = nlohmann::json;

namespace {

// Days since 1970-01-01 -> civil date (H. Hinnant's algorithm).
void civil(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
}

constexpr int64_t kEpochDays = 20454;  // 2026-01-01 in days since 1970-01-01

std::string tres(int64_t cpus, int64_t gpus, int64_t nodes) {
  std::string s;
  if (cpus > 0) s += fmt::format("cpu={}", cpus);
  if (gpus > 0) s += fmt::format("{}gres/gpu={}", s.empty() ? "" : ",", gpus);
  s += fmt::format("{}node={}", s.empty() ? "" : ",", nodes);
  return s;
}

std::string state_text(JobState s) {
  switch (s) {
    case JobState::Completed: return "COMPLETED";
    case JobState::TimedOut: return "TIMEOUT";
    case JobState::Cancelled: return "CANCELLED by 0";
    case JobState::NodeFail: return "NODE_FAIL";
    case JobState::Running: return "RUNNING";
    default: return "PENDING";
  }
}

}  // namespace

std::string sacct_time(double t_s) {
  const auto secs = static_cast<int64_t>(std::llround(t_s));
  int64_t days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
  int64_t rem = secs - days * 86400;
  int64_t y;
  unsigned m, d;
  civil(kEpochDays + days, y, m, d);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", y, m, d, rem / 3600, (rem / 60) % 60, rem % 60);
}

std::string sacct_duration(double s) {
  if (!std::isfinite(s)) return "UNLIMITED";
  auto t = static_cast<int64_t>(std::llround(std::max(0.0, s)));
  const int64_t d = t / 86400;
  t %= 86400;
  return d > 0 ? fmt::format("{}-{:02}:{:02}:{:02}", d, t / 3600, (t / 60) % 60, t % 60)
               : fmt::format("{:02}:{:02}:{:02}", t / 3600, (t / 60) % 60, t % 60);
}

const std::vector<std::string>& sacct_columns() {
  static const std::vector<std::string> c{"JobID",   "JobIDRaw", "JobName", "Partition", "Account",  "User",
                                          "QOS",     "State",    "Submit",  "Eligible",  "Start",    "End",
                                          "Elapsed", "Timelimit", "NNodes", "NCPUS",     "ReqTRES",  "AllocTRES",
                                          "NodeList", "ExitCode", "Reason"};
  return c;
}

namespace {

// Partition, account and QOS as slurmctld records them for a job that names none: the default
// partition (Default=YES, else the first; slurm.conf(5) PartitionName), the user's first
// association's account, and the association's DefaultQOS, else "normal" (sacctmgr(1) QOS). The
// Slurm model resolves them the same way; other models record what the job names.
struct JobNames {
  std::string partition, account, qos;
};

std::vector<JobNames> resolved_names(const Scenario& sc) {
  const auto& jobs = sc.workload.jobs;
  const auto& st = sc.workload.strings;
  std::vector<JobNames> out(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) out[i] = {st.str(jobs[i].partition), st.str(jobs[i].account), st.str(jobs[i].qos)};
  if (sc.resolved["scheduler"]["type"] != "slurm") return out;
  SchedulerContext ctx{sc.workload, sc.cluster, sc.base_dir, sc.file, sc.seed};
  const slurm::SlurmConfig c = slurm::config_from(sc.resolved["scheduler"], ctx);
  std::string default_part = c.partitions.empty() ? "default" : c.partitions.front().name;
  for (const auto& p : c.partitions)
    if (p.is_default) {
      default_part = p.name;
      break;
    }
  for (size_t i = 0; i < jobs.size(); ++i) {
    JobNames& n = out[i];
    if (n.partition.empty()) n.partition = default_part;
    const std::string& user = st.str(jobs[i].user);
    const slurm::User* assoc = nullptr;
    for (const auto& u : c.users)
      if (u.name == user && (n.account.empty() || u.account == n.account)) {
        assoc = &u;
        break;
      }
    if (n.account.empty() && assoc) n.account = assoc->account;
    if (n.qos.empty()) n.qos = assoc && !assoc->default_qos.empty() ? assoc->default_qos : "normal";
  }
  return out;
}

// Keeps the retained records only: slurmdbd purges a job record once it ended longer ago than
// PurgeJobAfter (slurmdbd.conf(5)); a job still pending or running is never purged.
bool retained(double end_s, double now_s, double purge_after_s) { return end_s < 0 || now_s - end_s <= purge_after_s; }

}  // namespace

std::string sacct_text(const Scenario& sc, const RunResult& r, const SacctOptions& o, size_t* purged_jobs) {
  const auto& jobs = sc.workload.jobs;
  const auto& st = sc.workload.strings;
  const std::vector<JobNames> names = resolved_names(sc);
  std::string out;
  auto row = [&](const std::vector<std::string>& f) {
    std::string line;
    for (size_t i = 0; i < f.size(); ++i) {
      std::string v = f[i];
      for (auto& ch : v)
        if (o.delimiter.find(ch) != std::string::npos || ch == '\n') ch = '_';  // sacct has no escaping
      line += (i ? o.delimiter : "") + v;
    }
    out += line + (o.trailing_delimiter ? o.delimiter : "") + "\n";
  };
  row(sacct_columns());
  size_t purged = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const JobSpec& j = jobs[i];
    const JobRun& run = r.runs[i];
    const std::vector<Attempt> none;
    const std::vector<Attempt>& earlier = i < r.attempts.size() ? r.attempts[i] : none;
    if (!retained(run.state == JobState::Running ? -1 : run.end_s, r.end_s, o.purge_after_s)) {
      ++purged;
      continue;
    }
    const std::string id = std::to_string(j.id);
    const JobNames& n = names[i];
    const std::string name = st.str(j.klass).empty() ? "job" + id : st.str(j.klass);
    const std::string req = tres(j.cpus, j.gpus, std::max<int32_t>(1, j.nodes));
    auto batch_row = [&](const std::string& state, const std::string& start, const std::string& end, const std::string& elapsed,
                         const std::string& nodelist, const std::string& exitc) {
      // The batch step runs on the first node of the allocation.
      std::string first = nodelist;
      const auto cut = first.find_first_of(",[");
      if (cut != std::string::npos && first[cut] == ',') first = first.substr(0, cut);
      if (cut != std::string::npos && first[cut] == '[') {
        const auto e = first.find_first_of(",-]", cut + 1);
        first = first.substr(0, cut) + first.substr(cut + 1, e - cut - 1);
      }
      const std::string sid = id + ".batch";
      row({sid, sid, "batch", "", n.account, "", "", state, start, start, start, end, elapsed, "", "1",
           std::to_string(j.cpus), "", tres(j.cpus, 0, 1), first, exitc, ""});
    };
    // Earlier attempts (sacct --duplicates): requeueing resets Submit, so each attempt was
    // submitted when the one before it was requeued. A preempted attempt is recorded PREEMPTED,
    // one killed by a node failure NODE_FAIL (slurmctld logs the attempt, then requeues).
    double submit = j.submit_s, eligible = j.submit_s;
    for (const Attempt& a : earlier) {
      const double prev_end = a.end_s;
      const bool keep = retained(a.end_s, r.end_s, o.purge_after_s);
      if (!keep) ++purged;
      if (!keep) {
        submit = eligible = prev_end;
        continue;
      }
      const int64_t alloc_nodes = std::max<int64_t>(1, static_cast<int64_t>(expand_hostlist(a.node_list).size()));
      const std::string state = a.preempted ? "PREEMPTED" : "NODE_FAIL", exitc = a.preempted ? "0:15" : "0:0";
      const std::string start = sacct_time(a.start_s), end = sacct_time(a.end_s), elapsed = sacct_duration(a.end_s - a.start_s);
      row({id, id, name, n.partition, n.account, st.str(j.user), n.qos, state, sacct_time(submit), sacct_time(eligible), start,
           end, elapsed, sacct_duration(j.time_limit_s), std::to_string(alloc_nodes), std::to_string(j.cpus), req,
           tres(j.cpus, j.gpus, alloc_nodes), a.node_list, exitc, "None"});
      batch_row(state == "PREEMPTED" ? "CANCELLED" : state, start, end, elapsed, a.node_list, exitc);
      submit = prev_end;
      eligible = prev_end + sc.engine.requeue_delay_s;
    }
    const bool started = run.start_s >= 0;
    const int64_t alloc_nodes = started ? std::max<int64_t>(1, static_cast<int64_t>(run.alloc_count)) : std::max<int32_t>(1, j.nodes);
    std::string start = "Unknown", end = "Unknown", elapsed = "00:00:00", alloc, nodelist = "None assigned";
    std::string state = state_text(run.state), exitc = run.state == JobState::Cancelled ? "0:15" : "0:0";
    const bool running = run.state == JobState::Running;
    // A job requeued and not started again: its last attempt is the earlier one.
    const bool last_started = started && (earlier.empty() || run.start_s > earlier.back().start_s);
    if (last_started) {
      start = sacct_time(run.start_s);
      end = running ? "Unknown" : sacct_time(run.end_s);
      elapsed = sacct_duration((running ? r.end_s : run.end_s) - run.start_s);
      alloc = tres(j.cpus, j.gpus, alloc_nodes);
      nodelist = r.node_lists[i];
    } else if (run.state == JobState::Cancelled) {
      start = end = sacct_time(run.end_s);  // Slurm stamps Start = End = cancel time
    }
    const std::string reason = last_started || run.state != JobState::Cancelled ? "None" : "PolicyChange";
    row({id, id, name, n.partition, n.account, st.str(j.user), n.qos, state, sacct_time(submit), sacct_time(eligible), start,
         end, elapsed, sacct_duration(j.time_limit_s), std::to_string(last_started ? alloc_nodes : std::max<int32_t>(1, j.nodes)),
         std::to_string(j.cpus), req, alloc, nodelist, exitc, reason});
    if (last_started) batch_row(state, start, end, elapsed, nodelist, exitc);
  }
  if (purged_jobs) *purged_jobs = purged;
  return out;
}

std::string sacct_parsable2(const Scenario& sc, const RunResult& r) { return sacct_text(sc, r, SacctOptions{}, nullptr); }

json policy_json(const Scenario& sc) {
  const gov::Settings& g = sc.governance;
  json p;
  const std::string model = sc.resolved["scheduler"]["type"];
  p["model"] = model;
  p["roles"] = {{"admin_roles", g.admin_roles}, {"submit_roles", g.submit_roles}};
  p["class_teams"] = g.class_teams;
  p["sign_off_rule"] =
      "a change needs a sign-off, by someone other than the requester, from every team owning a class the change "
      "could affect (scope per model: sim/app/governance.hpp); submit roles may not change policy";
  json controlled = json::array();
  const json admins = g.admin_roles;
  auto item = [&](const std::string& object, const std::string& name, json fields, json changed_by, std::string how) {
    controlled.push_back({{"object", object}, {"name", name}, {"fields", std::move(fields)}, {"changed_by", std::move(changed_by)},
                          {"through", std::move(how)}});
  };
  json loopholes = {{"user_resv_delete", g.user_resv_delete}, {"reservations_with_user_delete", json::array()}};
  if (model == "slurm") {
    SchedulerContext ctx{sc.workload, sc.cluster, sc.base_dir, sc.file, sc.seed};
    ctx.t0_wall_s = std::isnan(sc.t0_wall_s) ? 0 : sc.t0_wall_s;
    const slurm::SlurmConfig c = slurm::config_from(sc.resolved["scheduler"], ctx);
    const json cj = slurm::to_json(c);
    for (const auto& q : cj["qos"]) {
      json f = q;
      f.erase("name");
      item("QOS", q["name"], f, admins, "change event kind qos (sacctmgr modify qos)");
    }
    for (const auto& pt : cj["partitions"]) {
      json f = pt;
      f.erase("name");
      item("partition", pt["name"], f, admins, "slurm.conf edit (not a change event: a reconfigure outside the run)");
    }
    for (const auto& r : c.reservations) {
      json by = admins;
      if (g.user_resv_delete || r.user_delete) by.push_back("users who may use it (delete only: loophole)");
      if (r.user_delete) loopholes["reservations_with_user_delete"].push_back(r.name);
      item("reservation", r.name,
           {{"start_s", r.start_s}, {"duration_s", r.duration_s}, {"node_cnt", r.node_cnt}, {"gpus", r.gpus},
            {"nodes", r.nodes}, {"users", r.users}, {"accounts", r.accounts}, {"user_delete", r.user_delete}},
           by, "change event kinds reservation_create/update/delete (scontrol)");
    }
    item("priority weights", "multifactor", cj["priority"], admins, "change event kind priority_weight");
    json assocs = json::array();
    for (const auto& u : c.users) assocs.push_back(u.name + "@" + u.account);
    for (const auto& a : c.accounts) assocs.push_back(a.name);
    item("associations", "all", {{"associations", assocs}}, admins, "change event kind association_delete (sacctmgr delete)");
    p["accounting_storage_enforce"] = cj["enforce"];
  } else if (model == "kueue") {
    kueue::Manifests mf;
    for (const auto& f : sc.resolved["scheduler"]["manifests"]) {
      std::filesystem::path path(f.get<std::string>());
      if (path.is_relative()) path = std::filesystem::path(sc.base_dir) / path;
      kueue::load_manifest_file(path.string(), path.string(), mf);
    }
    for (const auto& cq : mf.cluster_queues) {
      json fields = json::array();
      for (const auto& grp : cq.groups)
        for (const auto& fl : grp.flavors)
          for (const auto& q : fl.resources)
            fields.push_back({{"flavor", fl.flavor}, {"resource", q.resource}, {"nominalQuota", q.nominal},
                              {"borrowingLimit", q.borrowing_limit >= 0 ? json(q.borrowing_limit) : json(nullptr)},
                              {"lendingLimit", q.lending_limit >= 0 ? json(q.lending_limit) : json(nullptr)}});
      item("ClusterQueue", cq.name, {{"cohort", cq.cohort}, {"quotas", fields}}, admins, "change event kind cluster_queue");
    }
  } else {
    p["note"] = "model " + model + " has no policy objects that change events can edit: every change is rejected";
  }
  p["controlled"] = controlled;
  p["loopholes"] = loopholes;
  return p;
}

std::string policy_md(const json& p) {
  std::string out = fmt::format("# Policy under change control (model {})\n\n", p["model"].get<std::string>());
  std::string admins, subs;
  for (const auto& a : p["roles"]["admin_roles"]) admins += (admins.empty() ? "" : ", ") + a.get<std::string>();
  for (const auto& a : p["roles"]["submit_roles"]) subs += (subs.empty() ? "" : ", ") + a.get<std::string>();
  out += fmt::format("- May change policy: {}\n- Submit jobs only: {}\n- Sign-off: {}\n", admins, subs, p["sign_off_rule"].get<std::string>());
  out += fmt::format("- Loopholes: user_resv_delete = {}, reservations with USER_DELETE: {}\n\n",
                     p["loopholes"]["user_resv_delete"].get<bool>() ? "on" : "off", p["loopholes"]["reservations_with_user_delete"].dump());
  if (p.contains("accounting")) {
    const json& a = p["accounting"];
    out += fmt::format("- Accounting (sacct.txt): {} with delimiter '{}', {}; PurgeJobAfter = {} ({} records purged)\n\n",
                       a["format"].get<std::string>(), a["delimiter"].get<std::string>(), a["duplicates"].get<std::string>(),
                       a["purge_job_after"].get<std::string>(), a["records_purged"].get<size_t>());
  }
  out += "| object | name | changed by | through | fields |\n|---|---|---|---|---|\n";
  for (const auto& c : p["controlled"]) {
    std::string by;
    for (const auto& b : c["changed_by"]) by += (by.empty() ? "" : ", ") + b.get<std::string>();
    std::string fields = c["fields"].dump();
    for (auto& ch : fields)
      if (ch == '|') ch = '/';
    out += fmt::format("| {} | {} | {} | {} | `{}` |\n", c["object"].get<std::string>(), c["name"].get<std::string>(), by,
                       c["through"].get<std::string>(), fields);
  }
  return out;
}

double parse_purge_after(const std::string& text, const std::string& what) {
  if (text == "none") return kNever;
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  const std::string unit = text.substr(digits);
  double per = 0;
  if (unit.empty() || unit == "month" || unit == "months") per = 30 * 86400.0;
  else if (unit == "day" || unit == "days") per = 86400.0;
  else if (unit == "hour" || unit == "hours") per = 3600.0;
  if (digits == 0 || digits > 9 || per == 0)
    throw InputError(what, "", "'" + text + "' is not a retention period; expected N, Nhours, Ndays or Nmonths (slurmdbd.conf PurgeJobAfter) or none");
  return std::stod(text.substr(0, digits)) * per;
}

void write_audit_pack(const Scenario& sc, const std::string& run_dir, const io::OutTarget& pack, const SacctOptions& o,
                      Warnings* warnings) {
  RunOptions ro;
  ro.keep_runs = true;
  ro.warnings = warnings;
  const RunResult r = run_scenario(sc, ro);
  const std::filesystem::path jobs_csv = std::filesystem::path(run_dir) / "jobs.csv";
  if (std::filesystem::exists(jobs_csv) && io::read_file(jobs_csv) != r.jobs_csv)
    throw InputError(jobs_csv.string(), "", "differs from a re-run of the run's scenario; expected the run directory's own scenario (pass --scenario with the file it was run from)");
  size_t purged = 0;
  const std::string sacct = sacct_text(sc, r, o, &purged);
  json policy = policy_json(sc);
  policy["accounting"] = {{"format", o.trailing_delimiter ? "sacct --parsable" : "sacct --parsable2"},
                          {"delimiter", o.delimiter},
                          {"duplicates", "one row per attempt of a requeued job (sacct --duplicates)"},
                          {"purge_job_after", o.purge_after_text},
                          {"records_purged", purged}};
  io::OutputDir dir(pack);
  dir.write("policy.json", dump(policy));
  dir.write("policy.md", policy_md(policy));
  dir.write("approval_log.json", dump(sc.changes.empty() ? json::array() : r.approval_log));
  dir.write("approval_log.csv", sc.changes.empty() ? approval_log_csv(json::array()) : r.approval_csv);
  dir.write("sacct.txt", sacct);
  dir.commit();
}

}  // namespace floorsim::app
