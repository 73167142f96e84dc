// Standard Workload Format (Parallel Workloads Archive, SWF v2.2): reader and writer.
//
// Mapping (SWF field number in brackets):
//   id                = job number [1] (gaps are normal in cleaned logs)
//   submit_s          = submit time [2], as in the file (offsets from UnixStartTime; KTH starts at 599850)
//   recorded_start_s  = submit [2] + wait [3]; -1 when the wait is -1 (NASA: every job)
//   runtime_s         = run time [4] (floats allowed)
//   gpus              = requested procs [8] if > 0, else allocated procs [5]; times
//                       ReadOptions::gpus_per_proc. Both unknown: skipped ("procs_unknown").
//   nodes             = 0 (any): SWF gives processors, not nodes.
//   cpus, memory      = not given: a processor is a GPU here, so SWF jobs ask no CPUs and no
//                       memory (on nodes that give CPUs, the slurm model gives each one CPU per node).
//   time_limit_s      = requested time [9] when > 0; else unknown, resolved by
//                       ReadOptions::missing_limit_is_runtime (counted in report.adjusted).
//   user              = "u<[12]>", account = "g<[13]>", qos = "q<[15]>", partition = "p<[16]>";
//                       the empty string when the field is -1. klass is left empty.
// Rows skipped (counted by reason):
//   partial_execution_record  status 2/3/4: partial runs of a checkpointed job; the job's own
//                             line (status 0/1/5) already summarizes it.
//   cancelled_before_start    status 5 with run time <= 0 (the job never ran).
//   runtime_unknown           run time -1.  submit_unknown: submit -1.  procs_unknown: [5] and [8] <= 0.
// Status -1 (unknown, e.g. NASA), 0 (failed), 1 (completed) and 5 with run time > 0 are kept.
// Header lines `; Key: Value` go to report.header (repeated keys joined with " | ").
// Every field is parsed as a number (floats in integer fields are rounded); anything else is an
// InputError naming file:line and the field.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include <fmt/format.h>

#include "sim/core/io.hpp"
#include "traces/parse_util.hpp"
#include "traces/readers.hpp"

namespace floorsim::traces {
namespace detail {

namespace {

constexpr const char* kSwfFieldNames[18] = {
    "job number",       "submit time",        "wait time",         "run time",
    "allocated procs",  "average CPU time",   "used memory",       "requested procs",
    "requested time",   "requested memory",   "status",            "user id",
    "group id",         "executable number",  "queue number",      "partition number",
    "preceding job",    "think time"};

void parse_header_line(std::string_view line, ReadReport& rep) {
  // `; Key: Value`: the key is one word; continuation lines (`;      text`) are ignored.
  line.remove_prefix(1);
  line = trim(line);
  size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return;
  std::string_view key = line.substr(0, colon);
  for (char c : key)
    if (!std::isalnum(static_cast<unsigned char>(c))) return;
  std::string value(trim(line.substr(colon + 1)));
  auto [it, inserted] = rep.header.emplace(std::string(key), value);
  if (!inserted) it->second += " | " + value;
}

// Interns "<prefix><N>" once per distinct N (formatting and hashing per row is most of the
// reading time otherwise). -1 (unknown) is the empty string.
class LabelCache {
 public:
  explicit LabelCache(char prefix) : prefix_(prefix) {}
  StrId get(JobBuilder& b, double v) {
    if (v < 0) return 0;
    const int64_t n = std::llround(v);
    if (n < kDense) {
      if (static_cast<size_t>(n) >= dense_.size()) dense_.resize(static_cast<size_t>(n) + 1, kUnset);
      StrId& id = dense_[static_cast<size_t>(n)];
      if (id == kUnset) id = b.intern(fmt::format("{}{}", prefix_, n));
      return id;
    }
    return b.intern(fmt::format("{}{}", prefix_, n));
  }

 private:
  static constexpr int64_t kDense = 1 << 20;
  static constexpr StrId kUnset = StringTable::kMissing;
  char prefix_;
  std::vector<StrId> dense_;
};

}  // namespace

TraceData read_swf(input::LineSource& src, const ReadOptions& opts) {
  const std::string& path = src.path();
  JobBuilder b(path, Format::Swf, opts);
  std::string_view line;
  std::vector<std::string_view> f;
  f.reserve(24);
  double v[18];
  LabelCache users('u'), groups('g'), queues('q'), parts('p');
  while (src.next(line)) {
    std::string_view t = trim(line);
    if (t.empty()) continue;
    if (t.front() == ';') {
      parse_header_line(t, b.report());
      continue;
    }
    split_ws(t, f);
    if (f.size() != 18)
      fail(path, src.line_no(), fmt::format("{} fields; expected the 18 whitespace-separated SWF fields", f.size()));
    for (int i = 0; i < 18; ++i) {
      auto d = to_double(f[i]);
      // Ids, counts and labels are rounded to integers: past 2^53 that rounding is meaningless.
      if (!d || !std::isfinite(*d) || std::fabs(*d) > 9e15)
        fail(path, src.line_no(),
             fmt::format("field {} ({}) is '{}'; expected a number within +-9e15 (-1 = unknown)", i + 1,
                         kSwfFieldNames[i], f[i]));
      v[i] = *d;
    }
    b.row();
    const double submit = v[1], wait = v[2], run = v[3];

    const int status = static_cast<int>(std::llround(v[10]));
    if (status < -1 || status > 5)
      fail(path, src.line_no(), fmt::format("status (field 11) is {}; expected -1, 0, 1, 2, 3, 4 or 5", f[10]));
    if (status >= 2 && status <= 4) {
      b.skip("partial_execution_record");
      continue;
    }
    if (status == 5 && run <= 0) {
      b.skip("cancelled_before_start");
      continue;
    }
    if (submit < 0) {
      b.skip("submit_unknown");
      continue;
    }
    if (run < 0) {
      b.skip("runtime_unknown");
      continue;
    }
    const double procs = v[7] > 0 ? v[7] : v[4];
    if (procs <= 0) {
      b.skip("procs_unknown");
      continue;
    }
    JobSpec j;
    j.id = std::llround(v[0]);
    j.submit_s = submit;
    j.runtime_s = run;
    j.recorded_start_s = wait >= 0 ? submit + wait : -1;
    if (std::llround(procs) * opts.gpus_per_proc > std::numeric_limits<int32_t>::max())
      fail(path, src.line_no(), fmt::format("{} procs x {} GPUs per proc; expected at most {} GPUs per job",
                                            std::llround(procs), opts.gpus_per_proc, std::numeric_limits<int32_t>::max()));
    j.gpus = static_cast<int32_t>(std::llround(procs) * opts.gpus_per_proc);
    j.nodes = 0;
    j.time_limit_s = v[8] > 0 ? v[8] : JobBuilder::kUnknownLimit;
    j.user = users.get(b, v[11]);
    j.account = groups.get(b, v[12]);
    j.qos = queues.get(b, v[14]);
    j.partition = parts.get(b, v[15]);
    b.add(j, src.line_no());
  }
  // An empty (or header-only) file replays as an empty night: almost surely a wrong or cut file.
  if (b.report().rows == 0) fail(path, std::max<size_t>(1, src.line_no()), "no job records; expected lines of the 18 SWF fields");
  return b.finish(/*shift_epoch=*/false);
}

namespace {

// SWF wants numbers for users, groups, queues and partitions. Names of the form
// "<prefix><N>" (as the reader makes them) keep N; other names get dense numbers in order of
// first appearance, after the largest N seen, so the mapping is deterministic.
class NameNumbers {
 public:
  NameNumbers(const Workload& w, StrId JobSpec::*field, char prefix) : field_(field), prefix_(prefix) {
    for (const auto& j : w.jobs) {
      auto n = parse(w.strings.str(j.*field_));
      if (n && *n > max_) max_ = *n;
    }
  }
  int64_t number(const Workload& w, const JobSpec& j) {
    const StrId id = j.*field_;
    if (id == 0) return -1;
    if (auto it = assigned_.find(id); it != assigned_.end()) return it->second;
    auto n = parse(w.strings.str(id));
    int64_t v = n ? *n : ++max_;
    assigned_.emplace(id, v);
    return v;
  }

 private:
  std::optional<int64_t> parse(const std::string& s) const {
    if (s.size() < 2 || s[0] != prefix_) return std::nullopt;
    auto n = to_int(std::string_view(s).substr(1));
    if (!n || *n < 0) return std::nullopt;
    return n;
  }
  StrId JobSpec::*field_;
  char prefix_;
  int64_t max_ = 0;
  std::map<StrId, int64_t> assigned_;
};

}  // namespace
}  // namespace detail

void write_swf(const std::string& path, const Workload& w) { io::write_file_atomic(path, swf_text(w)); }

std::string swf_text(const Workload& w) {
  using namespace detail;
  int32_t max_procs = 0;
  for (const auto& j : w.jobs) max_procs = std::max(max_procs, j.gpus);
  std::string out;
  out.reserve(96 * w.jobs.size() + 512);
  out += "; Version: 2.2\n";
  out += "; Computer: floorsim export\n";
  out += fmt::format("; MaxJobs: {}\n", w.jobs.size());
  out += fmt::format("; MaxRecords: {}\n", w.jobs.size());
  out += fmt::format("; MaxProcs: {}\n", max_procs);
  out += "; Note: processors are GPUs (fractional GPU shares are not representable); -1 = unknown\n";
  out += "; Note: user/group/queue/partition numbers come from names u<N>/g<N>/q<N>/p<N> (account -> group, qos -> queue)\n";
  out += ";\n";
  NameNumbers users(w, &JobSpec::user, 'u'), groups(w, &JobSpec::account, 'g'), queues(w, &JobSpec::qos, 'q'),
      parts(w, &JobSpec::partition, 'p');
  for (const auto& j : w.jobs) {
    const double wait = j.recorded_start_s >= 0 ? j.recorded_start_s - j.submit_s : -1;
    const double req_time = j.time_limit_s == kNever ? -1 : j.time_limit_s;
    fmt::format_to(std::back_inserter(out), "{} {} {} {} {} -1 -1 {} {} -1 1 {} {} -1 {} {} -1 -1\n", j.id, fmt_num(j.submit_s),
                       fmt_num(wait), fmt_num(j.runtime_s), j.gpus, j.gpus, fmt_num(req_time), users.number(w, j),
                       groups.number(w, j), queues.number(w, j), parts.number(w, j));
  }
  return out;
}

}  // namespace floorsim::traces
