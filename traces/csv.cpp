// floorsim's own job list (CSV): reader and writer. Lossless: numbers are written in the
// shortest form that reads back to the same double, `inf` for kNever, strings CSV-quoted.
// Header (write order; the reader maps columns by name, needs id, submit_s, runtime_s and gpus,
// and gives JobSpec defaults to absent optional columns):
//   id,submit_s,runtime_s,time_limit_s,gpus,nodes,cpus,gpu_milli,priority,user,account,class,qos,
//   partition,deadline_s,checkpoint_interval_s,preemptible,requeueable,recorded_start_s
// (recorded_start_s is last so that files with only the first 18 columns still read.)
// submit_s is kept as written (no epoch shift). The shared ReadOptions filters (CPU-only jobs,
// zero runtime, max_jobs) apply as for every format. Unknown columns are an error (a typo
// would otherwise silently lose data).
#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "sim/core/io.hpp"
#include "traces/parse_util.hpp"
#include "traces/readers.hpp"

namespace floorsim::traces {
namespace detail {

namespace {
constexpr const char* kColumns[] = {"id",        "submit_s",    "runtime_s",  "time_limit_s",
                                    "gpus",      "nodes",       "cpus",       "gpu_milli",
                                    "priority",  "user",        "account",    "class",
                                    "qos",       "partition",   "deadline_s", "checkpoint_interval_s",
                                    "preemptible", "requeueable", "recorded_start_s"};
}  // namespace

TraceData read_csv(input::LineSource& src, const ReadOptions& opts) {
  const std::string& path = src.path();
  JobBuilder b(path, Format::Csv, opts);
  CsvReader in(src);
  std::vector<std::string_view> f;
  if (!in.next(f)) fail(path, 1, "empty file; expected the floorsim job-list header (id,submit_s,...)");
  Header h;
  for (auto s : f) h.names.emplace_back(trim(s));
  const size_t hl = in.line();
  for (const auto& n : h.names) {
    bool known = false;
    for (const char* k : kColumns) known = known || n == k;
    if (!known)
      fail(path, hl, fmt::format("unknown column '{}'; expected only: id, submit_s, runtime_s, time_limit_s, gpus, nodes, "
                                 "cpus, gpu_milli, priority, user, account, class, qos, partition, deadline_s, "
                                 "checkpoint_interval_s, preemptible, requeueable, recorded_start_s",
                                 n));
  }
  h.need("id", path, hl);
  h.need("submit_s", path, hl);
  h.need("runtime_s", path, hl);
  h.need("gpus", path, hl);
  int c[std::size(kColumns)];
  for (size_t k = 0; k < std::size(kColumns); ++k) c[k] = h.find(kColumns[k]);

  auto dbl = [&](size_t k, double def) -> double {
    if (c[k] < 0) return def;
    auto v = to_double(f[c[k]]);
    if (!v || std::isnan(*v))
      fail(path, in.line(), fmt::format("column {} is '{}'; expected a number or inf", kColumns[k], f[c[k]]));
    return *v;
  };
  auto integer = [&](size_t k, int64_t def, int64_t lo, int64_t hi) -> int64_t {
    if (c[k] < 0) return def;
    auto v = to_int(f[c[k]]);
    if (!v || *v < lo || *v > hi)
      fail(path, in.line(), fmt::format("column {} is '{}'; expected an integer in [{}, {}]", kColumns[k], f[c[k]], lo, hi));
    return *v;
  };
  auto str = [&](size_t k) -> StrId { return c[k] < 0 ? 0 : b.intern(f[c[k]]); };
  constexpr int64_t kI32 = std::numeric_limits<int32_t>::max();

  while (in.next(f)) {
    if (f.size() != h.names.size())
      fail(path, in.line(), fmt::format("{} fields; expected {} as in the header", f.size(), h.names.size()));
    b.row();
    JobSpec j;
    j.id = integer(0, 0, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
    j.submit_s = dbl(1, 0);
    j.runtime_s = dbl(2, 0);
    j.time_limit_s = dbl(3, kNever);
    j.gpus = static_cast<int32_t>(integer(4, 0, 0, kI32));
    j.nodes = static_cast<int32_t>(integer(5, 0, 0, kI32));
    j.cpus = static_cast<int32_t>(integer(6, 0, 0, kI32));
    j.gpu_milli = static_cast<int32_t>(integer(7, 0, 0, 1000));
    j.priority = static_cast<int32_t>(integer(8, 0, -kI32, kI32));
    j.user = str(9);
    j.account = str(10);
    j.klass = str(11);
    j.qos = str(12);
    j.partition = str(13);
    j.deadline_s = dbl(14, kNever);
    j.checkpoint_interval_s = dbl(15, 0);
    j.preemptible = integer(16, 0, 0, 1) != 0;
    j.requeueable = integer(17, 1, 0, 1) != 0;
    j.recorded_start_s = dbl(18, -1);
    if (!std::isfinite(j.submit_s) || !std::isfinite(j.runtime_s) || j.runtime_s < 0 || j.time_limit_s < 0 ||
        j.checkpoint_interval_s < 0 || !std::isfinite(j.checkpoint_interval_s))
      fail(path, in.line(), "submit_s and runtime_s must be finite, runtime_s, time_limit_s and checkpoint_interval_s >= 0");
    b.add(j, in.line());
  }
  return b.finish(/*shift_epoch=*/false);
}

}  // namespace detail

void write_csv(const std::string& path, const Workload& w) { io::write_file_atomic(path, csv_text(w)); }

std::string csv_text(const Workload& w) {
  using detail::csv_quote;
  using detail::fmt_num;
  std::string out;
  out.reserve(128 * (w.jobs.size() + 1));
  for (size_t k = 0; k < std::size(detail::kColumns); ++k) {
    if (k) out += ',';
    out += detail::kColumns[k];
  }
  out += '\n';
  auto s = [&](StrId id) { return csv_quote(w.strings.str(id)); };
  for (const auto& j : w.jobs) {
    fmt::format_to(std::back_inserter(out), "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", j.id, fmt_num(j.submit_s),
                       fmt_num(j.runtime_s), fmt_num(j.time_limit_s), j.gpus, j.nodes, j.cpus, j.gpu_milli, j.priority,
                       s(j.user), s(j.account), s(j.klass), s(j.qos), s(j.partition), fmt_num(j.deadline_s),
                       fmt_num(j.checkpoint_interval_s), j.preemptible ? 1 : 0, j.requeueable ? 1 : 0,
                       fmt_num(j.recorded_start_s));
  }
  return out;
}

}  // namespace floorsim::traces
