// Kueue's pods (adapter.hpp): an admitted workload's pods onto nodes, as kube-scheduler would
// bind them (first fit, or the TAS assignment), within the namespace ResourceQuota ceilings,
// after the ProvisioningRequest checks; waitForPodsReady evicts a workload whose pods are not
// all running in time (spec kueue §8).
#include "schedulers/kueue/adapter.hpp"

namespace floorsim::kueue::adapter {

bool KueueScheduler::create_pods(JobIdx j) {
  if (pods_[j]) return true;
  const uint32_t n = ns_of(j);
  if (!ceiling_allows(j)) {
    ++ns_refused_[n];
    pod_reason_[j] = kResourceQuotaExceeded;
    return false;
  }
  ns_used_[n] += gpus_[j];
  ns_peak_[n] = std::max(ns_peak_[n], ns_used_[n]);
  pods_[j] = 1;
  return true;
}

bool KueueScheduler::place_nodes(JobIdx j) {
  const JobSpec js = admitted_spec(j);
  const std::span<const uint8_t> mask = flavor_[j] >= 0 ? std::span<const uint8_t>(flavor_mask_[flavor_[j]]) : std::span<const uint8_t>();
  if (!res_.first_fit(js, node_ask(j), free_, mask, shares_, view_->cluster.max_node_gpus)) return false;
  placement::take(free_, shares_);
  res_.take(shares_);
  start(j);
  return true;
}

bool KueueScheduler::place(uint32_t key) {
  flavor_[key] = -1;
  admit_counts(key);
  const Usage& u = core_.placing_usage();
  for (uint8_t k = 0; k < u.n; ++k)
    if (core_.model().resource_of(u.fr[k]) == job_req_.gpu_kind) flavor_[key] = core_.model().flavor_of(u.fr[k]);
  // A CPU-only job's pods go to the nodes of the flavor its cpu (or memory) was assigned.
  if (view_->jobs[key].gpus <= 0)
    for (uint8_t k = u.n; k-- > 0;)
      if (u.qty[k] > 0) flavor_[key] = core_.model().flavor_of(u.fr[k]);
  if (tas_.is_tas(flavor_[key]) && view_->jobs[key].gpus > 0) return place_tas(key);
  if (!admit_then_place_) {
    if (!ceiling_allows(key)) {
      ++ns_refused_[ns_of(key)];
      pod_reason_[key] = kResourceQuotaExceeded;
      return false;
    }
    pod_reason_[key] = kNoNodes;
    if (!place_nodes(key)) {
      waited_nodes_[key] = 1;
      return false;
    }
    create_pods(key);
    return true;
  }
  // Admission: quota is reserved whatever happens to the pods.
  admitted_s_[key] = view_->now;
  // A ProvisioningRequest admission check holds the quota while the nodes are provisioned;
  // the pods are created when it passes; waitForPodsReady counts from then.
  if (prov_.start(key, core_.model().tree.name(job_cq_[key]), requested_resources(view_->jobs[key]), view_->now)) {
    admitted_s_[key] = prov_.ready_at(key);
    pod_reason_[key] = kProvisioning;
    out_->wake_at(prov_.ready_at(key));
    unplaced_.push_back(key);
    return true;
  }
  if (create_pods(key) && place_nodes(key)) return true;
  if (pods_[key]) {
    pod_reason_[key] = kNoNodes;
    waited_nodes_[key] = 1;
  }
  unplaced_.push_back(key);
  return true;
}

bool KueueScheduler::place_tas(JobIdx j) {
  if (!ceiling_allows(j)) {
    ++ns_refused_[ns_of(j)];
    pod_reason_[j] = kResourceQuotaExceeded;
    return false;
  }
  const JobSpec js = admitted_spec(j);
  if (!tas_.place(flavor_[j], js, ann_[js.klass], free_, flavor_mask_[flavor_[j]], shares_).empty() ||
      !res_.fill(shares_, node_ask(j), js.gpus)) {  // the topology's nodes must have the CPUs and memory too
    pod_reason_[j] = kTopologyNotFit;
    ++tas_not_fit_;
    return false;
  }
  placement::take(free_, shares_);
  res_.take(shares_);
  start(j);
  admitted_s_[j] = view_->now;
  create_pods(j);
  ++tas_placed_;
  return true;
}

void KueueScheduler::place_unplaced() {
  if (unplaced_.empty()) return;
  std::sort(unplaced_.begin(), unplaced_.end(), [&](JobIdx a, JobIdx b) {
    if (prio_[a] != prio_[b]) return prio_[a] > prio_[b];
    if (admitted_s_[a] != admitted_s_[b]) return admitted_s_[a] < admitted_s_[b];
    return a < b;
  });
  const SimTime now = view_->now;
  size_t w = 0;
  for (size_t i = 0; i < unplaced_.size(); ++i) {
    const JobIdx j = unplaced_[i];
    if (view_->runs[j].state != JobState::Pending) continue;
    if (prov_.holding(j)) {
      if (prov_.ready_at(j) > now) {  // still provisioning
        unplaced_[w++] = j;
        continue;
      }
      if (!provisioning_passed(j, now)) continue;  // failed: quota released, requeued or deactivated
    }
    if (create_pods(j) && place_nodes(j)) continue;
    if (pods_[j]) {
      pod_reason_[j] = kNoNodes;
      waited_nodes_[j] = 1;
    }
    if (wfpr_.enable && now >= admitted_s_[j] + wfpr_.timeout_s) {
      pods_ready_timeout(j, now);
      continue;
    }
    unplaced_[w++] = j;
  }
  unplaced_.resize(w);
}

bool KueueScheduler::provisioning_passed(JobIdx j, SimTime now) {
  const Provisioner::Done d = prov_.finish(j, now);
  if (d.passed) return true;
  core_.release(j, now);
  if (!d.next.retry) {
    deactivated_[j] = 1;
    out_->set_reason(j, kProvisioningRejected);
    return false;
  }
  requeue_at_[j] = now + d.next.backoff_s;
  deferred_.push_back(j);
  if (d.next.backoff_s > 0) out_->wake_at(requeue_at_[j]);  // 0: enqueued in this pass (a wake at now is none)
  out_->set_reason(j, kProvisioningRetry);
  return false;
}

nlohmann::json KueueScheduler::provisioning_report() const {
  uint64_t attempts = 0, failures = 0, held = 0;
  double wait = 0;
  for (size_t j = 0; j < gpus_.size(); ++j) {
    attempts += prov_.attempts(static_cast<uint32_t>(j));
    failures += prov_.failures(static_cast<uint32_t>(j));
    wait += prov_.wait_s(static_cast<uint32_t>(j));
    held += prov_.attempts(static_cast<uint32_t>(j)) > 0;
  }
  return {{"attempts", attempts}, {"failures", failures}, {"rejected", prov_.rejected()},
          {"workloads_provisioned", held}, {"total_wait_s", wait}};
}

void KueueScheduler::pods_ready_timeout(JobIdx j, SimTime now) {
  drop_pods(j);
  core_.release(j, now);
  ++pods_ready_evictions_;
  const uint32_t count = ++pr_count_[j];
  // A workload larger than the whole cluster (up nodes) or its namespace's ResourceQuota
  // would be requeued forever, as in Kueue; the simulation stops retrying it so that it ends.
  cap_.assign(view_->cluster.capacity_gpus.begin(), view_->cluster.capacity_gpus.end());
  for (size_t n = 0; n < cap_.size(); ++n)
    if (!view_->cluster.node_up[n] || (flavor_[j] >= 0 && !flavor_mask_[flavor_[j]].empty() && !flavor_mask_[flavor_[j]][n]))
      cap_[n] = 0;
  const Qty hard = ns_hard_[ns_of(j)];
  cap_res_.reset_capacity(view_->cluster);  // a CPU-only job's nodes: its flavor's (cap_ masks GPUs only)
  const std::span<const uint8_t> mask = flavor_[j] >= 0 ? std::span<const uint8_t>(flavor_mask_[flavor_[j]]) : std::span<const uint8_t>();
  if ((hard >= 0 && view_->jobs[j].gpus > hard) ||
      !cap_res_.first_fit(view_->jobs[j], node_ask(j), cap_, mask, shares_, view_->cluster.max_node_gpus)) {
    deactivated_[j] = 1;
    out_->set_reason(j, kNeverFits);
    return;
  }
  if (wfpr_.backoff_limit >= 0 && count > static_cast<uint64_t>(wfpr_.backoff_limit)) {
    deactivated_[j] = 1;
    out_->set_reason(j, kDeactivated);
    return;
  }
  requeue_at_[j] = now + std::min(wfpr_.backoff_base_s * std::ldexp(1.0, static_cast<int>(count) - 1), wfpr_.backoff_max_s);
  if (wfpr_.eviction_timestamp) queue_ts_[j] = now;
  deferred_.push_back(j);
  out_->wake_at(requeue_at_[j]);
}
}  // namespace floorsim::kueue::adapter
