// Nomination of a workload with PodSets (scheduler.go getInitialAssignments): flavors PodSet by
// PodSet at the full counts; if that neither fits nor finds preemption targets, and the
// PartialAdmission gate is on and some PodSet has a minCount below its count, the PodSet
// reducer searches the largest counts that fit, or that fit after preempting targets.
#include "schedulers/kueue/core.hpp"

namespace floorsim::kueue {

void Core::nominate_podsets(Entry& e, Preemptor in, const PodSets& ps) {
  auto targets_for = [&](const Assignment& a) {
    tbuf_.clear();
    if (!a.representative_preempt()) return false;
    Preemptor p = in;
    p.usage = a.usage;
    p.need = a.need_preemption;
    pre_.targets(m_, m_.tree, adm_, p, tbuf_);
    return !tbuf_.empty();
  };
  auto keep_targets = [&](const std::vector<Target>& t) {
    e.t_off = static_cast<uint32_t>(tpool_.size());
    e.t_cnt = static_cast<uint32_t>(t.size());
    tpool_.insert(tpool_.end(), t.begin(), t.end());
  };
  e.a = assign_podsets(m_, m_.tree, adm_, pre_, fa_, in, ps, {});
  if (e.a.mode == Mode::Fit) return;
  if (targets_for(e.a)) return keep_targets(tbuf_);
  if (!s_.partial_admission || !ps.can_be_partial()) return;
  std::vector<int32_t> full, min, counts;
  for (const auto& p : ps.sets) full.push_back(p.count), min.push_back(p.min_count);
  Assignment best;
  std::vector<Target> best_targets;
  auto fits = [&](std::span<const int32_t> c) {
    const Assignment a = assign_podsets(m_, m_.tree, adm_, pre_, fa_, in, ps, c);
    if (a.mode != Mode::Fit && !targets_for(a)) return false;
    best = a;
    best_targets = a.mode == Mode::Fit ? std::vector<Target>{} : tbuf_;
    return true;
  };
  if (!reduce_podsets(full, min, fits, counts)) return;  // stays the full assignment, without targets
  e.a = best;
  keep_targets(best_targets);
  e.c_off = static_cast<uint32_t>(cpool_.size());
  e.c_cnt = static_cast<uint32_t>(counts.size());
  cpool_.insert(cpool_.end(), counts.begin(), counts.end());
}

}  // namespace floorsim::kueue
