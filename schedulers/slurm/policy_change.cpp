// Policy changes at run time, applied at once as slurmctld does: sacctmgr modify qos and
// scontrol reconfigure (weights) reach the next pass; scontrol create/update/delete reservation
// changes what it plans around (scontrol(1), sacctmgr(1)). Deleting an association cancels its
// running and pending jobs now, and its later jobs at submission (a real sacctmgr may refuse
// while jobs are active, which would only be stricter).
#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "schedulers/slurm/model.hpp"
#include "sim/core/error.hpp"

namespace floorsim::slurm {
namespace {

namespace policy_detail {

// "gres/gpu=16,node=2,cpu=64" (also "gres/gpu:16"), "" = no limit, or a bare number = GPUs.
bool parse_tres(const nlohmann::json& v, Tres& out, std::string& err) {
  out = Tres{};
  if (v.is_null()) return true;
  if (v.is_number_integer()) {
    out.gpu = v.get<int64_t>() < 0 ? kUnset : v.get<int64_t>();
    return true;
  }
  if (!v.is_string()) {
    err = "expected a TRES string such as \"gres/gpu=16\" (or \"\" for no limit)";
    return false;
  }
  std::string s = v.get<std::string>();
  size_t i = 0;
  while (i < s.size()) {
    size_t e = s.find(',', i);
    if (e == std::string::npos) e = s.size();
    std::string part = s.substr(i, e - i);
    i = e + 1;
    if (part.empty()) continue;
    size_t eq = part.find('=');
    if (eq == std::string::npos && part.rfind("gres/gpu:", 0) == 0) eq = 8;
    if (eq == std::string::npos) {
      err = "'" + part + "' has no value; expected TRES=count";
      return false;
    }
    const std::string name = part.substr(0, eq), val = part.substr(eq + 1);
    int64_t n = kUnset;
    if (val != "-1" && val != "UNLIMITED" && val != "unlimited") {
      char* endp = nullptr;
      n = std::strtoll(val.c_str(), &endp, 10);
      if (val.empty() || *endp != '\0' || n < 0) {
        err = "'" + part + "': expected a count >= 0";
        return false;
      }
    }
    if (name == "gres/gpu" || name.rfind("gres/gpu:", 0) == 0) out.gpu = n;
    else if (name == "node") out.node = n;
    else if (name == "cpu") out.cpu = n;
    else {
      err = "TRES '" + name + "' is not modelled; expected gres/gpu, node or cpu";
      return false;
    }
  }
  return true;
}

std::string tres_text(const Tres& t) {
  std::string s;
  if (t.cpu >= 0) s += fmt::format("cpu={}", t.cpu);
  if (t.gpu >= 0) s += fmt::format("{}gres/gpu={}", s.empty() ? "" : ",", t.gpu);
  if (t.node >= 0) s += fmt::format("{}node={}", s.empty() ? "" : ",", t.node);
  return s;
}

std::string mode_text(PreemptMode m) {
  switch (m) {
    case PreemptMode::Unset: return "";
    case PreemptMode::Off: return "OFF";
    case PreemptMode::Cancel: return "CANCEL";
    case PreemptMode::Requeue: return "REQUEUE";
    case PreemptMode::Suspend: return "SUSPEND";
  }
  return "";
}

std::string flags_text(const QosFlags& f) {
  std::string s;
  auto add = [&](bool on, const char* n) {
    if (on) s += (s.empty() ? "" : ",") + std::string(n);
  };
  add(f.deny_on_limit, "DenyOnLimit");
  add(f.no_reserve, "NoReserve");
  add(f.over_part_qos, "OverPartQOS");
  add(f.no_decay, "NoDecay");
  return s;
}

std::string list_text(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

// A reservation object as in the scheduler's "reservations" block (params.cpp), for
// scontrol create/update reservation. `base` holds the current values for updates.
bool parse_resv(const nlohmann::json& v, Reservation& r, std::string& err) {
  static const std::vector<std::string> keys{"name", "start_s", "duration_s", "period", "nodes", "node_cnt", "gpus",
                                             "users", "accounts", "qos", "request_classes", "flags"};
  for (auto it = v.begin(); it != v.end(); ++it)
    if (std::find(keys.begin(), keys.end(), it.key()) == keys.end()) {
      err = "unknown reservation key '" + it.key() + "'; expected one of the scheduler's reservations keys";
      return false;
    }
  auto num = [&](const char* k, double& out) {
    if (!v.contains(k)) return true;
    if (!v[k].is_number() || v[k].get<double>() < 0) {
      err = std::string(k) + ": expected a number >= 0";
      return false;
    }
    out = v[k].get<double>();
    return true;
  };
  auto strs = [&](const char* k, std::vector<std::string>& out) {
    if (!v.contains(k)) return true;
    if (!v[k].is_array()) {
      err = std::string(k) + ": expected an array of strings";
      return false;
    }
    out.clear();
    for (const auto& x : v[k]) {
      if (!x.is_string()) {
        err = std::string(k) + ": expected an array of strings";
        return false;
      }
      out.push_back(x.get<std::string>());
    }
    return true;
  };
  double node_cnt = static_cast<double>(r.node_cnt), gpus = static_cast<double>(r.gpus);
  if (!num("start_s", r.start_s) || !num("duration_s", r.duration_s) || !num("node_cnt", node_cnt) || !num("gpus", gpus))
    return false;
  r.node_cnt = static_cast<int64_t>(node_cnt);
  r.gpus = static_cast<int64_t>(gpus);
  if (v.contains("period")) {
    const std::string p = v["period"].is_string() ? v["period"].get<std::string>() : "";
    if (p == "NONE") r.period = Reservation::Period::None;
    else if (p == "HOURLY") r.period = Reservation::Period::Hourly;
    else if (p == "DAILY") r.period = Reservation::Period::Daily;
    else if (p == "WEEKLY") r.period = Reservation::Period::Weekly;
    else {
      err = "period: expected NONE, HOURLY, DAILY or WEEKLY";
      return false;
    }
  }
  if (v.contains("nodes")) {
    if (!v["nodes"].is_string()) {
      err = "nodes: expected a host list";
      return false;
    }
    try {
      r.nodes = v["nodes"].get<std::string>().empty() ? std::vector<std::string>{} : expand_hostlist(v["nodes"].get<std::string>());
    } catch (const std::exception& e) {
      err = std::string("nodes: ") + e.what();
      return false;
    }
  }
  std::vector<std::string> flags;
  if (!strs("users", r.users) || !strs("accounts", r.accounts) || !strs("qos", r.qos) ||
      !strs("request_classes", r.request_classes))
    return false;
  if (v.contains("flags")) {
    if (!strs("flags", flags)) return false;
    r.flex = r.magnetic = r.ignore_jobs = r.purge_comp = r.user_delete = false;
    for (const auto& f : flags) {
      if (f == "FLEX") r.flex = true;
      else if (f == "MAGNETIC") r.magnetic = true;
      else if (f == "IGNORE_JOBS") r.ignore_jobs = true;
      else if (f == "PURGE_COMP") r.purge_comp = true;
      else if (f == "USER_DELETE") r.user_delete = true;
      else {
        err = "unknown reservation flag '" + f + "'; expected FLEX, MAGNETIC, IGNORE_JOBS, PURGE_COMP or USER_DELETE";
        return false;
      }
    }
  }
  if (r.duration_s <= 0) {
    err = "duration_s: expected a duration > 0";
    return false;
  }
  if (r.nodes.empty() && r.node_cnt == 0 && r.gpus == 0) {
    err = "the reservation reserves nothing; expected nodes, node_cnt or gpus";
    return false;
  }
  return true;
}

}  // namespace policy_detail
}  // namespace

ChangeOutcome SlurmModel::on_policy_change(const PolicyChange& c, const Snapshot& v, Decisions& out) {
  ChangeOutcome o;
  switch (c.kind) {
    case ChangeKind::QosField: o = change_qos(c); break;
    case ChangeKind::PriorityWeight: o = change_weight(c); break;
    case ChangeKind::ReservationCreate:
    case ChangeKind::ReservationUpdate:
    case ChangeKind::ReservationDelete: o = change_resv(c, v); break;
    case ChangeKind::AssociationDelete: o = delete_assoc(c, v, out); break;
    case ChangeKind::QueueQuota:
      return ChangeOutcome::rejected("the slurm model has no ClusterQueues; a cluster_queue change needs the kueue model");
  }
  // Whatever changed, the next pass must decide afresh (no periodic-pass skipping on old state).
  // prio_gen_: priority()'s cached terms are stale; every pending job's priority is set afresh
  // (slurmctld: at its next decay pass, or at once for scontrol updates).
  if (o.applied()) ++events_, ++prio_gen_, prio_epoch(v.now);
  return o;
}

ChangeOutcome SlurmModel::change_qos(const PolicyChange& c) {
  using namespace policy_detail;
  const uint32_t q = find_qos(c.target);
  if (q == kNoIdx) return ChangeOutcome::rejected(fmt::format("no QOS named '{}'", c.target));
  Qos& Q = qos_[q].q;
  const nlohmann::json& v = c.value;
  ChangeOutcome o;
  o.status = ChangeOutcome::Status::Applied;
  auto bad = [&](const std::string& why) { return ChangeOutcome::rejected(fmt::format("QOS {} {}: {}", c.target, c.field, why)); };
  auto int_of = [&](int64_t& out_v, int64_t min_v) {
    if (!v.is_number_integer() || v.get<int64_t>() < min_v) return false;
    out_v = v.get<int64_t>();
    return true;
  };
  const std::string& f = c.field;
  if (f == "Priority") {
    int64_t p;
    if (!int_of(p, 0)) return bad("expected an integer >= 0");
    o.before = std::to_string(Q.priority);
    Q.priority = p;
    max_qos_prio_ = 0;
    for (const auto& x : qos_) max_qos_prio_ = std::max(max_qos_prio_, x.q.priority);
    o.after = std::to_string(Q.priority);
    if (cfg_.prio.type == PriorityType::Basic || cfg_.prio.weight_qos == 0)
      o.reason = "note: PriorityWeightQOS is 0 or PriorityType is basic, so QOS priority has no effect on order";
  } else if (f == "GrpTRES" || f == "MaxTRESPerUser" || f == "MaxTRESPerJob") {
    Tres t;
    std::string err;
    if (!parse_tres(v, t, err)) return bad(err);
    Tres& dst = f == "GrpTRES" ? Q.grp_tres : f == "MaxTRESPerUser" ? Q.max_tres_per_user : Q.max_tres_per_job;
    o.before = tres_text(dst);
    dst = t;
    o.after = tres_text(dst);
  } else if (f == "MaxWall" || f == "GraceTime" || f == "PreemptExemptTime") {
    double s = -1;
    if (v.is_number()) s = v.get<double>();
    else if (v.is_string() && !parse_time_s(v.get<std::string>(), s)) return bad("expected seconds or a Slurm time string");
    else if (!v.is_number() && !v.is_string()) return bad("expected seconds or a Slurm time string");
    double& dst = f == "MaxWall" ? Q.max_wall_s : f == "GraceTime" ? Q.grace_time_s : Q.preempt_exempt_time_s;
    o.before = fmt::format("{}", dst);
    dst = s;
    o.after = fmt::format("{}", dst);
  } else if (f == "MaxJobsPerUser" || f == "GrpJobs") {
    int64_t n;
    if (!int_of(n, -1)) return bad("expected an integer >= -1 (-1 = no limit)");
    int64_t& dst = f == "MaxJobsPerUser" ? Q.max_jobs_per_user : Q.grp_jobs;
    o.before = std::to_string(dst);
    dst = n;
    o.after = std::to_string(dst);
  } else if (f == "UsageFactor") {
    if (!v.is_number() || v.get<double>() < 0) return bad("expected a number >= 0");
    o.before = fmt::format("{}", Q.usage_factor);
    Q.usage_factor = v.get<double>();
    o.after = fmt::format("{}", Q.usage_factor);
  } else if (f == "Preempt") {
    if (!v.is_array()) return bad("expected an array of QOS names");
    std::vector<std::string> names;
    std::vector<uint8_t> mask(qos_.size(), 0);
    for (const auto& x : v) {
      if (!x.is_string()) return bad("expected an array of QOS names");
      const uint32_t t = find_qos(x.get<std::string>());
      if (t == kNoIdx) return bad(fmt::format("no QOS named '{}'", x.get<std::string>()));
      names.push_back(x.get<std::string>());
      mask[t] = 1;
    }
    o.before = list_text(Q.preempt);
    Q.preempt = names;
    qos_[q].preempts = mask;
    o.after = list_text(Q.preempt);
    if (!cfg_.preempt_qos) o.reason = "note: PreemptType is not preempt/qos, so the Preempt list has no effect";
  } else if (f == "PreemptMode") {
    const std::string m = v.is_string() ? v.get<std::string>() : "?";
    PreemptMode pm;
    if (m == "") pm = PreemptMode::Unset;
    else if (m == "OFF") pm = PreemptMode::Off;
    else if (m == "CANCEL") pm = PreemptMode::Cancel;
    else if (m == "REQUEUE") pm = PreemptMode::Requeue;
    else if (m == "SUSPEND") pm = PreemptMode::Suspend;
    else return bad("expected \"\", OFF, CANCEL, REQUEUE or SUSPEND");
    o.before = mode_text(Q.preempt_mode);
    Q.preempt_mode = pm;
    o.after = mode_text(Q.preempt_mode);
  } else if (f == "Flags") {
    if (!v.is_array()) return bad("expected an array of flags");
    QosFlags fl;
    for (const auto& x : v) {
      const std::string n = x.is_string() ? x.get<std::string>() : "";
      if (n == "DenyOnLimit") fl.deny_on_limit = true;
      else if (n == "NoReserve") fl.no_reserve = true;
      else if (n == "OverPartQOS") fl.over_part_qos = true;
      else if (n == "NoDecay") fl.no_decay = true;
      else return bad("unknown flag '" + n + "'; expected DenyOnLimit, NoReserve, OverPartQOS or NoDecay");
    }
    o.before = flags_text(Q.flags);
    Q.flags = fl;
    o.after = flags_text(Q.flags);
  } else {
    return bad("not a QOS field this model has");
  }
  if (q < cfg_.qos.size()) cfg_.qos[q] = Q;  // the effective configuration in metrics.json follows
  return o;
}

ChangeOutcome SlurmModel::change_weight(const PolicyChange& c) {
  auto& pr = cfg_.prio;
  double* w = c.target == "PriorityWeightAge" ? &pr.weight_age
              : c.target == "PriorityWeightFairshare" ? &pr.weight_fairshare
              : c.target == "PriorityWeightJobSize" ? &pr.weight_jobsize
              : c.target == "PriorityWeightPartition" ? &pr.weight_partition
              : c.target == "PriorityWeightQOS" ? &pr.weight_qos
              : c.target == "PriorityWeightAssoc" ? &pr.weight_assoc
              : c.target == "PriorityWeightTRES:gres/gpu" ? &pr.weight_tres_gpu
              : c.target == "PriorityWeightTRES:cpu" ? &pr.weight_tres_cpu
              : c.target == "PriorityWeightTRES:node" ? &pr.weight_tres_node : nullptr;
  if (!w) return ChangeOutcome::rejected(fmt::format("no priority weight named '{}'", c.target));
  if (!c.value.is_number() || c.value.get<double>() < 0) return ChangeOutcome::rejected("expected a weight >= 0");
  ChangeOutcome o;
  o.status = ChangeOutcome::Status::Applied;
  o.before = fmt::format("{}", *w);
  *w = c.value.get<double>();
  o.after = fmt::format("{}", *w);
  if (pr.type == PriorityType::Basic) o.reason = "note: PriorityType=priority/basic, so weights have no effect";
  return o;
}

ChangeOutcome SlurmModel::change_resv(const PolicyChange& c, const Snapshot& v) {
  using namespace policy_detail;
  size_t k = cfg_.reservations.size();
  for (size_t i = 0; i < cfg_.reservations.size(); ++i)
    if (cfg_.reservations[i].name == c.target) k = i;
  const bool exists = k < cfg_.reservations.size();
  if (c.kind == ChangeKind::ReservationCreate && exists)
    return ChangeOutcome::rejected(fmt::format("reservation {} already exists", c.target));
  if (c.kind != ChangeKind::ReservationCreate && !exists)
    return ChangeOutcome::rejected(fmt::format("no reservation named '{}'", c.target));
  // Deleting (or reshaping) a reservation a job is running in is refused, as slurmctld refuses
  // to delete a busy reservation (ESLURM_RESERVATION_BUSY).
  if (exists && c.kind == ChangeKind::ReservationDelete)
    for (JobIdx j : v.running)
      if (jresv_[j] == k)
        return ChangeOutcome::rejected(fmt::format("reservation {} is in use by running job {}", c.target, v.jobs[j].id));
  std::vector<Reservation> next = cfg_.reservations;
  ChangeOutcome o;
  o.status = ChangeOutcome::Status::Applied;
  auto describe = [](const Reservation& r) {
    return fmt::format("start={} duration={} nodes={} node_cnt={} gpus={} users={} accounts={}", r.start_s, r.duration_s,
                       list_text(r.nodes), r.node_cnt, r.gpus, list_text(r.users), list_text(r.accounts));
  };
  if (c.kind == ChangeKind::ReservationDelete) {
    o.before = describe(next[k]);
    next.erase(next.begin() + static_cast<std::ptrdiff_t>(k));
    o.after = "(deleted)";
  } else {
    Reservation r = exists ? next[k] : Reservation{};
    r.name = c.target;
    std::string err;
    if (!parse_resv(c.value, r, err)) return ChangeOutcome::rejected("reservation " + c.target + ": " + err);
    if (c.value.contains("name") && c.value["name"] != c.target)
      return ChangeOutcome::rejected("reservation " + c.target + ": renaming is not supported");
    o.before = exists ? describe(next[k]) : "(none)";
    o.after = describe(r);
    if (exists) next[k] = r;
    else next.push_back(r);
  }
  // Rebuild the runtime reservations from the edited list, keeping the idle-time accounting of
  // the ones that stay; a bad reservation (too few free nodes) rejects the change untouched.
  std::map<std::string, ResvRt> old;
  for (auto& r : resv_) old.emplace(r.name, r);
  const auto saved_cfg = cfg_.reservations;
  const auto saved_rt = resv_;
  const auto saved_job = jresv_;
  const auto saved_at = jresv_at_;
  const auto saved_mag = jmag_;
  // GPUs held by running jobs (outside this reservation) that would still run when its next
  // occurrence starts, judged by time limit as slurmctld does; IGNORE_JOBS skips the check.
  std::vector<int32_t> busy;
  if (c.kind != ChangeKind::ReservationDelete) {
    const Reservation& r = exists ? next[k] : next.back();
    ResvRt w;
    w.start_s = r.start_s;
    w.dur_s = r.duration_s;
    w.period_s = r.period_s();
    SimTime s0, e0;
    w.window(v.now, s0, e0);
    busy.assign(nn_, 0);
    for (JobIdx j : v.running) {
      if (exists && jresv_[j] == k) continue;
      SimTime end = v.runs[j].limit_end_s;
      if (end <= v.now) end = v.now + cfg_.sched.kill_wait_s + cfg_.sched.over_time_limit_s;
      if (end <= s0) continue;
      for (const auto& sh : v.allocation_of(j)) busy[sh.node] += sh.gpus;
    }
  }
  cfg_.reservations = next;
  resv_.clear();
  try {
    build_reservations(*wl_, *cluster_, file_, busy, c.target);
  } catch (const InputError& e) {
    cfg_.reservations = saved_cfg;
    resv_ = saved_rt;
    jresv_ = saved_job;
    jresv_at_ = saved_at;
    jmag_ = saved_mag;
    resv_used_.assign(resv_.size() * nn_, 0);
    resv_failed_.assign(resv_.size(), 0);
    resv_overlap_.assign(resv_.size(), 0);
    std::string what = e.what();
    if (auto p = what.find(": "); p != std::string::npos) what = what.substr(p + 2);
    return ChangeOutcome::rejected(what);
  }
  for (auto& r : resv_)
    if (auto it = old.find(r.name); it != old.end()) {
      r.idle_gpu_s = it->second.idle_gpu_s;
      r.acc_s = it->second.acc_s;
      r.used_gpus = it->second.used_gpus;
    } else {
      r.acc_s = v.now;  // a new reservation charges idle time from now on
    }
  return o;
}

std::vector<uint32_t> SlurmModel::assoc_subtree(const std::string& target) const {
  std::vector<uint32_t> out;
  const auto at = target.find('@');
  for (size_t i = 0; i < assoc_.size(); ++i) {
    const AssocRt& a = assoc_[i];
    const bool hit = at == std::string::npos
                         ? (!a.is_user && a.name == target)
                         : (a.is_user && a.name == target.substr(0, at) && a.parent != kNoIdx &&
                            assoc_[a.parent].name == target.substr(at + 1));
    if (!hit) continue;
    std::vector<uint32_t> stack{static_cast<uint32_t>(i)};
    while (!stack.empty()) {
      const uint32_t x = stack.back();
      stack.pop_back();
      out.push_back(x);
      for (uint32_t ch : assoc_[x].children) stack.push_back(ch);
    }
  }
  return out;
}

ChangeOutcome SlurmModel::delete_assoc(const PolicyChange& c, const Snapshot& v, Decisions& out) {
  if (c.target == "root") return ChangeOutcome::rejected("the root association cannot be deleted");
  const auto sub = assoc_subtree(c.target);
  if (sub.empty())
    return ChangeOutcome::rejected(fmt::format("no association '{}'; expected user@account or an account name", c.target));
  std::vector<uint8_t> gone(assoc_.size(), 0);
  for (uint32_t a : sub) gone[a] = 1;
  if (jgone_.empty()) jgone_.assign(v.jobs.size(), 0);
  size_t jobs = 0;
  for (size_t j = 0; j < v.jobs.size(); ++j)
    if (gone[jassoc_[j]] && !jgone_[j]) {
      jgone_[j] = 1;
      ++jobs;
    }
  // Running and pending jobs are cancelled now (the engine applies these at once).
  for (JobIdx j : v.running)
    if (jgone_[j]) out.preempt(j, floorsim::PreemptMode::Cancel, kNoJob);
  for (JobIdx j : v.pending)
    if (jgone_[j]) out.preempt(j, floorsim::PreemptMode::Cancel, kNoJob);
  ChangeOutcome o;
  o.status = ChangeOutcome::Status::Applied;
  o.before = fmt::format("{} association(s), {} job(s) in the workload", sub.size(), jobs);
  o.after = "(deleted)";
  return o;
}

// Jobs of a deleted association that were submitted after the deletion: rejected at submission
// (cancelled in the first pass that sees them; sort_queue never orders them).
void SlurmModel::cancel_gone(const Snapshot& v, Decisions& out) {
  for (JobIdx j : v.pending)
    if (jgone_[j]) {
      if (!jrefused_.empty() && jrefused_[j] != kNone) out.set_reason(j, jrefused_[j]);
      out.preempt(j, floorsim::PreemptMode::Cancel, kNoJob);
    }
}

void SlurmModel::classes_where(const Snapshot& v, ChangeScope& s, const std::function<bool(JobIdx)>& pred) const {
  std::vector<uint8_t> seen;
  for (size_t j = 0; j < v.jobs.size(); ++j) {
    const StrId k = v.jobs[j].klass;
    if (k < seen.size() && seen[k]) continue;
    if (!pred(static_cast<JobIdx>(j))) continue;
    if (seen.size() <= k) seen.resize(k + 1, 0);
    seen[k] = 1;
    s.classes.push_back(k);
  }
}

// Nodes the jobs of QOS q (as job QOS or Partition QOS) can run on.
std::vector<uint8_t> SlurmModel::nodes_of_qos(uint32_t q) const {
  std::vector<uint8_t> m(nn_, 0);
  for (size_t j = 0; j < jqos_.size(); ++j)
    if (jqos_[j] == q || part_[jpart_[j]].qos == q)
      for (size_t n = 0; n < nn_; ++n) m[n] |= part_[jpart_[j]].mask[n];
  return m;
}

ChangeScope SlurmModel::change_scope(const PolicyChange& c, const Snapshot& v) const {
  ChangeScope s;
  auto shares_nodes = [&](JobIdx j, const std::vector<uint8_t>& nodes) {
    const auto& pm = part_[jpart_[j]].mask;
    for (size_t n = 0; n < nn_; ++n)
      if (pm[n] && nodes[n]) return true;
    return false;
  };
  switch (c.kind) {
    case ChangeKind::QosField: {
      const uint32_t q = find_qos(c.target);
      if (q == kNoIdx) {
        s.known = true;  // nothing to affect: the model will reject it
        s.basis = "no such QOS";
        return s;
      }
      const auto nodes = nodes_of_qos(q);
      classes_where(v, s, [&](JobIdx j) {
        const uint32_t jq = jqos_[j];
        const bool preempt_rel = jq != kNoIdx && (qos_[jq].preempts[q] || qos_[q].preempts[jq]);
        return jq == q || preempt_rel || shares_nodes(j, nodes);
      });
      s.basis = "classes of the QOS, classes whose partitions share its nodes, and classes in a preemption relation with it";
      break;
    }
    case ChangeKind::PriorityWeight:
      classes_where(v, s, [](JobIdx) { return true; });
      s.basis = "a priority weight reorders every class's jobs";
      break;
    case ChangeKind::ReservationCreate:
    case ChangeKind::ReservationUpdate:
    case ChangeKind::ReservationDelete: {
      std::vector<uint8_t> nodes(nn_, 0);
      std::vector<std::string> users, accounts, qos;
      bool all_nodes = false;
      for (size_t k = 0; k < cfg_.reservations.size(); ++k)
        if (cfg_.reservations[k].name == c.target) {
          for (size_t n = 0; n < nn_ && k < resv_.size(); ++n) nodes[n] = resv_[k].gpus[n] > 0;
          users = cfg_.reservations[k].users;
          accounts = cfg_.reservations[k].accounts;
          qos = cfg_.reservations[k].qos;
          s.resv_user_delete_flag = cfg_.reservations[k].user_delete;
        }
      if (c.kind != ChangeKind::ReservationDelete && c.value.is_object()) {
        // The new shape: explicit nodes, else node_cnt/gpus may land on any node.
        if (c.value.contains("nodes") && c.value["nodes"].is_string() && !c.value["nodes"].get<std::string>().empty()) {
          try {
            for (const auto& n : expand_hostlist(c.value["nodes"].get<std::string>()))
              for (size_t i = 0; i < nn_; ++i)
                if (cluster_->node_names[i] == n) nodes[i] = 1;
          } catch (const std::exception&) {
            all_nodes = true;
          }
        } else if (c.value.contains("node_cnt") || c.value.contains("gpus")) {
          all_nodes = true;
        }
        for (const char* k : {"users", "accounts", "qos"})
          if (c.value.contains(k) && c.value[k].is_array())
            for (const auto& x : c.value[k])
              if (x.is_string()) (std::string(k) == "users" ? users : std::string(k) == "accounts" ? accounts : qos).push_back(x);
      }
      if (all_nodes) nodes.assign(nn_, 1);
      auto in = [](const std::vector<std::string>& l, const std::string& x) { return std::find(l.begin(), l.end(), x) != l.end(); };
      classes_where(v, s, [&](JobIdx j) {
        const JobSpec& js = v.jobs[j];
        const auto& st = *v.strings;
        return shares_nodes(j, nodes) || in(users, st.str(js.user)) || in(accounts, st.str(js.account)) ||
               in(qos, st.str(js.qos));
      });
      s.resv_users = users;
      s.resv_accounts = accounts;
      s.basis = "classes that can run on the reservation's nodes, and classes allowed in it";
      break;
    }
    case ChangeKind::AssociationDelete: {
      const auto sub = assoc_subtree(c.target);
      std::vector<uint8_t> gone(assoc_.size(), 0);
      for (uint32_t a : sub) gone[a] = 1;
      classes_where(v, s, [&](JobIdx j) { return gone[jassoc_[j]] != 0; });
      s.basis = "classes with jobs under the association (they are cancelled)";
      break;
    }
    case ChangeKind::QueueQuota:
      return s;  // not a slurm object: unknown scope, the model rejects it
  }
  s.known = true;
  return s;
}

}  // namespace floorsim::slurm
