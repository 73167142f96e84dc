// SenseTime Helios `cluster_log.csv` (SC'21; S-Lab-System-Group/HeliosData).
// Header (columns found by name): job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,
// start_time,end_time,duration,queue.
//
// Mapping:
//   id = job_id; user = user; account = partition = vc (the VC is both the quota owner and the
//   pool the job runs in); gpus = gpu_num; cpus = cpu_num; nodes = node_num.
//   Times are "YYYY-MM-DD HH:MM:SS" with no zone; only differences are used: submit_s is seconds
//   since the earliest submit_time in the file, recorded_start_s likewise.
//   runtime_s = end_time - start_time (recorded times; the `duration` column is not trusted over
//   them; a mismatch is counted as adjusted "duration_column_differs").
//   time_limit_s: Helios gives none, so ReadOptions::missing_limit_is_runtime decides (counted).
// Rows skipped (counted by reason):
//   cpu_only_job      gpu_num == 0 (about half the trace), unless keep_cpu_jobs.
//   never_started     empty or unparsable-as-absent start_time/end_time ("", "None", "NaN").
//   end_before_start  end_time < start_time.
//   zero_runtime      end == start, only with drop_zero_runtime (kept by default).
// A present value that is not a date or number is an InputError naming file:line and column.
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "traces/parse_util.hpp"
#include "traces/readers.hpp"

namespace floorsim::traces::detail {

namespace {
bool absent(std::string_view s) {
  s = trim(s);
  return s.empty() || s == "None" || s == "NaN" || s == "nan" || s == "NaT";
}
}  // namespace

TraceData read_helios(input::LineSource& src, const ReadOptions& opts) {
  const std::string& path = src.path();
  JobBuilder b(path, Format::Helios, opts);
  CsvReader in(src);
  std::vector<std::string_view> f;
  if (!in.next(f)) fail(path, 1, "empty file; expected the Helios cluster_log.csv header");
  Header h;
  for (auto s : f) h.names.emplace_back(trim(s));
  const size_t hl = in.line();
  const int c_id = h.need("job_id", path, hl), c_user = h.need("user", path, hl), c_vc = h.need("vc", path, hl),
            c_gpu = h.need("gpu_num", path, hl), c_cpu = h.find("cpu_num"), c_node = h.find("node_num"),
            c_submit = h.need("submit_time", path, hl), c_start = h.need("start_time", path, hl),
            c_end = h.need("end_time", path, hl), c_dur = h.find("duration");

  auto num = [&](int col) -> int64_t {
    auto v = to_double(f[col]);
    if (!v || !std::isfinite(*v) || std::fabs(*v) > 9e15)
      fail(path, in.line(), fmt::format("column {} is '{}'; expected a number within +-9e15", h.names[col], f[col]));
    return std::llround(*v);
  };
  // Counts (GPUs, CPUs, nodes) are int32 in JobSpec; a negative count is not "CPU-only".
  auto count = [&](int col) -> int32_t {
    const int64_t v = num(col);
    if (v < 0 || v > std::numeric_limits<int32_t>::max())
      fail(path, in.line(), fmt::format("column {} is '{}'; expected a count in [0, 2147483647]", h.names[col], f[col]));
    return static_cast<int32_t>(v);
  };
  auto time = [&](int col) -> double {
    auto t = to_naive_time(f[col]);
    if (!t) fail(path, in.line(), fmt::format("column {} is '{}'; expected YYYY-MM-DD HH:MM:SS", h.names[col], f[col]));
    return *t;
  };

  while (in.next(f)) {
    if (f.size() != h.names.size())
      fail(path, in.line(), fmt::format("{} fields; expected {} as in the header", f.size(), h.names.size()));
    b.row();
    JobSpec j;
    j.id = num(c_id);
    const double submit = time(c_submit);
    b.note_submit(submit);
    j.gpus = count(c_gpu);
    if (c_cpu >= 0 && !absent(f[c_cpu])) j.cpus = count(c_cpu);
    if (c_node >= 0 && !absent(f[c_node])) j.nodes = count(c_node);
    if (absent(f[c_start]) || absent(f[c_end])) {
      b.skip("never_started");
      continue;
    }
    const double start = time(c_start), end = time(c_end);
    if (end < start) {
      b.skip("end_before_start");
      continue;
    }
    j.submit_s = submit;
    j.recorded_start_s = start;
    j.runtime_s = end - start;
    if (c_dur >= 0 && !absent(f[c_dur]) && static_cast<double>(num(c_dur)) != j.runtime_s)
      b.adjust("duration_column_differs");
    j.time_limit_s = JobBuilder::kUnknownLimit;
    j.user = b.intern(trim(f[c_user]));
    j.account = j.partition = b.intern(trim(f[c_vc]));
    b.add(j, in.line());
  }
  return b.finish(/*shift_epoch=*/true);
}

}  // namespace floorsim::traces::detail
