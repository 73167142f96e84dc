// The node hand-off: an ended job's nodes stay COMPLETING until its Epilog has run and slurmd
// has reported it (slurmctld's job_epilog_complete / make_node_idle in node_mgr.c); until then
// their resources are not given to another job. The time is a scheduler option (completing_s).
#include <algorithm>

#include "schedulers/slurm/model.hpp"

namespace floorsim::slurm {

void SlurmModel::hold_completing(const Snapshot& v, JobIdx j, SimTime t) {
  const auto a = v.allocation_of(j);
  if (a.empty()) return;
  holds_.push_back({t + cfg_.sched.completing_s, j, std::vector<NodeShare>(a.begin(), a.end())});
}

// At the start of a pass: holds past their hand-off go; the others keep their GPUs out of free_
// and ask for a pass at their hand-off.
void SlurmModel::holds_apply(const Snapshot& v, Decisions& out) {
  std::erase_if(holds_, [&](const Hold& h) { return h.until <= v.now; });
  for (const auto& h : holds_) {
    for (const auto& s : h.shares)
      if (v.cluster.node_up[s.node]) free_[s.node] = std::max(0, free_[s.node] - s.gpus);
    wake_special(out, h.until);
  }
}

// Backfill's release order: a hold ends at its hand-off, like a running job at its limit.
void SlurmModel::holds_to_ends() {
  for (const auto& h : holds_) {
    const auto off = static_cast<uint32_t>(local_.size());
    local_.insert(local_.end(), h.shares.begin(), h.shares.end());
    ends_.push_back({h.until, h.job, off, static_cast<uint32_t>(h.shares.size())});
  }
}

}  // namespace floorsim::slurm
