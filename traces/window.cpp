#include "traces/window.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "traces/parse_util.hpp"

namespace floorsim::traces {

namespace {

bool two_digits(std::string_view s, size_t at, int& out) {
  if (at + 2 > s.size() || s[at] < '0' || s[at] > '9' || s[at + 1] < '0' || s[at + 1] > '9') return false;
  out = (s[at] - '0') * 10 + (s[at + 1] - '0');
  return true;
}

}  // namespace

std::optional<double> parse_wall_time(std::string_view s) {
  if (s.size() < 19) return std::nullopt;
  const std::string_view tail = s.substr(19);
  double offset = 0;
  if (tail == "Z") {
    offset = 0;
  } else if (tail.size() == 6 && (tail[0] == '+' || tail[0] == '-') && tail[3] == ':') {
    int h = 0, m = 0;
    if (!two_digits(tail, 1, h) || !two_digits(tail, 4, m) || h > 23 || m > 59) return std::nullopt;
    offset = (tail[0] == '+' ? 1 : -1) * (h * 3600.0 + m * 60.0);
  } else if (!tail.empty()) {
    return std::nullopt;
  }
  const auto t = detail::to_naive_time(s.substr(0, 19));
  if (!t) return std::nullopt;
  return *t - offset;
}

std::string format_wall_time(double t) {
  const auto secs = static_cast<int64_t>(std::floor(t));
  int64_t days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
  const int64_t sod = secs - days * 86400;
  // civil_from_days (H. Hinnant's algorithm), the inverse of the readers' days_from_civil.
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", y, m, d, sod / 3600, sod / 60 % 60, sod % 60);
}

WindowCounts select_window(Workload& w, double t0_wall_s, double from_wall_s, double to_wall_s) {
  WindowCounts c;
  const double shift = from_wall_s - t0_wall_s;  // sim time of `from` in the trace's own clock
  const double to = to_wall_s - t0_wall_s;
  std::vector<JobSpec> kept;
  kept.reserve(w.jobs.size());
  for (JobSpec j : w.jobs) {
    if (j.submit_s >= to) {
      ++c.submitted_after_to;
      continue;
    }
    if (j.submit_s >= shift) {
      ++c.in_window;
      j.submit_s -= shift;
      if (j.recorded_start_s >= 0) j.recorded_start_s -= shift;
      kept.push_back(j);
      continue;
    }
    const bool started = j.recorded_start_s >= 0;
    if (started && j.recorded_start_s + j.runtime_s <= shift) {
      ++c.ended_before_from;
      continue;
    }
    if (started && j.recorded_start_s < shift) {
      ++c.running_at_from;
      const double ran = shift - j.recorded_start_s;
      j.runtime_s -= ran;
      if (std::isfinite(j.time_limit_s)) j.time_limit_s = std::max(j.time_limit_s - ran, j.runtime_s);
      j.recorded_start_s = 0;
    } else {
      ++c.pending_at_from;
      if (started) j.recorded_start_s -= shift;
    }
    j.submit_s = 0;
    kept.push_back(j);
  }
  // Carried-in jobs moved to t = 0: the order is (submit_s, id) again.
  std::stable_sort(kept.begin(), kept.end(), [](const JobSpec& a, const JobSpec& b) {
    return a.submit_s != b.submit_s ? a.submit_s < b.submit_s : a.id < b.id;
  });
  w.jobs = std::move(kept);
  return c;
}

}  // namespace floorsim::traces
