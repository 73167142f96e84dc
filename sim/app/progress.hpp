#pragma once
// One progress line on stderr for the long verbs (run, rehearse, sweep): redrawn in place at
// most every 100 ms and ended with a newline. The verbs draw it only when stderr is a terminal
// and not with -q (or as --progress says), so logs and pipes stay clean.
#include <chrono>
#include <memory>
#include <ostream>
#include <string>

#include "sim/core/scheduler_api.hpp"

namespace floorsim::app {

class Progress {
 public:
  // `out` null: off (every call is a no-op).
  Progress(std::ostream* out, std::string label);
  bool on() const { return out_ != nullptr; }
  // Whether an update now would be drawn (100 ms since the last draw): lets a caller skip
  // building its detail text.
  bool due() const { return out_ && std::chrono::steady_clock::now() - last_ > std::chrono::milliseconds(100); }
  // `done` of `total` units (total 0: unknown, no bar); `detail` follows. Not thread-safe.
  void update(size_t done, size_t total, const std::string& detail = "");
  // The text before the counts (a search names the step under way); drawn at the next update.
  void set_label(std::string label) {
    label_ = std::move(label);
    last_ = t0_ - std::chrono::seconds(1);
  }
  // Draws the last state, then a newline (when anything was drawn).
  void finish();

 private:
  void draw();
  std::ostream* out_;
  std::string label_;
  std::chrono::steady_clock::time_point t0_, last_;
  size_t done_ = 0, total_ = 0;
  std::string detail_;
  bool drawn_ = false;
};

// Wraps a run's scheduler so that each scheduling pass updates `p` with the jobs finished so
// far and the simulated time; every decision is the inner scheduler's.
std::unique_ptr<Scheduler> report_progress(std::unique_ptr<Scheduler> inner, Progress& p);

// "3d 04:05" / "04:05" (h:mm) of a simulated time in seconds.
std::string sim_clock(double t_s);

}  // namespace floorsim::app
