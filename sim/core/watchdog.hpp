#pragma once
// The engine's progress watchdog: a run that stops making progress ends in an error instead of
// looping for ever. The engine calls after_pass() once per scheduler pass with its count of
// state changes (submissions, starts, ends, preemptions, requeues, node events, applied policy
// changes); the watchdog counts the passes since that count last moved. A few compares per
// pass, no allocation.
//
// Two rules (limits below, generous: a legitimate run never comes near them):
//   - at one instant: more than `passes_at_instant` consecutive passes at the same simulated
//     time with no state change. Only a model that keeps asking for a pass at the current time
//     can do this (every other event at the current time is a state change or happens once).
//   - over time: nothing is left to happen but wake-ups (no submission to come, no job end,
//     delayed stop, node event or policy change in the event queue), and either more than
//     `idle_wakeups` consecutive passes or more than `idle_span_s` of simulated time went by
//     with no state change. Nothing outside the model can change its mind any more, so its
//     wake-ups would go on for ever (a job it can never start, a timer it always re-arms).
#include <cstdint>

#include "sim/core/types.hpp"

namespace floorsim {

struct WatchdogLimits {
  uint64_t passes_at_instant = 10'000;
  uint64_t idle_wakeups = 1'000'000;
  SimTime idle_span_s = 10.0 * 365 * 86400;  // a decade of simulated time
};

class ProgressWatchdog {
 public:
  enum class Stall : uint8_t { None, AtInstant, OnlyWakeups };

  explicit ProgressWatchdog(WatchdogLimits limits = {}) : lim_(limits) {}

  // After one pass at `now_s`. `progress` is the engine's count of state changes so far;
  // `only_wakeups` is true when nothing but wake-up passes is left to happen.
  Stall after_pass(SimTime now_s, uint64_t progress, bool only_wakeups) {
    if (progress != seen_) {
      seen_ = progress;
      at_instant_ = 0;
      idle_wakeups_ = 0;
      instant_s_ = now_s;
      return Stall::None;
    }
    if (now_s != instant_s_) {
      instant_s_ = now_s;
      at_instant_ = 0;
    }
    if (++at_instant_ > lim_.passes_at_instant) return Stall::AtInstant;
    if (!only_wakeups) {
      idle_wakeups_ = 0;
      return Stall::None;
    }
    if (idle_wakeups_++ == 0) idle_since_s_ = now_s;
    if (idle_wakeups_ > lim_.idle_wakeups || now_s - idle_since_s_ > lim_.idle_span_s) return Stall::OnlyWakeups;
    return Stall::None;
  }

  // For the message: passes counted by the rule that fired, and where the idle stretch began.
  uint64_t passes_at_instant() const { return at_instant_; }
  uint64_t idle_wakeups() const { return idle_wakeups_; }
  SimTime idle_since_s() const { return idle_since_s_; }
  const WatchdogLimits& limits() const { return lim_; }

 private:
  WatchdogLimits lim_;
  uint64_t seen_ = ~uint64_t{0};
  uint64_t at_instant_ = 0, idle_wakeups_ = 0;
  SimTime instant_s_ = -1, idle_since_s_ = 0;
};

}  // namespace floorsim
