#pragma once
// Paths and small helpers shared by the trace tests.
#include <chrono>
#include <filesystem>
#include <string>

#include "sim/core/types.hpp"
#include "traces/trace.hpp"

namespace floorsim::traces::test {

// The real traces bundled with the repository (traces/data/<source>/, each with its README).
inline std::string bundled(const std::string& rel) { return std::string(FLOORSIM_SOURCE_DIR) + "/traces/data/" + rel; }
inline std::string data_file(const std::string& name) {
  return std::string(FLOORSIM_SOURCE_DIR) + "/tests/traces/data/" + name;
}

inline size_t skipped(const TraceData& d, const std::string& reason) {
  auto it = d.report.skipped.find(reason);
  return it == d.report.skipped.end() ? 0 : it->second;
}
inline size_t adjusted(const TraceData& d, const std::string& reason) {
  auto it = d.report.adjusted.find(reason);
  return it == d.report.adjusted.end() ? 0 : it->second;
}
inline const JobSpec* find_job(const TraceData& d, int64_t id) {
  for (const auto& j : d.workload.jobs)
    if (j.id == id) return &j;
  return nullptr;
}
inline const std::string& str(const TraceData& d, StrId id) { return d.workload.strings.str(id); }

// Field-by-field equality, strings compared by text (ids may differ between tables).
inline bool same_job(const Workload& wa, const JobSpec& a, const Workload& wb, const JobSpec& b) {
  auto s = [](const Workload& w, StrId id) { return w.strings.str(id); };
  return a.id == b.id && a.submit_s == b.submit_s && a.runtime_s == b.runtime_s && a.time_limit_s == b.time_limit_s &&
         a.deadline_s == b.deadline_s && a.checkpoint_interval_s == b.checkpoint_interval_s &&
         a.recorded_start_s == b.recorded_start_s && a.gpus == b.gpus && a.nodes == b.nodes && a.cpus == b.cpus &&
         a.gpu_milli == b.gpu_milli && a.priority == b.priority && s(wa, a.user) == s(wb, b.user) &&
         s(wa, a.account) == s(wb, b.account) && s(wa, a.klass) == s(wb, b.klass) && s(wa, a.qos) == s(wb, b.qos) &&
         s(wa, a.partition) == s(wb, b.partition) && a.preemptible == b.preemptible && a.requeueable == b.requeueable;
}

// A temporary directory removed at scope exit.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("floorsim_traces_test_" + std::to_string(reinterpret_cast<uintptr_t>(this)) + "_" +
            std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

}  // namespace floorsim::traces::test
