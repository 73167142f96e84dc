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

uint16_t SlurmModel::submit_refusal(JobIdx j, const JobSpec& js) {
  const uint32_t a = jassoc_[j];
  const uint32_t acct = assoc_[a].parent;
  // An account floorsim made up for a job the dump does not know is no known account.
  const std::string account = acct == kNoIdx || acct == root_ || assoc_[acct].name == "(none)" ? "" : assoc_[acct].name;
  if (uint16_t r = access_refusal(cfg_.partitions[jpart_[j]], account, jqos_[j] == kNoIdx ? "normal" : qos_[jqos_[j]].q.name))
    return r;
  const PartRt& p = part_[jpart_[j]];
  if (p.nodes == 0) return kNone;  // no Nodes=: its jobs pend (slurm.conf(5) Nodes)
  if (js.nodes > p.nodes) return kInvalidNodeCount;
  if (!cap_cpus_.empty() && js.cpus > p.conf_cpus) return kTooManyCpus;
  return ever_fits(j, js) ? kNone : kBadConstraints;
}

// Refusals of the whole workload: each refused job is cancelled at its submission (cancel_gone,
// with its reason), counted in the report and named in one warning.
void SlurmModel::build_submit_checks(const Workload& wl) {
  const size_t nj = wl.jobs.size();
  std::vector<uint16_t> refused(nj, kNone);
  std::map<uint16_t, std::vector<int64_t>> by;
  for (size_t j = 0; j < nj; ++j) {
    refused[j] = submit_refusal(static_cast<JobIdx>(j), wl.jobs[j]);
    if (refused[j] != kNone) by[refused[j]].push_back(wl.jobs[j].id);
  }
  if (by.empty()) return;
  jrefused_ = std::move(refused);
  if (jgone_.empty()) jgone_.assign(nj, 0);
  size_t total = 0;
  std::string parts;
  for (const auto& [r, ids] : by) {
    total += ids.size();
    refused_by_[refusal_error(r)] = ids.size();
    std::string some;
    for (size_t i = 0; i < ids.size() && i < 3; ++i) some += (i ? ", " : "") + std::to_string(ids[i]);
    parts += fmt::format("{}{} \"{}\" (job {}{})", parts.empty() ? "" : "; ", ids.size(), refusal_error(r), some,
                         ids.size() > 3 ? ", ..." : "");
  }
  for (size_t j = 0; j < nj; ++j)
    if (jrefused_[j] != kNone) jgone_[j] = 1;
  std::fprintf(stderr,
               "floorsim: warning: %zu of %zu jobs are refused at submission, as slurmctld refuses them (sbatch "
               "fails): %s; each is CANCELLED at its submit time in jobs.csv with the reason, and counted in "
               "metrics.json scheduler_report.refused_at_submission\n",
               total, nj, parts.c_str());
}

}  // namespace floorsim::slurm
