// Slurm `sacct --parsable2` dumps (any --format; columns are found by header name).
//
// Record recovery (parsable2 has no escaping):
//   * A `|` inside a free-text column (JobName, Comment, AdminComment, SystemComment,
//     Constraints, Container, SubmitLine, WorkDir) adds fields; a newline inside SubmitLine
//     splits a record across physical lines.
//   * Physical lines are joined (with "\n") while the record has fewer fields than the header,
//     and further while it does not align (a '|' on a continuation line can make the count reach
//     the header's early), but a line that is a valid record by itself is never swallowed.
//   * When a record has more fields than the header, the extra fields are given to the
//     free-text columns so that every typed column (times, durations, integers, JobID, ExitCode,
//     State, TRES) holds a value of its type: the columns before a free-text column are anchored
//     from the left and those after it from the right, generalized to several free-text columns
//     by a small dynamic programme over (column, extra fields used). Where several free-text
//     columns are adjacent, the extras go to the later one (their text is not used here).
//     Counted as adjusted "pipe_in_free_text_recovered" / "record_split_across_lines_joined".
//   * A record that cannot be aligned and spans several lines is taken to start with an orphan
//     fragment (the tail of a record whose head is missing, e.g. the last line of
//     sacct_dump2101.log): that first line is skipped ("orphan_fragment") and parsing restarts at
//     the next line. An incomplete record at the end of the file is an orphan fragment too.
//     A single line that cannot be aligned is an InputError naming file:line and the column.
// Rows:
//   * Step rows (JobID `<id>.batch`, `.extern`, `.<n>`) are skipped ("step_row"): the allocation
//     row describes the job. Array tasks `<array>_<idx>` are jobs; their id is JobIDRaw.
// Mapping:
//   id = JobIDRaw (else the leading digits of JobID, adjusted "id_from_jobid_prefix").
//   submit_s = Submit, recorded_start_s = Start, runtime_s = End - Start. Times are local
//        wall clock with no offset, so only differences are used: seconds since the earliest Submit.
//   gpus = gres/gpu=N from AllocTRES (what was granted) when AllocTRES is non-empty, else from
//        ReqTRES; untyped gres/gpu=N wins, else the sum of typed gres/gpu:<type>=N.
//   nodes = NNodes (else AllocNodes), cpus = NCPUS (else AllocCPUS), priority = Priority.
//   time_limit_s = Timelimit ([D-]HH:MM:SS); UNLIMITED -> unlimited (kNever); Partition_Limit or
//        empty -> TimelimitRaw (minutes) when numeric, else unknown (missing_limit_is_runtime).
//   user = User, account = Account, partition = Partition, qos = QOS. klass is left empty.
// Rows skipped (counted by reason): step_row, orphan_fragment, never_started (Start Unknown/None/
//   empty: pending; or NodeList "None assigned"; or CANCELLED with Start == End and no AllocTRES:
//   Slurm stamps Start = End = cancel time on a job cancelled while pending), still_running (End Unknown), submit_unknown,
//   end_before_start, cpu_only_job (no GPUs, unless keep_cpu_jobs: the sample dumps have none).
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "traces/parse_util.hpp"
#include "traces/readers.hpp"

namespace floorsim::traces::detail {

namespace {

enum class Kind : uint8_t { Any, Free, Time, Duration, Int, LimitRaw, JobId, ExitCode, State, Tres };

Kind column_kind(std::string_view name) {
  static constexpr std::pair<std::string_view, Kind> kKinds[] = {
      {"AdminComment", Kind::Free}, {"Comment", Kind::Free}, {"SystemComment", Kind::Free},
      {"Constraints", Kind::Free}, {"Container", Kind::Free}, {"JobName", Kind::Free},
      {"SubmitLine", Kind::Free}, {"WorkDir", Kind::Free},
      {"Submit", Kind::Time}, {"Eligible", Kind::Time}, {"Start", Kind::Time}, {"End", Kind::Time},
      {"Elapsed", Kind::Duration}, {"Timelimit", Kind::Duration}, {"CPUTime", Kind::Duration},
      {"Suspended", Kind::Duration}, {"SystemCPU", Kind::Duration}, {"UserCPU", Kind::Duration},
      {"TotalCPU", Kind::Duration}, {"Reserved", Kind::Duration}, {"AveCPU", Kind::Duration},
      {"MinCPU", Kind::Duration}, {"ResvCPU", Kind::Duration},
      {"ResvCPURAW", Kind::Int}, {"WCKeyID", Kind::Int}, {"ReqNodes", Kind::Int}, {"NTasks", Kind::Int},
      {"ConsumedEnergyRaw", Kind::Int},
      {"ElapsedRaw", Kind::Int}, {"CPUTimeRAW", Kind::Int}, {"NNodes", Kind::Int}, {"NCPUS", Kind::Int},
      {"AllocCPUS", Kind::Int}, {"AllocNodes", Kind::Int}, {"UID", Kind::Int}, {"GID", Kind::Int},
      {"DBIndex", Kind::Int}, {"AssocID", Kind::Int}, {"QOSRAW", Kind::Int}, {"ReqCPUS", Kind::Int},
      {"Priority", Kind::Int}, {"TimelimitRaw", Kind::LimitRaw},
      {"JobID", Kind::JobId}, {"JobIDRaw", Kind::JobId},
      {"ExitCode", Kind::ExitCode}, {"DerivedExitCode", Kind::ExitCode}, {"State", Kind::State},
      {"AllocTRES", Kind::Tres}, {"ReqTRES", Kind::Tres}};
  for (const auto& [n, k] : kKinds)
    if (n == name) return k;
  if (name.rfind("TRESUsage", 0) == 0) return Kind::Tres;  // TRESUsageInAve, ... OutTot
  return Kind::Any;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

bool is_time_absent(std::string_view s) { return s.empty() || s == "Unknown" || s == "None"; }

bool valid_job_id(std::string_view s) {
  // \d+ (_(\d+|\[...\]))? (\+\d+)? (\.[A-Za-z0-9_-]+)?
  size_t i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  if (i == 0) return false;
  if (i < s.size() && s[i] == '_') {
    ++i;
    if (i < s.size() && s[i] == '[') {
      size_t close = s.find(']', i);
      if (close == std::string_view::npos) return false;
      i = close + 1;
    } else {
      size_t b = i;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
      if (i == b) return false;
    }
  }
  if (i < s.size() && s[i] == '+') {
    size_t b = ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == b) return false;
  }
  if (i < s.size() && s[i] == '.') {
    size_t b = ++i;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == '-')) ++i;
    if (i == b) return false;
  }
  return i == s.size();
}

bool valid(Kind k, std::string_view s) {
  switch (k) {
    case Kind::Any:
    case Kind::Free: return true;
    case Kind::Time: return is_time_absent(s) || to_naive_time(s).has_value();
    case Kind::Duration:
      return s.empty() || s == "UNLIMITED" || s == "Partition_Limit" || s == "INVALID" ||
             to_slurm_duration(s).has_value();
    case Kind::Int: return s.empty() || all_digits(s);
    case Kind::LimitRaw: return s.empty() || s == "UNLIMITED" || s == "Partition_Limit" || all_digits(s);
    case Kind::JobId: return valid_job_id(s);
    case Kind::ExitCode: {
      if (s.empty()) return true;
      size_t c = s.find(':');
      return c != std::string_view::npos && all_digits(s.substr(0, c)) && all_digits(s.substr(c + 1));
    }
    case Kind::State: {
      // [A-Z_]+ optionally followed by "+" and/or " by <uid>"
      size_t i = 0;
      while (i < s.size() && ((s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_')) ++i;
      if (i == 0) return false;
      if (i < s.size() && s[i] == '+') ++i;
      if (i == s.size()) return true;
      return s.substr(i, 4) == " by " && all_digits(s.substr(i + 4));
    }
    case Kind::Tres: {
      if (s.empty()) return true;
      std::vector<std::string_view> parts;
      split_char(s, ',', parts);
      for (auto p : parts) {
        size_t eq = p.find('=');
        if (eq == std::string_view::npos || eq == 0 || p.find(' ') != std::string_view::npos) return false;
      }
      return true;
    }
  }
  return true;
}

const char* expected(Kind k) {
  switch (k) {
    case Kind::Time: return "a YYYY-MM-DDTHH:MM:SS time, Unknown or empty";
    case Kind::Duration: return "a [D-]HH:MM:SS duration, UNLIMITED, Partition_Limit or empty";
    case Kind::Int: return "a non-negative integer or empty";
    case Kind::LimitRaw: return "minutes, UNLIMITED, Partition_Limit or empty";
    case Kind::JobId: return "a job id such as 123, 123_4 or 123.batch";
    case Kind::ExitCode: return "code:signal or empty";
    case Kind::State: return "a Slurm state such as COMPLETED or CANCELLED by <uid>";
    case Kind::Tres: return "a TRES list such as cpu=4,gres/gpu=1,node=1";
    default: return "a value";
  }
}

// JobIDRaw repeats JobID for plain jobs and steps (arrays and het jobs differ): a cheap check
// that catches a fragment glued in front of a record.
bool ids_consistent(std::string_view id, std::string_view raw) {
  size_t d = 0;
  while (d < id.size() && id[d] >= '0' && id[d] <= '9') ++d;
  const bool plain = d == id.size() || id[d] == '.';
  return !plain || id == raw;
}

// GPUs in a TRES string: untyped gres/gpu=N wins, else the sum of gres/gpu:<type>=N.
// Returns -1 when the string names no GPU at all, kBadGpus for a count that is negative or
// past int32 (the sum is bounded so that it cannot overflow either).
constexpr int64_t kBadGpus = -2;
int64_t tres_gpus(std::string_view s) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  int64_t untyped = -1, typed = 0;
  bool any_typed = false;
  std::vector<std::string_view> parts;
  split_char(s, ',', parts);
  for (auto p : parts) {
    size_t eq = p.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view key = p.substr(0, eq), val = p.substr(eq + 1);
    if (key == "gres/gpu") {
      if (auto n = to_int(val)) {
        if (*n < 0 || *n > kMax) return kBadGpus;
        untyped = *n;
      }
    } else if (key.rfind("gres/gpu:", 0) == 0) {
      if (auto n = to_int(val)) {
        if (*n < 0 || *n > kMax) return kBadGpus;
        typed += *n;
        if (typed > kMax) return kBadGpus;
        any_typed = true;
      }
    }
  }
  if (untyped >= 0) return untyped;
  return any_typed ? typed : -1;
}

struct Aligner {
  std::vector<Kind> kinds;
  int c_jobid = -1, c_raw = -1;
  std::vector<uint8_t> feasible;  // (H+1) x (E+1), reused
  std::vector<std::string> joined;  // storage for free-text values that absorbed extras

  // Fills `out` (one view per column) from `f`, or returns the first column that fails when
  // f.size() == H (for the error message), or -2 when no alignment exists.
  int align(const std::vector<std::string_view>& f, std::vector<std::string_view>& out) {
    const size_t H = kinds.size();
    out.clear();
    if (f.size() == H) {
      for (size_t c = 0; c < H; ++c)
        if (!valid(kinds[c], f[c])) return static_cast<int>(c);
      if (c_raw >= 0 && !ids_consistent(f[c_jobid], f[c_raw])) return c_raw;
      out = f;
      return -1;
    }
    if (f.size() < H) return -2;
    const size_t E = f.size() - H;
    if (E > 256) return -2;
    const size_t W = E + 1;
    feasible.assign((H + 1) * W, 0);
    feasible[H * W + E] = 1;
    for (size_t c = H; c-- > 0;) {
      for (size_t u = 0; u <= E; ++u) {
        uint8_t ok = 0;
        if (kinds[c] == Kind::Free) {
          for (size_t k = u; k <= E && !ok; ++k) ok = feasible[(c + 1) * W + k];
        } else {
          ok = feasible[(c + 1) * W + u] && valid(kinds[c], f[c + u]);
        }
        feasible[c * W + u] = ok;
      }
    }
    if (!feasible[0]) return -2;
    joined.clear();
    joined.reserve(H);  // views into joined must stay valid
    size_t u = 0;
    for (size_t c = 0; c < H; ++c) {
      if (kinds[c] != Kind::Free) {
        out.push_back(f[c + u]);
        continue;
      }
      size_t k = 0;
      while (!feasible[(c + 1) * W + u + k]) ++k;
      if (k == 0) {
        out.push_back(f[c + u]);
      } else {
        std::string s(f[c + u]);
        for (size_t x = 1; x <= k; ++x) {
          s += '|';
          s += f[c + u + x];
        }
        joined.push_back(std::move(s));
        out.push_back(joined.back());
      }
      u += k;
    }
    if (c_raw >= 0 && !ids_consistent(out[c_jobid], out[c_raw])) return -2;
    return -1;
  }
};

}  // namespace

TraceData read_sacct(const std::string& path, std::string_view buf, const ReadOptions& opts) {
  JobBuilder b(path, Format::Sacct, opts);
  b.allow_duplicate_ids();
  std::vector<std::string_view> lines;
  {
    LineCursor cur(buf);
    std::string_view l;
    while (cur.next(l)) lines.push_back(l);
  }
  size_t i = 0;
  while (i < lines.size() && trim(lines[i]).empty()) ++i;
  if (i == lines.size()) fail(path, 1, "empty file; expected a sacct --parsable2 header line");
  Header h;
  {
    std::vector<std::string_view> f;
    split_char(lines[i], '|', f);
    for (auto s : f) h.names.emplace_back(trim(s));
  }
  const size_t hl = i + 1;
  ++i;
  const size_t H = h.names.size();
  const int c_jobid = h.need("JobID", path, hl), c_raw = h.find("JobIDRaw"), c_submit = h.need("Submit", path, hl),
            c_start = h.need("Start", path, hl), c_end = h.need("End", path, hl), c_user = h.find("User"),
            c_account = h.find("Account"), c_part = h.find("Partition"), c_qos = h.find("QOS"),
            c_alloc_tres = h.find("AllocTRES"), c_req_tres = h.find("ReqTRES"),
            c_nodes = h.find("NNodes") >= 0 ? h.find("NNodes") : h.find("AllocNodes"),
            c_cpus = h.find("NCPUS") >= 0 ? h.find("NCPUS") : h.find("AllocCPUS"), c_limit = h.find("Timelimit"),
            c_limit_raw = h.find("TimelimitRaw"), c_prio = h.find("Priority"),
            c_nodelist = h.find("NodeList"), c_state = h.find("State");
  Aligner al;
  for (const auto& n : h.names) al.kinds.push_back(column_kind(n));
  al.c_jobid = c_jobid;
  al.c_raw = c_raw;
  Aligner probe = al;  // checks whether a following line is a record of its own
  std::vector<std::string_view> probe_col;
  // A record spanning more physical lines than this is taken as broken (bounds the work).
  constexpr size_t kMaxRecordLines = 256;

  std::vector<std::string_view> f, part, col;
  std::string text;
  while (i < lines.size()) {
    if (trim(lines[i]).empty()) {
      ++i;
      continue;
    }
    const size_t first = i, line_no = i + 1;
    split_char(lines[i], '|', f);
    const size_t first_count = f.size();
    // Phase 1: a record with too few fields continues on the next lines (newline in SubmitLine).
    size_t count = first_count, j = i + 1;
    text.assign(lines[i]);
    while (count < H && j < lines.size()) {
      text += '\n';
      text += lines[j];
      split_char(lines[j], '|', part);
      count += part.size() - 1;
      ++j;
    }
    // Phase 2: align; if that fails, the text may go on (a '|' in a continuation line made the
    // count reach the header's early), so join more lines, but never one that is a complete
    // record by itself.
    int bad = -2;
    for (;;) {
      split_char(text, '|', f);
      if (f.size() >= H) {
        bad = al.align(f, col);
        if (bad == -1) break;
      }
      if (j >= lines.size() || j - first >= kMaxRecordLines) break;
      split_char(lines[j], '|', part);
      if (part.size() >= H && probe.align(part, probe_col) == -1) break;
      text += '\n';
      text += lines[j];
      ++j;
    }
    if (bad != -1) {
      if (first_count < H) {  // a fragment: the tail of a record whose head is missing
        b.row();
        b.skip("orphan_fragment");
        i = first + 1;
        continue;
      }
      // A single line with enough fields that does not align: malformed. Report what the
      // line alone got wrong.
      split_char(lines[first], '|', f);
      bad = al.align(f, col);
      if (bad == c_raw && valid(Kind::JobId, f[bad]))
        fail(path, line_no, fmt::format("JobIDRaw '{}' differs from JobID '{}'; expected the same id for a plain job",
                                        f[bad], f[c_jobid]));
      if (bad >= 0)
        fail(path, line_no, fmt::format("column {} is '{}'; expected {}", h.names[bad], f[bad], expected(al.kinds[bad])));
      fail(path, line_no,
           fmt::format("{} fields, header has {}; cannot attribute the extra '|' to free-text columns "
                       "(JobName, Comment, Constraints, SubmitLine, ...)",
                       f.size(), H));
    }
    const bool multi = j > first + 1;
    i = j;
    b.row();
    if (multi) b.adjust("record_split_across_lines_joined");
    if (f.size() > H) b.adjust("pipe_in_free_text_recovered");
    // col may point into text or al.joined: both stay untouched until the next record.

    const std::string_view jobid = trim(col[c_jobid]);
    if (jobid.find('.') != std::string_view::npos) {
      b.skip("step_row");
      continue;
    }
    JobSpec jb;
    if (c_raw >= 0 && all_digits(trim(col[c_raw]))) {
      jb.id = *to_int(trim(col[c_raw]));
    } else if (all_digits(jobid)) {
      jb.id = *to_int(jobid);
    } else {
      size_t d = 0;
      while (d < jobid.size() && jobid[d] >= '0' && jobid[d] <= '9') ++d;
      jb.id = *to_int(jobid.substr(0, d));  // valid_job_id guarantees leading digits
      b.adjust("id_from_jobid_prefix");
    }
    const std::string_view s_submit = trim(col[c_submit]), s_start = trim(col[c_start]), s_end = trim(col[c_end]);
    if (is_time_absent(s_submit)) {
      b.skip("submit_unknown");
      continue;
    }
    const double submit = *to_naive_time(s_submit);  // validated by align()
    b.note_submit(submit);
    if (is_time_absent(s_start)) {
      b.skip("never_started");
      continue;
    }
    if (is_time_absent(s_end)) {
      b.skip("still_running");
      continue;
    }
    const double start = *to_naive_time(s_start), end = *to_naive_time(s_end);
    // Slurm gives a job cancelled while pending Start = End = the cancel time and NodeList
    // "None assigned" (sacct_dump2101.log: CANCELLED by <uid>, JobHeldUser): it never ran.
    const bool none_assigned = c_nodelist >= 0 && trim(col[c_nodelist]) == "None assigned";
    const bool cancelled_unallocated = end == start && c_state >= 0 && trim(col[c_state]).rfind("CANCELLED", 0) == 0 &&
                                       (c_alloc_tres < 0 || trim(col[c_alloc_tres]).empty());
    if (none_assigned || cancelled_unallocated) {
      b.skip("never_started");
      continue;
    }
    if (end < start) {
      b.skip("end_before_start");
      continue;
    }
    jb.submit_s = submit;
    jb.recorded_start_s = start;
    jb.runtime_s = end - start;

    int64_t gpus = -1;
    if (c_alloc_tres >= 0 && !trim(col[c_alloc_tres]).empty()) gpus = tres_gpus(col[c_alloc_tres]);
    else if (c_req_tres >= 0) gpus = tres_gpus(col[c_req_tres]);
    if (gpus == kBadGpus)
      fail(path, line_no, "a gres/gpu count is negative or past 2147483647; expected a GPU count in [0, 2147483647]");
    jb.gpus = static_cast<int32_t>(std::max<int64_t>(0, gpus));
    constexpr int64_t kI32 = std::numeric_limits<int32_t>::max();
    auto int_col = [&](int c) -> int64_t {
      if (c < 0) return 0;
      auto v = to_int(col[c]);
      return v ? *v : 0;
    };
    auto count_col = [&](int c) -> int32_t {
      const int64_t v = int_col(c);
      if (v < 0 || v > kI32)
        fail(path, line_no, fmt::format("column {} is {}; expected a count in [0, 2147483647]", h.names[c], v));
      return static_cast<int32_t>(v);
    };
    jb.nodes = count_col(c_nodes);
    jb.cpus = count_col(c_cpus);
    jb.priority = static_cast<int32_t>(std::clamp<int64_t>(int_col(c_prio), -kI32, kI32));

    jb.time_limit_s = JobBuilder::kUnknownLimit;
    const std::string_view lim = c_limit >= 0 ? trim(col[c_limit]) : std::string_view();
    if (lim == "UNLIMITED") {
      jb.time_limit_s = kNever;
    } else if (auto d = to_slurm_duration(lim)) {
      jb.time_limit_s = *d;
    } else if (c_limit_raw >= 0) {
      const std::string_view raw = trim(col[c_limit_raw]);
      if (raw == "UNLIMITED") jb.time_limit_s = kNever;
      else if (all_digits(raw)) jb.time_limit_s = static_cast<double>(*to_int(raw)) * 60.0;  // minutes
    }
    if (c_user >= 0) jb.user = b.intern(trim(col[c_user]));
    if (c_account >= 0) jb.account = b.intern(trim(col[c_account]));
    if (c_part >= 0) jb.partition = b.intern(trim(col[c_part]));
    if (c_qos >= 0) jb.qos = b.intern(trim(col[c_qos]));
    b.add(jb, line_no);
  }
  return b.finish(/*shift_epoch=*/true);
}

}  // namespace floorsim::traces::detail
