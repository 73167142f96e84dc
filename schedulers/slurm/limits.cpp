// QOS and association limits under AccountingStorageEnforce=limits[,safe], their pending reasons
// and DenyOnLimit. Follows src/slurmctld/acct_policy.c; https://slurm.schedmd.com/resource_limits.html
// and https://slurm.schedmd.com/qos.html.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include <fmt/format.h>

#include "schedulers/common/placement.hpp"
#include "schedulers/slurm/model.hpp"
#include "sim/core/error.hpp"

namespace floorsim::slurm {

void SlurmModel::charge_apply(JobIdx j, const JobSpec& js, int sign) {
  const int64_t tr[kTres] = {js.gpus, jnodes_[j], js.cpus};
  auto add_q = [&](uint32_t q) {
    for (int t = 0; t < kTres; ++t) qos_used_[q * kTres + t] += sign * tr[t];
    qos_jobs_[q] += sign;
    const size_t qu = q * nusers_ + js.user;
    for (int t = 0; t < kTres; ++t) qu_used_[qu * kTres + t] += sign * tr[t];
    qu_jobs_[qu] += sign;
  };
  const uint32_t q = jqos_[j], pq = part_[jpart_[j]].qos;
  if (q != kNoIdx) add_q(q);
  if (pq != kNoIdx && pq != q) add_q(pq);  // a Partition QOS pools usage across partitions (resource_limits.html)
  for (uint32_t a = jassoc_[j]; a != kNoIdx; a = assoc_[a].parent) {
    for (int t = 0; t < kTres; ++t) assoc_used_[a * kTres + t] += sign * tr[t];
    assoc_jobs_[a] += sign;
  }
}

void SlurmModel::count_running(const Snapshot& v) {
  // Back to zero by undoing the previous pass's charges (integers: exact).
  for (const auto& c : charged_) charge_apply(c.job, v.jobs[c.job], -c.sign);
  charged_.clear();
  for (JobIdx j : v.running) charge(j, v.jobs[j], +1);
  if (!resv_.empty()) {
    std::fill(resv_used_.begin(), resv_used_.end(), 0);
    for (JobIdx j : v.running)
      if (jresv_[j] != kNoIdx)
        for (const auto& sh : v.allocation_of(j)) resv_used_[jresv_[j] * nn_ + sh.node] += sh.gpus;
  }
}

// QOS and association limits (acct_policy.c; resource_limits.html). Only with AccountingStorageEnforce=limits. For each
// limit the first level that defines it wins: Partition QOS, then job QOS (swapped by
// OverPartQOS), then the user association and the accounts above it.
uint16_t SlurmModel::limit_reason(const Snapshot& v, JobIdx j, SimTime limit) const {
  if (!cfg_.enforce_limits) return kNone;
  const JobSpec& js = v.jobs[j];
  const int64_t tr[kTres] = {js.gpus, jnodes_[j], js.cpus};
  uint32_t lv[2] = {part_[jpart_[j]].qos, jqos_[j]};
  if (lv[1] != kNoIdx && qos_[lv[1]].q.flags.over_part_qos) std::swap(lv[0], lv[1]);
  static constexpr uint16_t kGrp[kTres] = {kQOSGrpGRES, kQOSGrpNodeLimit, kQOSGrpCpuLimit};
  static constexpr uint16_t kPerUser[kTres] = {kQOSMaxGRESPerUser, kQOSMaxNodePerUserLimit, kQOSMaxCpuPerUserLimit};
  static constexpr uint16_t kPerJob[kTres] = {kQOSMaxGRESPerJob, kQOSMaxNodePerJobLimit, kQOSMaxCpuPerJobLimit};
  static constexpr uint16_t kMins[kTres] = {kQOSGrpGRESMinutes, kQOSGrpNodeMinutes, kQOSGrpCpuMinutesLimit};
  static constexpr uint16_t kAssocGrp[kTres] = {kAssocGrpGRES, kAssocGrpNodeLimit, kAssocGrpCpuLimit};
  auto get = [](const Tres& x, int t) { return t == 0 ? x.gpu : t == 1 ? x.node : x.cpu; };
  bool grp_set[kTres] = {false, false, false};
  bool wall_set = false, jobs_set = false;
  for (uint32_t q : lv) {
    if (q == kNoIdx) continue;
    const Qos& Q = qos_[q].q;
    const size_t qu = q * nusers_ + js.user;
    for (int t = 0; t < kTres; ++t) {
      if (tr[t] <= 0 && t != 0) continue;
      const int64_t pj = get(Q.max_tres_per_job, t);
      if (pj >= 0 && tr[t] > pj) return kPerJob[t];
      const int64_t g = get(Q.grp_tres, t);
      if (g >= 0 && !grp_set[t]) {
        grp_set[t] = true;
        if (qos_used_[q * kTres + t] + tr[t] > g) return kGrp[t];
      }
      const int64_t pu = get(Q.max_tres_per_user, t);
      if (pu >= 0 && qu_used_[qu * kTres + t] + tr[t] > pu) return kPerUser[t];
      const int64_t m = get(Q.grp_tres_mins, t);
      if (m >= 0) {
        const double used_s = t == 0 ? qos_[q].usage_gpu_s : t == 1 ? qos_[q].usage_node_s : qos_[q].usage_cpu_s;
        // Without `safe`, jobs start while usage < limit; with it, the job's whole limit must fit.
        const double need_s = cfg_.enforce_safe ? used_s + static_cast<double>(tr[t]) * limit : used_s;
        if (cfg_.enforce_safe ? need_s > static_cast<double>(m) * 60 : need_s >= static_cast<double>(m) * 60) return kMins[t];
      }
    }
    if (!jobs_set && Q.max_jobs_per_user >= 0) {
      jobs_set = true;
      if (qu_jobs_[qu] + 1 > Q.max_jobs_per_user) return kQOSMaxJobsPerUserLimit;
    }
    if (Q.grp_jobs >= 0 && qos_jobs_[q] + 1 > Q.grp_jobs) return kQOSGrpJobsLimit;
    if (!wall_set && Q.max_wall_s >= 0) {
      wall_set = true;
      if (limit > Q.max_wall_s) return kQOSMaxWallDurationPerJobLimit;
    }
  }
  for (uint32_t a = jassoc_[j]; a != kNoIdx; a = assoc_[a].parent) {
    const AssocRt& A = assoc_[a];
    for (int t = 0; t < kTres; ++t) {
      const int64_t g = get(A.grp_tres, t);
      if (g >= 0 && !grp_set[t] && assoc_used_[a * kTres + t] + tr[t] > g) return kAssocGrp[t];
    }
    if (a == jassoc_[j] || !assoc_[jassoc_[j]].is_user) {
      if (A.max_jobs >= 0 && assoc_jobs_[a] + 1 > A.max_jobs) return kAssocMaxJobsLimit;
    }
    if (!wall_set && A.max_wall_s >= 0) {
      wall_set = true;
      if (limit > A.max_wall_s) return kAssocMaxWallDurationPerJobLimit;
    }
  }
  return kNone;
}

// DenyOnLimit (qos.html): a job that alone breaks a Max limit of a QOS with the flag (Grp limits
// count as Max) is rejected. Only with AccountingStorageEnforce=limits.
bool SlurmModel::denied_on_limit(const Snapshot& v, JobIdx j, SimTime limit) const {
  const JobSpec& js = v.jobs[j];
  const int64_t tr[kTres] = {js.gpus, jnodes_[j], js.cpus};
  auto get = [](const Tres& x, int t) { return t == 0 ? x.gpu : t == 1 ? x.node : x.cpu; };
  for (uint32_t q : {part_[jpart_[j]].qos, jqos_[j]}) {
    if (q == kNoIdx || !qos_[q].q.flags.deny_on_limit) continue;
    const Qos& Q = qos_[q].q;
    for (int t = 0; t < kTres; ++t)
      for (const Tres* x : {&Q.max_tres_per_job, &Q.max_tres_per_user, &Q.grp_tres}) {
        const int64_t m = get(*x, t);
        if (m >= 0 && tr[t] > m) return true;
      }
    if (Q.max_wall_s >= 0 && limit > Q.max_wall_s) return true;
  }
  return false;
}

}  // namespace floorsim::slurm
