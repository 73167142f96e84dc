// The backfill pass: the node-space map, will-run tests with running jobs released in end-time
// groups, and reservations of future starts. Follows src/plugins/sched/backfill/backfill.c
// (_attempt_backfill) and src/plugins/select/cons_tres/job_test.c (_will_run_test); https://slurm.schedmd.com/sched_config.html.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include <fmt/format.h>

#include "schedulers/common/placement.hpp"
#include "schedulers/slurm/clock.hpp"
#include "schedulers/slurm/model.hpp"
#include "sim/core/error.hpp"

namespace floorsim::slurm {

constexpr SimTime kYear_s = 365.0 * 86400;  // an infinite time limit in the backfill map (_set_backfill_timelimits)

inline void SlurmModel::map_reset(SimTime begin, SimTime end) {
  slices_.clear();
  slices_.push_back({begin, end, kNoIdx});
  nw_ = (nn_ + 63) / 64;
  slice_mask_.assign(nw_, 0);
  pack_nonzero(avail_.data(), nn_, slice_mask_.data());
  avail_bits_ = slice_mask_;
  ++scnt_gen_;
  scnt_.assign(part_.size(), SliceCount{0, 0});
  ssum_.assign(part_.size(), SliceCount{0, 0});
  if (wrf_cache_.words() != nw_) wrf_cache_.reset(nw_);
}

// Splits the slice containing t so that a slice begins at t; returns its index (kNoIdx if t is
// at or past the map's end).
uint32_t SlurmModel::map_split(SimTime t, uint32_t from) {
  for (uint32_t i = from; i != kNoIdx; i = slices_[i].next) {
    Slice& s = slices_[i];
    if (s.begin == t) return i;
    if (s.begin < t && t < s.end) {
      const uint32_t k = static_cast<uint32_t>(slices_.size());
      slices_.push_back({t, s.end, s.next});
      slices_[i].end = t;
      slices_[i].next = k;
      slice_mask_.resize(slice_mask_.size() + nw_);
      std::copy_n(slice_mask_.begin() + static_cast<ptrdiff_t>(i * nw_), nw_, slice_mask_.begin() + static_cast<ptrdiff_t>(k * nw_));
      // The new slice has the same nodes, so the same counts.
      const size_t np = part_.size();
      scnt_.resize(scnt_.size() + np);
      std::copy_n(scnt_.begin() + static_cast<ptrdiff_t>(i * np), np, scnt_.begin() + static_cast<ptrdiff_t>(k * np));
      // Slice i now ends earlier (another level): its own bound and the new slice's are not kept.
      if (nw_ > 2) {
        ssum_.resize(ssum_.size() + np);
        for (size_t p = 0; p < np; ++p) ssum_[i * np + p].at = ssum_[k * np + p].at = 0;
      }
      return k;
    }
  }
  return kNoIdx;
}

// `from`: a slice that begins at or before `start` (a hint: the walk starts there).
inline void SlurmModel::map_add(SimTime start, SimTime end, uint32_t from) {
  if (start < slices_[0].begin) {
    start = slices_[0].begin;
    from = 0;
  }
  if (end <= start) return;
  const uint32_t a = map_split(start, from);
  if (a == kNoIdx) return;
  map_split(end, a);
  const size_t np = part_.size();
  for (uint32_t i = a; i != kNoIdx && slices_[i].begin < end; i = slices_[i].next) {
    uint64_t* sm = slice_mask_.data() + i * nw_;
    if (nw_ > 2)
      for (size_t p = 0; p < np; ++p) ssum_[i * np + p].at = 0;  // retry_on_slice's bound: nodes leave
    // Counts still current lose the GPUs of the nodes that leave the slice (popcounts on the
    // plan's planes, over the words the reservation's nodes are in).
    for (size_t p = 0; p < np; ++p) {
      if (scnt_[i * np + p].at != scnt_gen_) continue;
      const uint64_t* __restrict pb = part_bits_.data() + p * nw_;
      const uint64_t* __restrict L = level(grp_k_.back());
      int64_t gone = 0;
      for (size_t w = 0; w < nw_; ++w) {
        const uint64_t g = sm[w] & share_bits_[w] & pb[w];
        if (g == 0) continue;
        for (int b = 0; b < planes_; ++b) gone += static_cast<int64_t>(popcount64(g & L[b * nw_ + w])) << b;
      }
      scnt_[i * np + p].gpus -= gone;
    }
    for (size_t w = 0; w < nw_; ++w) sm[w] &= ~share_bits_[w];  // whole nodes (backfill.c _add_reservation)
  }
}

// ct:_will_run_test: release running jobs in end-time order, in groups (see below); the first
// group after which the job fits gives its start.
bool SlurmModel::will_run(const Snapshot& v, JobIdx j, const JobSpec& js, SimTime& start_s) {
  // The placement tests below see the projected CPUs (released jobs give theirs back).
  cproj_ = cfree_;
  struct View {
    const int32_t*& p;
    const int32_t* saved;
    ~View() { p = saved; }
  } view{cpu_view_, cpu_view_};
  cpu_view_ = cproj_.data();
  proj_.resize(nn_);
  // sum: GPUs on usable nodes, a necessary condition checked before the placement (speed).
  int64_t sum = 0, cap = 0;
  {
    int32_t* __restrict pj = proj_.data();
    const int32_t* __restrict fr = free_.data();
    const int32_t* __restrict cg = v.cluster.capacity_gpus.data();
    const uint8_t* __restrict mk = mask_.data();
    int32_t s32 = 0, c32 = 0;  // GPU counts of one cluster fit in 32 bits
    const size_t nn = nn_;
    for (size_t n = 0; n < nn; ++n) {
      const int32_t m = -static_cast<int32_t>(mk[n] != 0);  // 0 or all ones
      pj[n] = fr[n] & m;
      s32 += fr[n] & m;
      c32 += cg[n] & m;
    }
    sum = s32;
    cap = c32;
  }
  if (cap < js.gpus) return false;  // not even an empty map holds it
  if (res_on_) rproj_ = rfree_;
  // "Preemptable jobs are removed first when the job is a preemptor" (cons_tres _will_run_test): the jobs it may
  // preempt (try_preempt's eligibility, PreemptExemptTime included) are released at now.
  for (JobIdx r : pre_) pre_mark_[r] = 0;
  pre_.clear();
  if (is_preemptor(j))
    for (JobIdx r : v.running) {
      SimTime exempt_until;
      if (!preemptable(v, jqos_[j], r, exempt_until)) continue;
      pre_.push_back(r);
      pre_mark_[r] = 1;
      cpus_take(r, v.allocation_of(r), cproj_, -1);
      for (const auto& s : v.allocation_of(r))
        if (mask_[s.node]) proj_[s.node] += s.gpus, sum += s.gpus;
      res_add(rproj_, v.allocation_of(r), +1);
    }
  if ((adj_on_ || sum >= js.gpus) && fit(js, proj_, rproj_)) {
    start_s = v.now;
    return true;
  }
  // The release groups of _will_run_test (ReleaseGroups).
  SimTime last_end = 0;
  size_t walked = 0;
  auto release = [&](size_t k) {
    const EndRec& er = ends_[k];
    if (er.cnt == 0 && pre_mark_[er.job]) return false;  // a preemptee, released at now already
    const auto alloc = end_alloc(v, er);
    bool usable = false;
    for (const auto& s : alloc) usable |= mask_[s.node] != 0;
    if (!usable) return false;
    // A released job of a reservation frees reserved GPUs: they stay out of reach of
    // outsiders (adj_sub_ grows) and come within reach of insiders (adj_cap_ grows).
    cpus_take(er.job, alloc, cproj_, -1);
    res_add(rproj_, alloc, +1);
    const uint32_t rk = adj_on_ ? jresv_[er.job] : kNoIdx;
    if (rk == kNoIdx) {
      for (const auto& s : alloc)
        if (mask_[s.node]) proj_[s.node] += s.gpus, sum += s.gpus;
    } else {
      const bool ins = rk == jresv_[cur_job_];
      const bool outs = !ins && resv_overlap_[rk];
      for (const auto& s : alloc) {
        if (mask_[s.node]) proj_[s.node] += s.gpus, sum += s.gpus;
        if (outs) adj_sub_[s.node] += s.gpus;
        if (ins && adj_cap_[s.node] >= 0) adj_cap_[s.node] += s.gpus;
      }
    }
    return true;
  };
  if (!release_walk(release, [&] { return (adj_on_ || sum >= js.gpus) && fit(js, proj_, rproj_); }, last_end, walked)) return false;
  start_s = last_end <= v.now ? v.now + 1 : last_end;
  return true;
}

// Before will_run_fast, for a backfill retry on the fast path (no advanced reservation): if the
// job's mask holds fewer than `gpus` GPUs even with every job ending by later_start released,
// will_run_fast's answer is after later_start or there is none; both mean a retry at
// later_start (1), unless its answer is past the window, which the same sum at the window's
// end tells (-1: no reservation). 0: will_run_fast must answer. Level k holds the ends before
// index k; ends at index k or later all end after time x when k = first_after(x).
// kx: first_after of an earlier later_start of the same test (they only grow), or 0.
inline int SlurmModel::retry_by_sums(const Snapshot& v, int64_t gpus, SimTime later_start, SimTime window_end, size_t& kx) {
  if (!plan_ok_) build_plan(v);
  if (planes_ == 0) return 0;
  kx = first_after_from(later_start, kx);
  // What the sum says bounds will_run_fast's search for the first level holding the job.
  if (plan_holds(level(kx), gpus)) {
    ks_hi_ = kx;
    return 0;
  }
  ks_lo_ = kx + 1;
  if (!plan_fits_ever(gpus)) return 1;  // no answer
  // An answer is the end time of a released job (or now + 1), so it is within the window when
  // every job ends within it.
  if (end_max_ <= window_end) return 1;
  // Past the window: the answer's level is after every end by window_end. (Over 201 ends a
  // group may be skipped, and will_run_fast may have no answer: then it must say.)
  if (ends_.size() <= 201 && !plan_holds(level(first_after(window_end)), gpus)) return -1;
  return 0;
}

// Before the mask walk of a backfill retry: the mask is the AND of the slices over the job's
// time, so the first slice alone bounds it. When even that bound holds fewer than `gpus` GPUs
// with every job ending by later_start released, and every job ends within the window,
// retry_by_sums would answer 1 on the real mask: retry (true) without walking.
// later_start is the slice's end, so the bound is the slice's own (by partition p), kept in
// ssum_ until the slice or the plan changes: the jobs of a pass ask the same slices again.
// Over 128 nodes only (the sums of 3 or more words, in a plan too large for the cache).
inline bool SlurmModel::retry_on_slice(const Snapshot& v, int64_t gpus, uint32_t slice, uint32_t p, const uint64_t* pbits,
                                       SimTime later_start, SimTime window_end, size_t& kx) {
  if (!plan_ok_) build_plan(v);
  if (planes_ == 0 || end_max_ > window_end) return false;
  kx = first_after_from(later_start, kx);
  if (nw_ <= 2) {  // two popcounts: less than keeping them
    set_mbits(slice_mask_.data() + slice * nw_, pbits);
    return !plan_holds(level(kx), gpus);
  }
  PlanState::SliceCount& c = ssum_[slice * part_.size() + p];
  if (c.at != scnt_gen_) {
    set_mbits(slice_mask_.data() + slice * nw_, pbits);
    c = {plan_sum(level(kx)), scnt_gen_};
  }
  return c.gpus < gpus;
}

// Slice i's count for partition p (see scnt_), computed when first asked after a change.
inline int64_t SlurmModel::slice_gpus(uint32_t i, uint32_t p) {
  const size_t x = i * part_.size() + p;
  if (scnt_[x].at == scnt_gen_) return scnt_[x].gpus;
  const uint64_t* __restrict sm = slice_mask_.data() + i * nw_;
  const uint64_t* __restrict pb = part_bits_.data() + p * nw_;
  const uint64_t* __restrict L = level(grp_k_.back());
  int64_t s = 0;
  for (int b = 0; b < planes_; ++b) {
    int64_t c = 0;
    for (size_t w = 0; w < nw_; ++w) c += popcount64(sm[w] & pb[w] & L[b * nw_ + w]);
    s += c << b;
  }
  scnt_[x] = {s, scnt_gen_};
  return s;
}

// The last slice from `first` that begins by end_time (the slices a test at first's start ANDs)
// whose count for partition p is below `gpus`; kNoIdx if none. Every test whose window starts
// in a slice up to that one has it in its window: none of them can fit (plan_fits_ever fails).
// ok: a slice up to which every slice from `first` is known to hold `gpus` (kNoIdx: none), as
// this call leaves it for the next test of the same job (the map does not change meanwhile):
// the scan starts after it, so one job's tests read each slice's count about once.
inline uint32_t SlurmModel::last_short_slice(uint32_t first, SimTime end_time, int64_t gpus, uint32_t p, uint32_t& ok) {
  uint32_t i = first;
  if (ok != kNoIdx && slices_[ok].begin >= slices_[first].begin) i = slices_[ok].next;
  uint32_t last = kNoIdx;
  for (; i != kNoIdx && slices_[i].begin <= end_time; i = slices_[i].next) {
    if (slice_gpus(i, p) < gpus) last = i;
    ok = i;  // the tests after a jump past `last` start after it: from there on all hold
  }
  return last;
}

// will_run_fast's answer kept for this mask and GPU count under this plan (wrf_cache_): a
// job's retries at later slices mostly test the same mask (the window's AND does not change),
// and the jobs of a pass test the same windows of the same map. The answer is a function of the
// mask, the job's GPUs and the plan (scnt_gen_ moves with every plan built). Behind
// pass_shortcuts; nullptr where no plan is built yet or will_run would answer (planes_ 0).
inline const WrfCache::Answer* SlurmModel::wrf_kept(const JobSpec& js) {
  if (!cfg_.pass_shortcuts || !plan_ok_ || planes_ == 0) return nullptr;
  return wrf_cache_.find(mbits_.data(), js.gpus, scnt_gen_);
}

// kept: wrf_kept(js) as the caller found it (it holds until a plan is built: none is when it
// was found). With check_pass_shortcuts the answer is computed all the same and compared.
bool SlurmModel::will_run_fast_memo(const Snapshot& v, const JobSpec& js, SimTime& start_s, const WrfCache::Answer* kept) {
  if (!plan_ok_) build_plan(v);
  if (kept != nullptr) ++wc_.bf_answers_kept;
  if (kept != nullptr && !cfg_.check_pass_shortcuts) {
    if (!kept->ok) return false;
    lazy_ok_ = true;
    lazy_k_ = kept->k;
    start_s = kept->t;
    return true;
  }
  const bool ok = will_run_fast(v, js, start_s);
  if (kept != nullptr) {
    if (kept->ok != ok || (ok && (kept->k != lazy_k_ || kept->t != start_s))) ++wc_.shortcut_differs;
  } else if (planes_ != 0 && cfg_.pass_shortcuts) {  // will_run's answers are not kept
    wrf_cache_.put(mbits_.data(), js.gpus, scnt_gen_, {ok, lazy_k_, start_s});
  }
  return ok;
}

bool SlurmModel::will_run_fast(const Snapshot& v, const JobSpec& js, SimTime& start_s) {
  if (!plan_ok_) build_plan(v);
  if (planes_ == 0) {
    lazy_ok_ = false;  // will_run's own placement (shares_) stands
    expand_bits(mbits_, mask_);
    return will_run(v, cur_bf_job_, js, start_s);
  }
  // What retry_by_sums found on this mask spares sums: a level short of the job (ks_lo_ > 0)
  // came with plan_fits_ever passing, and level 0 is short too (sums grow); a level holding it
  // at or before the last tested one (ks_hi_) means the last one holds it.
  const bool fits_known = ks_lo_ > 0 || (ks_hi_ <= grp_k_.back() && !cap_needed_);
  if (!fits_known && !plan_fits_ever(js.gpus)) return false;
  lazy_ok_ = true;
  if (ks_lo_ == 0 && plan_holds(level(0), js.gpus)) {
    lazy_k_ = 0;
    start_s = v.now;
    return true;
  }
  // The plan's groups count every running job; will_run skips a job on none of the tested
  // job's nodes, which can move the groups. Such a mask walks the ends itself (the sums on the
  // mask are the levels' all the same: a skipped job adds nothing there).
  bool meets_all = true;
  for (size_t w = 0; w < nw_ && meets_all; ++w) meets_all = (run_bits_[w] & ~mbits_[w]) == 0;
  if (!meets_all) {
    // Sums only grow from level to level, so a test passes exactly when its level is at or
    // past kstar, the first level whose sum holds the job (a binary search: the walk then
    // compares indices instead of summing the mask at every group).
    // Level 0 holds fewer; the last tested level holds enough; retry_by_sums may have narrowed it.
    size_t lo = std::max<size_t>(1, ks_lo_), hi = std::min<size_t>(grp_k_.back(), ks_hi_);
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (plan_holds(level(mid), js.gpus)) hi = mid;
      else lo = mid + 1;
    }
    const size_t kstar = lo;
    size_t next_k = 0;
    SimTime last_end = 0;
    // group_jump: the same walk by binary searches. Built with FLOORSIM_WALK_CHECK defined, both
    // run and a difference aborts (how group_jump was checked on the bench shapes).
#ifndef FLOORSIM_WALK_CHECK
    if (const int r = group_jump(kstar, last_end, next_k); r >= 0) {
      if (r == 0) return false;
      lazy_k_ = static_cast<uint32_t>(next_k);
      start_s = last_end <= v.now ? v.now + 1 : last_end;
      return true;
    }
#else
    SimTime jl = 0;
    size_t jk = 0;
    const int jr = group_jump(kstar, jl, jk);
#endif
    auto release = [&](size_t k) {
      // Only the words the job's nodes are in: a step costs the job's nodes, not the cluster's.
      const EndWord* __restrict ew = end_words_.data();
      const uint64_t* __restrict mb = mbits_.data();
      uint64_t any = 0;
      for (uint32_t i = end_woff_[k], e = end_woff_[k + 1]; i < e; ++i) any |= ew[i].bits & mb[ew[i].w];
      next_k = k + 1;
      return any != 0;
    };
    size_t walked = 0;
    const bool ok = release_walk(release, [&] { return next_k >= kstar; }, last_end, walked);
#ifdef FLOORSIM_WALK_CHECK
    if (jr >= 0 && (jr != ok || (ok && (jl != last_end || jk != next_k)))) {
      fmt::print(stderr, "group_jump differs: {} {} {} vs {} {} {}\n", jr, jl, jk, ok, last_end, next_k);
      std::abort();
    }
#endif
    if (!ok) return false;
    lazy_k_ = static_cast<uint32_t>(next_k);
    start_s = last_end <= v.now ? v.now + 1 : last_end;
    return true;
  }
  size_t lo = 1, hi = grp_k_.size() - 1;  // the first tested level with sum >= gpus is in [lo, hi]
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (plan_holds(level(grp_k_[mid]), js.gpus)) hi = mid;
    else lo = mid + 1;
  }
  lazy_k_ = grp_k_[lo];
  const SimTime e = lvl_t_[lazy_k_];
  start_s = e <= v.now ? v.now + 1 : e;
  return true;
}

// The placement will_run would have made for will_run_fast's answer (same projection on the
// same mask, so the same shares_).
bool SlurmModel::place_lazy(const Snapshot& v, const JobSpec& js) {
  shares_lazy_ = false;
  if (!lazy_ok_) return !shares_.empty();  // will_run answered (and placed) itself
  // A job wider than any node is spread by select_nodes' first_fit_ordered in Weight order
  // (no CPU counts involved): with every Weight equal that is node order, so the level's values
  // on the mask give the same shares without building the projection. (A job that fits on one
  // node is placed by available CPUs, one_node, which the planes do not hold.)
  if (!weighted_ && !adj_on_ && js.gpus > max_node_gpus_ && js.nodes <= 0) {
    const uint64_t* P = level(lazy_k_);
    shares_.clear();
    if (planes_ == 1) {
      // Every node left holds one GPU: the first `gpus` of them, kept as a node bitset (what
      // the map needs); shares_from_bits() lists them for a start.
      int32_t need = js.gpus;
      share_bits_.assign(nw_, 0);
      for (size_t w = 0; w < nw_ && need > 0; ++w) {
        uint64_t m = mbits_[w] & P[w];
        const int c = popcount64(m);
        if (c <= need) {
          share_bits_[w] = m;
          need -= c;
          continue;
        }
        uint64_t take = 0;
        for (; need > 0; m &= m - 1, --need) take |= m & (~m + 1);
        share_bits_[w] = take;
      }
      if (need > 0) return false;
      shares_lazy_ = true;
      return true;
    }
    int32_t need = js.gpus;
    for (size_t w = 0; w < nw_ && need > 0; ++w) {
      uint64_t any = 0;
      for (int b = 0; b < planes_; ++b) any |= P[b * nw_ + w];
      for (uint64_t m = mbits_[w] & any; m != 0 && need > 0; m &= m - 1) {
        const auto sh = static_cast<unsigned>(std::countr_zero(m));
        int32_t x = 0;
        for (int b = 0; b < planes_; ++b) x |= static_cast<int32_t>((P[b * nw_ + w] >> sh) & 1) << b;
        const int32_t g = x < need ? x : need;
        shares_.push_back({static_cast<NodeIdx>(w * 64 + sh), g});
        need -= g;
      }
    }
    if (need > 0) shares_.clear();
    return need == 0;
  }
  // A job that fits on one node, where one_node's CPU counts cannot tell nodes apart (see
  // one_node_bits): its pick from the level's planes, without the projection or a node scan.
  const bool one = cfg_.pass_shortcuts && !weighted_ && !adj_on_ && js.nodes <= 0 && js.gpus <= max_node_gpus_ && js.cpus <= 1;
  const int64_t pick = one && cpus_never_short() ? one_node_bits(js.gpus) : -1;
  wc_.one_node_picks += pick >= 0;
  if (pick >= 0 && !cfg_.check_pass_shortcuts) {
    shares_.assign(1, NodeShare{static_cast<NodeIdx>(pick), js.gpus});
    return true;
  }
  expand_bits(mbits_, mask_);
  lvl_proj_to(v, lazy_k_);
  // select_nodes reads GPUs and CPUs only where mask_ allows, so the projection is passed as
  // it is (will_run zeroes it off the mask, which changes nothing there). With reservation
  // adjustments the values off the mask would count: the masked copy then.
  cpu_view_ = lp_cpus_.data();
  bool ok;
  if (!adj_on_) {
    ok = fit(js, lp_gpus_);
  } else {
    proj_.resize(nn_);
    for (size_t n = 0; n < nn_; ++n) proj_[n] = mask_[n] ? lp_gpus_[n] : 0;
    ok = fit(js, proj_);
  }
  cpu_view_ = cfree_.data();
  if (pick >= 0 && !(ok && shares_.size() == 1 && shares_[0].node == static_cast<NodeIdx>(pick) && shares_[0].gpus == js.gpus))
    ++wc_.shortcut_differs;  // check_pass_shortcuts: the pick differs from select_nodes'
  return ok;
}

// The map and the release order of a backfill pass: the map over [now, now + bf_window] in
// bf_resolution steps on the available nodes, and every running job's end (start + time limit;
// over-limit ones + KillWait + OverTimeLimit). Jobs started in this pass are in ends_ already.
void SlurmModel::backfill_begin(const Snapshot& v) {
  ++bf_passes_;
  const auto& sp = cfg_.sched;
  const SimTime res = sp.bf_resolution_s > 0 ? sp.bf_resolution_s : 1;
  avail_.assign(v.cluster.node_up.begin(), v.cluster.node_up.end());
  const double ph = clock_phase(sp.t0_wall_s, res);
  const SimTime map_begin = round_down_wall(v.now, res, ph);
  map_reset(map_begin, round_down_wall(v.now + sp.bf_window_s, res, ph));
  for (JobIdx r : v.running) {
    if (stopping_[r] == 1) continue;  // preempted in this pass without grace: already free
    SimTime t = v.runs[r].limit_end_s;
    if (t <= v.now) t = t + sp.kill_wait_s + sp.over_time_limit_s;
    if (v.runs[r].stop_s >= 0) t = std::min(t, v.runs[r].stop_s);
    if (stopping_[r] == 2) t = std::min(t, v.now + qos_[jqos_[r]].q.grace_time_s);
    ends_.push_back({t, r, 0, 0});
  }
  if (!holds_.empty()) holds_to_ends();
  // (end, job) is a total order (a job has one end), so an in-place sort gives the one order.
  std::sort(ends_.begin(), ends_.end(), end_before);
  if (sp.bf_max_job_user > 0) bf_user_.assign(nusers_, 0);
  plan_ok_ = false;
  accw_.resize(nw_);
  mbits_.resize(nw_);
  mnz_.resize(nw_);
}

void SlurmModel::backfill_pass(const Snapshot& v, Decisions& out) {
  backfill_begin(v);
  const auto& sp = cfg_.sched;
  int64_t tested = 0;
  // A test on the plan's path is a function of the map, the release plan (free GPUs and the
  // running jobs' ends) and the job's NoFitKey. A test that starts nothing and plans nothing
  // leaves both as they were, so a later job with the same key, while no test since started or
  // planned, gets the same answer: nothing. It is skipped (still counted against
  // bf_max_job_test, as the test it stands for). Not with reservations, preemption or a topology,
  // whose tests read more of the job or change state without a start.
  const bool nofit_on = cfg_.pass_shortcuts && resv_.empty() && !preempt_on_ && topo_mode_ == 0;
  nofit_.clear();
  for (JobIdx j : order_) {
    if (v.runs[j].state != JobState::Pending || considered_[j] == 2) continue;
    const JobSpec& js = v.jobs[j];
    const SimTime begin = begin_time(v, j);
    if (begin > v.now) continue;
    if (static_reason(v, j)) continue;
    SimTime limit = job_limit(j, js);
    // Over a limit: skipped with no reservation (acct_policy_job_runnable_pre_select).
    if (uint16_t r = limit_reason(v, j, limit)) {
      out.set_reason(j, r);
      continue;
    }
    if (sp.bf_max_job_user > 0) {
      if (bf_user_[js.user] >= sp.bf_max_job_user) continue;
      ++bf_user_[js.user];
    }
    if (tested >= sp.bf_max_job_test) break;
    ++tested;  // counts jobs that reach the select test
    ++wc_.bf_tests;
    // nofit_ is mostly empty (most tests plan): the key is made only when there is one to match
    // or to keep.
    auto keyed = [&] { return nofit_on && sum_decides(js) && !is_preemptor(j); };
    auto key = [&] {
      return NoFitKey{js.gpus, js.nodes, js.cpus, js.gpu_milli, js.mem_mib, js.mem_per, jpart_[j], qos_[jqos_[j]].q.flags.no_reserve, limit};
    };
    if (!nofit_.empty() && keyed()) {
      if (std::find(nofit_.begin(), nofit_.end(), key()) != nofit_.end()) {
        ++wc_.bf_tests_skipped;
        if (cfg_.check_pass_shortcuts) {
          bf_planned_ = false;
          backfill_job(v, j, limit, out);
          if (bf_planned_ || considered_[j] == 2) ++wc_.shortcut_differs;
        }
        continue;
      }
    }
    bf_planned_ = false;
    backfill_job(v, j, limit, out);
    if (bf_planned_ || considered_[j] == 2) {
      nofit_.clear();
    } else {
      ++wc_.bf_nofit;
      if (nofit_on && nofit_.size() < 16 && keyed()) nofit_.push_back(key());
    }
    // MAGNETIC: the job's second queue record, without the reservation (build_job_queue).
    if (jmag_.empty() || !jmag_[j] || jresv_[j] == kNoIdx || considered_[j] == 2) continue;
    const uint32_t rv = jresv_[j];
    const SimTime inside = planned_[j];
    jresv_[j] = kNoIdx;
    planned_[j] = -1;
    backfill_job(v, j, limit, out);
    if (considered_[j] == 2) continue;  // started outside the reservation
    jresv_[j] = rv;
    if (inside >= 0 && (planned_[j] < 0 || inside < planned_[j])) planned_[j] = inside;
  }
}

// The nodes free over every slice from `first` that begins by end_time (accw_).
[[gnu::always_inline]] inline void SlurmModel::and_slices(uint32_t first, SimTime end_time) {
  uint64_t* __restrict acc = accw_.data();
  if (nw_ == 2) {  // up to 128 nodes: the common case, in registers
    uint64_t a0 = ~uint64_t{0}, a1 = ~uint64_t{0};
    const uint64_t* sm = slice_mask_.data();
    for (uint32_t i = first; i != kNoIdx; i = slices_[i].next) {
      if (slices_[i].begin > end_time) break;
      a0 &= sm[2 * i];
      a1 &= sm[2 * i + 1];
    }
    acc[0] = a0;
    acc[1] = a1;
  } else if (nw_ == 1) {  // up to 64 nodes
    uint64_t a0 = ~uint64_t{0};
    const uint64_t* sm = slice_mask_.data();
    for (uint32_t i = first; i != kNoIdx; i = slices_[i].next) {
      if (slices_[i].begin > end_time) break;
      a0 &= sm[i];
    }
    acc[0] = a0;
  } else {
    // nw in a local: a store through acc could otherwise change nw_ (both 64-bit), which keeps
    // the compiler from vectorizing the loop.
    const size_t nw = nw_;
    for (size_t w = 0; w < nw; ++w) acc[w] = ~uint64_t{0};
    const Slice* sl = slices_.data();
    for (uint32_t i = first; i != kNoIdx; i = sl[i].next) {
      if (sl[i].begin > end_time) break;
      const uint64_t* __restrict sm = slice_mask_.data() + i * nw;
      for (size_t w = 0; w < nw; ++w) acc[w] &= sm[w];
    }
  }
}

// and_slices (accw_) for the windows of one backfill_job test, by a sliding window: its
// windows' first slices and ends only move forward and the map does not change until the test
// reserves or starts (the end of it), so each slice enters and leaves slide_ once instead of
// being ANDed again at every retry. Anything else starts the window over.
// Up to 128 nodes the plain AND in registers costs less than keeping the window.
inline void SlurmModel::slide_slices(uint32_t first, SimTime end_time) {
  if (nw_ <= 2 || first == kNoIdx || slices_[first].begin > end_time) {
    and_slices(first, end_time);
    return;
  }
  if (end_time < slide_end_) {  // the window's tail may hold slices past end_time
    slide_.clear(nw_);
    slide_ids_.clear();
    slide_head_ = 0;
  }
  while (slide_head_ < slide_ids_.size() && slide_ids_[slide_head_] != first) {
    slide_.pop();
    ++slide_head_;
  }
  if (slide_head_ == slide_ids_.size()) slide_next_ = first;  // empty: first is not in it
  for (; slide_next_ != kNoIdx && slices_[slide_next_].begin <= end_time; slide_next_ = slices_[slide_next_].next) {
    slide_.push(slice_mask_.data() + static_cast<size_t>(slide_next_) * nw_);
    slide_ids_.push_back(slide_next_);
  }
  slide_end_ = end_time;
  slide_.and_into(accw_.data());
}

// A job that fits now starts; a preemptor that fits only by preempting preempts as the main
// loop does, or does not start. False: it does not start.
bool SlurmModel::backfill_start(const Snapshot& v, JobIdx j, const JobSpec& js, SimTime limit, bool fast, Decisions& out) {
  if (fast && place_lazy(v, js) && shares_lazy_) shares_from_bits();
  if (is_preemptor(j) && !pre_.empty() && !fit(js, free_)) {
    bool waiting = false;
    const bool ok = try_preempt(v, j, out, waiting);
    // Victims stopped at once are free now: they leave the release order.
    ends_.erase(std::remove_if(ends_.begin(), ends_.end(), [&](const EndRec& e) { return e.cnt == 0 && stopping_[e.job] == 1; }),
                ends_.end());
    plan_ok_ = false;
    if (!ok) return false;
  }
  start(v, j, out, limit);
  plan_ok_ = false;  // free_ and ends_ changed
  considered_[j] = 2;
  started_by_[j] = StartedBy::Backfill;
  ++bf_starts_;
  return true;
}

// _add_reservation: the chosen whole nodes leave the map over [start, end] (start and end at
// the resolution; _set_slot_time: 22.05 rounds the end down, master rounds up). False: the
// nodes are not free in the map over that time, retry from t.
[[gnu::always_inline]] inline bool SlurmModel::backfill_reserve(const Snapshot& v, const JobSpec& js, SimTime t, SimTime comp_limit,
                                                                 uint32_t first, bool fast, bool retry_ok) {
  const SimTime res = cfg_.sched.bf_resolution_s > 0 ? cfg_.sched.bf_resolution_s : 1;
  SimTime end_res = t + comp_limit;
  const double ph = clock_phase(cfg_.sched.t0_wall_s, res);
  end_res = cfg_.version == Version::V22_05 ? round_down_wall(end_res, res, ph) : round_up_wall(end_res, res, ph);
  const SimTime start_rounded = round_down_wall(t, res, ph);
  if (!fast || !place_lazy(v, js) || !shares_lazy_) {
    share_bits_.assign(nw_, 0);
    for (const auto& sh : shares_) share_bits_[sh.node >> 6] |= uint64_t{1} << (sh.node & 63);
  }
  bool overlap = false;
  // Slices before `first` end by start_rounded (boundaries are multiples of the resolution).
  for (uint32_t i = first; i != kNoIdx && !overlap; i = slices_[i].next) {
    const Slice& s = slices_[i];
    if (s.end <= start_rounded || s.begin >= end_res) continue;
    for (size_t w = 0; w < nw_; ++w) overlap |= (share_bits_[w] & ~slice_mask_[i * nw_ + w]) != 0;
  }
  if (overlap && retry_ok) return false;
  map_add(start_rounded, end_res, first);
  return true;
}

// One job's backfill test (_attempt_backfill's loop body): tested against partition, available
// nodes and every slice over [start, start + limit], retried at later slice boundaries; it
// starts now, gets a planned start (and its nodes leave the map), or neither.
void SlurmModel::backfill_job(const Snapshot& v, JobIdx j, SimTime limit, Decisions& out) {
  const auto& sp = cfg_.sched;
  const JobSpec& js = v.jobs[j];
  const PartRt& P = part_[jpart_[j]];
  // _set_backfill_timelimits: min(job, partition MaxTime); infinite -> 1 year.
  SimTime comp_limit = std::min(limit, P.max_time_s);
  if (!std::isfinite(comp_limit)) comp_limit = kYear_s;
  const bool no_reserve = qos_[jqos_[j]].q.flags.no_reserve;
  // NoReserve with preemption on: tested as a 1-minute job so it fits any gap (backfill.c).
  const SimTime test_limit = (no_reserve && preempt_on_) ? 60 : comp_limit;
  const bool fast = sum_decides(js) && !is_preemptor(j);  // a preemptor's releases differ (will_run)
  cur_bf_job_ = j;
  const uint64_t* pbits = part_bits_.data() + jpart_[j] * nw_;
  SimTime start_res = v.now;
  SimTime later_start = 0;
  uint32_t first = 0;  // the map's first slice
  size_t kx = 0;       // retry_by_sums' level for the last later_start
  uint32_t ok_slice = kNoIdx;  // last_short_slice's slices known to hold the job
  uint64_t ok_gen = 0;         // ... for the counts of this scnt_gen_
  if (nw_ > 2) {  // slide_slices' window: new for each test (the map may have changed)
    slide_.clear(nw_);
    slide_ids_.clear();
    slide_head_ = 0;
    slide_next_ = kNoIdx;
    slide_end_ = -kNever;
  }
  int guard = 0;  // the retries so far (a skip over short slices counts each slice)
  // sure_retries after a failed retry on the fast path; with the check on, only noted (sure_to)
  // and the loop must then get there by retries.
  const bool sure_on = fast && cfg_.pass_shortcuts;
  SimTime sure_to = -kNever;
  auto take_sure = [&](uint32_t at, SimTime end_time, SimTime t_m) {
    SimTime to = 0;
    const uint32_t n = sure_retries(v, js.gpus, pbits, at, end_time, test_limit, t_m, static_cast<uint32_t>(9999 - guard), to);
    if (n == 0) return;
    wc_.bf_sure_retries += n;
    if (cfg_.check_pass_shortcuts) {
      sure_to = std::max(sure_to, to);
      return;
    }
    start_res = to;
    guard += static_cast<int>(n);
  };
  for (; guard < 10000; ++guard) {
    const SimTime end_time = start_res + test_limit;
    // Slices are contiguous and start_res only grows while one job is tested, so the walk
    // starts at the first slice that ends after start_res (kept across retries).
    while (first != kNoIdx && slices_[first].end <= start_res) first = slices_[first].next;
    later_start = 0;
    if (first != kNoIdx && slices_[first].next != kNoIdx) later_start = slices_[first].end;
    // The first slice alone bounds the mask (the walk only ANDs more in): when even it cannot
    // hold the job by later_start, retry_by_sums would answer 1 (every end within the window),
    // so the walk is skipped.
    // The count summary: a slice in the window too short of GPUs decides this test and every
    // later one whose window still holds that slice: each retries at its later_start (the
    // window's mask cannot hold the job: will_run_fast has no answer), the last one with none
    // ends the loop. Counted as the iterations they are.
    if (fast && first != kNoIdx) {
      if (!plan_ok_) build_plan(v);
      if (ok_gen != scnt_gen_) ok_slice = kNoIdx, ok_gen = scnt_gen_;
      const uint32_t short_slice = planes_ == 0 ? kNoIdx : last_short_slice(first, end_time, js.gpus, jpart_[j], ok_slice);
      if (short_slice != kNoIdx) {
        for (; first != short_slice; first = slices_[first].next, ++guard) start_res = slices_[first].end;
        if (slices_[first].next == kNoIdx) break;
        start_res = slices_[first].end;
        continue;
      }
    }
    if (fast && later_start > 0 && retry_on_slice(v, js.gpus, first, jpart_[j], pbits, later_start, v.now + sp.bf_window_s, kx)) {
      start_res = later_start;
      continue;
    }
    slide_slices(first, end_time);
    if (fast) {
      set_mbits(accw_.data(), pbits);
    } else {
      expand_bits(accw_, mask_);
      const size_t nn = nn_;
      uint8_t* __restrict mk = mask_.data();
      const uint8_t* __restrict av = avail_.data();
      const uint8_t* __restrict pm = P.mask.data();
      for (size_t n = 0; n < nn; ++n) mk[n] &= av[n] & pm[n];
    }
    SimTime wait = kNever;
    if (!resv_prepare(j, start_res, end_time, wait)) {
      if (std::isfinite(wait) && wait > start_res && wait <= v.now + sp.bf_window_s) {
        start_res = wait;
        continue;
      }
      break;
    }
    ks_lo_ = 0;  // nothing known yet of this mask's sums
    ks_hi_ = SIZE_MAX;
    // A retry is decided by sums alone when the job cannot fit by later_start: see retry_by_sums.
    // Not needed when will_run_fast's kept answer for this mask is a start: the outcome below
    // follows from that start alone (retry_by_sums' retry means it is past later_start but
    // within the window, its -1 that it is past the window: what the start itself says).
    // The kept answer is looked up once per retry: retry_by_sums builds a plan only where none
    // is, and then no answer (of an older plan) was kept before nor after.
    const WrfCache::Answer* kept = fast ? wrf_kept(js) : nullptr;
    if (fast && later_start > 0 && !(kept != nullptr && kept->ok)) {
      const int r = retry_by_sums(v, js.gpus, later_start, v.now + sp.bf_window_s, kx);
      if (r > 0) {
        start_res = later_start;
        if (sure_on) take_sure(first, end_time, -1);
        continue;
      }
      if (r < 0) break;
    }
    SimTime t = 0;
    if (!(fast ? will_run_fast_memo(v, js, t, kept) : will_run(v, j, js, t))) {
      // job_test_resv: an advanced reservation in the way moves the start to its end.
      if (std::isfinite(resv_next_free_) && resv_next_free_ > start_res &&
          (later_start == 0 || resv_next_free_ < later_start))
        later_start = resv_next_free_;
      // Only the reservation's end can lie past the window (the map's slices end by it). Nothing
      // past it can be planned or started (the test of t below) and start_res only grows, so the
      // test stops here, as backfill.c takes a reservation's end as later_start only before
      // window_end. Each later occurrence of an HOURLY reservation took a retry, 10,000 a test.
      if (later_start > v.now + sp.bf_window_s) break;
      if (later_start > 0) {
        start_res = later_start;
        if (sure_on) take_sure(first, end_time, kNever);
        continue;
      }
      break;  // never fits: no reservation
    }
    t = std::max(t, start_res);
    if (t <= v.now) {
      backfill_start(v, j, js, limit, fast, out);
      break;
    }
    if (t > v.now + sp.bf_window_s) break;  // too far in the future to reserve
    if (later_start > 0 && t > later_start) {
      start_res = later_start;
      if (sure_on) take_sure(first, end_time, t);
      continue;
    }
    planned_[j] = t;
    bf_planned_ = true;
    if (no_reserve) break;  // NoReserve: never in the map
    // The chosen nodes must be free in the map over [start, end]; else try from t.
    if (!backfill_reserve(v, js, t, comp_limit, first, fast, t > start_res)) {
      start_res = t;
      continue;
    }
    break;
  }
  if (start_res < sure_to) ++wc_.shortcut_differs;  // check_pass_shortcuts: a certain retry was not
  wc_.bf_retries += static_cast<uint64_t>(guard);
}

}  // namespace floorsim::slurm
