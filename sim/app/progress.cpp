#include "sim/app/progress.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/app/forwarding_scheduler.hpp"

namespace floorsim::app {

Progress::Progress(std::ostream* out, std::string label)
    : out_(out), label_(std::move(label)), t0_(std::chrono::steady_clock::now()), last_(t0_ - std::chrono::seconds(1)) {}

void Progress::update(size_t done, size_t total, const std::string& detail) {
  if (!out_) return;
  done_ = done, total_ = total, detail_ = detail;
  const auto now = std::chrono::steady_clock::now();
  if ((total && done == total) || now - last_ > std::chrono::milliseconds(100)) {
    last_ = now;
    draw();
  }
}

void Progress::draw() {
  const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  std::string line = label_.empty() ? "" : label_ + " ";
  if (total_) {
    const double rate = el > 0 ? done_ / el : 0;
    const double eta = rate > 0 ? (total_ - std::min(done_, total_)) / rate : 0;
    const int width = 30, fill = static_cast<int>(width * std::min(done_, total_) / total_);
    line += fmt::format("[{}{}] {}/{} {:.1f}/s ETA {:.0f} s", std::string(fill, '#'), std::string(width - fill, ' '), done_, total_,
                        rate, eta);
  } else {
    line += fmt::format("{} done, {:.0f} s", done_, el);
  }
  if (!detail_.empty()) line += " " + detail_;
  *out_ << "\r" << line << "\x1b[K" << std::flush;  // clear what a longer earlier line left
  drawn_ = true;
}

void Progress::finish() {
  if (!out_) return;
  draw();
  *out_ << "\n" << std::flush;
}

std::string sim_clock(double t_s) {
  const auto t = static_cast<int64_t>(std::floor(std::max(0.0, t_s) / 60));  // whole minutes
  const int64_t d = t / 1440, h = (t / 60) % 24, m = t % 60;
  return d ? fmt::format("{}d {:02}:{:02}", d, h, m) : fmt::format("{:02}:{:02}", h, m);
}

namespace {

class ProgressReporter final : public ForwardingScheduler {
 public:
  ProgressReporter(std::unique_ptr<Scheduler> inner, Progress& p) : ForwardingScheduler(std::move(inner)), p_(p) {}
  void schedule(const Snapshot& view, Decisions& out) override {
    inner().schedule(view, out);
    if (!p_.due()) return;
    // Jobs are in submission order: those submitted by now, less the queued and running ones,
    // have finished.
    const auto submitted = static_cast<size_t>(
        std::upper_bound(view.jobs.begin(), view.jobs.end(), view.now, [](double t, const JobSpec& j) { return t < j.submit_s; }) -
        view.jobs.begin());
    const size_t open = view.pending.size() + view.running.size();
    p_.update(submitted > open ? submitted - open : 0, view.jobs.size(), "jobs, simulated " + sim_clock(view.now));
  }

 private:
  Progress& p_;
};

}  // namespace

std::unique_ptr<Scheduler> report_progress(std::unique_ptr<Scheduler> inner, Progress& p) {
  return std::make_unique<ProgressReporter>(std::move(inner), p);
}

}  // namespace floorsim::app
