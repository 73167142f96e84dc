// Refusal at submission (submit_check.hpp): the partition's State and access lists, then whether
// the partition could ever hold the job, as slurmctld decides it when the job is submitted
// (job_mgr.c _part_access_check, then select_nodes in test-only mode on the partition as if
// idle: "Requested node configuration is not available").
#include <algorithm>
#include <cstdio>
#include <map>

#include <fmt/format.h>

#include "schedulers/slurm/model.hpp"
#include "schedulers/slurm/submit_check.hpp"

namespace floorsim::slurm {

const char* refusal_error(uint16_t reason) {
  switch (reason) {
    case kInvalidAccount: return "Invalid account or account/partition combination specified";
    case kInvalidQOS: return "Invalid qos specification";
    case kPartitionNotAvail: return "Required partition not available (inactive or drain)";
    case kInvalidNodeCount: return "Node count specification invalid";
    case kTooManyCpus: return "More processors requested than permitted";
    case kBadConstraints: return "Requested node configuration is not available";
    case kInvalidTimeLimit: return "Requested time limit is invalid (missing or exceeds some limit)";
    case kInvalidTaskMemory: return "Memory required by task is not available";
    default: return "";
  }
}

namespace {
bool listed(const std::vector<std::string>& names, const std::string& n) {
  return std::find(names.begin(), names.end(), n) != names.end();
}
}  // namespace

uint16_t access_refusal(const Partition& p, const std::string& account, const std::string& qos) {
  if (p.state == Partition::State::Drain || p.state == Partition::State::Inactive) return kPartitionNotAvail;
  if (!p.allow_accounts.empty()) {
    if (account.empty() || !listed(p.allow_accounts, account)) return kInvalidAccount;
  } else if (!account.empty() && listed(p.deny_accounts, account)) {
    return kInvalidAccount;
  }
  if (!p.allow_qos.empty()) {
    if (!listed(p.allow_qos, qos)) return kInvalidQOS;
  } else if (listed(p.deny_qos, qos)) {
    return kInvalidQOS;
  }
  return kNone;
}

// Could the job run on its partition's nodes were they all idle and in service? The placement
// of the main loop on the configured nodes, without the topology plugin (a tree or block bound
// is a wait, not a refusal).
bool SlurmModel::ever_fits(JobIdx j, const JobSpec& js) {
  const PartRt& p = part_[jpart_[j]];
  mask_ = p.conf_mask;
  const uint8_t topo = topo_mode_;
  topo_mode_ = 0;
  cpu_view_ = node_cpus_.data();
  const NodeRes cap{cap_cpus_, cap_mem_};
  const bool ok = place(js, cluster_->node_gpus, cap);
  topo_mode_ = topo;
  cpu_view_ = cfree_.data();
  return ok;
}

namespace {

// The partition's size and limits in _part_access_check's order: kNone, or the error sbatch
// would get under EnforcePartLimits=ALL or ANY (the same for a job of one partition). MaxNodes
// and MinNodes are checked against a node count the job gives.
uint16_t part_limit_error(const PartRt& p, const Partition& conf, const JobSpec& eff, bool cpus_given) {
  if (cpus_given && eff.cpus > p.conf_cpus) return kTooManyCpus;
  if (eff.nodes > p.nodes) return kInvalidNodeCount;
  if (eff.nodes > 0 && (eff.nodes < conf.min_nodes || (conf.max_nodes >= 0 && eff.nodes > conf.max_nodes))) return kInvalidNodeCount;
  if (eff.time_limit_s > p.max_time_s) return kInvalidTimeLimit;
  return kNone;
}

// "N \"what\" (job 1, 2, 3, ...)" for each reason, joined by "; ".
std::string listing(const std::map<uint16_t, std::vector<int64_t>>& by, const char* (*name)(uint16_t)) {
  std::string parts;
  for (const auto& [r, ids] : by) {
    std::string some;
    for (size_t i = 0; i < ids.size() && i < 3; ++i) some += (i ? ", " : "") + std::to_string(ids[i]);
    parts += fmt::format("{}{} \"{}\" (job {}{})", parts.empty() ? "" : "; ", ids.size(), name(r), some, ids.size() > 3 ? ", ..." : "");
  }
  return parts;
}

// What a job over a partition limit pends with under EnforcePartLimits=NO (job_limits_check:
// ESLURM_TOO_MANY_REQUESTED_CPUS falls to WAIT_PART_CONFIG; the account and QOS lists are then
// checked only when nodes are selected, part_policy_valid_acct / _qos, and keep the job pending).
uint16_t pending_reason(uint16_t refusal) {
  switch (refusal) {
    case kTooManyCpus: return kPartitionConfig;
    case kInvalidNodeCount: return kPartitionNodeLimit;
    case kInvalidTimeLimit: return kPartitionTimeLimit;
    case kInvalidTaskMemory: return kMaxMemPerLimit;
    default: return refusal;  // InvalidAccount, InvalidQOS
  }
}

}  // namespace

// The refusal at submission (kNone: accepted); `pend` is set to the reason a job accepted over a
// partition limit pends with for good (EnforcePartLimits=NO), else left alone.
uint16_t SlurmModel::submit_refusal(JobIdx j, const JobSpec& js, uint16_t& pend) {
  const Partition& conf = cfg_.partitions[jpart_[j]];
  if (conf.state == Partition::State::Drain || conf.state == Partition::State::Inactive) return kPartitionNotAvail;
  const PartRt& p = part_[jpart_[j]];
  if (p.nodes == 0) return kNone;  // no Nodes=: its jobs pend (slurm.conf(5) Nodes)
  const uint32_t acct = assoc_[jassoc_[j]].parent;
  // An account floorsim made up for a job the dump does not know is no known account.
  const std::string account = acct == kNoIdx || acct == root_ || assoc_[acct].name == "(none)" ? "" : assoc_[acct].name;
  uint16_t err = part_limit_error(p, conf, spec(js), !cap_cpus_.empty());
  if (err == kNone) err = access_refusal(conf, account, jqos_[j] == kNoIdx ? "normal" : qos_[jqos_[j]].q.name);
  // MaxMemPer* (build_job_defaults): sbatch checks a memory the job asks for; one from the defaults pends.
  if (err == kNone && !jblock_.empty() && jblock_[j] == kMaxMemPerLimit && js.mem_per != JobSpec::MemPer::None) err = kInvalidTaskMemory;
  if (err != kNone && cfg_.enforce_part_limits != EnforcePart::No) return err;
  if (err != kNone) {
    pend = pending_reason(err);
    return kNone;
  }
  return ever_fits(j, js) ? kNone : kBadConstraints;
}

// Refusals of the whole workload: each refused job is cancelled at its submission (cancel_gone,
// with its reason), counted in the report and named in one warning.
void SlurmModel::build_submit_checks(const Workload& wl) {
  const size_t nj = wl.jobs.size();
  std::vector<uint16_t> refused(nj, kNone), pend(nj, kNone);
  std::map<uint16_t, std::vector<int64_t>> by, held;
  for (size_t j = 0; j < nj; ++j) {
    refused[j] = submit_refusal(static_cast<JobIdx>(j), wl.jobs[j], pend[j]);
    if (refused[j] != kNone) by[refused[j]].push_back(wl.jobs[j].id);
    else if (pend[j] != kNone) held[pend[j]].push_back(wl.jobs[j].id);
  }
  for (size_t j = 0; !jblock_.empty() && j < nj; ++j)
    if (pend[j] == kNone && refused[j] == kNone && jblock_[j] != kNone) held[jblock_[j]].push_back(wl.jobs[j].id);
  if (!held.empty()) {
    if (jblock_.empty()) jblock_.assign(nj, kNone);
    for (size_t j = 0; j < nj; ++j)
      if (pend[j] != kNone) jblock_[j] = pend[j];
    size_t total = 0;
    for (const auto& [r, ids] : held) total += ids.size();
    built_warnings_.push_back(fmt::format(
        "{} of {} jobs are over a partition limit and pend for good, as slurmctld keeps them (EnforcePartLimits=NO "
        "accepts such jobs; a memory from the job defaults is checked only when the job is scheduled): {}; jobs.csv "
        "gives each its reason",
        total, nj, listing(held, reason_text)));
  }
  if (by.empty()) return;
  jrefused_ = std::move(refused);
  if (jgone_.empty()) jgone_.assign(nj, 0);
  size_t total = 0;
  for (const auto& [r, ids] : by) {
    total += ids.size();
    refused_by_[refusal_error(r)] = ids.size();
  }
  for (size_t j = 0; j < nj; ++j)
    if (jrefused_[j] != kNone) jgone_[j] = 1;
  built_warnings_.push_back(fmt::format(
      "{} of {} jobs are refused at submission, as slurmctld refuses them (sbatch fails): {}; each is CANCELLED at "
      "its submit time in jobs.csv with the reason, and counted in metrics.json scheduler_report.refused_at_submission",
      total, nj, listing(by, refusal_error)));
}

}  // namespace floorsim::slurm
