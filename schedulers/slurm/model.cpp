// The slurm model's construction: nodes (Weight), QOS, partitions, the association tree and each
// job's partition/QOS/association, as slurmctld reads slurm.conf(5) and the sacctmgr(1) dump.
// The rules live in one file per mechanism (README.md); make_model() is what the registry calls.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>

#include <fmt/format.h>

#include "schedulers/common/placement.hpp"
#include "schedulers/slurm/part_limits.hpp"
#include "schedulers/slurm/model.hpp"
#include "sim/core/error.hpp"
#include <map>

namespace floorsim::slurm {

const char* reason_text(uint16_t code) {
  static constexpr const char* kNames[] = {
      "None", "Priority", "Resources", "BeginTime", "PartitionTimeLimit", "PartitionNodeLimit",
      "QOSGrpGRES", "QOSGrpNodeLimit", "QOSGrpCpuLimit", "QOSMaxGRESPerUser", "QOSMaxNodePerUserLimit",
      "QOSMaxCpuPerUserLimit", "QOSMaxGRESPerJob", "QOSMaxNodePerJobLimit", "QOSMaxCpuPerJobLimit",
      "QOSMaxJobsPerUserLimit", "QOSGrpJobsLimit", "QOSMaxWallDurationPerJobLimit", "QOSGrpGRESMinutes",
      "QOSGrpNodeMinutes", "QOSGrpCpuMinutesLimit", "AssocGrpGRES", "AssocGrpNodeLimit", "AssocGrpCpuLimit",
      "AssocMaxJobsLimit", "AssocMaxWallDurationPerJobLimit", "Reservation", "ResvDeleted", "PartitionDown",
      "InvalidAccount", "InvalidQOS", "PartitionNotAvail", "InvalidNodeCount", "TooManyCpus", "BadConstraints",
      "InvalidTimeLimit", "InvalidTaskMemory", "PartitionConfig", "MaxMemPerLimit"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == kReasonCount);
  return code < kReasonCount ? kNames[code] : "Other";
}

namespace {
// PriorityUsageResetPeriod in seconds (0: NONE or NOW); the config readers give it in lower case.
double usage_reset_period_s(const std::string& u) {
  return u == "daily" ? 86400 : u == "weekly" ? 7 * 86400 : u == "monthly" ? 30 * 86400 : u == "quarterly" ? 91 * 86400 : u == "yearly" ? 365 * 86400 : 0;
}
}  // namespace

void SlurmModel::build(const Workload& wl, const ClusterConfig& cluster, const std::string& file) {
  wl_ = &wl;
  cluster_ = &cluster;
  file_ = file;
  reset_period_s_ = usage_reset_period_s(cfg_.prio.usage_reset_period);
  nn_ = cluster.nodes();
  cluster_gpus_ = cluster.total_gpus();
  max_node_gpus_ = std::max<int32_t>(1, cluster.max_node_gpus());
  build_node_order(cluster);
  build_resources(wl, cluster);
  build_qos(file);
  const uint32_t default_part = build_partitions(cluster, file);
  build_associations(file);
  build_jobs(wl, default_part, file);
  build_counters(wl.jobs.size());
  build_reservations(wl, cluster, file);
  build_fair_tree();
  fs_dirty_ = true;
  build_topology(wl, cluster, file);
  build_submit_checks(wl);
  build_billing(wl);  // last: its warnings only once nothing else can refuse the input
}

void SlurmModel::build_node_order(const ClusterConfig& cluster) {
  // slurm.conf NodeName ... Weight=: "jobs will be allocated the nodes with the lowest weight
  // which satisfies their requirements" (slurm.conf(5)); nodes not in slurm.conf weigh 1.
  std::map<std::string, int32_t> weight_of;
  for (const auto& d : cfg_.nodes) weight_of[d.name] = d.weight;
  for (const auto& [n, wgt] : cfg_.inline_weights) weight_of.emplace(n, wgt);  // slurm.conf's Weight wins
  std::vector<int32_t>& w = node_weight_;
  w.assign(nn_, 1);
  for (size_t n = 0; n < nn_; ++n)
    if (auto it = weight_of.find(cluster.node_names[n]); it != weight_of.end()) w[n] = it->second;
  node_order_.resize(nn_);
  std::iota(node_order_.begin(), node_order_.end(), NodeIdx{0});
  std::stable_sort(node_order_.begin(), node_order_.end(), [&](NodeIdx a, NodeIdx b) { return w[a] < w[b]; });
  weighted_ = std::any_of(w.begin(), w.end(), [&](int32_t x) { return x != w[0]; });
}

void SlurmModel::build_qos(const std::string& file) {
  // QOS: "normal" always exists (Slurm creates it).
  if (cfg_.qos.empty() || std::none_of(cfg_.qos.begin(), cfg_.qos.end(), [](const Qos& q) { return q.name == "normal"; })) {
    Qos n;
    n.name = "normal";
    cfg_.qos.insert(cfg_.qos.begin(), n);
  }
  for (const auto& q : cfg_.qos) qos_.push_back(QosRt{q, std::vector<uint8_t>(cfg_.qos.size(), 0)});
  for (auto& q : qos_) {
    for (const auto& name : q.q.preempt) {
      const uint32_t t = find_qos(name);
      if (t == kNoIdx) throw InputError(file, "", fmt::format("QOS {} preempts unknown QOS '{}'; expected a defined QOS", q.q.name, name));
      q.preempts[t] = 1;
    }
    max_qos_prio_ = std::max(max_qos_prio_, q.q.priority);
  }
  preempt_on_ = cfg_.preempt_qos;
  for (const auto& q : qos_) qos_preempts_any_.push_back(std::any_of(q.preempts.begin(), q.preempts.end(), [](uint8_t x) { return x != 0; }));
}

// Returns the default partition's index.
uint32_t SlurmModel::build_partitions(const ClusterConfig& cluster, const std::string& file) {
  std::map<std::string, NodeIdx> node_index;
  for (size_t n = 0; n < nn_; ++n) node_index[cluster.node_names[n]] = static_cast<NodeIdx>(n);
  // A partition's CPUs (the job-size factor's denominator): the cluster's, else slurm.conf's
  // (slurmctld's count, 1 when a node gives none), else 1 per node.
  std::map<std::string, int64_t> conf_cpus;
  for (const auto& d : cfg_.nodes) conf_cpus[d.name] = d.cpus;
  std::vector<uint8_t> out_of_service(nn_, 0);
  for (const auto& d : cfg_.nodes)
    if (d.state == "down" || d.state == "drain" || d.state == "fail" || d.state == "failing")
      if (auto it = node_index.find(d.name); it != node_index.end()) out_of_service[it->second] = 1;
  auto node_cpus = [&](NodeIdx n) -> int64_t {
    if (n < cluster.node_cpus.size() && cluster.node_cpus[n] > 0) return cluster.node_cpus[n];
    auto it = conf_cpus.find(cluster.node_names[n]);
    return it == conf_cpus.end() ? 1 : it->second;
  };
  // Partitions: with none configured, one default partition holds every node.
  if (cfg_.partitions.empty()) {
    Partition p;
    p.name = "default";
    p.is_default = true;
    cfg_.partitions.push_back(p);
  }
  for (const auto& p : cfg_.partitions) {
    PartRt r;
    r.name = p.name;
    r.mask.assign(nn_, p.nodes.empty() && !p.no_nodes ? 1 : 0);
    for (const auto& n : p.nodes) {
      auto it = node_index.find(n);
      if (it == node_index.end())
        throw InputError(file, "", fmt::format("partition {} lists node {} which the cluster lacks; expected node names of the cluster", p.name, n));
      r.mask[it->second] = 1;
    }
    r.tier = p.priority_tier;
    r.job_factor = p.priority_job_factor;
    r.max_time_s = p.max_time_s;
    r.default_time_s = p.default_time_s;
    r.preempt_mode = p.preempt_mode;
    if (!p.qos.empty()) {
      r.qos = find_qos(p.qos);
      if (r.qos == kNoIdx) throw InputError(file, "", fmt::format("partition {} has QOS={} which is not defined; expected a QOS from the sacctmgr dump", p.name, p.qos));
    }
    for (size_t n = 0; n < nn_; ++n)
      if (r.mask[n]) r.gpus += cluster.node_gpus[n], r.nodes += 1, r.cpus += node_cpus(static_cast<NodeIdx>(n));
    for (size_t n = 0; n < nn_ && n < cluster.node_cpus.size(); ++n)
      if (r.mask[n]) r.conf_cpus += own_cpus_.empty() ? cluster.node_cpus[n] : own_cpus_[n];  // without FORCE:N
    r.down = p.state == Partition::State::Down;
    r.conf_mask = r.mask;
    // A node slurm.conf gives as DOWN, DRAIN or FAIL stays in its partitions' sizes but takes no
    // job: no administrator resumes it during a replay.
    for (size_t n = 0; n < nn_; ++n)
      if (out_of_service[n]) r.mask[n] = 0;
    max_job_factor_ = std::max(max_job_factor_, r.job_factor);
    part_.push_back(std::move(r));
  }
  uint32_t default_part = 0;
  for (size_t i = 0; i < cfg_.partitions.size(); ++i)
    if (cfg_.partitions[i].is_default) {
      default_part = static_cast<uint32_t>(i);
      break;
    }
  return default_part;
}

uint32_t SlurmModel::find_assoc(const std::string& name, bool user, uint32_t parent) const {
  for (size_t i = 0; i < assoc_.size(); ++i)
    if (assoc_[i].name == name && assoc_[i].is_user == user && (!user || assoc_[i].parent == parent))
      return static_cast<uint32_t>(i);
  return kNoIdx;
}

// Association tree: accounts, then users under them.
void SlurmModel::build_associations(const std::string& file) {
  {
    AssocRt root;
    root.name = "root";
    assoc_.push_back(root);
    root_ = 0;
  }
  for (const auto& a : cfg_.accounts) {
    if (a.name == "root") {
      assoc_[0].grp_tres = a.grp_tres;
      continue;
    }
    AssocRt r;
    r.name = a.name;
    r.shares = a.fairshare;
    r.grp_tres = a.grp_tres;
    r.max_jobs = a.max_jobs;
    r.max_wall_s = a.max_wall_s;
    r.parent = a.parent.empty() ? root_ : find_assoc(a.parent, false, 0);
    if (r.parent == kNoIdx) throw InputError(file, "", fmt::format("account {} has unknown parent {}; expected a defined account", a.name, a.parent));
    assoc_.push_back(r);
  }
  for (const auto& u : cfg_.users) {
    const uint32_t acct = find_assoc(u.account, false, 0);
    if (acct == kNoIdx) throw InputError(file, "", fmt::format("user {} is under unknown account {}; expected a defined account", u.name, u.account));
    AssocRt r;
    r.name = u.name;
    r.is_user = true;
    r.parent = acct;
    r.shares = u.fairshare;
    r.grp_tres = u.grp_tres;
    r.max_jobs = u.max_jobs;
    r.max_wall_s = u.max_wall_s;
    if (!u.default_qos.empty()) {
      r.default_qos = find_qos(u.default_qos);
      if (r.default_qos == kNoIdx) throw InputError(file, "", fmt::format("user {} has DefaultQOS={} which is not defined; expected a defined QOS", u.name, u.default_qos));
    }
    if (find_assoc(u.name, true, acct) == kNoIdx) assoc_.push_back(r);
  }
}

// Each job's partition, association and QOS.
void SlurmModel::build_jobs(const Workload& wl, uint32_t default_part, const std::string& file) {
  const size_t nj = wl.jobs.size();
  jpart_.assign(nj, default_part);
  jqos_.assign(nj, kNoIdx);
  jassoc_.assign(nj, 0);
  jnodes_.assign(nj, 1);
  prio_.assign(nj, 0);
  prio_at_.assign(nj, 0);
  prio_queued_.assign(nj, kNever);
  prio_terms_.assign(nj, PrioTerms{});
  queue_mark_.assign(nj, 0);
  {
    std::vector<int64_t> ids(nj);
    for (size_t j = 0; j < nj; ++j) ids[j] = wl.jobs[j].id;
    std::sort(ids.begin(), ids.end());
    ids_unique_ = std::adjacent_find(ids.begin(), ids.end()) == ids.end();
  }
  planned_.assign(nj, -1);
  acc_from_.assign(nj, -1);
  considered_.assign(nj, 0);
  started_by_.assign(nj, StartedBy::None);
  nusers_ = wl.strings.size();
  const uint32_t normal = find_qos("normal");
  for (size_t j = 0; j < nj; ++j) {
    const JobSpec& js = wl.jobs[j];
    const std::string& pname = wl.strings.str(js.partition);
    if (!pname.empty()) {
      uint32_t p = kNoIdx;
      for (size_t i = 0; i < part_.size(); ++i)
        if (part_[i].name == pname) p = static_cast<uint32_t>(i);
      if (p == kNoIdx) throw InputError(file, "", fmt::format("job {} asks for partition '{}' which slurm.conf lacks; expected a PartitionName", js.id, pname));
      jpart_[j] = p;
    }
    const uint32_t ua = job_association(js, wl, file);
    jassoc_[j] = ua;
    const std::string& qname = wl.strings.str(js.qos);
    uint32_t q = kNoIdx;
    if (!qname.empty()) {
      q = find_qos(qname);
      if (q == kNoIdx) throw InputError(file, "", fmt::format("job {} asks for QOS '{}' which is not defined; expected a QOS from the sacctmgr dump or the scheduler block", js.id, qname));
    } else {
      q = assoc_[ua].default_qos != kNoIdx ? assoc_[ua].default_qos : normal;
    }
    jqos_[j] = q;
    jnodes_[j] = js.nodes > 0 ? js.nodes : std::max<int32_t>(1, (js.gpus + max_node_gpus_ - 1) / max_node_gpus_);
  }
  build_job_defaults(wl);
  build_cpus(*cluster_, wl);
}

// CPUs by node: slurm.conf NodeName CPUs, else the cluster's, else as many as GPUs (so a node's
// available CPUs count the jobs on it, as with the one-CPU tasks of a GPU node of CPUs=GPUs).
void SlurmModel::build_cpus(const ClusterConfig& cluster, const Workload& wl) {
  std::map<std::string, int32_t> conf;
  for (const auto& d : cfg_.nodes) conf[d.name] = d.cpus;
  node_cpus_.assign(nn_, 1);
  for (size_t n = 0; n < nn_; ++n) {
    if (auto it = conf.find(cluster.node_names[n]); it != conf.end()) node_cpus_[n] = it->second;
    else if (n < cluster.node_cpus.size() && cluster.node_cpus[n] > 0) node_cpus_[n] = cluster.node_cpus[n];
    else node_cpus_[n] = std::max<int32_t>(1, cluster.node_gpus[n]);
  }
  jcpn_.assign(wl.jobs.size(), 1);
  for (size_t j = 0; j < wl.jobs.size(); ++j)
    if (const int32_t c = spec(wl.jobs[j]).cpus; c > 0) jcpn_[j] = (c + jnodes_[j] - 1) / jnodes_[j];
  cfree_ = node_cpus_;
  cpu_view_ = cfree_.data();
}

void SlurmModel::cpus_begin(const Snapshot& v) {
  cfree_.assign(node_cpus_.begin(), node_cpus_.end());
  for (JobIdx r : v.running) cpus_take(r, v.allocation_of(r), cfree_, +1);
  for (const auto& h : holds_) cpus_take(h.job, h.shares, cfree_, +1);
  cpu_view_ = cfree_.data();
}

// Each job's billable TRES per second (fair-share usage), by its partition's TRESBillingWeights.
// A job that gives no CPU count is taken to hold one CPU per node it uses: slurmctld allocates
// one CPU to a one-task job (sbatch -n 1 without --cpus-per-task or DefCpuPerGPU), and floorsim
// runs one task per node.
void SlurmModel::build_billing(const Workload& wl) {
  const size_t nj = wl.jobs.size();
  jbill_.assign(nj, 0);
  size_t assumed = 0;
  bool mem = false;
  for (size_t j = 0; j < nj; ++j) {
    const JobSpec& js = spec(wl.jobs[j]);  // allocated CPUs: DefCpuPerGPU counts
    const BillingWeights& bw = cfg_.partitions[jpart_[j]].billing;
    const double cpus = js.cpus > 0 ? js.cpus : jnodes_[j];
    if (js.cpus <= 0 && (!bw.set || bw.cpu > 0)) ++assumed;
    mem |= bw.mem_per_mb > 0;
    jbill_[j] = billable_tres(bw, cfg_.prio.max_tres, cpus, js.gpus, jnodes_[j], 0);
  }
  if (cfg_.prio.type != PriorityType::Multifactor) return;  // no fair-share: billing changes nothing
  if (assumed > 0)
    built_warnings_.push_back(fmt::format(
        "{} of {} jobs give no CPU count; each is billed 1 CPU per node it uses (what slurmctld allocates a one-task "
        "job without --cpus-per-task), as fair-share usage is by allocated CPUs where TRESBillingWeights is not set or "
        "weighs CPU (slurm.conf(5))",
        assumed, nj));
  if (mem) built_warnings_.push_back("TRESBillingWeights Mem: jobs here carry no memory request; memory bills 0");
}

// A job's user association: (user, account); the user's first association when no account is given.
uint32_t SlurmModel::job_association(const JobSpec& js, const Workload& wl, const std::string& file) {
  const std::string& uname = wl.strings.str(js.user);
  const std::string& aname = wl.strings.str(js.account);
  uint32_t acct = aname.empty() ? kNoIdx : find_assoc(aname, false, 0);
  uint32_t ua = kNoIdx;
  if (acct != kNoIdx) ua = find_assoc(uname, true, acct);
  else if (aname.empty())
    for (size_t i = 0; i < assoc_.size() && ua == kNoIdx; ++i)
      if (assoc_[i].is_user && assoc_[i].name == uname) ua = static_cast<uint32_t>(i);
  if (ua == kNoIdx) {
    if (cfg_.enforce_associations)
      throw InputError(file, "", fmt::format("job {}: no association for user '{}' account '{}' and AccountingStorageEnforce has associations; expected the user in the sacctmgr dump", js.id, uname, aname));
    // Without enforcement, unknown users/accounts get implicit associations (1 share each).
    if (acct == kNoIdx) {
      const std::string an = aname.empty() ? "(none)" : aname;
      acct = find_assoc(an, false, 0);
      if (acct == kNoIdx) {
        AssocRt a;
        a.name = an;
        a.parent = root_;
        assoc_.push_back(a);
        acct = static_cast<uint32_t>(assoc_.size() - 1);
      }
    }
    ua = find_assoc(uname, true, acct);
    if (ua == kNoIdx) {
      AssocRt u;
      u.name = uname;
      u.is_user = true;
      u.parent = acct;
      assoc_.push_back(u);
      ua = static_cast<uint32_t>(assoc_.size() - 1);
    }
  }
  return ua;
}

// Usage, limit counters and per-pass buffers sized for the associations, QOS, partitions and jobs.
void SlurmModel::build_counters(size_t nj) {
  for (size_t i = 0; i < assoc_.size(); ++i)
    if (assoc_[i].parent != kNoIdx) assoc_[assoc_[i].parent].children.push_back(static_cast<uint32_t>(i));
  pend_assoc_.assign(assoc_.size(), 0);
  usage_.assign(assoc_.size(), 0);
  pend_mark_.assign(assoc_.size(), 0);
  pend_qos_.assign(qos_.size() * kTres, 0);
  qos_used_.assign(qos_.size() * kTres, 0);
  qos_jobs_.assign(qos_.size(), 0);
  qu_used_.assign(qos_.size() * nusers_ * kTres, 0);
  qu_jobs_.assign(qos_.size() * nusers_, 0);
  assoc_used_.assign(assoc_.size() * kTres, 0);
  assoc_jobs_.assign(assoc_.size(), 0);
  part_failed_.assign(part_.size(), 0);
  one_tier_ = std::all_of(part_.begin(), part_.end(), [&](const PartRt& P) { return P.tier == part_[0].tier; });
  for (auto& P : part_) {
    P.keep.resize(nn_);
    for (size_t n = 0; n < nn_; ++n) P.keep[n] = P.mask[n] ? 0 : 0xFF;
  }
  nw_ = (nn_ + 63) / 64;
  part_bits_.assign(part_.size() * nw_, 0);
  for (size_t p = 0; p < part_.size(); ++p)
    for (size_t n = 0; n < nn_; ++n)
      if (part_[p].mask[n]) part_bits_[p * nw_ + (n >> 6)] |= uint64_t{1} << (n & 63);
  stopping_.assign(nj, 0);
  pre_mark_.assign(nj, 0);
}

SlurmModel::~SlurmModel() {
  if (std::getenv("FLOORSIM_SLURM_COUNTS") == nullptr) return;
  fmt::print(stderr,
             "slurm counts: schedule calls {}, main passes {} (jobs tested {}, started {}), backfill passes {} (started nothing {}, "
             "jobs tested {}, started {}), queue sorts {} (skipped {}), priorities computed {}; backfill tests with no start or plan {}, "
             "skipped as the same shape {}; one-node placements from the plan {}; retries at a later start {} ({} taken as certain); will-run answers reused {}\n",
             wc_.schedules, main_passes_, wc_.main_tests, main_starts_, bf_passes_, wc_.bf_idle, wc_.bf_tests, bf_starts_, wc_.sorts, wc_.sorts_skipped,
             wc_.prio_computed, wc_.bf_nofit, wc_.bf_tests_skipped, wc_.one_node_picks, wc_.bf_retries, wc_.bf_sure_retries, wc_.bf_answers_kept);
}

nlohmann::json SlurmModel::report(const Snapshot& fv) const {
  final_now_ = fv.now;
  nlohmann::json j;
  j["config"] = to_json(cfg_);
  j["main_passes"] = main_passes_;
  j["backfill_passes"] = bf_passes_;
  j["backfill_starts"] = bf_starts_;
  j["main_starts"] = main_starts_;
  j["preemptions"] = preempts_;
  nlohmann::json rs = nlohmann::json::object();
  for (const auto& r : resv_) {
    // Idle reserved GPU-seconds (the slurmdbd rollup's "unused"), split equally over the
    // reservation's associations (slurmdbd's as_mysql_rollup.c); accounted up to the end of the run.
    const double idle = r.idle_gpu_s + r.overlap(r.acc_s, std::max(r.acc_s, std::min(final_now_, r.deleted_s))) *
                                           static_cast<double>(std::max<int64_t>(0, r.total_gpus - r.used_gpus));
    nlohmann::json by = nlohmann::json::object();
    for (const auto& a : r.assocs) by[a] = idle / static_cast<double>(r.assocs.size());
    rs[r.name] = {{"reserved_gpus", r.total_gpus}, {"idle_gpu_s", idle}, {"idle_gpu_s_by_association", by}};
    if (std::isfinite(r.deleted_s)) rs[r.name]["purged_at_s"] = r.deleted_s;
  }
  j["reservations"] = rs;
  nlohmann::json fs = nlohmann::json::object();
  ensure_fs();
  for (const auto& a : assoc_)
    if (a.is_user) fs[a.name + "@" + (a.parent == kNoIdx ? "" : assoc_[a.parent].name)] = a.fs;
  j["fairshare"] = fs;
  if (topo_mode_ != 0) j["topology"] = topo_report(fv.now);
  if (!refused_by_.empty()) {
    size_t n = 0;
    for (const auto& [e, c] : refused_by_) n += c;
    j["refused_at_submission"] = {{"jobs", n}, {"by_error", refused_by_}};
  }
  return j;
}

void SlurmModel::on_job_event(const JobEvent& ev, const Snapshot& v) {
  const JobIdx j = ev.job;
  ++events_;
  if (ev.kind != JobEvent::Kind::Submitted && ev.kind != JobEvent::Kind::Started && ev.kind != JobEvent::Kind::Ended) ++requeues_;
  switch (ev.kind) {
    case JobEvent::Kind::Started:
      acc_from_[j] = ev.time_s;
      if (topo_mode_ != 0) topo_started(j, ev.time_s, v);
      break;
    case JobEvent::Kind::Ended:
    case JobEvent::Kind::Requeued:
    case JobEvent::Kind::Suspended:
      if (jresv_[j] != kNoIdx) resv_[jresv_[j]].last_end_s = std::max(resv_[jresv_[j]].last_end_s, ev.time_s);
      if (acc_from_[j] >= 0) {
        add_usage(v, j, ev.time_s - acc_from_[j], pend_assoc_, pend_qos_);
        acc_from_[j] = -1;
      }
      if (cfg_.sched.completing_s > 0 && ev.kind != JobEvent::Kind::Suspended) hold_completing(v, j, ev.time_s);
      // Queued again: attracted by its MAGNETIC reservation again, wherever it ran.
      if (ev.kind != JobEvent::Kind::Ended && !jresv_at_.empty()) jresv_[j] = jresv_at_[j];
      break;
    default:
      break;
  }
}

std::unique_ptr<Scheduler> make_model(SlurmConfig cfg, const Workload& workload, const ClusterConfig& cluster,
                                      const std::string& file, Warnings* warnings) {
  auto m = std::make_unique<SlurmModel>(std::move(cfg), workload, cluster, file);
  WarningScope scope(warnings);
  for (auto& w : m->built_warnings_) scope.sink().add(std::move(w));
  m->built_warnings_.clear();
  scope.done();
  return m;
}

ClusterConfig cluster_from_conf(const SlurmConfig& cfg) {
  ClusterConfig c;
  std::map<std::string, uint32_t> leaf_of;
  for (const auto& s : cfg.switches)
    if (!s.nodes.empty()) {
      const uint32_t l = static_cast<uint32_t>(c.leaf_names.size());
      c.leaf_names.push_back(s.name);
      for (const auto& n : s.nodes) leaf_of.emplace(n, l);  // the first leaf switch naming a node
    }
  for (const auto& b : cfg.blocks) {
    const uint32_t l = static_cast<uint32_t>(c.leaf_names.size());
    c.leaf_names.push_back(b.name);
    for (const auto& n : b.nodes) leaf_of.emplace(n, l);
  }
  if (c.leaf_names.empty()) c.leaf_names.push_back("leaf1");
  const bool any_cpus = std::any_of(cfg.nodes.begin(), cfg.nodes.end(), [](const NodeDef& d) { return d.cpus_given; });
  const bool any_mem = cfg.memory_consumable && std::any_of(cfg.nodes.begin(), cfg.nodes.end(), [](const NodeDef& d) { return d.real_memory_mb > 0; });
  const std::vector<int32_t> share = cpu_share_by_node(cfg);  // OverSubscribe=FORCE:N (part_limits.hpp)
  for (size_t i = 0; i < cfg.nodes.size(); ++i) {
    const NodeDef& n = cfg.nodes[i];
    c.node_names.push_back(n.name);
    c.node_gpus.push_back(n.gpus);
    // CPUs and RealMemory: 0 where a node does not give them (ClusterConfig: "not given").
    if (any_cpus) c.node_cpus.push_back(n.cpus_given ? n.cpus * share[i] : 0);
    if (any_mem) c.node_mem_bytes.push_back(n.real_memory_mb * 1024 * 1024);  // RealMemory is in MB (MiB)
    auto it = leaf_of.find(n.name);
    c.node_leaf.push_back(it == leaf_of.end() ? 0 : it->second);
  }
  return c;
}

}  // namespace floorsim::slurm
