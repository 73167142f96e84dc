#pragma once
// Per-class accounting integrated over simulated time, and the per-job/per-class metrics that
// metrics.json reports (DESIGN.md "Output contract").
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/job_state.hpp"
#include "sim/core/types.hpp"

namespace floorsim {

struct TimelineRow {
  SimTime time_s;
  StrId klass;
  int64_t gpus_allocated;
  int64_t gpus_demanded;  // allocated + pending (eligible or not)
};

// Tracks each class's allocated and demanded GPUs as a step function of time and integrates:
//   alloc_gpu_s     = ∫ allocated
//   entitled_gpu_s  = ∫ min(floor, demanded)            (what the floor promises while in demand)
//   delivered_gpu_s = ∫ min(allocated, floor, demanded) (the part of that promise kept)
// floor_attainment = delivered / entitled (1 when the class never had floor-backed demand).
class ClassLedger {
 public:
  // `floors` is indexed by class StrId (size = number of interned strings; missing = 0).
  void init(std::vector<int32_t> floors, bool keep_timeline);
  void add_alloc(StrId k, int64_t d) {
    if (k >= alloc_.size()) ensure(k);
    alloc_[k] += d;
    dirty(k);
  }
  void add_demand(StrId k, int64_t d) {
    if (k >= alloc_.size()) ensure(k);
    demand_[k] += d;
    dirty(k);
  }
  void advance(SimTime now);  // integrate [last, now) with the current values
  void record(SimTime now);   // append timeline rows for classes whose values changed

  int64_t alloc(StrId k) const { return k < alloc_.size() ? alloc_[k] : 0; }
  int64_t demand(StrId k) const { return k < demand_.size() ? demand_[k] : 0; }
  int32_t floor(StrId k) const { return k < floors_.size() ? floors_[k] : 0; }
  double alloc_gpu_s(StrId k) const { return k < alloc_s_.size() ? alloc_s_[k] : 0; }
  double entitled_gpu_s(StrId k) const { return k < entitled_s_.size() ? entitled_s_[k] : 0; }
  double delivered_gpu_s(StrId k) const { return k < delivered_s_.size() ? delivered_s_[k] : 0; }
  const std::vector<TimelineRow>& timeline() const { return timeline_; }
  size_t classes() const { return alloc_.size(); }

 private:
  void ensure(StrId k);
  void dirty(StrId k) {
    if (!changed_[k]) { changed_[k] = 1; changed_list_.push_back(k); }
    if (!active_[k]) { active_[k] = 1; active_list_.push_back(k); }
  }
  std::vector<int32_t> floors_;
  std::vector<int64_t> alloc_, demand_;
  std::vector<double> alloc_s_, entitled_s_, delivered_s_;
  std::vector<uint8_t> changed_, active_;
  std::vector<StrId> changed_list_, active_list_;  // active: classes ever touched (integrated)
  std::vector<TimelineRow> timeline_;
  SimTime last_ = 0;
  bool started_ = false;
  bool keep_timeline_ = true;
};

struct WaitStats {
  double mean = 0, p50 = 0, p95 = 0, p99 = 0, max = 0;
  size_t n = 0;
};
// Percentiles by the nearest-rank method on a sorted copy (documented, stable).
WaitStats wait_stats(std::vector<double> waits);
// The same, sorting `waits` in place (no copy: for millions of jobs).
WaitStats wait_stats_in_place(std::span<double> waits);
nlohmann::json to_json(const WaitStats& w);

}  // namespace floorsim
