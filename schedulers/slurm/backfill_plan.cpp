// The backfill pass's release plan: the projected free GPUs after each release group of
// cons_tres _will_run_test kept once per pass as node bit planes, so a will-run test is a few
// popcounts (same answers as backfill.cpp's will_run; src/plugins/select/cons_tres/job_test.c).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include <fmt/format.h>

#include "schedulers/common/placement.hpp"
#include "schedulers/slurm/model.hpp"
#include "sim/core/error.hpp"

namespace floorsim::slurm {

// Where every capacity, free count and release is 0 or 1 GPU on a node (1-GPU nodes), the
// levels are node bitsets built by ORs alone; false (nothing usable built) where that fails.
inline bool SlurmModel::build_plan_ones(const Snapshot& v) {
  if (cap_max_ > 1 || cap_min_ < 0) return false;
  const size_t ne = ends_.size();
  if ((ne + 1) * nw_ > (size_t{1} << 22)) return false;
  const int32_t* __restrict fr = free_.data();
  int32_t odd = 0;  // a free count other than 0 or 1 (negative ones included)
  for (size_t n = 0; n < nn_; ++n) odd |= fr[n] & ~int32_t{1};
  if (odd != 0) return false;
  if (cap_planes_ != 1) {
    cap_planes_ = 1;
    cap_bits_.assign(nw_, 0);
    for (size_t n = 0; n < nn_; ++n) cap_bits_[n >> 6] |= static_cast<uint64_t>(cap_src_[n] & 1) << (n & 63);
  }
  lvl_bits_.resize((ne + 1) * nw_);
  lvl_t_.resize(ne + 1);
  lvl_t_[0] = v.now;
  pack_nonzero(fr, nn_, lvl_bits_.data());  // the values are 0 or 1
  const bool ok = fill_levels(v, nw_, [](uint64_t* level, const NodeShare& s) {
    const uint64_t b = uint64_t{1} << (s.node & 63);
    if (s.gpus != 1 || (level[s.node >> 6] & b) != 0) return false;  // a value other than 0 or 1
    level[s.node >> 6] |= b;
    return true;
  });
  if (!ok) return false;
  // A projection over capacity (a node of 0 GPUs holding one) makes the capacity test count.
  uint64_t over = 0;
  const uint64_t* last = lvl_bits_.data() + ne * nw_;
  for (size_t w = 0; w < nw_; ++w) over |= last[w] & ~cap_bits_[w];
  cap_needed_ = over != 0;
  return true;
}

// Levels 1..ends: each the previous one with the shares of ends_[k - 1] applied by add(level,
// share) (false: give up, and so does this), with lvl_t_, end_words_ and run_bits_. Level 0 and
// lvl_t_[0] are the caller's.
template <class Add>
inline bool SlurmModel::fill_levels(const Snapshot& v, size_t per, Add&& add) {
  const size_t ne = ends_.size();
  end_words_.clear();
  end_woff_.assign(1, 0);
  run_bits_.assign(nw_, 0);
  ew_scratch_.assign(nw_, 0);  // one end's nodes; every word is zero again after each end
  for (size_t k = 0; k < ne; ++k) {
    uint64_t* level = lvl_bits_.data() + (k + 1) * per;
    std::copy_n(level - per, per, level);
    lvl_t_[k + 1] = ends_[k].t;
    for (const auto& s : end_alloc(v, ends_[k])) {
      if (!add(level, s)) return false;
      ew_scratch_[s.node >> 6] |= uint64_t{1} << (s.node & 63);
    }
    for (const auto& s : end_alloc(v, ends_[k])) {
      const auto w = static_cast<uint32_t>(s.node >> 6);
      if (ew_scratch_[w] == 0) continue;  // this word is listed already
      end_words_.push_back({w, ew_scratch_[w]});
      run_bits_[w] |= ew_scratch_[w];
      ew_scratch_[w] = 0;
    }
    end_woff_.push_back(static_cast<uint32_t>(end_words_.size()));
  }
  // An end whose nodes share one word: that word, for a usable test of two loads (group_jump).
  end_one_.resize(ne);
  for (size_t k = 0; k < ne; ++k)
    end_one_[k] = end_woff_[k + 1] == end_woff_[k] + 1 ? end_words_[end_woff_[k]] : EndWord{UINT32_MAX, 0};
  // Up to 128 nodes the scan's own word tests cost about what the blocks would save: none kept.
  end_blk_.assign(nw_ > 2 ? (ne + kEndBlock - 1) / kEndBlock * nw_ : 0, 0);
  for (size_t k = 0; k < ne && nw_ > 2; ++k)
    for (uint32_t i = end_woff_[k]; i < end_woff_[k + 1]; ++i) end_blk_[k / kEndBlock * nw_ + end_words_[i].w] |= end_words_[i].bits;
  return true;
}

// Capacities rarely change: a copy is kept with its range; the capacity planes are rebuilt when
// it changes (cap_planes_ = 0).
inline bool SlurmModel::caps_refresh(const Snapshot& v) {
  const auto& cg = v.cluster.capacity_gpus;
  if (std::equal(cap_src_.begin(), cap_src_.end(), cg.begin(), cg.end())) return false;
  cap_src_.assign(cg.begin(), cg.end());
  cap_max_ = cap_src_.empty() ? 0 : *std::max_element(cap_src_.begin(), cap_src_.end());
  cap_min_ = cap_src_.empty() ? 0 : *std::min_element(cap_src_.begin(), cap_src_.end());
  cap_planes_ = 0;
  return true;
}

// A backfill cycle after submissions only sees the running jobs, their ends and the free GPUs
// of the cycle before: the plan built then is this one (only level 0's time moves to now).
inline bool SlurmModel::plan_reusable() const {
  if (!plan_key_ok_ || ends_.size() != plan_ends_.size() || free_ != plan_free_) return false;
  for (size_t k = 0; k < ends_.size(); ++k) {
    const EndRec& a = ends_[k];
    const EndRec& b = plan_ends_[k];
    if (a.cnt != 0 || a.t != b.t || a.job != b.job) return false;
  }
  return true;
}

// will_run for a job that fits wherever its mask holds enough GPUs (sum_decides: whole-node
// free GPU counts add up, no node count, no reservation adjustments): the first release level
// whose projected sum over the mask reaches the job's GPUs is the one where will_run's fit()
// first succeeds, so that level gives the same start. The placement (shares_) is computed only
// when the caller needs it (place_lazy), from the same projection will_run would have built.
void SlurmModel::build_plan(const Snapshot& v) {
  plan_ok_ = true;
  ++scnt_gen_;  // the map's counts were of the old levels
  build_plan_levels(v);
}

void SlurmModel::build_plan_levels(const Snapshot& v) {
  if (!caps_refresh(v) && plan_reusable()) {
    if (!lvl_t_.empty()) lvl_t_[0] = v.now;
    end_max_ = ends_.empty() ? v.now : std::max(v.now, ends_.back().t);
    return;
  }
  plan_key_ok_ = std::none_of(ends_.begin(), ends_.end(), [](const EndRec& e) { return e.cnt != 0; });
  if (plan_key_ok_) {
    plan_ends_ = ends_;
    plan_free_ = free_;
  }
  planes_ = 0;
  if (build_plan_ones(v)) {
    plan_groups(v);
    planes_ = 1;
    return;
  }
  // Largest value any level or capacity takes: the number of bit planes.
  lvl_val_.assign(free_.begin(), free_.end());
  for (const auto& e : ends_)
    for (const auto& s : end_alloc(v, e)) lvl_val_[s.node] += s.gpus;
  int32_t mx = 0;
  // The capacity test can only fail where a projected value exceeds its node's capacity (the
  // last level's sum is at most the capacity sum otherwise).
  bool bad = false, capn = false;
  {
    // Branch-free reductions (vectorized): a negative free count, a negative release, a
    // negative capacity; the largest value; a projection over capacity.
    const int32_t* __restrict fr = free_.data();
    const int32_t* __restrict lv = lvl_val_.data();
    const int32_t* __restrict cg = v.cluster.capacity_gpus.data();
    int32_t neg = 0, over = 0;
    for (size_t n = 0; n < nn_; ++n) {
      neg |= fr[n] | (lv[n] - fr[n]) | cg[n];
      mx = std::max(mx, std::max(lv[n], cg[n]));
      over |= cg[n] - lv[n];
    }
    bad = neg < 0;
    capn = over < 0;
  }
  if (bad) return;  // negative: leave it to will_run
  cap_needed_ = capn;
  const int planes = std::max(1, static_cast<int>(std::bit_width(static_cast<uint32_t>(mx))));
  const size_t per = static_cast<size_t>(planes) * nw_;
  auto set_node = [&](uint64_t* P, size_t n, int32_t val) {
    const unsigned sh = static_cast<unsigned>(n & 63);
    for (int b = 0; b < planes; ++b) {
      uint64_t& w = P[b * nw_ + (n >> 6)];
      w = (w & ~(uint64_t{1} << sh)) | (static_cast<uint64_t>((val >> b) & 1) << sh);
    }
  };
  auto or_node = [&](uint64_t* P, size_t n, int32_t val) {  // into zeroed planes
    if (planes == 1) {
      P[n >> 6] |= static_cast<uint64_t>(val & 1) << (n & 63);
      return;
    }
    for (int b = 0; b < planes; ++b) P[b * nw_ + (n >> 6)] |= static_cast<uint64_t>((val >> b) & 1) << (n & 63);
  };
  // Capacities rarely change: their planes are rebuilt only when they or the plane count do.
  if (cap_planes_ != planes) {
    cap_planes_ = planes;
    cap_bits_.assign(per, 0);
    for (size_t n = 0; n < nn_; ++n) or_node(cap_bits_.data(), n, v.cluster.capacity_gpus[n]);
  }
  // A plan too large for memory (huge clusters with many running jobs) leaves will_run to it.
  if ((ends_.size() + 1) * per > (size_t{1} << 22)) return;
  const size_t ne = ends_.size();
  lvl_bits_.resize((ne + 1) * per);
  lvl_t_.resize(ne + 1);
  lvl_t_[0] = v.now;
  std::fill_n(lvl_bits_.begin(), per, 0);
  for (size_t n = 0; n < nn_; ++n) or_node(lvl_bits_.data(), n, free_[n]);
  lvl_val_.assign(free_.begin(), free_.end());
  fill_levels(v, per, [&](uint64_t* level, const NodeShare& s) {
    lvl_val_[s.node] += s.gpus;
    set_node(level, s.node, lvl_val_[s.node]);
    return true;
  });
  plan_groups(v);
  planes_ = planes;
}

// end_max_, and grp_k_: the groups exactly as will_run forms them (ReleaseGroups) for a job
// whose mask meets every running job, which will_run_fast checks: the levels it tests.
void SlurmModel::plan_groups(const Snapshot& v) {
  const size_t ne = ends_.size();
  end_max_ = ne > 0 ? std::max(v.now, ends_.back().t) : v.now;
  grp_k_.assign(1, 0);
  size_t next_k = 0;  // ends released so far
  auto release = [&](size_t k) {
    next_k = k + 1;
    return true;
  };
  auto close_level = [&] {
    grp_k_.push_back(static_cast<uint32_t>(next_k));
    return false;  // a plan is built, not tested: walk every group
  };
  SimTime last_end = 0;
  size_t walked = 0;
  release_walk(release, close_level, last_end, walked);
}

// will_run_fast's walk for a mask that misses some running jobs, group by group instead of end
// by end (same answer as release_walk with ReleaseGroups): a group is closed by the first
// released end whose successor in ends_ (released or not) ends after barrier + window, so it is
// closed at the first end on the mask at or after the last end by barrier + window, found by a
// binary search. Ends are released in between without a test; the 202nd of a run is a Skip,
// which matters only to the group open when ends run out (not tested then). Returns 1 (a start:
// last_end, next_k the ends walked), 0 (none), -1 (a barrier that is not finite: walk instead).
int SlurmModel::group_jump(size_t kstar, SimTime& last_end, size_t& next_k) const {
  const size_t ne = ends_.size();
  const EndWord* __restrict ew = end_words_.data();
  const uint64_t* __restrict mb = mbits_.data();
  const uint32_t* __restrict off = end_woff_.data();
  auto usable = [&](size_t k) {
    uint64_t any = 0;
    for (uint32_t i = off[k], e = off[k + 1]; i < e; ++i) any |= ew[i].bits & mb[ew[i].w];
    return any != 0;
  };
  // No end of block b (kEndBlock ends) is on the mask (end_blk_ is kept over 128 nodes).
  const size_t nw = nw_;
  auto block_off = [&](size_t b) {
    const uint64_t* __restrict bo = end_blk_.data() + b * nw;
    uint64_t any = 0;
    for (size_t w = 0; w < nw; ++w) any |= bo[w] & mb[w];
    return any == 0;
  };
  // The first end on the mask at or after i (ne: none).
  auto next_on = [&](size_t i) {
    const EndWord* __restrict one = end_one_.data();
    while (i < ne) {
      if (nw > 2 && i % kEndBlock == 0 && block_off(i / kEndBlock)) {
        i += kEndBlock;
        continue;
      }
      for (const size_t e = std::min(ne, (i / kEndBlock + 1) * kEndBlock); i < e; ++i) {
        if (one[i].w != UINT32_MAX) {
          if ((one[i].bits & mb[one[i].w]) != 0) return i;
        } else if (usable(i)) {
          return i;
        }
      }
    }
    return ne;
  };
  size_t k = next_on(0);  // the next end released (on the mask)
  if (k == ne) return 0;
  const SimTime barrier = next_barrier(ends_[k].t, 30);
  SimTime window = 30;
  for (;;) {
    const SimTime lim = barrier + window;
    if (!std::isfinite(lim)) return -1;
    const auto ub = static_cast<size_t>(
        std::upper_bound(ends_.begin() + static_cast<ptrdiff_t>(k), ends_.end(), lim, [](SimTime x, const EndRec& e) { return x < e.t; }) -
        ends_.begin());
    const size_t u = next_on(ub == k ? k : ub - 1);
    if (u == ne) {
      // The ends on the mask from k on are all before ub - 1: released without a test; the
      // group is tested at the end unless its last release was a Skip (every 202nd).
      size_t c = 0;
      for (size_t i = next_on(k); i < ub - 1; i = next_on(i + 1)) ++c, last_end = ends_[i].t;
      if (c % 202 == 0) return 0;
      next_k = ne;
      return ne >= kstar ? 1 : 0;
    }
    last_end = ends_[u].t;
    next_k = u + 1;
    if (next_k >= kstar) return 1;
    const SimTime next_t = u + 1 < ne ? ends_[u + 1].t : kNever;
    do window *= 2;
    while (next_t != kNever && next_t > barrier + window);
    k = next_on(u + 1);
    if (k == ne) return 0;
  }
}

// lp_gpus_ and lp_cpus_: free_ and cfree_ with the first k ends released. Kept from one call
// to the next (a plan's reservations sit at nearby levels) and moved level to level by adding
// or taking back the ends between (integer sums, exact both ways); restarted with each plan.
void SlurmModel::lvl_proj_to(const Snapshot& v, size_t k) {
  if (lp_gen_ != scnt_gen_) {
    lp_gen_ = scnt_gen_;
    lp_gpus_ = free_;
    lp_cpus_ = cfree_;
    lp_k_ = 0;
  }
  for (; lp_k_ < k; ++lp_k_) {
    cpus_take(ends_[lp_k_].job, end_alloc(v, ends_[lp_k_]), lp_cpus_, -1);
    for (const auto& s : end_alloc(v, ends_[lp_k_])) lp_gpus_[s.node] += s.gpus;
  }
  for (; lp_k_ > k; --lp_k_) {
    cpus_take(ends_[lp_k_ - 1].job, end_alloc(v, ends_[lp_k_ - 1]), lp_cpus_, +1);
    for (const auto& s : end_alloc(v, ends_[lp_k_ - 1])) lp_gpus_[s.node] -= s.gpus;
  }
}

// Where no candidate of a one-node job is short of CPUs (cpus_never_short) and the job uses one
// CPU (the cap of one_node's available CPUs), every candidate counts 1: one_node's best run is
// the first of fewest nodes (a later run replaces the best only with fewer CPUs, so fewer
// nodes; all Weights equal, so runs split at gaps alone) and its pick that run's first node.
// Candidates: the mask's nodes whose value at level lazy_k_ is at least `per` (a bit-sliced
// compare over the planes). -1: none (select_nodes then spreads, or fails).
int64_t SlurmModel::one_node_bits(int32_t per) {
  if (planes_ < 31 && (per >> planes_) != 0) return -1;
  const uint64_t* __restrict P = level(lazy_k_);
  const uint64_t* __restrict mb = mbits_.data();
  const size_t nw = nw_;
  cand_bits_.resize(nw);
  uint64_t* __restrict c = cand_bits_.data();
  for (size_t w = 0; w < nw; ++w) {
    uint64_t gt = 0, eq = mb[w];
    for (int b = planes_ - 1; b >= 0 && eq != 0; --b) {
      const uint64_t x = P[static_cast<size_t>(b) * nw + w];
      if ((per >> b) & 1) {
        eq &= x;
      } else {
        gt |= eq & x;
        eq &= ~x;
      }
    }
    c[w] = gt | eq;
  }
  // The runs of consecutive candidates, in node order; the first of length 1 cannot be beaten.
  const size_t nbits = nw * 64;
  size_t best_len = SIZE_MAX;
  int64_t best = -1;
  for (size_t pos = 0; pos < nbits;) {
    size_t w = pos >> 6;
    uint64_t x = c[w] & (~uint64_t{0} << (pos & 63));
    while (x == 0 && ++w < nw) x = c[w];
    if (x == 0) break;
    const size_t s = w * 64 + static_cast<size_t>(std::countr_zero(x));
    uint64_t y = ~c[w] & (~uint64_t{0} << (s & 63));
    while (y == 0 && ++w < nw) y = ~c[w];
    const size_t e = y == 0 ? nbits : w * 64 + static_cast<size_t>(std::countr_zero(y));
    if (e - s < best_len) {
      best_len = e - s;
      best = static_cast<int64_t>(s);
      if (best_len == 1) break;
    }
    pos = e;
  }
  return best;
}

// one_node's available CPUs are min(free CPUs, 1) for a one-CPU job; at level k a node's free
// CPUs are cfree_'s plus jcpn_ (at least 1) for each released job on it. A node holding a GPU
// at level k either had one free at level 0 or had a job released, so it has a free CPU at
// every level when cfree_ is never negative and at least 1 wherever free_ has a GPU: then
// every candidate counts 1. Checked once per plan (cfree_ and free_ change only with a start,
// which builds a new plan).
bool SlurmModel::cpus_never_short() {
  if (cpu_ok_gen_ == scnt_gen_) return cpu_ok_;
  cpu_ok_gen_ = scnt_gen_;
  const int32_t* __restrict fr = free_.data();
  const int32_t* __restrict cf = cfree_.data();
  int32_t bad = 0;
  for (size_t n = 0; n < nn_; ++n) bad |= static_cast<int32_t>(cf[n] < 0) | static_cast<int32_t>(fr[n] > 0 && cf[n] < 1);
  cpu_ok_ = bad == 0;
  return cpu_ok_;
}

}  // namespace floorsim::slurm
