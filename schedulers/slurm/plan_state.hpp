#pragma once
// The backfill planner's state (backfill.cpp, backfill_plan.cpp): the map of time slices with
// its count summaries, and the per-pass release plan will-run tests are answered from.
// SlurmModel (model.hpp) inherits it privately, as it does PassState: the members keep their
// names in the model's files, and model.hpp stays a readable size.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "schedulers/slurm/bitset.hpp"
#include "schedulers/slurm/wrf_cache.hpp"
#include "sim/core/types.hpp"

namespace floorsim::slurm {

struct Slice {
  SimTime begin, end;
  uint32_t next;  // kNoIdx = last
};

struct EndRec {
  SimTime t;
  JobIdx job;
  uint32_t off, cnt;  // placement in local_ when cnt > 0 (started in this pass)
};
// The release order of will_run: end time, then job index for equal ends (slurmctld sorts by
// end time only; the index makes the order total and stable).
[[gnu::always_inline]] inline bool end_before(const EndRec& a, const EndRec& b) {
  if (a.t != b.t) return a.t < b.t;
  return a.job < b.job;
}

struct PlanState {
  std::vector<Slice> slices_;
  std::vector<uint64_t> slice_mask_;  // slice i's available nodes: bitset at [i*nw_, (i+1)*nw_)
  // A count summary of the map (backfill.cpp, slice_gpus): by slice x partition, the GPUs on the
  // slice's nodes in the partition once every planned release is in (the level plan_fits_ever
  // tests). A job's mask over a window is the AND of its slices, so any one slice's count bounds
  // the mask's: a window with a slice below the job's GPUs cannot hold it, whatever the nodes.
  struct SliceCount {
    int64_t gpus;
    uint64_t at;  // scnt_gen_ when gpus was set (else stale)
  };
  std::vector<SliceCount> scnt_;
  // By slice x partition: retry_on_slice's bound, the GPUs on the slice's nodes in the partition
  // at the level of the ends by the slice's end (at 0: not kept; a split or a reservation in the
  // slice clears it, a new plan moves scnt_gen_). Kept over 128 nodes only.
  std::vector<SliceCount> ssum_;
  uint64_t scnt_gen_ = 1;             // bumped when the map is reset or the plan rebuilt
  std::vector<uint64_t> accw_;        // AND of the slices a test spans
  // and_slices over one backfill_job's windows (both ends only move forward; the map does not
  // change meanwhile): slide_ holds slices slide_ids_[slide_head_..], slide_next_ is the next
  // one to enter, slide_end_ the last window's end.
  SlideAnd slide_;
  std::vector<uint32_t> slide_ids_;
  size_t slide_head_ = 0;
  uint32_t slide_next_ = 0;
  SimTime slide_end_ = 0;
  // The release plan of a backfill pass (build_plan): the release groups of will_run are the
  // same for every tested job (only its node mask differs), so each group's projected free GPUs
  // are kept once per pass as bit planes (bit b of every node's GPUs, 64 nodes a word), and a
  // job's projected sum over its mask is a few popcounts instead of a walk over the releases.
  std::vector<uint64_t> part_bits_;   // by partition x word: the partition's nodes
  std::vector<uint64_t> avail_bits_;  // nodes available to this backfill pass (the map's start)
  std::vector<uint64_t> mbits_;       // the tested job's nodes (fast path)
  std::vector<uint64_t> share_bits_;  // nodes of shares_ (map_add, overlap check)
  bool shares_lazy_ = false;          // place_lazy gave share_bits_ only (1 GPU on each node)
  // The words of mbits_ that are not 0 (set_mbits fills them where nw_ > 2): sums skip the rest.
  std::vector<uint32_t> mnz_;
  uint32_t mnz_n_ = 0;
  // Level k is free_ plus the first k entries of ends_ (k = 0 .. ends): a job's projected GPUs
  // after any prefix of the release order are a few popcounts on its mask. grp_k_ lists the levels
  // at which will_run tests a job whose mask meets every running job (level 0 first).
  std::vector<uint64_t> lvl_bits_;    // by level x plane x word
  std::vector<uint64_t> cap_bits_;    // by plane x word: capacities
  std::vector<SimTime> lvl_t_;        // by level: end time of its last released job (level >= 1)
  std::vector<uint32_t> grp_k_;       // tested levels of the plan's own grouping, ascending
  SimTime end_max_ = 0;               // latest end in ends_
  std::vector<int32_t> lvl_val_;      // scratch: GPUs by node
  int planes_ = 0;                    // 0: some value is negative, the fast path is off
  bool cap_needed_ = true;
  int cap_planes_ = 0;                // cap_bits_ holds cap_src_ in this many planes
  std::vector<int32_t> cap_src_;
  int32_t cap_max_ = 0, cap_min_ = 0; // range of cap_src_
  bool plan_ok_ = false;              // built for the current free_ and ends_
  // The inputs of the last plan built from running jobs only (plan_reusable).
  bool plan_key_ok_ = false;
  std::vector<EndRec> plan_ends_;
  std::vector<int32_t> plan_free_;
  uint32_t lazy_k_ = 0;               // will_run_fast's answer (a level), placed only when needed
  bool lazy_ok_ = false;              // will_run_fast answered from the plan (else will_run placed)
  std::vector<uint64_t> run_bits_;    // nodes of the running jobs in the plan
  // The nodes of ends_[k]: the words they are in, end_words_[end_woff_[k] .. end_woff_[k + 1]).
  struct EndWord {
    uint32_t w;
    uint64_t bits;
  };
  std::vector<EndWord> end_words_;
  std::vector<uint32_t> end_woff_;
  std::vector<uint64_t> ew_scratch_;  // fill_levels: one end's nodes
  std::vector<EndWord> end_one_;      // by end: its one word of nodes (w = UINT32_MAX: several words)
  // By block of kEndBlock ends and word: the OR of their nodes, so that group_jump's scan for
  // the next end on a mask skips a block whose nodes the mask misses (nw_ ANDs for 64 ends).
  static constexpr size_t kEndBlock = 64;
  std::vector<uint64_t> end_blk_;
  WrfCache wrf_cache_;  // will_run_fast's answers under this plan (pass_shortcuts)
  // The first level whose sum on mbits_ holds the tested job is in [ks_lo_, ks_hi_] (what
  // retry_by_sums found out about this mask; will_run_fast searches only there).
  size_t ks_lo_ = 0, ks_hi_ = SIZE_MAX;
  std::vector<int32_t> lp_gpus_, lp_cpus_;  // lvl_proj_to's projection at level lp_k_
  size_t lp_k_ = 0;
  uint64_t lp_gen_ = 0;                      // scnt_gen_ it was built for
  std::vector<uint64_t> cand_bits_;          // one_node_bits: a one-node job's candidate nodes
  std::vector<uint32_t> sure_ids_;           // sure_retries: the window's slices after its first
  std::vector<uint64_t> sure_acc_;           // ... their AND from the window's end back
  uint64_t cpu_ok_gen_ = 0;                  // cpus_never_short's answer, cpu_ok_, is for this scnt_gen_
  bool cpu_ok_ = false;
};

}  // namespace floorsim::slurm
