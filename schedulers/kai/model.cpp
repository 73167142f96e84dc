#include "schedulers/kai/model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace floorsim::kai {

int QueueTree::add(QueueSpec q) {
  q_.push_back(std::move(q));
  return static_cast<int>(q_.size()) - 1;
}

int QueueTree::find(const std::string& name) const {
  for (int i = 0; i < size(); ++i)
    if (q_[i].name == name) return i;
  return kNoQueue;
}

bool QueueTree::finalize() {
  const int n = size();
  children_.assign(n, {});
  roots_.clear();
  order_.clear();
  depth_.assign(n, 0);
  for (int i = 0; i < n; ++i) {
    if (q_[i].parent == kNoQueue) roots_.push_back(i);
    else children_[q_[i].parent].push_back(i);
  }
  // Breadth-first from the roots; a queue never reached sits on a cycle.
  order_ = roots_;
  for (size_t h = 0; h < order_.size(); ++h)
    for (int c : children_[order_[h]]) {
      depth_[c] = depth_[order_[h]] + 1;
      order_.push_back(c);
    }
  return static_cast<int>(order_.size()) == n;
}

std::pair<int, int> QueueTree::divergence(int a, int b) const {
  int x = a, y = b;
  while (depth_[x] > depth_[y]) x = q_[x].parent;
  while (depth_[y] > depth_[x]) y = q_[y].parent;
  if (x == y) return {x, x};  // same queue (or one under the other)
  while (q_[x].parent != q_[y].parent) {  // roots share the "parent" kNoQueue
    x = q_[x].parent;
    y = q_[y].parent;
  }
  return {x, y};
}

void divide(Milli total, std::span<const ShareInput> in, Milli unit, std::span<Milli> out, DivideScratch& sc,
            double k_value) {
  const size_t n = in.size();
  Milli remaining = total;
  std::vector<Milli>& want = sc.want;
  want.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const Milli deserved = in[i].deserved == kUnlimited ? total : in[i].deserved;
    want[i] = in[i].limit == kUnlimited ? in[i].request : std::min(in[i].request, in[i].limit);  // requestable
    out[i] = std::max<Milli>(0, std::min(deserved, want[i]));
    remaining -= out[i];
  }
  if (remaining <= 0) return;
  // Over-quota surplus, priority level by level, highest first.
  std::vector<int32_t>& prios = sc.prios;
  prios.clear();
  for (const auto& q : in) prios.push_back(q.priority);
  std::sort(prios.rbegin(), prios.rend());
  prios.erase(std::unique(prios.begin(), prios.end()), prios.end());
  std::vector<size_t>& live = sc.live;
  std::vector<double>& eff = sc.eff;
  for (int32_t p : prios) {
    for (;;) {
      live.clear();
      double wsum = 0;
      for (size_t i = 0; i < n; ++i)
        if (in[i].priority == p && in[i].weight > 0 && out[i] < want[i]) {
          live.push_back(i);
          wsum += in[i].weight;
        }
      if (live.empty() || remaining <= 0) break;
      // Share weight max(0, w + k(w - usage)), w normalised over the live queues; usage is the
      // queue's historical usage over the cluster's capacity (0 without time-aware fairness).
      eff.assign(live.size(), 0);
      double esum = 0;
      for (size_t k = 0; k < live.size(); ++k) {
        const double w = in[live[k]].weight / wsum;
        eff[k] = std::max(0.0, w + k_value * (w - in[live[k]].usage));
        esum += eff[k];
      }
      if (esum <= 0) break;
      Milli given = 0;
      const Milli round_total = remaining;
      for (size_t k = 0; k < live.size(); ++k) {
        const size_t i = live[k];
        const double exact = static_cast<double>(round_total) * eff[k] / esum;
        Milli amount = static_cast<Milli>(std::floor(exact / static_cast<double>(unit))) * unit;
        amount = std::min({amount, want[i] - out[i], remaining});
        out[i] += amount;
        remaining -= amount;
        given += amount;
      }
      if (given > 0) continue;
      // Remainder below one unit per queue: one unit each, largest effective weight first.
      std::vector<size_t>& ord = sc.ord;
      ord.resize(live.size());
      std::iota(ord.begin(), ord.end(), 0);
      std::stable_sort(ord.begin(), ord.end(), [&](size_t a, size_t b) { return eff[a] > eff[b]; });
      for (size_t k : ord) {
        if (remaining <= 0 || eff[k] <= 0) break;
        const size_t i = live[k];
        const Milli amount = std::min({unit, want[i] - out[i], remaining});
        out[i] += amount;
        remaining -= amount;
      }
    }
    if (remaining <= 0) break;
  }
}

void fair_shares(const QueueTree& t, Milli capacity, std::span<const Milli> leaf_request, Milli unit,
                 std::vector<Milli>& fair, std::vector<Milli>& req, DivideScratch& sc, std::span<const double> usage,
                 double k_value, int resource) {
  const int n = t.size();
  fair.assign(n, 0);
  req.assign(n, 0);
  const auto& order = t.top_down();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {  // bottom-up request sums
    const int q = *it;
    if (t.leaf(q)) req[q] = leaf_request[q];
    if (t[q].parent != kNoQueue) req[t[q].parent] += req[q];
  }
  std::vector<ShareInput>& in = sc.in;
  std::vector<Milli>& out = sc.out;
  auto split = [&](Milli total, const std::vector<int>& kids) {
    in.clear();
    for (int c : kids) {
      const ResQuota rq = res_quota(t[c], resource);
      in.push_back({rq.quota, req[c], rq.limit, rq.weight, t[c].priority, usage.empty() ? 0.0 : usage[c]});
    }
    out.assign(kids.size(), 0);
    divide(total, in, unit, out, sc, k_value);
    for (size_t i = 0; i < kids.size(); ++i) fair[kids[i]] = out[i];
  };
  split(capacity, t.roots());
  for (int q : order)
    if (!t.leaf(q)) split(fair[q], t.children(q));
}

namespace {
// A share allocated / fair as an exact fraction; a zero fair share with allocation is infinite.
struct Share {
  Milli num = 0, den = 1;
  bool inf() const { return den == 0 && num > 0; }
  bool less(const Share& o) const {
    if (inf()) return false;
    if (o.inf()) return true;
    // Both finite; a zero fair share here has no allocation either: the share is 0.
    const Milli n = den == 0 ? 0 : num, d = den == 0 ? 1 : den, on = o.den == 0 ? 0 : o.num, od = o.den == 0 ? 1 : o.den;
    return static_cast<__int128>(n) * od < static_cast<__int128>(on) * d;
  }
};
Share dominant(const QueueState& q) {
  Share d{q.allocated, q.fair};
  for (const auto& e : q.extra) {
    const Share s{e.allocated, e.fair};
    if (d.less(s)) d = s;
  }
  return d;
}
bool has_extra(const QueueState& q) {
  for (const auto& e : q.extra)
    if (e.allocated != 0 || e.fair != 0 || e.req != 0) return true;
  return false;
}
}  // namespace

bool queue_before(const QueueState& a, Milli a_req, const QueueState& b, Milli b_req) {
  auto within = [](const QueueState& q, Milli req) {
    if (q.allocated + req > q.fair) return false;
    for (const auto& e : q.extra)
      if (e.allocated + e.req > e.fair) return false;
    return true;
  };
  const bool a_in = within(a, a_req), b_in = within(b, b_req);
  if (a_in != b_in) return a_in;
  const bool a_starved = a.allocated < a.deserved, b_starved = b.allocated < b.deserved;
  if (a_starved != b_starved) return a_starved;
  if (a.priority != b.priority) return a.priority > b.priority;
  if (has_extra(a) || has_extra(b)) {
    const Share da = dominant(a), db = dominant(b);
    if (da.less(db)) return true;
    if (db.less(da)) return false;
    return a.index < b.index;
  }
  // GPUs only: allocated / fair compared without division: a.alloc * b.fair < b.alloc * a.fair;
  // a zero fair share with allocation counts as infinitely saturated.
  const auto ratio_less = [](const QueueState& x, const QueueState& y) {
    if (x.fair == 0 || y.fair == 0) {
      const bool xi = x.fair == 0 && x.allocated > 0, yi = y.fair == 0 && y.allocated > 0;
      if (xi != yi) return yi;
      return false;
    }
    return static_cast<__int128>(x.allocated) * y.fair < static_cast<__int128>(y.allocated) * x.fair;
  };
  if (ratio_less(a, b)) return true;
  if (ratio_less(b, a)) return false;
  return a.index < b.index;
}

bool within_limits(const QueueTree& t, std::span<const Milli> alloc, int leaf, Milli req, int resource) {
  for (int q = leaf; q != kNoQueue; q = t[q].parent) {
    const Milli limit = res_quota(t[q], resource).limit;
    if (limit != kUnlimited && alloc[q] + req > limit) return false;
  }
  return true;
}

bool nonpreemptible_within_quota(const QueueTree& t, std::span<const Milli> nonpreempt_alloc, int leaf, Milli req,
                                 int resource) {
  if (req == 0) return true;  // capacity_policy isAllocatedNonPreemptibleOverQuota skips unrequested resources
  for (int q = leaf; q != kNoQueue; q = t[q].parent) {
    const Milli quota = res_quota(t[q], resource).quota;
    if (quota != kUnlimited && nonpreempt_alloc[q] + req > quota) return false;
  }
  return true;
}

bool may_reclaim(const QueueTree& t, std::span<const Milli> alloc, std::span<const Milli> fair,
                 std::span<const Milli> nonpreempt_alloc, const Claimant& in) {
  if (!in.preemptible) return nonpreemptible_within_quota(t, nonpreempt_alloc, in.queue, in.req);
  return alloc[in.queue] + in.req <= fair[in.queue];
}

bool reclaim_victim_ok(const QueueTree& t, std::span<const Milli> alloc, std::span<const Milli> fair,
                       std::span<const Milli> removed, const Claimant& in, int victim_leaf, Milli victim_req,
                       const ReclaimConfig& cfg) {
  const auto [r_div, v_div] = t.divergence(in.queue, victim_leaf);
  if (r_div == v_div) return false;  // same queue: that is preempt, not reclaim
  // The reclaimer's path below the LCA stays within fair share with the job (a non-preemptible
  // reclaimer was already held to its deserved quota by may_reclaim).
  if (in.preemptible)
    for (int q = in.queue;; q = t[q].parent) {
      if (alloc[q] + in.req > fair[q]) return false;
      if (q == r_div) break;
    }
  const QueueSpec& v = t[v_div];
  const Milli v_before = alloc[v_div] - (removed[v_div] - victim_req);
  const Milli v_after = alloc[v_div] - removed[v_div];
  const Milli deserved = v.quota == kUnlimited ? std::numeric_limits<Milli>::max() : v.quota;
  Milli keep = std::max(deserved, fair[v_div]);
  if (v.limit != kUnlimited) keep = std::min(keep, v.limit);
  const bool maintain_fair_share = v_after >= keep;
  const QueueSpec& r = t[r_div];
  const bool reclaimer_in_deserved = r.quota == kUnlimited || alloc[r_div] + in.req <= r.quota;
  const bool guarantee_deserved = reclaimer_in_deserved && v.quota != kUnlimited && v_before > v.quota;
  if (!maintain_fair_share && !guarantee_deserved) return false;
  // Reclaimer saturation (only when above 1) x multiplier must stay below the victim's.
  const double r_fair = static_cast<double>(fair[r_div]);
  const double r_sat = r_fair > 0 ? static_cast<double>(alloc[r_div] + in.req) / r_fair
                                  : std::numeric_limits<double>::infinity();
  if (r_sat > 1.0) {
    const double v_fair = static_cast<double>(fair[v_div]);
    const double v_sat = v_fair > 0 ? static_cast<double>(v_after) / v_fair : std::numeric_limits<double>::infinity();
    if (!(r_sat * cfg.reclaimer_utilization_multiplier < v_sat)) return false;
  }
  return true;
}

bool reclaim_victim_ok_res(const QueueTree& t, const ResState (&res)[kResources], const Claimant& in,
                           const Milli (&in_req)[kResources], int victim_leaf, const Milli (&victim_req)[kResources],
                           const ReclaimConfig& cfg) {
  const auto [r_div, v_div] = t.divergence(in.queue, victim_leaf);
  if (r_div == v_div) return false;
  bool involved[kResources];
  for (int r = 0; r < kResources; ++r) involved[r] = !res[r].alloc.empty() && (in_req[r] > 0 || victim_req[r] > 0);
  if (in.preemptible)
    for (int q = in.queue;; q = t[q].parent) {
      for (int r = 0; r < kResources; ++r)
        if (!res[r].alloc.empty() && res[r].alloc[q] + in_req[r] > res[r].fair[q]) return false;
      if (q == r_div) break;
    }
  bool maintain = true, reclaimer_in_deserved = true, victim_over_deserved = false;
  for (int r = 0; r < kResources; ++r) {
    if (!involved[r]) continue;
    const ResQuota vq = res_quota(t[v_div], r), rq = res_quota(t[r_div], r);
    const Milli v_before = res[r].alloc[v_div] - (res[r].removed[v_div] - victim_req[r]);
    const Milli v_after = res[r].alloc[v_div] - res[r].removed[v_div];
    Milli keep = std::max(vq.quota == kUnlimited ? std::numeric_limits<Milli>::max() : vq.quota, res[r].fair[v_div]);
    if (vq.limit != kUnlimited) keep = std::min(keep, vq.limit);
    maintain = maintain && v_after >= keep;
    reclaimer_in_deserved = reclaimer_in_deserved && (rq.quota == kUnlimited || res[r].alloc[r_div] + in_req[r] <= rq.quota);
    victim_over_deserved = victim_over_deserved || (vq.quota != kUnlimited && v_before > vq.quota);
  }
  if (!maintain && !(reclaimer_in_deserved && victim_over_deserved)) return false;
  auto sat = [](Milli a, Milli f) {
    return f > 0 ? static_cast<double>(a) / static_cast<double>(f) : a > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  };
  for (int r = 0; r < kResources; ++r) {
    if (!involved[r]) continue;
    const double r_sat = sat(res[r].alloc[r_div] + in_req[r], res[r].fair[r_div]);
    const Milli v_fair = res[r].fair[v_div];
    if (r_sat > 1.0 && v_fair > 0 &&
        r_sat * cfg.reclaimer_utilization_multiplier >= sat(res[r].alloc[v_div] - res[r].removed[v_div], v_fair))
      return false;
  }
  return true;
}

bool select_victims(const QueueTree& t, std::span<const RunningJob> candidates, const AdmissibleFn& admissible,
                    const FitsFn& fits, std::vector<uint32_t>& chosen) {
  chosen.clear();
  std::vector<Milli> removed(t.size(), 0);
  std::vector<size_t> idx;  // candidate index of each chosen key
  bool ok = false;
  for (size_t i = 0; i < candidates.size() && !ok; ++i) {
    const RunningJob& c = candidates[i];
    for (int q = c.queue; q != kNoQueue; q = t[q].parent) removed[q] += c.req;
    if (!admissible(c, removed)) {
      for (int q = c.queue; q != kNoQueue; q = t[q].parent) removed[q] -= c.req;
      continue;
    }
    chosen.push_back(c.key);
    idx.push_back(i);
    ok = fits(chosen);
  }
  if (!ok) {
    chosen.clear();
    return false;
  }
  // Fill back: try returning each victim but the last, newest choice first.
  for (size_t k = chosen.size() - 1; k-- > 0;) {
    const uint32_t key = chosen[k];
    chosen.erase(chosen.begin() + static_cast<std::ptrdiff_t>(k));
    if (!fits(chosen)) chosen.insert(chosen.begin() + static_cast<std::ptrdiff_t>(k), key);
  }
  return true;
}

void reclaim_candidates(const QueueTree& t, std::span<const Milli> alloc, std::span<const Milli> fair,
                        std::span<const RunningJob> running, const Claimant& in, std::vector<RunningJob>& out) {
  out.clear();
  for (const auto& r : running) {
    if (!r.preemptible || r.queue == kNoQueue) continue;
    const auto [rd, vd] = t.divergence(in.queue, r.queue);
    if (rd == vd) continue;
    out.push_back(r);
  }
  // Victim queue order: the reverse of queue order (most saturated, lowest priority first).
  auto sat_more = [&](int a, int b) {  // alloc[a]/fair[a] > alloc[b]/fair[b]
    const __int128 l = static_cast<__int128>(alloc[a]) * std::max<Milli>(fair[b], 1);
    const __int128 r = static_cast<__int128>(alloc[b]) * std::max<Milli>(fair[a], 1);
    return l > r;
  };
  std::stable_sort(out.begin(), out.end(), [&](const RunningJob& a, const RunningJob& b) {
    const int va = t.divergence(in.queue, a.queue).second, vb = t.divergence(in.queue, b.queue).second;
    if (va != vb) {
      if (t[va].priority != t[vb].priority) return t[va].priority < t[vb].priority;
      if (sat_more(va, vb)) return true;
      if (sat_more(vb, va)) return false;
      return va < vb;
    }
    if (a.queue != b.queue) return a.queue < b.queue;
    if (a.priority != b.priority) return a.priority < b.priority;
    if (a.start_s != b.start_s) return a.start_s > b.start_s;
    return a.key > b.key;
  });
}

void preempt_candidates(std::span<const RunningJob> running, const Claimant& in, std::vector<RunningJob>& out) {
  out.clear();
  for (const auto& r : running)
    if (r.queue == in.queue && r.preemptible && r.priority < in.priority) out.push_back(r);
  std::stable_sort(out.begin(), out.end(), [](const RunningJob& a, const RunningJob& b) {
    if (a.priority != b.priority) return a.priority < b.priority;
    if (a.start_s != b.start_s) return a.start_s > b.start_s;
    return a.key > b.key;
  });
}

double preempt_min_runtime(const QueueTree& t, int q, double dflt) {
  for (; q != kNoQueue; q = t[q].parent)
    if (t[q].preempt_min_runtime_s >= 0) return t[q].preempt_min_runtime_s;
  return dflt;
}

double reclaim_min_runtime(const QueueTree& t, int claimant, int victim, double dflt, bool lca) {
  auto path = [&](int q) {  // root first
    std::vector<int> p;
    for (; q != kNoQueue; q = t[q].parent) p.insert(p.begin(), q);
    return p;
  };
  const std::vector<int> pv = path(victim);
  if (!lca) {
    for (auto it = pv.rbegin(); it != pv.rend(); ++it)
      if (t[*it].reclaim_min_runtime_s >= 0) return t[*it].reclaim_min_runtime_s;
    return dflt;
  }
  const std::vector<int> pc = path(claimant);
  if (pc.front() != pv.front()) return t[pv.front()].reclaim_min_runtime_s >= 0 ? t[pv.front()].reclaim_min_runtime_s : dflt;
  size_t at = 0;
  for (size_t i = 0; i < std::min(pc.size(), pv.size()) && pc[i] == pv[i]; ++i) at = i;
  if (at + 1 < pv.size()) ++at;
  for (size_t i = at + 1; i-- > 0;)
    if (t[pv[i]].reclaim_min_runtime_s >= 0) return t[pv[i]].reclaim_min_runtime_s;
  return dflt;
}

}  // namespace floorsim::kai
