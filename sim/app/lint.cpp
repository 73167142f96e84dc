#include "sim/app/lint.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "schedulers/kai/kai_scheduler.hpp"
#include "schedulers/kueue/manifest.hpp"
#include "schedulers/kueue/manifest_model.hpp"
#include "schedulers/registry.hpp"
#include "schedulers/slurm/slurm.hpp"
#include "sim/app/runner.hpp"
#include "sim/app/scenario.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"

namespace floorsim::app {
namespace fs = std::filesystem;
using json = nlohmann::json;

const std::vector<LintRule>& lint_rules() {
  static const std::vector<LintRule> r{
      {"deadline-floors-exceed-capacity", "error",
       "floors of the deadline classes sum past the cluster's GPUs: no scheduler can honour them together"},
      {"bf-window-shorter-than-time-limit", "warning",
       "bf_window is shorter than the longest time limit: backfill cannot reserve for long jobs, which then starve (slurm.conf(5) SchedulerParameters bf_window; Slurm sched_config backfill)"},
      {"noreserve-qos-not-preemptable", "warning",
       "a NoReserve QOS that not every other QOS can preempt: its jobs start in any gap and then block higher work (sacctmgr(1) QOS Flags=NoReserve; Slurm preempt docs)"},
      {"limits-without-enforce", "error",
       "QOS or association limits are configured but AccountingStorageEnforce lacks limits: none is enforced (slurm.conf(5) AccountingStorageEnforce; Slurm resource_limits docs)"},
      {"qos-preempt-without-preempt-qos", "error",
       "a QOS has a Preempt list but PreemptType is not preempt/qos: the list has no effect (slurm.conf(5) PreemptType; Slurm preempt docs)"},
      {"qos-priority-without-weight", "warning",
       "QOS priorities are set but PriorityWeightQOS is 0 (or PriorityType is basic): they do not order anything (Slurm priority_multifactor docs)"},
      {"too-many-high-priority-classes", "warning",
       "too many high-priority classes: when most work is high priority, priority no longer protects anything"},
      {"recurring-reservation-charges-idle", "warning",
       "a recurring reservation charges its idle reserved time to its accounts every period (Slurm reservations docs; scontrol(1) Flags=DAILY)"},
      {"manifest-not-modelled", "warning",
       "a field or object of a Kueue or KAI manifest that floorsim reads but does not simulate, with what it assumes instead (Kueue docs: Concepts; KAI Scheduler docs: Queues)"},
      {"manifest-kind-not-scheduled", "warning",
       "a manifest kind that is neither a Kueue nor a KAI queue object floorsim models (workloads such as a Pod or Job come from the trace)"},
      {"decay-half-life-off-review-cadence", "warning",
       "PriorityDecayHalfLife is far (beyond x2) from the usage review cadence: fair-share forgets too fast or remembers too long"},
      {"run-warning", "warning",
       "a warning `floorsim run` gives for this scenario: an input floorsim reads but cannot model, and what it assumes instead"},
  };
  return r;
}

namespace {

struct Ctx {
  std::vector<LintFinding> out;
  void add(const std::string& rule, const std::string& msg, const std::string& loc) {
    for (const auto& r : lint_rules())
      if (r.name == rule) out.push_back({rule, r.severity, msg, loc});
  }
};

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "file:N" of the first line where `needle` appears (case-insensitive), else "file".
std::string line_of(const std::string& file, const std::string& needle) {
  if (file.empty()) return "";
  std::ifstream in(file);
  std::string line;
  const std::string n = lower(needle);
  for (int ln = 1; std::getline(in, line); ++ln)
    if (lower(line).find(n) != std::string::npos && line.find_first_not_of(" \t") != std::string::npos &&
        line[line.find_first_not_of(" \t")] != '#')
      return fmt::format("{}:{}", file, ln);
  return file;
}

// Where a slurm setting lives: the slurm.conf line if it is there, else the scenario pointer.
struct SlurmSources {
  std::string conf, dump, scenario;
  json inline_block;  // the scenario's resolved scheduler block (null without a scenario)
  std::string conf_key(const std::string& key, const std::string& pointer) const {
    if (!conf.empty()) {
      const std::string l = line_of(conf, key + "=");
      if (l != conf) return l;
    }
    if (!scenario.empty()) return scenario + ":" + pointer;
    return conf.empty() ? std::string() : conf;
  }
  std::string qos(const std::string& name) const {
    if (!inline_block.is_null())
      for (size_t i = 0; i < inline_block["qos"].size(); ++i)
        if (inline_block["qos"][i]["name"] == name) return fmt::format("{}:/scheduler/qos/{}", scenario, i);
    if (!dump.empty()) return line_of(dump, "QOS - '" + name + "'");
    return scenario.empty() ? conf : scenario + ":/scheduler/qos";
  }
  std::string resv(const std::string& name, size_t i) const {
    if (!inline_block.is_null()) return fmt::format("{}:/scheduler/reservations/{}", scenario, i);
    return conf.empty() ? std::string() : line_of(conf, "ReservationName=" + name);
  }
};

void lint_slurm(const slurm::SlurmConfig& c, const SlurmSources& src, double longest_job_limit_s, const LintOptions& o, Ctx& x) {
  using slurm::kUnset;
  // bf_window vs the longest time limit (partition MaxTime, QOS MaxWall, the jobs' limits).
  if (c.sched.backfill) {
    double longest = longest_job_limit_s;
    for (const auto& p : c.partitions)
      if (std::isfinite(p.max_time_s)) longest = std::max(longest, p.max_time_s);
    for (const auto& q : c.qos)
      if (q.max_wall_s > 0) longest = std::max(longest, q.max_wall_s);
    if (longest > c.sched.bf_window_s)
      x.add("bf-window-shorter-than-time-limit",
            fmt::format("bf_window {:.0f} min < longest time limit {:.0f} min; expected bf_window >= the longest limit",
                        c.sched.bf_window_s / 60, longest / 60),
            src.conf_key("bf_window", "/scheduler/bf_window_min"));
  }
  // NoReserve QOS every other QOS must be able to preempt.
  for (const auto& q : c.qos) {
    if (!q.flags.no_reserve) continue;
    std::vector<std::string> cannot;
    for (const auto& o2 : c.qos)
      if (o2.name != q.name && std::find(o2.preempt.begin(), o2.preempt.end(), q.name) == o2.preempt.end()) cannot.push_back(o2.name);
    if (!cannot.empty()) {
      std::string l;
      for (const auto& n : cannot) l += (l.empty() ? "" : ", ") + n;
      x.add("noreserve-qos-not-preemptable", fmt::format("QOS {} has NoReserve but {} cannot preempt it; expected every other QOS to list it in Preempt", q.name, l),
            src.qos(q.name));
    }
  }
  // Limits without AccountingStorageEnforce=limits.
  if (!c.enforce_limits) {
    std::string what;
    for (const auto& q : c.qos)
      if (what.empty() && (q.grp_tres.any() || q.max_tres_per_user.any() || q.max_tres_per_job.any() || q.grp_tres_mins.any() ||
                           q.max_jobs_per_user != kUnset || q.grp_jobs != kUnset || q.max_wall_s > 0))
        what = "QOS " + q.name;
    for (const auto& a : c.accounts)
      if (what.empty() && (a.grp_tres.any() || a.max_jobs != kUnset)) what = "account " + a.name;
    for (const auto& u : c.users)
      if (what.empty() && (u.grp_tres.any() || u.max_jobs != kUnset)) what = "user " + u.name;
    if (!what.empty())
      x.add("limits-without-enforce", fmt::format("{} has limits but AccountingStorageEnforce lacks limits; expected AccountingStorageEnforce=limits (or safe, all)", what),
            src.conf_key("AccountingStorageEnforce", "/scheduler/accounting_storage_enforce"));
  }
  // Preempt lists without preempt/qos.
  if (!c.preempt_qos)
    for (const auto& q : c.qos)
      if (!q.preempt.empty()) {
        x.add("qos-preempt-without-preempt-qos", fmt::format("QOS {} lists Preempt but PreemptType is preempt/none; expected PreemptType=preempt/qos", q.name),
              src.conf_key("PreemptType", "/scheduler/preempt_type"));
        break;
      }
  // QOS priority without weight.
  const bool weightless = c.prio.type == slurm::PriorityType::Basic || c.prio.weight_qos == 0;
  if (weightless)
    for (const auto& q : c.qos)
      if (q.priority > 0) {
        x.add("qos-priority-without-weight",
              fmt::format("QOS {} has Priority={} but {}; expected PriorityType=priority/multifactor with PriorityWeightQOS > 0", q.name, q.priority,
                          c.prio.type == slurm::PriorityType::Basic ? "PriorityType is priority/basic" : "PriorityWeightQOS is 0"),
              c.prio.type == slurm::PriorityType::Basic ? src.conf_key("PriorityType", "/scheduler/priority_type")
                                                        : src.conf_key("PriorityWeightQOS", "/scheduler/priority_weight_qos"));
        break;
      }
  // Recurring reservations charge idle time.
  for (size_t i = 0; i < c.reservations.size(); ++i) {
    const auto& r = c.reservations[i];
    if (r.period == slurm::Reservation::Period::None) continue;
    const char* per = r.period == slurm::Reservation::Period::Hourly ? "HOURLY" : r.period == slurm::Reservation::Period::Daily ? "DAILY" : "WEEKLY";
    std::string who;
    for (const auto& a : r.accounts) who += (who.empty() ? "" : ", ") + a;
    for (const auto& u : r.users) who += (who.empty() ? "" : ", ") + u;
    x.add("recurring-reservation-charges-idle",
          fmt::format("reservation {} recurs {}: its idle reserved time is charged to {} every period; expected a one-off window sized to the work, or a floor instead",
                      r.name, per, who.empty() ? "its associations" : who),
          src.resv(r.name, i));
  }
  // Decay half-life vs review cadence.
  if (c.prio.type == slurm::PriorityType::Multifactor) {
    const double h = c.prio.decay_half_life_s, cad = o.review_cadence_s;
    if (h <= 0 || h < cad / 2 || h > cad * 2)
      x.add("decay-half-life-off-review-cadence",
            h <= 0 ? fmt::format("PriorityDecayHalfLife=0 (usage never decays) with a review every {:.1f} days; expected a half-life within x2 of the cadence", cad / 86400)
                   : fmt::format("PriorityDecayHalfLife {:.1f} days vs a review every {:.1f} days (x{:.2f}); expected within x2", h / 86400, cad / 86400, h / cad),
            src.conf_key("PriorityDecayHalfLife", "/scheduler/priority_decay_half_life_s"));
  }
}

void lint_kueue(const kueue::Manifests& mf, const LintOptions& o, Ctx& x) {
  std::vector<const kueue::PriorityClassObj*> high;
  for (const auto& p : mf.priority_classes)
    if (p.value >= o.high_priority_value) high.push_back(&p);
  if (static_cast<int64_t>(high.size()) > o.max_high_priority_classes) {
    std::string names;
    for (const auto* p : high) names += (names.empty() ? "" : ", ") + fmt::format("{}={}", p->name, p->value);
    const auto* at = high[static_cast<size_t>(o.max_high_priority_classes)];
    x.add("too-many-high-priority-classes",
          fmt::format("{} of {} WorkloadPriorityClasses are at or above {} ({}); expected at most {}", high.size(), mf.priority_classes.size(),
                      o.high_priority_value, names, o.max_high_priority_classes),
          fmt::format("{}:{}", at->pos.file, at->pos.line));
  }
}

// What `floorsim run` would read from these manifests: Kueue objects through the same model
// build (a refusal throws InputError), KAI Queues through the queue tree; each warning becomes a
// finding at its file:line.
void lint_manifest_reading(const kueue::Manifests& mf, const std::string& display, Ctx& x) {
  std::vector<std::string> warnings = mf.warnings;
  if (!mf.flavors.empty() || !mf.cluster_queues.empty() || !mf.cohorts.empty() || !mf.local_queues.empty())
    warnings = kueue::build_model(mf, display).warnings;
  if (!mf.kai_queues.empty()) {
    kueue::Manifests kai_only = mf;
    kai_only.warnings.clear();  // already in `warnings`
    kai::check_queues(kai_only, warnings);
  }
  for (const auto& w : warnings) {
    // "file:line: message"
    std::string loc, msg = w;
    if (auto c1 = w.find(": "); c1 != std::string::npos) {
      loc = w.substr(0, c1);
      msg = w.substr(c1 + 2);
    }
    x.add(msg.rfind("kind ", 0) == 0 ? "manifest-kind-not-scheduled" : "manifest-not-modelled", msg, loc);
  }
}

// The run's warnings that no rule above reported already (a manifest's are reported as
// manifest-not-modelled with their file:line).
void add_run_warnings(const Warnings& raised, const std::string& scenario, Ctx& x) {
  for (const auto& w : raised.list()) {
    const bool reported = std::any_of(x.out.begin(), x.out.end(), [&](const LintFinding& f) {
      return w == (f.location.empty() ? f.message : f.location + ": " + f.message);
    });
    if (!reported) x.add("run-warning", w, scenario);
  }
}

bool ends_with(const std::string& s, const std::string& e) { return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0; }

}  // namespace

std::vector<LintFinding> lint_config(const std::string& path, const LintOptions& o) {
  Ctx x;
  if (!fs::exists(path)) throw InputError(path, "", "cannot read the file; expected a scenario JSON, a slurm.conf or a Kueue YAML");
  if (ends_with(path, ".json")) {
    Warnings raised;  // what `run` would warn about: the scenario's, then its model's
    const Scenario sc = load_scenario_file(path, &raised);
    (void)make_scheduler(sc, &raised);
    // Deadline classes: rehearse.deadline_classes, else every class with a deadline job.
    std::vector<StrId> deadline;
    const json dc = sc.resolved["rehearse"].value("deadline_classes", json::array());
    for (const auto& n : dc) {
      const StrId k = sc.workload.strings.find(n.get<std::string>());
      if (k != StringTable::kMissing) deadline.push_back(k);
    }
    double longest = 0;
    for (const auto& j : sc.workload.jobs) {
      if (dc.empty() && j.deadline_s != kNever &&
          std::find(deadline.begin(), deadline.end(), j.klass) == deadline.end())
        deadline.push_back(j.klass);
      if (std::isfinite(j.time_limit_s)) longest = std::max(longest, j.time_limit_s);
    }
    int64_t sum = 0;
    std::string names;
    for (StrId k : deadline) {
      const int64_t f = k < sc.floors.size() ? sc.floors[k] : 0;
      sum += f;
      names += (names.empty() ? "" : " + ") + fmt::format("{} {}", sc.workload.strings.str(k), f);
    }
    if (sum > sc.cluster.total_gpus())
      x.add("deadline-floors-exceed-capacity",
            fmt::format("deadline-class floors {} = {} GPUs > {} GPUs in the cluster; expected at most the cluster", names, sum, sc.cluster.total_gpus()),
            path + ":/classes");
    const json& sb = sc.resolved["scheduler"];
    if (sb["type"] == "slurm") {
      SchedulerContext ctx{sc.workload, sc.cluster, sc.base_dir, sc.file, sc.seed};
      ctx.t0_wall_s = std::isnan(sc.t0_wall_s) ? 0 : sc.t0_wall_s;
      const slurm::SlurmConfig c = slurm::config_from(sb, ctx);
      SlurmSources src;
      auto rel = [&](const std::string& p) { return p.empty() ? p : (fs::path(sc.base_dir) / p).lexically_normal().string(); };
      src.conf = rel(sb["slurm_conf"]);
      src.dump = rel(sb["sacctmgr_dump"]);
      src.scenario = path;
      src.inline_block = sb;
      lint_slurm(c, src, longest, o, x);
    } else if (sb["type"] == "kueue" || sb["type"] == "kai") {
      kueue::Manifests mf;
      for (const auto& f : sb["manifests"]) {
        fs::path p(f.get<std::string>());
        if (p.is_relative()) p = fs::path(sc.base_dir) / p;
        kueue::load_manifest_file(p.string(), p.string(), mf);  // named as the run names it
      }
      lint_manifest_reading(mf, path, x);
      lint_kueue(mf, o, x);
    }
    add_run_warnings(raised, path, x);
  } else if (ends_with(path, ".yaml") || ends_with(path, ".yml")) {
    kueue::Manifests mf;
    kueue::load_manifest_file(path, path, mf);
    lint_manifest_reading(mf, path, x);
    lint_kueue(mf, o, x);
  } else {
    slurm::SlurmConfig c;
    slurm::read_slurm_conf(path, c);
    if (!o.dump.empty()) slurm::read_sacctmgr_dump(o.dump, c);
    SlurmSources src;
    src.conf = path;
    src.dump = o.dump;
    lint_slurm(c, src, 0, o, x);
  }
  return x.out;
}

std::string lint_table(const std::vector<LintFinding>& f) {
  std::string out;
  for (const auto& x : f) out += fmt::format("{}: {} [{}] {}\n", x.location, x.severity, x.rule, x.message);
  out += f.empty() ? "lint: clean\n" : fmt::format("lint: {} finding{}\n", f.size(), f.size() == 1 ? "" : "s");
  return out;
}

json to_json(const std::vector<LintFinding>& f) {
  json a = json::array();
  for (const auto& x : f) a.push_back({{"rule", x.rule}, {"severity", x.severity}, {"message", x.message}, {"location", x.location}});
  return {{"findings", a}, {"clean", f.empty()}};
}

}  // namespace floorsim::app
