#pragma once
// Delay scheduling for GPU jobs (Dally's proximity-based consolidation, after Zaharia et al.'s
// delay scheduling, EuroSys 2010): a job that could run consolidated (on one machine, or under
// one leaf switch) waits a while for such a placement before it accepts a spread one, because a
// spread job runs slower.
//
// Levels: Machine (one node), Leaf (one leaf switch), Network (anything). A job's best level is
// the tightest its size allows; while it has waited less than the timer of its current level it
// accepts only that level, then the next one. Timers are fixed, or auto-tuned from recent waits:
// the timer of a level is the mean wait (since submission) of the last `window` multi-GPU jobs
// that started at that level, so a job waits about as long as consolidated placements have
// recently taken to come free. Strict consolidation: infinite timers; none: no waiting.
//
// It wraps any queue model (a ForwardingScheduler): the model picks which jobs start; this
// layer re-places a start at the allowed level from the GPUs left free, or holds the job back.
// The engine stays policy-free. The runtime penalty of a spread job (the reason to wait) is the
// ConsolidationRuntime model: stretch = slowdown[level] for jobs of more than one GPU.
#include <array>
#include <deque>
#include <memory>
#include <span>
#include <vector>

#include "sim/core/config_spec.hpp"
#include "sim/core/runtime_model.hpp"
#include "sim/core/scheduler_api.hpp"

namespace floorsim::app::delay {

enum class Level : uint8_t { Machine = 0, Leaf = 1, Network = 2 };

enum class Mode : uint8_t { None, Strict, Fixed, Auto };

struct Params {
  Mode mode = Mode::Fixed;
  std::array<double, 2> timer_s = {600, 1200};  // wait at Machine, then at Leaf, before relaxing
  size_t window = 20;                            // auto: recent starts per level averaged
  std::array<double, 3> slowdown = {1.0, 1.1, 1.5};  // runtime stretch by level (multi-GPU jobs)
};

// The scenario's "delay_scheduling" block.
std::shared_ptr<const cfg::ObjectSpec> spec();
Params params_from(const cfg::json& resolved);

// The level of a placement: one node, one leaf, or the network.
Level placement_level(std::span<const NodeShare> placement, std::span<const uint32_t> node_leaf);
// The tightest level a job of `gpus` GPUs on exactly `nodes` nodes (0 = any) can ever get on
// this cluster (largest node; largest leaf's GPUs).
Level best_level(int32_t gpus, int32_t nodes, int32_t max_node_gpus, int64_t max_leaf_gpus);
// The loosest level a job submitted at `submit_s` accepts at `now_s`: `best`, relaxed by one
// level each time now reaches submit + the sum of the timers of the levels it has waited at.
// Both functions compare the same absolute times, so a pass at the relax time sees it relaxed.
Level allowed_level(Level best, SimTime submit_s, SimTime now_s, const std::array<double, 2>& timer_s);
// When the job next relaxes: kNever when it is already at Network (or the timers are infinite).
SimTime next_relax_at(Level best, SimTime submit_s, SimTime now_s, const std::array<double, 2>& timer_s);

// Auto timers: the mean wait of the last `window` multi-GPU starts at each level.
class AutoTimers {
 public:
  explicit AutoTimers(size_t window, std::array<double, 2> initial_s) : window_(window), timer_s_(initial_s) {}
  void observe(Level started_at, double waited_s);
  const std::array<double, 2>& timers() const { return timer_s_; }

 private:
  size_t window_;
  std::array<double, 2> timer_s_;
  std::array<std::deque<double>, 2> recent_;
};

// Wraps `inner` with delay scheduling.
std::unique_ptr<Scheduler> wrap(std::unique_ptr<Scheduler> inner, const Params& p);

// The runtime stretch by consolidation level (multi-GPU jobs only).
class ConsolidationRuntime final : public RuntimeModel {
 public:
  ConsolidationRuntime(const Params& p) : slowdown_(p.slowdown) {}
  double stretch(JobIdx j, std::span<const NodeShare> placement, const Snapshot& view) override;
  nlohmann::json report() const override;

 private:
  std::array<double, 3> slowdown_;
  std::array<uint64_t, 3> starts_{};
};

}  // namespace floorsim::app::delay
