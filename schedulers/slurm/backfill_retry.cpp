// A backfill test's retries that are certain, taken at once (sure_retries, called by
// backfill_job in backfill.cpp): each is what backfill.c's retry at the next slice boundary
// would have done, so the outcome is the same with fewer will-run tests.
#include <algorithm>
#include <cstdint>

#include "schedulers/slurm/model.hpp"

namespace floorsim::slurm {

// The retries certain to follow a failed retry on the fast path, taken at once. That retry
// tested the window from slice `first` to end_time on the mask M (mbits_) and retries at the
// first slice's end; t_m is will_run_fast's answer on M (kNever: none; negative: not asked).
// The retry at a later slice c of that window starts at c's begin and has every slice from c to
// end_time in its window (it is as long), so its mask is within M when the AND of those slices
// is (from the window's end back: see below), and is M when also the slices that enter
// its window past end_time keep M's nodes. Such a retry is certain:
// - with mask M, when t_m is past c's end (its later_start) or there is none: the same answer,
//   so a retry (M gave this retry, so t_m is not past the window);
// - with a mask within M, where every running job ends within the window, when M's sum at the
//   level of the ends by c's end is short of the job (or M never holds it): a mask within M sums
//   no more, so will_run_fast answers after that later_start or not at all (retry_by_sums'
//   argument), and no other way out is open (no reservation, no answer past the window).
// Each holds for the slices up to some c and for none after (the first is tried first: it needs
// no sums), so together for a first run of them: returns how many, at most budget, with `to`
// the last one's later_start. Not for the map's last slice (no later_start there).
uint32_t SlurmModel::sure_retries(const Snapshot& v, int64_t gpus, const uint64_t* pbits, uint32_t first, SimTime end_time,
                                  SimTime test_limit, SimTime t_m, uint32_t budget, SimTime& to) {
  if (planes_ == 0 || !resv_.empty() || budget == 0) return 0;
  const uint32_t c0 = slices_[first].next;
  if (c0 == kNoIdx || slices_[c0].next == kNoIdx || slices_[c0].begin > end_time) return 0;
  const bool same = t_m >= 0 && slices_[c0].end < t_m;
  const bool within = end_max_ <= v.now + cfg_.sched.bf_window_s;
  if (!same && !within) return 0;
  // The window's slices after `first` (ids) and the last position whose AND to the window's end
  // is within M (all before it are too): from slide_, which holds this window over 128 nodes
  // (slide_slices), else by a walk and an AND from the window's end back.
  const uint32_t* ids;
  size_t nids, last = SIZE_MAX;
  const uint64_t* __restrict mb = mbits_.data();
  const size_t h = slide_.head();
  if (nw_ > 2 && h < slide_ids_.size() && slide_ids_[h] == first && slide_.tail() == slide_ids_.size()) {
    ids = slide_ids_.data() + h + 1;
    nids = slide_ids_.size() - h - 1;
    const size_t q = slide_.last_within(h + 1, pbits, mb);
    if (q != SIZE_MAX) last = q - (h + 1);
  } else {
    sure_ids_.clear();
    for (uint32_t i = c0; i != kNoIdx && slices_[i].begin <= end_time; i = slices_[i].next) sure_ids_.push_back(i);
    ids = sure_ids_.data();
    nids = sure_ids_.size();
    sure_acc_.assign(nw_, ~uint64_t{0});
    uint64_t* __restrict acc = sure_acc_.data();
    for (size_t q = nids; q-- > 0;) {
      const uint64_t* __restrict sm = slice_mask_.data() + static_cast<size_t>(ids[q]) * nw_;
      uint64_t out = 0;
      for (size_t w = 0; w < nw_; ++w) {
        acc[w] &= sm[w];
        out |= acc[w] & pbits[w] & ~mb[w];
      }
      if (out == 0) {
        last = q;
        break;
      }
    }
  }
  if (last == SIZE_MAX) return 0;
  if (slices_[ids[last]].next == kNoIdx) {
    if (last == 0) return 0;
    --last;
  }
  last = std::min<size_t>(last, budget - 1);
  size_t n = 0;
  if (same) {  // positions while the mask stays M and t_m is later: no sums needed
    uint32_t nx = slices_[ids[nids - 1]].next;  // the next slice to enter a window
    for (; n <= last && slices_[ids[n]].end < t_m; ++n) {
      const SimTime wend = slices_[ids[n]].begin + test_limit;
      bool keeps = true;
      for (; nx != kNoIdx && slices_[nx].begin <= wend && keeps; nx = slices_[nx].next) {
        const uint64_t* __restrict sm = slice_mask_.data() + static_cast<size_t>(nx) * nw_;
        uint64_t lost = 0;
        for (size_t w = 0; w < nw_; ++w) lost |= mb[w] & ~sm[w];
        keeps = lost == 0;
      }
      if (!keeps) break;
    }
  }
  if (within && n <= last) {  // on from n: the last position whose later_start's level is short
    auto short_at = [&](size_t q) { return !plan_holds(level(first_after(slices_[ids[q]].end)), gpus); };
    if (!plan_fits_ever(gpus)) {
      n = last + 1;
    } else if (short_at(n)) {
      size_t lo = n, hi = last;
      while (lo < hi) {
        const size_t mid = hi - (hi - lo) / 2;
        if (short_at(mid)) lo = mid;
        else hi = mid - 1;
      }
      n = lo + 1;
    }
  }
  if (n == 0) return 0;
  to = slices_[ids[n - 1]].end;
  return static_cast<uint32_t>(n);
}

}  // namespace floorsim::slurm
