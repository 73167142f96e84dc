#include "traces/stats.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "traces/parse_util.hpp"

namespace floorsim::traces {

namespace {

Summary summarize(std::vector<double>& v) {
  Summary s;
  s.count = v.size();
  if (v.empty()) return s;
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return s;
}

size_t bucket(int32_t gpus, int32_t milli) {
  if (gpus <= 0) return milli > 0 ? 1 : 0;
  if (gpus == 1) return 1;
  if (gpus == 2) return 2;
  if (gpus <= 4) return 3;
  if (gpus <= 8) return 4;
  return 5;
}

}  // namespace

TraceStats compute_stats(const TraceData& data) {
  TraceStats s;
  s.report = data.report;
  const auto& jobs = data.workload.jobs;
  s.jobs = jobs.size();
  std::vector<double> run, wait;
  run.reserve(jobs.size());
  for (const auto& j : jobs) {
    ++s.gpu_hist[bucket(j.gpus, j.gpu_milli)];
    if (j.gpu_milli > 0) ++s.fractional_gpu_jobs;
    const double g = j.gpu_milli > 0 ? j.gpu_milli / 1000.0 : j.gpus;
    s.gpu_s += g * j.runtime_s;
    run.push_back(j.runtime_s);
    if (j.recorded_start_s != -1) wait.push_back(j.recorded_start_s - j.submit_s);
  }
  if (!jobs.empty()) {
    s.first_submit_s = jobs.front().submit_s;  // jobs are sorted by submit_s
    s.last_submit_s = jobs.back().submit_s;
  }
  s.runtime_s = summarize(run);
  s.wait_s = summarize(wait);
  return s;
}

std::string format_stats_text(const TraceStats& s) {
  using detail::fmt_num;
  std::string o;
  o += fmt::format("file: {}\nformat: {}\n", s.report.file, s.report.format);
  o += fmt::format("rows: {}\njobs: {}\n", s.report.rows, s.jobs);
  size_t skipped = 0;
  for (const auto& [k, n] : s.report.skipped) skipped += n;
  o += fmt::format("skipped: {}\n", skipped);
  for (const auto& [k, n] : s.report.skipped) o += fmt::format("  {}: {}\n", k, n);
  size_t adjusted = 0;
  for (const auto& [k, n] : s.report.adjusted) adjusted += n;
  o += fmt::format("adjusted: {}\n", adjusted);
  for (const auto& [k, n] : s.report.adjusted) o += fmt::format("  {}: {}\n", k, n);
  o += fmt::format("submit span_s: {} (first {}, last {})\n", fmt_num(s.last_submit_s - s.first_submit_s),
                   fmt_num(s.first_submit_s), fmt_num(s.last_submit_s));
  o += "jobs by gpus:";
  for (size_t b = 0; b < s.gpu_hist.size(); ++b) o += fmt::format(" {}={}", TraceStats::kGpuBuckets[b], s.gpu_hist[b]);
  o += fmt::format("\nfractional-gpu jobs: {}\n", s.fractional_gpu_jobs);
  o += fmt::format("gpu_s: {:.0f}\n", s.gpu_s);
  o += fmt::format("runtime_s: mean {:.1f} median {:.1f}\n", s.runtime_s.mean, s.runtime_s.median);
  if (s.wait_s.count)
    o += fmt::format("recorded wait_s: mean {:.1f} median {:.1f} (over {} jobs with a recorded start)\n", s.wait_s.mean,
                     s.wait_s.median, s.wait_s.count);
  else
    o += "recorded wait_s: unknown (no recorded start times)\n";
  return o;
}

std::string format_stats_json(const TraceStats& s) {
  // nlohmann::ordered_json keeps the insertion order, so the output is stable and readable.
  using oj = nlohmann::ordered_json;
  oj j;
  j["file"] = s.report.file;
  j["format"] = s.report.format;
  j["rows"] = s.report.rows;
  j["jobs"] = s.jobs;
  j["skipped"] = oj::object();
  for (const auto& [k, n] : s.report.skipped) j["skipped"][k] = n;
  j["adjusted"] = oj::object();
  for (const auto& [k, n] : s.report.adjusted) j["adjusted"][k] = n;
  j["header"] = oj::object();
  for (const auto& [k, v] : s.report.header) j["header"][k] = v;
  j["first_submit_s"] = s.first_submit_s;
  j["last_submit_s"] = s.last_submit_s;
  j["span_s"] = s.last_submit_s - s.first_submit_s;
  j["gpu_histogram"] = oj::object();
  for (size_t b = 0; b < s.gpu_hist.size(); ++b) j["gpu_histogram"][TraceStats::kGpuBuckets[b]] = s.gpu_hist[b];
  j["fractional_gpu_jobs"] = s.fractional_gpu_jobs;
  j["gpu_s"] = s.gpu_s;
  j["runtime_s"] = {{"mean", s.runtime_s.mean}, {"median", s.runtime_s.median}};
  if (s.wait_s.count)
    j["recorded_wait_s"] = {{"jobs", s.wait_s.count}, {"mean", s.wait_s.mean}, {"median", s.wait_s.median}};
  else
    j["recorded_wait_s"] = nullptr;
  return j.dump(2) + "\n";
}

}  // namespace floorsim::traces
