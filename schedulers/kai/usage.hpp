#pragma once
// Time-aware fairness (KAI docs/timeaware): each queue's historical usage, from the
// simulation's own allocation history, decayed with a half-life and taken over a sliding or
// tumbling window, normalised by the cluster's capacity over the same window. KAI keeps the
// series in Prometheus and queries (pkg/scheduler/cache/usagedb/prometheus/prometheus.go)
//   sum_over_time((alloc * 0.5^((now - t) / halfLife))[window]) / the same over capacity;
// here the series are piecewise constant between scheduling passes, so the sums are exact
// integrals instead of one-minute samples (the ratio is the same up to that resolution).
#include <cstdint>
#include <deque>
#include <span>
#include <vector>

namespace floorsim::kai {

enum class WindowType : uint8_t { Sliding, Tumbling };

struct UsageParams {
  double half_life_s = 0;       // halfLifePeriod; 0 = no decay
  double window_s = 7 * 86400;  // windowSize (KAI default: one week)
  WindowType window = WindowType::Sliding;
  double tumbling_start_s = 0;  // tumblingWindowStartTime, in simulated time
};

// Start of the tumbling window holding `now`: the last of start + k * window (k >= 0) strictly
// before `now`, or `now` itself when start is not before it (prometheus.go
// getLatestUsageResetTime_TumblingWindow: a boundary equal to now still belongs to the old window).
double tumbling_window_start(double now_s, double start_s, double window_s);

// Decayed integrals of several piecewise-constant series (one per channel: queues, then the
// capacity). record() is called at every pass with the rates that hold from then on;
// window_sums() gives each channel's integral over the current window.
class UsageHistory {
 public:
  UsageHistory(UsageParams p, size_t channels) : p_(p), n_(channels) {}
  size_t channels() const { return n_; }
  // Rates (e.g. allocated GPUs) that hold from `now_s` on. Times never go back.
  void record(double now_s, std::span<const double> rates);
  // Integral over [window start, now] of rate(t) * 0.5^((now - t) / half_life), per channel.
  void window_sums(double now_s, std::vector<double>& out);
  double window_start(double now_s) const;

 private:
  struct Segment {
    double t0;
    std::vector<double> s;     // decayed integral from time 0 to t0
    std::vector<double> rate;  // from t0 to the next segment's t0
  };
  double decay(double dt) const;     // weight of something dt old
  double integral(double dt) const;  // integral over [0, dt] of decay(dt - x) dx
  void sums_at(const Segment& g, double t, std::vector<double>& out) const;

  UsageParams p_;
  size_t n_;
  std::deque<Segment> seg_;
  std::vector<double> at_now_, at_start_;
};

}  // namespace floorsim::kai
