// Kueue's queues and scheduling cycle (pkg/queue/cluster_queue.go, manager.go;
// pkg/scheduler/scheduler.go schedule()); the header says what the core holds.
#include "schedulers/kueue/core.hpp"

#include <algorithm>
#include <cmath>

namespace floorsim::kueue {

const char* to_string(Outcome o) {
  switch (o) {
    case Outcome::Admitted: return "Admitted";
    case Outcome::PreemptIssued: return "PreemptIssued";
    case Outcome::NoFit: return "NoFit";
    case Outcome::NoCandidates: return "NoCandidates";
    case Outcome::Skipped: return "Skipped";
    case Outcome::NoNodes: return "NoNodes";
    case Outcome::Inactive: return "Inactive";
  }
  return "Unknown";
}

Core::Core(Model model, CoreSettings settings, size_t max_keys) : m_(std::move(model)), s_(settings) {
  const int N = m_.tree.size();
  m_.cq.resize(N);
  adm_.reset(N);
  info_.assign(max_keys, Info{});
  slot_.assign(max_keys, kNoSlot);
  heap_.assign(N, {});
  inadmissible_.assign(N, {});
  sticky_.assign(N, kNoKey);
  root_assigned_.assign(N, 0);
  for (NodeId n = 0; n < N; ++n)
    if (m_.tree.is_cq(n)) cq_nodes_.push_back(n);
  lqs_.assign(1, Lq{});
  lq_scores_.assign(1, 0);
  memo_.assign(static_cast<size_t>(N) * kMemoWays, Memo{});
  memo_next_.assign(N, 0);
}

// Heap order (spec §3 baseCompareFunc): higher priority, then older timestamp, then uid.
bool Core::heap_less(uint32_t a, uint32_t b) const {
  const Info& x = info_[a];
  const Info& y = info_[b];
  if (x.priority != y.priority) return x.priority < y.priority;
  if (x.queue_ts != y.queue_ts) return x.queue_ts > y.queue_ts;
  return x.uid > y.uid;
}

void Core::push_heap(uint32_t key) {
  auto& h = heap_[info_[key].cq];
  h.push_back(key);
  std::push_heap(h.begin(), h.end(), [this](uint32_t a, uint32_t b) { return heap_less(a, b); });
  info_[key].where = Where::Heap;
}

uint32_t Core::pop_heap(NodeId cq, double now) {
  auto& h = heap_[cq];
  if (s_.afs && m_.cq[cq].admission_fair_sharing) {
    // Usage-based admission fair sharing: the LocalQueue usage is read at pop time (it decays
    // with time), so the head is found by a scan: lowest LQ usage, then the usual order.
    size_t best = 0;
    double best_u = lq_usage(info_[h[0]].lq, now);
    for (size_t i = 1; i < h.size(); ++i) {
      const double u = lq_usage(info_[h[i]].lq, now);
      if (u < best_u || (u == best_u && heap_less(h[best], h[i]))) {
        best = i;
        best_u = u;
      }
    }
    const uint32_t k = h[best];
    h[best] = h.back();
    h.pop_back();
    std::make_heap(h.begin(), h.end(), [this](uint32_t a, uint32_t b) { return heap_less(a, b); });
    return k;
  }
  std::pop_heap(h.begin(), h.end(), [this](uint32_t a, uint32_t b) { return heap_less(a, b); });
  const uint32_t k = h.back();
  h.pop_back();
  return k;
}

void Core::set_local_queue_weights(std::vector<double> weights) {
  lqs_.assign(std::max<size_t>(1, weights.size()), Lq{});
  for (size_t i = 0; i < weights.size(); ++i) lqs_[i].weight = weights[i];
  lq_scores_.assign(lqs_.size(), 0);
}

void Core::afs_advance(Lq& q, double now) {
  const int64_t k = static_cast<int64_t>(std::floor(now / s_.afs_sampling_s));
  if (k <= q.sample) return;
  // k - sample samples with constant usage, in closed form.
  const double a = 1 - std::pow(0.5, s_.afs_sampling_s / s_.afs_half_life_s);
  const double keep = std::pow(1 - a, static_cast<double>(k - q.sample));
  for (int r = 0; r < kMaxRes; ++r) {
    q.consumed[r] = q.consumed[r] * keep + q.usage[r] * (1 - keep);
    q.penalty[r] = 0;  // the sample now holds what the penalties stood for
  }
  q.sample = k;
}

double Core::lq_usage(uint32_t lq, double now) {
  if (lq >= lqs_.size()) return 0;
  Lq& q = lqs_[lq];
  afs_advance(q, now);
  double u = 0;
  for (int r = 0; r < kMaxRes; ++r) u += s_.afs_weights[r] * (q.consumed[r] + q.penalty[r]);
  return q.weight > 0 ? u / q.weight : (u > 0 ? HUGE_VAL : 0);
}

void Core::afs_charge(uint32_t key, double now, int sign) {
  if (!s_.afs) return;
  const Info& i = info_[key];
  if (i.lq >= lqs_.size()) return;
  Lq& q = lqs_[i.lq];
  afs_advance(q, now);
  const double a = 1 - std::pow(0.5, s_.afs_sampling_s / s_.afs_half_life_s);
  for (int r = 0; r < kMaxRes; ++r) {
    q.usage[r] += sign * static_cast<double>(i.req[r]);
    if (sign > 0) q.penalty[r] += a * static_cast<double>(i.req[r]);  // entry penalty
  }
}

void Core::enqueue(uint32_t key, NodeId cq, int32_t priority, double queue_ts, uint32_t uid, const Request& req,
                   uint32_t lq) {
  Info& i = info_[key];
  i.lq = lq;
  i.cq = cq;
  i.priority = priority;
  i.queue_ts = queue_ts;
  i.uid = uid;
  i.req = req;
  push_heap(key);
}

void Core::forget(uint32_t key) {
  Info& i = info_[key];
  auto drop = [key](std::vector<uint32_t>& v) { v.erase(std::remove(v.begin(), v.end(), key), v.end()); };
  switch (i.where) {
    case Where::Heap: {
      auto& h = heap_[i.cq];
      drop(h);
      std::make_heap(h.begin(), h.end(), [this](uint32_t a, uint32_t b) { return heap_less(a, b); });
      break;
    }
    case Where::Inadmissible: drop(inadmissible_[i.cq]); break;
    case Where::WaitingNodes: drop(waiting_nodes_); break;
    case Where::Sticky: sticky_[i.cq] = kNoKey; break;
    default: break;
  }
  i.where = Where::None;
}

void Core::to_inadmissible(uint32_t key) {
  inadmissible_[info_[key].cq].push_back(key);
  info_[key].where = Where::Inadmissible;
}

// notifyRetryInadmissible: any event that may free quota in a root cohort tree moves the
// inadmissible workloads of every CQ in that tree back to their heaps (spec §3).
void Core::retry_inadmissible(NodeId root) {
  for (NodeId cq : cq_nodes_) {
    if (m_.tree.root(cq) != root || inadmissible_[cq].empty()) continue;
    for (uint32_t k : inadmissible_[cq]) push_heap(k);
    inadmissible_[cq].clear();
  }
}

void Core::retry_waiting_for_nodes() {
  for (uint32_t k : waiting_nodes_) push_heap(k);
  waiting_nodes_.clear();
}

void Core::assume_admitted(uint32_t key, NodeId cq, int32_t priority, double queue_ts, uint32_t uid,
                           const Usage& u, double reserved_s) {
  Info& i = info_[key];
  i.cq = cq;
  i.priority = priority;
  i.queue_ts = queue_ts;
  i.uid = uid;
  i.where = Where::Admitted;
  Admitted a;
  a.key = key;
  a.uid = uid;
  a.cq = cq;
  a.priority = priority;
  a.queue_ts = queue_ts;
  a.reserved_s = reserved_s;
  a.usage = u;
  a.lq = i.lq;
  i.req = Request{};
  for (uint8_t k = 0; k < u.n; ++k) i.req[m_.resource_of(u.fr[k])] += u.qty[k];
  slot_[key] = adm_.insert(a);
  m_.tree.add(cq, u);
  afs_charge(key, reserved_s, +1);  // so that release() takes back what it adds
  ++version_;
}

void Core::release(uint32_t key, double now) {
  const uint32_t s = slot_[key];
  if (s == kNoSlot) return;
  if (now < 0) now = now_;
  afs_charge(key, now, -1);
  const NodeId cq = adm_[s].cq;
  m_.tree.remove(cq, adm_[s].usage);
  adm_.erase(s);
  ++version_;
  slot_[key] = kNoSlot;
  info_[key].where = Where::None;
  retry_inadmissible(m_.tree.root(cq));
}

Preemptor Core::preemptor_of(uint32_t key) const {
  const Info& i = info_[key];
  Preemptor p;
  p.cq = i.cq;
  p.priority = i.priority;
  p.queue_ts = i.queue_ts;
  p.uid = i.uid;
  return p;
}

// One scheduling cycle, in the shape of Kueue's Scheduler.schedule() (pkg/scheduler/scheduler.go):
// take the heads, nominate them against one snapshot, order them, process them one by one on a
// mutating snapshot, then commit what was decided (admit, issue preemptions, requeue).
bool Core::cycle(double now, const PlaceFn& place, std::vector<CycleRecord>& records,
                 std::vector<Eviction>& evictions) {
  now_ = now;
  if (s_.afs) {  // LocalQueue usages for the preemption candidate order (spec §6)
    for (uint32_t q = 0; q < lqs_.size(); ++q) lq_scores_[q] = lq_usage(q, now);
    pre_.lq_score = &lq_scores_;
  }
  if (!take_heads(now)) return false;
  for (Entry& e : entries_) nominate(e);
  std::sort(entries_.begin(), entries_.end(), [this](const Entry& x, const Entry& y) { return classical_before(x, y); });
  process_entries(place, records);
  return commit_entries(now, evictions);
}

// Heads (queue.Manager.Heads): one per CQ, the sticky preemptor first. False if there are none.
bool Core::take_heads(double now) {
  entries_.clear();
  tpool_.clear();
  cpool_.clear();
  for (NodeId cq : cq_nodes_) {
    uint32_t key = sticky_[cq];
    if (key == kNoKey) {
      if (heap_[cq].empty()) continue;
      key = pop_heap(cq, now);
    }
    info_[key].where = Where::Head;
    entries_.push_back(Entry{key, Assignment{}, 0, 0});
  }
  return !entries_.empty();
}

// nominate(): flavor assignment and, where it needs preemption, the targets, against the
// snapshot at the start of the cycle. Failed nominations are memoized (see Memo).
void Core::nominate(Entry& e) {
  const Info& i = info_[e.key];
  if (!m_.cq[i.cq].active) return;
  Preemptor in = preemptor_of(e.key);
  if (auto ps = podsets_.find(e.key); ps != podsets_.end()) return nominate_podsets(e, in, ps->second);
  const bool ts_matters = m_.cq[i.cq].preemption.within == Policy::LowerOrNewerEqualPriority;
  for (int w = 0; w < kMemoWays; ++w) {
    const Memo& mm = memo_[static_cast<size_t>(i.cq) * kMemoWays + w];
    if (mm.version == version_ && mm.priority == i.priority && mm.req == i.req && (!ts_matters || mm.ts == i.queue_ts)) {
      e.a = mm.a;
      return;
    }
  }
  e.a = fa_.assign(m_, m_.tree, adm_, pre_, in, i.req);
  if (e.a.representative_preempt()) {
    in.usage = e.a.usage;
    in.need = e.a.need_preemption;
    pre_.targets(m_, m_.tree, adm_, in, tbuf_);
    e.t_off = static_cast<uint32_t>(tpool_.size());
    e.t_cnt = static_cast<uint32_t>(tbuf_.size());
    tpool_.insert(tpool_.end(), tbuf_.begin(), tbuf_.end());
  }
  if (e.a.mode == Mode::NoFit || (e.a.representative_preempt() && e.t_cnt == 0)) {
    Memo& mm = memo_[static_cast<size_t>(i.cq) * kMemoWays + memo_next_[i.cq]];
    memo_next_[i.cq] = static_cast<uint8_t>((memo_next_[i.cq] + 1) % kMemoWays);
    mm.version = version_;
    mm.req = i.req;
    mm.priority = i.priority;
    mm.ts = i.queue_ts;
    mm.a = e.a;
  }
}

// Entry order (makeClassicalIterator): lower borrow level, higher priority, older, uid.
bool Core::classical_before(const Entry& x, const Entry& y) const {
  if (x.a.borrow != y.a.borrow) return x.a.borrow < y.a.borrow;
  const Info& a = info_[x.key];
  const Info& b = info_[y.key];
  if (s_.priority_sorting_within_cohort && a.priority != b.priority) return a.priority > b.priority;
  if (a.queue_ts != b.queue_ts) return a.queue_ts < b.queue_ts;
  return a.uid < b.uid;
}

bool Core::is_claimed(uint32_t slot) const { return slot < claimed_.size() && claimed_[slot]; }

void Core::claim(uint32_t slot) {
  if (slot >= claimed_.size()) claimed_.resize(slot + 1, 0);
  claimed_[slot] = 1;
  claimed_list_.push_back(slot);
}

// Processes the ordered entries one by one on the mutating snapshot (in fair sharing, the
// order of the tournament), recording each outcome; the snapshot is back at the cycle start
// afterwards.
void Core::process_entries(const PlaceFn& place, std::vector<CycleRecord>& records) {
  saved_usage_ = m_.tree.usage_array();
  claimed_list_.clear();
  std::fill(root_assigned_.begin(), root_assigned_.end(), 0);
  for (size_t step = 0; step < entries_.size(); ++step) {
    const int idx = m_.fair_sharing ? next_fair_entry() : static_cast<int>(step);
    Entry& e = entries_[idx];
    e.done = true;
    e.outcome = process_entry(e, place);
    records.push_back({e.key, e.outcome, e.a.mode, e.a.borrow});
  }
  for (uint32_t s : claimed_list_) claimed_[s] = 0;
  m_.tree.restore_usage(saved_usage_);
}

// What one entry gets on the snapshot as the earlier entries of this cycle left it.
Outcome Core::process_entry(const Entry& e, const PlaceFn& place) {
  const NodeId cq = info_[e.key].cq;
  if (!m_.cq[cq].active) return Outcome::Inactive;
  if (e.a.mode == Mode::NoFit) return Outcome::NoFit;
  if (e.a.representative_preempt() && e.t_cnt == 0) {
    if (m_.cq[cq].preemption.reclaim != Policy::Any) reserve_capacity(e);
    return Outcome::NoCandidates;
  }
  const Target* tb = tpool_.data() + e.t_off;
  for (uint32_t t = 0; t < e.t_cnt; ++t)
    if (is_claimed(tb[t].slot)) return Outcome::Skipped;  // overlapping targets
  const NodeId root = m_.tree.root(cq);
  if (s_.legacy_one_borrower_per_cohort && e.a.borrow > 0 && root_assigned_[root]) return Outcome::Skipped;
  if (!fits_after_claims(e)) return Outcome::Skipped;
  if (e.a.representative_preempt()) {
    for (uint32_t t = 0; t < e.t_cnt; ++t) claim(tb[t].slot);
    m_.tree.add(cq, e.a.usage);
    root_assigned_[root] = 1;
    return Outcome::PreemptIssued;
  }
  if (place) {
    placing_ = e.a.usage;
    placing_counts_.assign(cpool_.begin() + e.c_off, cpool_.begin() + e.c_off + e.c_cnt);
    if (!place(e.key)) return Outcome::NoNodes;
  }
  m_.tree.add(cq, e.a.usage);
  root_assigned_[root] = 1;
  return Outcome::Admitted;
}

// No victims: reserve the capacity (capped at nominal, or nominal + borrowingLimit when
// borrowing) so that later entries cannot take it, unless reclaim=Any (spec §4.4).
void Core::reserve_capacity(const Entry& e) {
  const NodeId cq = info_[e.key].cq;
  for (uint8_t k = 0; k < e.a.usage.n; ++k) {
    const FrId f = e.a.usage.fr[k];
    const Qty want = e.a.usage.qty[k];
    Qty r;
    if (e.a.borrow > 0) {
      const Qty bl = m_.tree.borrowing_limit(cq, f);
      r = bl == kNoLimit ? want : std::min(want, m_.tree.nominal(cq, f) + bl - m_.tree.usage(cq, f));
    } else {
      r = std::max<Qty>(0, std::min(want, m_.tree.nominal(cq, f) - m_.tree.usage(cq, f)));
    }
    if (r > 0) m_.tree.add_usage(cq, f, r);
  }
}

// fits(): with this cycle's victims and the entry's own targets removed.
bool Core::fits_after_claims(const Entry& e) {
  const NodeId cq = info_[e.key].cq;
  const Target* tb = tpool_.data() + e.t_off;
  for (uint32_t s : claimed_list_) m_.tree.remove(adm_[s].cq, adm_[s].usage);
  for (uint32_t t = 0; t < e.t_cnt; ++t) m_.tree.remove(adm_[tb[t].slot].cq, adm_[tb[t].slot].usage);
  const bool ok = m_.tree.fits(cq, e.a.usage);
  for (uint32_t s : claimed_list_) m_.tree.add(adm_[s].cq, adm_[s].usage);
  for (uint32_t t = 0; t < e.t_cnt; ++t) m_.tree.add(adm_[tb[t].slot].cq, adm_[tb[t].slot].usage);
  return ok;
}

// Commits the outcomes on the real state, in entry order: admissions, preemptions issued
// (the preemptor becomes its CQ's sticky head), requeues. Returns whether a later cycle at
// this instant can make progress.
bool Core::commit_entries(double now, std::vector<Eviction>& evictions) {
  bool progress = false;
  bool committed = false;
  bool skipped = false;
  for (const Entry& e : entries_) {
    Info& i = info_[e.key];
    const NodeId cq = i.cq;
    const bool strict = m_.cq[cq].strict_fifo;
    const bool was_sticky = sticky_[cq] == e.key;
    switch (e.outcome) {
      case Outcome::Admitted:
        if (was_sticky) sticky_[cq] = kNoKey;
        admit(e, now);
        progress = committed = true;
        break;
      case Outcome::PreemptIssued:
        sticky_[cq] = e.key;
        i.where = Where::Sticky;
        if (issue_evictions(e, evictions)) progress = committed = true;
        break;
      case Outcome::Skipped:  // FailedAfterNomination: straight back, whatever the strategy
        if (was_sticky) {  // stays the sticky head
          i.where = Where::Sticky;
          break;
        }
        push_heap(e.key);
        skipped = true;
        break;
      case Outcome::NoNodes:
        if (was_sticky) sticky_[cq] = kNoKey;
        if (strict) {
          push_heap(e.key);
        } else {
          waiting_nodes_.push_back(e.key);
          i.where = Where::WaitingNodes;
          progress = true;
        }
        break;
      default:  // NoFit, NoCandidates, Inactive
        if (was_sticky) sticky_[cq] = kNoKey;
        if (strict) {
          push_heap(e.key);  // StrictFIFO: the head blocks its queue
        } else {
          to_inadmissible(e.key);
          progress = true;
        }
        break;
    }
  }
  // A skipped head is worth another cycle only if something really changed in this one (an
  // admission or a new eviction), not for a re-issued preemption or a transient reservation.
  if (skipped && committed) progress = true;
  if (committed) ++version_;  // admissions and eviction marks change what heads can do
  return progress;
}

void Core::admit(const Entry& e, double now) {
  Info& i = info_[e.key];
  Admitted a;
  a.key = e.key;
  a.uid = i.uid;
  a.cq = i.cq;
  a.priority = i.priority;
  a.queue_ts = i.queue_ts;
  a.reserved_s = now;
  a.usage = e.a.usage;
  a.lq = i.lq;
  slot_[e.key] = adm_.insert(a);
  m_.tree.add(i.cq, a.usage);
  i.where = Where::Admitted;
  afs_charge(e.key, now, +1);
}

// Marks the entry's targets evicted; a victim already being evicted keeps its quota until it
// stops. Returns whether any new eviction was issued.
bool Core::issue_evictions(const Entry& e, std::vector<Eviction>& evictions) {
  bool any = false;
  const Target* tb = tpool_.data() + e.t_off;
  for (uint32_t t = 0; t < e.t_cnt; ++t) {
    Admitted& v = adm_[tb[t].slot];
    if (v.evicted) continue;
    v.evicted = true;
    evictions.push_back({v.key, e.key, tb[t].reason});
    any = true;
  }
  return any;
}

// Compares two entries at cohort `at` (spec §7): not borrowing first (gate
// FairSharingPrioritizeNonBorrowing), lower share of the child of `at` on the entry's path
// with the entry's usage added, higher priority, older, uid.
bool Core::fair_before(const Entry& x, const Entry& y, NodeId at) const {
  if (m_.gate_prioritize_non_borrowing && (x.a.borrow == 0) != (y.a.borrow == 0)) return x.a.borrow == 0;
  auto child_of = [&](NodeId cq) {
    NodeId c = cq;
    while (m_.tree.parent(c) != at && m_.tree.parent(c) != kNoNode) c = m_.tree.parent(c);
    return c;
  };
  const int64_t sx = dominant_resource_share(m_, m_.tree, child_of(info_[x.key].cq), &x.a.usage);
  const int64_t sy = dominant_resource_share(m_, m_.tree, child_of(info_[y.key].cq), &y.a.usage);
  if (sx != sy) return sx < sy;
  const Info& a = info_[x.key];
  const Info& b = info_[y.key];
  if (a.priority != b.priority) return a.priority > b.priority;
  if (a.queue_ts != b.queue_ts) return a.queue_ts < b.queue_ts;
  return a.uid < b.uid;
}

int Core::tournament(NodeId node) {
  if (m_.tree.is_cq(node)) {
    for (size_t i = 0; i < entries_.size(); ++i)
      if (!entries_[i].done && info_[entries_[i].key].cq == node) return static_cast<int>(i);
    return -1;
  }
  int best = -1;
  auto consider = [&](int w) {
    if (w >= 0 && (best < 0 || fair_before(entries_[w], entries_[best], node))) best = w;
  };
  for (NodeId c : m_.tree.child_cohorts(node)) consider(tournament(c));
  for (NodeId c : m_.tree.child_cqs(node)) consider(tournament(c));
  return best;
}

int Core::next_fair_entry() {
  // Root trees in node order; within a tree, the tournament winner.
  for (const NodeId n : m_.tree.post_order()) {
    if (m_.tree.has_parent(n)) continue;
    const int w = tournament(n);
    if (w >= 0) return w;
  }
  return -1;
}

void Core::pass(double now, const PlaceFn& place, std::vector<CycleRecord>& records,
                std::vector<Eviction>& evictions) {
  // Cycles until one changes nothing (no admission, no new eviction, no head set aside).
  while (cycle(now, place, records, evictions)) {
  }
}

}  // namespace floorsim::kueue
