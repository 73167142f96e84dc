// Alibaba PAI v2023 "openb" pod list (alibaba/clusterdata cluster-trace-gpu-v2023, ATC'23).
// Header (columns found by name): name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,
// pod_phase,creation_time,deletion_time,scheduled_time.
//
// Mapping:
//   id = the number after the last '-' in name (openb-pod-0042 -> 42); a name without one gets
//        its 1-based row number (counted as adjusted "id_from_row_number").
//   submit_s = creation_time (already seconds from the trace start; shifted so the earliest
//        creation_time is 0, which it already is in the published files).
//   recorded_start_s = scheduled_time; runtime_s = deletion_time - scheduled_time. For pods still
//        `Running` at the end of the observation this is a lower bound (counted as adjusted
//        "running_pod_runtime_lower_bound").
//   gpus = num_gpu; gpu_milli = gpu_milli when num_gpu == 1 and gpu_milli < 1000 (a shared
//        fraction of one GPU), else 0 (whole GPUs). cpus = ceil(cpu_milli / 1000).
//   qos = qos and klass = qos (LS, BE, Burstable, Guaranteed). Nothing is inferred about
//        preemption from the QoS. time_limit_s: none given, so missing_limit_is_runtime decides.
// Rows skipped (counted by reason):
//   pending_never_scheduled  pod_phase Pending or an empty scheduled_time (897 in the default file).
//   cpu_only_job             num_gpu == 0, unless keep_cpu_jobs (checked after the above).
//   deleted_before_scheduled deletion_time < scheduled_time.
// The multigpu* variants have no time columns and are rejected (no creation_time column).
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "traces/parse_util.hpp"
#include "traces/readers.hpp"

namespace floorsim::traces::detail {

TraceData read_pai(input::LineSource& src, const ReadOptions& opts) {
  const std::string& path = src.path();
  JobBuilder b(path, Format::PaiOpenb, opts);
  CsvReader in(src);
  std::vector<std::string_view> f;
  if (!in.next(f)) fail(path, 1, "empty file; expected the openb pod list header");
  Header h;
  for (auto s : f) h.names.emplace_back(trim(s));
  const size_t hl = in.line();
  const int c_name = h.need("name", path, hl), c_cpu = h.find("cpu_milli"), c_ngpu = h.need("num_gpu", path, hl),
            c_milli = h.need("gpu_milli", path, hl), c_qos = h.find("qos"), c_phase = h.find("pod_phase"),
            c_create = h.need("creation_time", path, hl), c_delete = h.need("deletion_time", path, hl),
            c_sched = h.need("scheduled_time", path, hl);

  auto num = [&](int col) -> double {
    auto v = to_double(f[col]);
    if (!v || !std::isfinite(*v) || std::fabs(*v) > 9e15)
      fail(path, in.line(), fmt::format("column {} is '{}'; expected a number", h.names[col], f[col]));
    return *v;
  };

  size_t row_no = 0;
  while (in.next(f)) {
    if (f.size() != h.names.size())
      fail(path, in.line(), fmt::format("{} fields; expected {} as in the header", f.size(), h.names.size()));
    b.row();
    ++row_no;
    const double created = num(c_create);
    b.note_submit(created);
    const std::string_view phase = c_phase >= 0 ? trim(f[c_phase]) : std::string_view();
    if (phase == "Pending" || trim(f[c_sched]).empty()) {
      b.skip("pending_never_scheduled");
      continue;
    }
    const double sched = num(c_sched), deleted = num(c_delete);
    JobSpec j;
    const std::string_view name = trim(f[c_name]);
    const size_t dash = name.rfind('-');
    auto idnum = dash == std::string_view::npos ? std::nullopt : to_int(name.substr(dash + 1));
    if (idnum) {
      j.id = *idnum;
    } else {
      j.id = static_cast<int64_t>(row_no);
      b.adjust("id_from_row_number");
    }
    const int64_t ngpu = std::llround(num(c_ngpu));
    const int64_t milli = std::llround(num(c_milli));
    if (ngpu < 0 || ngpu > std::numeric_limits<int32_t>::max() || milli < 0 || milli > 1000)
      fail(path, in.line(), fmt::format("num_gpu {} / gpu_milli {}; expected num_gpu >= 0 and 0 <= gpu_milli <= 1000",
                                        f[c_ngpu], f[c_milli]));
    j.gpus = static_cast<int32_t>(ngpu);
    j.gpu_milli = (ngpu == 1 && milli < 1000) ? static_cast<int32_t>(milli) : 0;
    if (c_cpu >= 0 && !trim(f[c_cpu]).empty()) {
      const double cpus = std::ceil(num(c_cpu) / 1000.0);
      if (cpus < 0 || cpus > std::numeric_limits<int32_t>::max())
        fail(path, in.line(), fmt::format("cpu_milli {}; expected a count >= 0 that fits in int32 CPUs", f[c_cpu]));
      j.cpus = static_cast<int32_t>(cpus);
    }
    if (deleted < sched) {
      b.skip("deleted_before_scheduled");
      continue;
    }
    j.submit_s = created;
    j.recorded_start_s = sched;
    j.runtime_s = deleted - sched;
    j.time_limit_s = JobBuilder::kUnknownLimit;
    if (c_qos >= 0) j.qos = j.klass = b.intern(trim(f[c_qos]));
    if (ngpu == 0 && !opts.keep_cpu_jobs) {
      b.skip(kSkipCpuOnly);
      continue;
    }
    if (phase == "Running") b.adjust("running_pod_runtime_lower_bound");
    b.add(j, in.line());
  }
  return b.finish(/*shift_epoch=*/true);
}

}  // namespace floorsim::traces::detail
