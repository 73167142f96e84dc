#include "schedulers/kueue/model.hpp"

#include <algorithm>

namespace floorsim::kueue {

uint32_t AdmittedSet::insert(const Admitted& a) {
  uint32_t s;
  if (!free_.empty()) {
    s = free_.back();
    free_.pop_back();
    slots_[s] = a;
    live_[s] = 1;
  } else {
    s = static_cast<uint32_t>(slots_.size());
    slots_.push_back(a);
    pos_.push_back(0);
    live_.push_back(1);
  }
  auto& l = by_cq_[a.cq];
  pos_[s] = static_cast<uint32_t>(l.size());
  l.push_back(s);
  return s;
}

void AdmittedSet::erase(uint32_t s) {
  auto& l = by_cq_[slots_[s].cq];
  const uint32_t p = pos_[s];
  l[p] = l.back();
  pos_[l[p]] = p;
  l.pop_back();
  live_[s] = 0;
  free_.push_back(s);
}

const char* to_string(Reason r) {
  switch (r) {
    case Reason::InClusterQueue: return "InClusterQueue";
    case Reason::InCohortReclamation: return "InCohortReclamation";
    case Reason::InCohortReclaimWhileBorrowing: return "InCohortReclaimWhileBorrowing";
    case Reason::InCohortFairSharing: return "InCohortFairSharing";
  }
  return "Unknown";
}

const char* to_string(Mode m) {
  switch (m) {
    case Mode::NoFit: return "NoFit";
    case Mode::NoCandidates: return "NoCandidates";
    case Mode::Preempt: return "Preempt";
    case Mode::Reclaim: return "Reclaim";
    case Mode::Fit: return "Fit";
  }
  return "Unknown";
}

bool satisfies_policy(Policy p, const Preemptor& in, const Admitted& c) {
  switch (p) {
    case Policy::Never: return false;
    case Policy::Any: return true;
    case Policy::LowerPriority: return c.priority < in.priority;
    case Policy::LowerOrNewerEqualPriority:  // equal priority: only candidates queued later
      return c.priority < in.priority || (c.priority == in.priority && in.queue_ts < c.queue_ts);
  }
  return false;
}

bool fits_in_quota(const QuotaTree& t, NodeId n, const Usage& u, Usage* remaining) {
  bool fits = true;
  if (remaining) *remaining = Usage{};
  for (uint8_t i = 0; i < u.n; ++i) {
    const FrId f = u.fr[i];
    if (t.usage(n, f) + u.qty[i] > t.subtree_quota(n, f)) fits = false;
    if (remaining) remaining->add(f, u.qty[i] - t.local_available(n, f));
  }
  return fits;
}

// ---- classical preemption (spec §6) ----

void Preemption::sort_candidates(const Model& m, const AdmittedSet& adm) {
  std::sort(cands_.begin(), cands_.end(), [&](const Cand& x, const Cand& y) {
    const Admitted& a = adm[x.slot];
    const Admitted& b = adm[y.slot];
    if (a.evicted != b.evicted) return a.evicted;
    if (x.list != y.list) return x.list < y.list;
    if (lq_score && a.cq == b.cq && m.cq[a.cq].admission_fair_sharing && a.lq != b.lq) {
      const double ua = (*lq_score)[a.lq], ub = (*lq_score)[b.lq];
      if (ua != ub) return ua > ub;  // the LocalQueue that consumed more gives way first
    }
    if (a.priority != b.priority) return a.priority < b.priority;
    if (a.reserved_s != b.reserved_s) return a.reserved_s > b.reserved_s;
    return a.uid < b.uid;
  });
}

void Preemption::classify_push(const Model& m, const AdmittedSet& adm, const Preemptor& in, uint32_t slot,
                               NodeId lca, bool advantage) {
  const Admitted& c = adm[slot];
  if ((c.usage.mask() & in.need) == 0) return;  // WorkloadUsesResources
  const bool same = c.cq == in.cq;
  const PreemptionConfig& pc = m.cq[in.cq].preemption;
  if (!satisfies_policy(same ? pc.within : pc.reclaim, in, c)) return;
  if (same) {
    cands_.push_back({slot, kNoNode, 2, false});
    return;
  }
  if (advantage) {  // HierarchicalReclaim: allowed while borrowing
    cands_.push_back({slot, lca, 0, false});
    return;
  }
  // classifyPreemptionVariant: ReclaimWithoutBorrowing unless borrowWithinCohort allows it
  // for candidates below the incoming priority and at most the threshold.
  bool without_borrowing = true;
  if (pc.borrow_within_cohort) {
    const bool above = c.priority >= in.priority || (pc.has_threshold && c.priority > pc.threshold);
    without_borrowing = above;
  }
  cands_.push_back({slot, lca, 1, without_borrowing});
}

void Preemption::collect_subtree(const Model& m, const QuotaTree& tree, const AdmittedSet& adm,
                                 const Preemptor& in, NodeId cur, NodeId lca, NodeId skip, bool advantage) {
  for (NodeId c : tree.child_cohorts(cur)) {
    if (c == skip || tree.within_nominal_in(c, in.need)) continue;  // only subtrees over quota
    collect_subtree(m, tree, adm, in, c, lca, skip, advantage);
  }
  for (NodeId q : tree.child_cqs(cur)) {
    if (q == in.cq || tree.within_nominal_in(q, in.need)) continue;
    for (uint32_t s : adm.in_cq(q)) classify_push(m, adm, in, s, lca, advantage);
  }
}

bool Preemption::run(const Model& m, QuotaTree& tree, const AdmittedSet& adm, const Preemptor& in, bool borrow,
                     std::vector<Target>& out) {
  auto fits = [&] {  // workloadQuotaFits
    for (uint8_t i = 0; i < in.usage.n; ++i) {
      const FrId f = in.usage.fr[i];
      const Qty v = in.usage.qty[i];
      if (!borrow && tree.borrowing_with(in.cq, f, v)) return false;
      if (v > tree.available(in.cq, f)) return false;
    }
    return true;
  };
  out.clear();
  bool ok = false;
  for (const Cand& c : cands_) {
    const Admitted& a = adm[c.slot];
    if (a.cq != in.cq) {  // candidateIsValid
      if (borrow && c.only_without_borrowing) continue;
      if (tree.within_nominal_in(a.cq, in.need)) continue;
      bool valid = true;
      for (NodeId n = tree.parent(a.cq); n != kNoNode && tree.has_parent(n) && n != c.lca; n = tree.parent(n))
        if (tree.within_nominal_in(n, in.need)) {
          valid = false;
          break;
        }
      if (!valid) continue;
    }
    Reason r = Reason::InClusterQueue;
    if (a.cq != in.cq)
      r = (borrow && !fits_in_quota(tree, in.cq, in.usage, nullptr)) ? Reason::InCohortReclaimWhileBorrowing
                                                                      : Reason::InCohortReclamation;
    tree.remove(a.cq, a.usage);
    out.push_back({c.slot, r});
    if (fits()) {
      ok = true;
      break;
    }
  }
  if (ok) {
    // fillBackWorkloads: in reverse, return every target (but the last) whose return still fits.
    for (int i = static_cast<int>(out.size()) - 2; i >= 0; --i) {
      const Admitted& a = adm[out[i].slot];
      tree.add(a.cq, a.usage);
      if (fits()) {
        out[i] = out.back();
        out.pop_back();
      } else {
        tree.remove(a.cq, a.usage);
      }
    }
  }
  for (const Target& t : out) tree.add(adm[t.slot].cq, adm[t.slot].usage);  // restoreSnapshot
  if (!ok) out.clear();
  return ok;
}

void Preemption::classical_targets(const Model& m, QuotaTree& tree, const AdmittedSet& adm, const Preemptor& in,
                                   std::vector<Target>& out) {
  out.clear();
  cands_.clear();
  const PreemptionConfig& pc = m.cq[in.cq].preemption;
  if (pc.within != Policy::Never)
    for (uint32_t s : adm.in_cq(in.cq)) classify_push(m, adm, in, s, kNoNode, false);
  if (tree.has_parent(in.cq) && pc.reclaim != Policy::Never) {
    // collectHierarchicalReclaimCQs: walk up; once a subtree on the path fits the request the
    // preemptor has hierarchical advantage over everything found from there on.
    Usage remaining;
    bool advantage = fits_in_quota(tree, in.cq, in.usage, &remaining);
    NodeId prev = kNoNode;
    for (NodeId cur = tree.parent(in.cq); cur != kNoNode; cur = tree.parent(cur)) {
      collect_subtree(m, tree, adm, in, cur, cur, prev, advantage);
      Usage next;
      const bool f = fits_in_quota(tree, cur, remaining, &next);
      remaining = next;
      advantage = advantage || f;
      prev = cur;
    }
  }
  // Necessary condition, checked before sorting: removing every candidate can raise the
  // preemptor's available quota by at most their summed usage.
  for (uint8_t i = 0; i < in.usage.n; ++i) {
    const FrId f = in.usage.fr[i];
    Qty gain = tree.available(in.cq, f);
    if (gain >= in.usage.qty[i]) continue;
    for (const Cand& c : cands_) gain += adm[c.slot].usage.get(f);
    if (gain < in.usage.qty[i]) return;
  }
  bool any_hier = false, any_other = false;
  for (const Cand& c : cands_) {
    if (c.list == 0) any_hier = true;
    if (c.list != 2) any_other = true;
  }
  sort_candidates(m, adm);
  // Attempts (spec §6): [borrow] / [no borrow, borrow] / [borrow, no borrow].
  const bool bwc_forbidden = !pc.borrow_within_cohort;
  bool under_nominal = true;  // queueUnderNominalInResourcesNeedingPreemption
  for (FrId f = 0; f < tree.frs(); ++f)
    if ((in.need & fr_bit(f)) && tree.usage(in.cq, f) >= tree.nominal(in.cq, f)) under_nominal = false;
  bool attempts[2];
  int na;
  if (!any_other || (bwc_forbidden && !under_nominal)) {
    attempts[0] = true;
    na = 1;
  } else if (bwc_forbidden && !any_hier) {
    attempts[0] = false;
    attempts[1] = true;
    na = 2;
  } else {
    attempts[0] = true;
    attempts[1] = false;
    na = 2;
  }
  for (int i = 0; i < na; ++i)
    if (run(m, tree, adm, in, attempts[i], out)) return;
  out.clear();
}

// ---- fair sharing (spec §7) ----

int64_t dominant_resource_share(const Model& m, const QuotaTree& t, NodeId n, const Usage* extra) {
  if (!t.has_parent(n)) return 0;
  int64_t borrowed[kMaxRes] = {};
  bool any = false;
  for (FrId f = 0; f < t.frs(); ++f) {
    const Qty b = t.usage(n, f) + (extra ? extra->get(f) : 0) - t.subtree_quota(n, f);
    if (b > 0) {
      borrowed[m.resource_of(f)] += b;
      any = true;
    }
  }
  if (!any) return 0;
  const int64_t w_milli = static_cast<int64_t>(m.cq[n].fair_weight * 1000 + 0.5);
  if (w_milli == 0) return kInfShare;
  int64_t drs = 0;
  for (int r = 0; r < m.resources; ++r) {
    if (borrowed[r] == 0) continue;
    int64_t lendable = 0;
    for (int fl = 0; fl < m.flavors; ++fl) lendable += t.potential_available(t.parent(n), m.fr(fl, r));
    if (lendable > 0) drs = std::max<int64_t>(drs, borrowed[r] * 1000 / lendable);
  }
  return drs * 1000 / w_milli;
}

bool Preemption::subtree_has(const QuotaTree& tree, NodeId node, const std::vector<std::vector<uint32_t>>& q) const {
  if (tree.is_cq(node)) return fs_cursor_[node] < q[node].size();
  for (NodeId c : tree.child_cqs(node))
    if (subtree_has(tree, c, q)) return true;
  for (NodeId c : tree.child_cohorts(node))
    if (subtree_has(tree, c, q)) return true;
  return false;
}

// nextTarget: from the root, descend into the child with the highest share among those that
// still hold candidates and borrow (the preemptor's own path is never pruned); ties go to the
// child whose next candidate comes first in candidate order.
NodeId Preemption::pick_target(const Model& m, const QuotaTree& tree, const AdmittedSet& adm, const Preemptor& in,
                               NodeId node, const std::vector<std::vector<uint32_t>>& q) const {
  if (tree.is_cq(node)) return subtree_has(tree, node, q) ? node : kNoNode;
  auto on_path = [&](NodeId c) {
    for (NodeId n = in.cq; n != kNoNode; n = tree.parent(n))
      if (n == c) return true;
    return false;
  };
  auto first_cand = [&](NodeId c) -> uint32_t {  // first remaining candidate in c's subtree (by CQ)
    uint32_t best = 0xffffffffu;
    std::vector<NodeId> stack{c};
    while (!stack.empty()) {
      NodeId x = stack.back();
      stack.pop_back();
      if (tree.is_cq(x)) {
        if (fs_cursor_[x] < q[x].size()) {
          const uint32_t s = q[x][fs_cursor_[x]];
          if (best == 0xffffffffu || s < best) best = s;  // slots were ranked in candidate order
        }
        continue;
      }
      for (NodeId y : tree.child_cqs(x)) stack.push_back(y);
      for (NodeId y : tree.child_cohorts(x)) stack.push_back(y);
    }
    return best;
  };
  NodeId best = kNoNode;
  int64_t best_share = -1;
  uint32_t best_first = 0;
  auto consider = [&](NodeId c) {
    if (!subtree_has(tree, c, q)) return;
    bool borrowing = false;
    for (FrId f = 0; f < tree.frs(); ++f) borrowing = borrowing || tree.borrowing(c, f);
    if (!borrowing && !on_path(c)) return;
    const int64_t share = dominant_resource_share(m, tree, c);
    const uint32_t first = first_cand(c);
    if (best == kNoNode || share > best_share || (share == best_share && first < best_first)) {
      best = c;
      best_share = share;
      best_first = first;
    }
  };
  for (NodeId c : tree.child_cohorts(node)) consider(c);
  for (NodeId c : tree.child_cqs(node)) consider(c);
  if (best == kNoNode) return kNoNode;
  return pick_target(m, tree, adm, in, best, q);
}

void Preemption::fair_targets(const Model& m, QuotaTree& tree, const AdmittedSet& adm, const Preemptor& in,
                              std::vector<Target>& out) {
  out.clear();
  cands_.clear();
  const PreemptionConfig& pc = m.cq[in.cq].preemption;
  if (pc.within != Policy::Never)
    for (uint32_t s : adm.in_cq(in.cq))
      if ((adm[s].usage.mask() & in.need) && satisfies_policy(pc.within, in, adm[s])) cands_.push_back({s, kNoNode, 2, false});
  const NodeId root = tree.root(in.cq);
  if (tree.has_parent(in.cq) && pc.reclaim != Policy::Never)
    for (NodeId q = 0; q < tree.size(); ++q) {
      if (!tree.is_cq(q) || q == in.cq || tree.root(q) != root) continue;
      bool borrowing = false;  // cqIsBorrowing on the frs needing preemption
      for (FrId f = 0; f < tree.frs(); ++f) borrowing = borrowing || ((in.need & fr_bit(f)) && tree.borrowing(q, f));
      if (!borrowing) continue;
      for (uint32_t s : adm.in_cq(q))
        if ((adm[s].usage.mask() & in.need) && satisfies_policy(pc.reclaim, in, adm[s])) cands_.push_back({s, kNoNode, 1, false});
    }
  sort_candidates(m, adm);
  // Rank = position in candidate order; per-CQ queues hold ranks so ties compare by order.
  const int N = tree.size();
  fs_queues_.assign(N, {});
  fs_retry_.assign(N, {});
  fs_cursor_.assign(N, 0);
  for (uint32_t r = 0; r < cands_.size(); ++r) fs_queues_[adm[cands_[r].slot].cq].push_back(r);
  auto slot_of = [&](uint32_t rank) { return cands_[rank].slot; };

  tree.add(in.cq, in.usage);  // DRS values include the incoming workload
  auto fits = [&] {           // workloadFitsForFairSharing
    tree.remove(in.cq, in.usage);
    bool ok = true;
    for (uint8_t i = 0; i < in.usage.n; ++i)
      if (in.usage.qty[i] > tree.available(in.cq, in.usage.fr[i])) ok = false;
    tree.add(in.cq, in.usage);
    return ok;
  };
  auto take = [&](uint32_t rank, Reason r) {
    const Admitted& a = adm[slot_of(rank)];
    tree.remove(a.cq, a.usage);
    out.push_back({slot_of(rank), r});
  };
  auto almost_lca = [&](NodeId target, NodeId& pre_side, NodeId& tgt_side) {
    // The children of the lowest common ancestor on each side: the first node up from the
    // target whose parent is also an ancestor of the preemptor.
    pre_side = in.cq;
    tgt_side = target;
    for (NodeId b = target; b != kNoNode && tree.parent(b) != kNoNode; b = tree.parent(b))
      for (NodeId a = in.cq; a != kNoNode; a = tree.parent(a))
        if (tree.parent(a) == tree.parent(b)) {
          pre_side = a;
          tgt_side = b;
          return;
        }
  };
  const bool within_nominal = m.gate_preempt_within_nominal && tree.within_nominal_in(in.cq, in.need);
  bool ok = false;
  // S2-a (or S2-b alone when it is the only strategy).
  const bool first_is_a = m.fs_s2a;
  for (NodeId target; !ok && (target = pick_target(m, tree, adm, in, root, fs_queues_)) != kNoNode;) {
    if (target == in.cq) {
      take(fs_queues_[target][fs_cursor_[target]++], Reason::InClusterQueue);
      ok = fits();
      continue;
    }
    if (within_nominal) {
      take(fs_queues_[target][fs_cursor_[target]++], Reason::InCohortReclamation);
      ok = fits();
      continue;
    }
    NodeId pre_side, tgt_side;
    almost_lca(target, pre_side, tgt_side);
    const int64_t pre_share = dominant_resource_share(m, tree, pre_side);
    while (fs_cursor_[target] < fs_queues_[target].size()) {
      const uint32_t rank = fs_queues_[target][fs_cursor_[target]++];
      const Admitted& a = adm[slot_of(rank)];
      const int64_t old_share = dominant_resource_share(m, tree, tgt_side);
      tree.remove(a.cq, a.usage);
      const int64_t new_share = dominant_resource_share(m, tree, tgt_side);
      tree.add(a.cq, a.usage);
      const bool pass = first_is_a ? pre_share <= new_share : pre_share < old_share;
      if (pass) {
        take(rank, Reason::InCohortFairSharing);
        ok = fits();
        break;  // shares changed: pick the target again
      }
      fs_retry_[target].push_back(rank);
    }
  }
  if (!ok && first_is_a && m.fs_s2b) {
    // S2-b over the candidates S2-a refused: one victim per CQ while the preemptor's share is
    // below the target's current share.
    fs_cursor_.assign(N, 0);
    for (NodeId target; !ok && (target = pick_target(m, tree, adm, in, root, fs_retry_)) != kNoNode;) {
      NodeId pre_side, tgt_side;
      almost_lca(target, pre_side, tgt_side);
      if (dominant_resource_share(m, tree, pre_side) < dominant_resource_share(m, tree, tgt_side)) {
        take(fs_retry_[target][0], Reason::InCohortFairSharing);
        ok = fits();
      }
      fs_cursor_[target] = static_cast<uint32_t>(fs_retry_[target].size());  // drop the CQ
    }
  }
  tree.remove(in.cq, in.usage);
  if (ok) {  // fill back, borrowing allowed
    for (int i = static_cast<int>(out.size()) - 2; i >= 0; --i) {
      const Admitted& a = adm[out[i].slot];
      tree.add(a.cq, a.usage);
      bool f = true;
      for (uint8_t k = 0; k < in.usage.n; ++k)
        if (in.usage.qty[k] > tree.available(in.cq, in.usage.fr[k])) f = false;
      if (f) {
        out[i] = out.back();
        out.pop_back();
      } else {
        tree.remove(a.cq, a.usage);
      }
    }
  }
  for (const Target& t : out) tree.add(adm[t.slot].cq, adm[t.slot].usage);
  if (!ok) out.clear();
}

// ---- flavor assignment (spec §5) ----

Mode FlavorAssigner::fits_resource_quota(const Model& m, QuotaTree& tree, const AdmittedSet& adm, Preemption& pre,
                                         const Preemptor& in, FrId f, Qty val, int& level) {
  const NodeId cq = in.cq;
  level = 0;
  if (val > tree.potential_available(cq, f)) return Mode::NoFit;
  auto [lvl, may_reclaim] = tree.borrow_level(cq, f, val);
  level = lvl;
  if (val <= tree.available(cq, f)) return Mode::Fit;
  const PreemptionConfig& pc = m.cq[cq].preemption;
  const bool allowed = val <= tree.nominal(cq, f) || may_reclaim || pc.borrow_within_cohort ||
                       (m.fair_sharing && pc.reclaim != Policy::Never);
  if (!allowed) return Mode::NoFit;
  // Preemption oracle: simulate preemption of this fr alone.
  Preemptor single = in;
  single.usage = Usage{};
  single.usage.add(f, val);
  single.need = fr_bit(f);
  pre.targets(m, tree, adm, single, oracle_targets_);
  if (oracle_targets_.empty()) return Mode::NoCandidates;
  bool all_outside = true;
  for (const Target& t : oracle_targets_) {
    if (adm[t.slot].cq == cq) all_outside = false;
    tree.remove(adm[t.slot].cq, adm[t.slot].usage);
  }
  level = tree.borrow_level(cq, f, val).first;  // borrowing after the preemptions
  for (const Target& t : oracle_targets_) tree.add(adm[t.slot].cq, adm[t.slot].usage);
  return all_outside ? Mode::Reclaim : Mode::Preempt;
}

Assignment FlavorAssigner::assign(const Model& m, QuotaTree& tree, const AdmittedSet& adm, Preemption& pre,
                                  const Preemptor& in, const Request& req, const Usage* assumed) {
  Assignment out;
  out.mode = Mode::Fit;
  const CqConfig& cfg = m.cq[in.cq];
  const FlavorFungibility& fung = cfg.fungibility;
  // Every requested resource must be covered by a group.
  for (int r = 0; r < m.resources; ++r) {
    if (req[r] <= 0) continue;
    bool covered = false;
    for (const auto& g : cfg.groups)
      for (int gr : g.resources) covered = covered || gr == r;
    if (!covered) {
      out.mode = Mode::NoFit;
      return out;
    }
  }
  for (const auto& g : cfg.groups) {
    bool requested = false;
    for (int r : g.resources) requested = requested || req[r] > 0;
    if (!requested) continue;
    int best_flavor = -1;
    Mode best_mode = Mode::NoFit;
    int best_level = 0;
    FrMask best_need = 0;
    for (int fl : g.flavors) {
      if (fl < 64 && (req.untolerated >> fl) & 1) continue;  // untolerated taint: not a candidate
      Mode mode = Mode::Fit;
      int level = 0;
      FrMask need = 0;
      for (int r : g.resources) {
        if (req[r] <= 0) continue;
        int lv = 0;
        const FrId f = m.fr(fl, r);
        const Qty val = req[r] + (assumed ? assumed->get(f) : 0);
        const Mode md = fits_resource_quota(m, tree, adm, pre, in, f, val, lv);
        if (md != Mode::Fit) need |= fr_bit(f);
        mode = std::min(mode, md);
        level = std::max(level, lv);
        if (mode == Mode::NoFit) break;
      }
      bool better;
      if (best_flavor < 0) {
        better = true;
      } else if (!fung.preemption_over_borrowing) {  // BorrowingOverPreemption
        better = mode != best_mode ? mode > best_mode : level < best_level;
      } else {
        better = level != best_level ? level < best_level : mode > best_mode;
      }
      if (better && mode != Mode::NoFit) {
        best_flavor = fl;
        best_mode = mode;
        best_level = level;
        best_need = need;
      } else if (best_flavor < 0) {
        best_mode = Mode::NoFit;
      }
      // shouldTryNextFlavor
      bool next;
      if (mode == Mode::NoFit || mode == Mode::NoCandidates) next = true;
      else if (mode == Mode::Preempt || mode == Mode::Reclaim) next = fung.preempt_try_next;
      else next = level > 0 && fung.borrow_try_next;
      if (!next) break;
    }
    if (best_flavor < 0) {
      out.mode = Mode::NoFit;
      return out;
    }
    for (int r : g.resources)
      if (req[r] > 0) out.usage.add(m.fr(best_flavor, r), req[r]);
    out.mode = std::min(out.mode, best_mode);
    out.borrow = std::max(out.borrow, best_level);
    out.need_preemption |= best_need;
  }
  return out;
}

}  // namespace floorsim::kueue
