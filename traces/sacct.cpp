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
//     fragment (the tail of a record whose head is missing, as a dump cut by hand can end
//     with): that first line is skipped ("orphan_fragment") and parsing restarts at
//     the next line. An incomplete record at the end of the file is an orphan fragment too.
//     A single line that cannot be aligned is an InputError naming file:line and the column.
// Rows:
//   * One job per JobIDRaw (else JobID). sacct(1) lists only the most recent record of a job id,
//     and one row per attempt of a requeued job with --duplicates (-D); requeueing resets
//     Submit. The attempt with the latest Submit (ties: the later row) is the job; the others are
//     skipped ("requeued_earlier_attempt").
//   * Step rows (JobID `<id>.batch`, `.extern`, `.<n>`) are skipped ("step_row"): the allocation
//     row describes the job. Array tasks `<array>_<idx>` are jobs; their id is JobIDRaw.
// Mapping:
//   id = JobIDRaw (else the leading digits of JobID, adjusted "id_from_jobid_prefix").
//   submit_s = Submit, recorded_start_s = Start, runtime_s = End - Start. Times are local
//        wall clock with no offset, so only differences are used: seconds since the earliest Submit.
//   gpus = gres/gpu=N from AllocTRES (what was granted) when AllocTRES is non-empty, else from
//        ReqTRES; untyped gres/gpu=N wins, else the sum of typed gres/gpu:<type>=N. A count that
//        is not a whole number in [0, 2^31) (gres/gpu=sixteen) is an InputError naming the line.
//   nodes = NNodes (else AllocNodes), cpus = NCPUS (else AllocCPUS, else ReqCPUS, else cpu=N of
//        the TRES column the GPUs came from), priority = Priority.
//   memory = mem=N of that TRES column (the job's total, so per node: N / nodes), else ReqMem:
//        "4000Mn" per node, "4000Mc" per CPU (the suffixes of Slurm before 21.08), no suffix per
//        node; units K, M (default), G, T as sacct(1) prints them. 0 = all of each node's memory.
//   time_limit_s = Timelimit ([D-]HH:MM:SS); UNLIMITED -> unlimited (kNever); Partition_Limit or
//        empty -> TimelimitRaw (minutes) when numeric, else unknown (missing_limit_is_runtime).
//   user = User, account = Account, partition = Partition, qos = QOS. klass is left empty.
// Rows skipped (counted by reason): step_row, orphan_fragment, never_started (Start Unknown/None/
//   empty: pending; or NodeList "None assigned"; or CANCELLED with Start == End and no AllocTRES:
//   Slurm stamps Start = End = cancel time on a job cancelled while pending), still_running (End Unknown), submit_unknown,
//   end_before_start, cpu_only_job (no GPUs, unless keep_cpu_jobs: the sample dumps have none).
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "traces/parse_util.hpp"
#include "traces/readers.hpp"

namespace floorsim::traces::detail {

namespace {

// sacct prints one row per attempt of a requeued job (with --duplicates): all but the most
// recent are skipped under this reason.
constexpr const char* kSkipRequeuedAttempt = "requeued_earlier_attempt";

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
// Returns -1 when the string names no GPU at all. A count that is not a whole number, negative
// or past int32 sets `bad` to the offending item (the sum is bounded so it cannot overflow).
int64_t tres_gpus(std::string_view s, std::string_view& bad) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  int64_t untyped = -1, typed = 0;
  bool any_typed = false;
  std::vector<std::string_view> parts;
  split_char(s, ',', parts);
  for (auto p : parts) {
    size_t eq = p.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view key = p.substr(0, eq), val = p.substr(eq + 1);
    const bool is_untyped = key == "gres/gpu", is_typed = key.rfind("gres/gpu:", 0) == 0;
    if (!is_untyped && !is_typed) continue;
    const auto n = to_int(val);
    if (!n || *n < 0 || *n > kMax || (is_typed && typed + *n > kMax)) {
      bad = p;
      return -1;
    }
    if (is_untyped) {
      untyped = *n;
    } else {
      typed += *n;
      any_typed = true;
    }
  }
  if (untyped >= 0) return untyped;
  return any_typed ? typed : -1;
}

// A Slurm memory size ("4000", "4000M", "16G", "1.5T"; MiB when no unit) in MiB; nullopt when
// it is not one.
std::optional<int64_t> mem_mib(std::string_view v) {
  double mib_per_unit = 1;
  if (!v.empty()) {
    const char u = v.back();
    mib_per_unit = u == 'K' ? 1.0 / 1024 : u == 'G' ? 1024.0 : u == 'T' ? 1024.0 * 1024 : 1;
    if (u == 'K' || u == 'M' || u == 'G' || u == 'T') v.remove_suffix(1);
  }
  const auto x = to_double(v);
  if (!x || !(*x >= 0) || *x * mib_per_unit > std::numeric_limits<int32_t>::max()) return std::nullopt;
  return static_cast<int64_t>(std::ceil(*x * mib_per_unit - 1e-9));
}

// CPUs (cpu=N) when no CPU column gave them, and memory (mem=N, the job's total) from a TRES list.
void job_tres_res(std::string_view s, JobSpec& jb, const std::string& path, size_t line_no, const std::string& col) {
  std::vector<std::string_view> parts;
  split_char(s, ',', parts);
  for (auto p : parts) {
    const size_t eq = p.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = p.substr(0, eq), val = p.substr(eq + 1);
    if (key == "cpu" && jb.cpus == 0) {
      const auto n = to_int(val);
      if (!n || *n < 0 || *n > std::numeric_limits<int32_t>::max())
        fail(path, line_no, fmt::format("{} has '{}'; expected cpu=N with N a CPU count", col, p));
      jb.cpus = static_cast<int32_t>(*n);
    } else if (key == "mem") {
      const auto m = mem_mib(val);
      if (!m) fail(path, line_no, fmt::format("{} has '{}'; expected mem=N with a unit K, M, G or T, at most 2 PiB", col, p));
      jb.mem_per = JobSpec::MemPer::Node;
      jb.mem_mib = static_cast<int32_t>((*m + std::max(1, jb.nodes) - 1) / std::max(1, jb.nodes));
    }
  }
}

// ReqMem: "4000Mn" per node, "4000Mc" per CPU, no suffix per node; "0" all of each node's memory.
void req_mem(std::string_view v, JobSpec& jb, const std::string& path, size_t line_no) {
  JobSpec::MemPer per = JobSpec::MemPer::Node;
  if (v.back() == 'n' || v.back() == 'c') {
    per = v.back() == 'c' ? JobSpec::MemPer::Cpu : JobSpec::MemPer::Node;
    v.remove_suffix(1);
  }
  const auto m = mem_mib(v);
  if (!m) fail(path, line_no, fmt::format("ReqMem is '{}'; expected a size such as 4000M, 16G, 4000Mn or 4000Mc, at most 2 PiB", v));
  if (*m == 0) return;  // --mem=0: all of each node's memory (MemPer::None)
  jb.mem_per = per;
  jb.mem_mib = static_cast<int32_t>(*m);
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


// The lines of a dump from some line on, read on demand: a record is joined from several lines,
// and an orphan fragment restarts parsing one line after its first, so a few lines are kept.
class LineWindow {
 public:
  explicit LineWindow(input::LineSource& src) : src_(src) {}
  // Whether line k (0-based) exists; reads up to it.
  bool has(size_t k) {
    std::string_view l;
    while (base_ + lines_.size() <= k) {
      if (!src_.next(l)) return false;
      if (spare_.empty()) {
        lines_.emplace_back(l);
      } else {
        lines_.push_back(std::move(spare_.back()));
        spare_.pop_back();
        lines_.back().assign(l);
      }
    }
    return true;
  }
  std::string_view at(size_t k) const { return lines_[k - base_]; }  // after has(k)
  // Lines before k are no longer needed.
  void drop_before(size_t k) {
    for (; base_ < k && !lines_.empty(); ++base_) {
      spare_.push_back(std::move(lines_.front()));
      lines_.pop_front();
    }
  }
  size_t max_record_bytes() const { return src_.max_line_bytes(); }

 private:
  input::LineSource& src_;
  std::deque<std::string> lines_;
  std::vector<std::string> spare_;  // strings reused for later lines (keeps their capacity)
  size_t base_ = 0;                 // line number (0-based) of lines_.front()
};

// The header line and the columns the mapping reads (-1 when absent).
struct SacctColumns {
  Header h;
  size_t line_no = 0;
  int jobid, raw, submit, start, end, user, account, part, qos, alloc_tres, req_tres, nodes, cpus, limit, limit_raw,
      prio, nodelist, state, req_mem;
};

SacctColumns read_header(LineWindow& in, const std::string& path, size_t& i) {
  while (in.has(i) && trim(in.at(i)).empty()) ++i;
  if (!in.has(i)) fail(path, 1, "empty file; expected a sacct --parsable2 header line");
  SacctColumns c;
  std::vector<std::string_view> f;
  split_char(in.at(i), '|', f);
  for (auto s : f) c.h.names.emplace_back(trim(s));
  c.line_no = ++i;
  const Header& h = c.h;
  const size_t hl = c.line_no;
  c.jobid = h.need("JobID", path, hl), c.raw = h.find("JobIDRaw"), c.submit = h.need("Submit", path, hl),
  c.start = h.need("Start", path, hl), c.end = h.need("End", path, hl), c.user = h.find("User"),
  c.account = h.find("Account"), c.part = h.find("Partition"), c.qos = h.find("QOS"),
  c.alloc_tres = h.find("AllocTRES"), c.req_tres = h.find("ReqTRES"),
  c.nodes = h.find("NNodes") >= 0 ? h.find("NNodes") : h.find("AllocNodes"),
  c.cpus = h.find("NCPUS") >= 0 ? h.find("NCPUS") : h.find("AllocCPUS") >= 0 ? h.find("AllocCPUS") : h.find("ReqCPUS"),
  c.req_mem = h.find("ReqMem"), c.limit = h.find("Timelimit"),
  c.limit_raw = h.find("TimelimitRaw"), c.prio = h.find("Priority"), c.nodelist = h.find("NodeList"),
  c.state = h.find("State");
  return c;
}

// Reassembles records from physical lines (see the top of this file): joins lines split by a
// newline in SubmitLine and gives the extra fields of a '|' in free text to free-text columns.
class RecordReader {
 public:
  RecordReader(LineWindow& in, const SacctColumns& c, const std::string& path, size_t first_line)
      : in_(in), c_(c), path_(path), i_(first_line) {
    for (const auto& n : c.h.names) al_.kinds.push_back(column_kind(n));
    al_.c_jobid = c.jobid;
    al_.c_raw = c.raw;
    probe_ = al_;
  }
  enum class Got { End, Record, Orphan };
  // Next record: its columns in col(), valid until the next call.
  Got next() {
    while (in_.has(i_) && trim(in_.at(i_)).empty()) ++i_;
    in_.drop_before(i_);
    if (!in_.has(i_)) return Got::End;
    const size_t H = c_.h.names.size();
    const size_t first = i_;
    line_no_ = i_ + 1;
    split_char(in_.at(first), '|', f_);
    const size_t first_count = f_.size();
    // Phase 1: a record with too few fields continues on the next lines (newline in SubmitLine).
    size_t count = first_count, j = first + 1;
    text_.assign(in_.at(first));
    while (count < H && in_.has(j) && text_.size() <= in_.max_record_bytes()) {
      append_line(j);
      split_char(in_.at(j), '|', part_);
      count += part_.size() - 1;
      ++j;
    }
    // Phase 2: align; if that fails, the text may go on (a '|' in a continuation line made the
    // count reach the header's early), so join more lines, but never one that is a complete
    // record by itself.
    int bad = -2;
    for (;;) {
      split_char(text_, '|', f_);
      if (f_.size() >= H) {
        bad = al_.align(f_, col_);
        if (bad == -1) break;
      }
      if (!in_.has(j) || j - first >= kMaxRecordLines || text_.size() > in_.max_record_bytes()) break;
      split_char(in_.at(j), '|', part_);
      if (part_.size() >= H && probe_.align(part_, probe_col_) == -1) break;
      append_line(j);
      ++j;
    }
    if (bad == -1) {
      lines_ = j - first;
      extra_fields_ = f_.size() > H;
      i_ = j;
      return Got::Record;
    }
    if (first_count < H) {  // a fragment: the tail of a record whose head is missing
      i_ = first + 1;
      return Got::Orphan;
    }
    fail_unaligned(first);
  }
  const std::vector<std::string_view>& col() const { return col_; }
  size_t line_no() const { return line_no_; }
  bool joined_lines() const { return lines_ > 1; }
  bool extra_fields() const { return extra_fields_; }

 private:
  // A record spanning more physical lines than this is taken as broken (bounds the work).
  static constexpr size_t kMaxRecordLines = 256;

  void append_line(size_t j) {
    text_ += '\n';
    text_ += in_.at(j);
  }
  // A single line with enough fields that does not align: malformed. Reports what the line
  // alone got wrong.
  [[noreturn]] void fail_unaligned(size_t first) {
    split_char(in_.at(first), '|', f_);
    const int bad = al_.align(f_, col_);
    if (bad == c_.raw && valid(Kind::JobId, f_[bad]))
      fail(path_, line_no_, fmt::format("JobIDRaw '{}' differs from JobID '{}'; expected the same id for a plain job",
                                        f_[bad], f_[c_.jobid]));
    if (bad >= 0)
      fail(path_, line_no_,
           fmt::format("column {} is '{}'; expected {}", c_.h.names[bad], f_[bad], expected(al_.kinds[bad])));
    fail(path_, line_no_,
         fmt::format("{} fields, header has {}; cannot attribute the extra '|' to free-text columns "
                     "(JobName, Comment, Constraints, SubmitLine, ...)",
                     f_.size(), c_.h.names.size()));
  }

  LineWindow& in_;
  const SacctColumns& c_;
  const std::string& path_;
  size_t i_;  // next line (0-based)
  Aligner al_, probe_;  // probe_: checks whether a following line is a record of its own
  std::vector<std::string_view> f_, part_, col_, probe_col_;
  std::string text_;  // col_ may point into text_ or al_.joined: both kept until the next call
  size_t line_no_ = 0, lines_ = 0;
  bool extra_fields_ = false;
};

// What one allocation row becomes: a job, or the reason it is skipped.
struct RowOutcome {
  JobSpec job;
  const char* skip = nullptr;
  double submit = -kNever;  // for picking the most recent attempt; -inf when unknown
  size_t line_no = 0;
};

RowOutcome map_row(const std::vector<std::string_view>& col, const SacctColumns& c, size_t line_no,
                   const std::string& path, JobBuilder& b) {
  RowOutcome r;
  r.line_no = line_no;
  JobSpec& jb = r.job;
  const std::string_view jobid = trim(col[c.jobid]);
  if (c.raw >= 0 && all_digits(trim(col[c.raw]))) {
    jb.id = *to_int(trim(col[c.raw]));
  } else if (all_digits(jobid)) {
    jb.id = *to_int(jobid);
  } else {
    size_t d = 0;
    while (d < jobid.size() && jobid[d] >= '0' && jobid[d] <= '9') ++d;
    jb.id = *to_int(jobid.substr(0, d));  // valid_job_id guarantees leading digits
    b.adjust("id_from_jobid_prefix");
  }
  const std::string_view s_submit = trim(col[c.submit]), s_start = trim(col[c.start]), s_end = trim(col[c.end]);
  if (is_time_absent(s_submit)) {
    r.skip = "submit_unknown";
    return r;
  }
  const double submit = *to_naive_time(s_submit);  // validated by align()
  r.submit = submit;
  b.note_submit(submit);
  if (is_time_absent(s_start)) {
    r.skip = "never_started";
    return r;
  }
  if (is_time_absent(s_end)) {
    r.skip = "still_running";
    return r;
  }
  const double start = *to_naive_time(s_start), end = *to_naive_time(s_end);
  // Slurm gives a job cancelled while pending Start = End = the cancel time and NodeList
  // "None assigned" (State CANCELLED by <uid>, Reason JobHeldUser): it never ran.
  const bool none_assigned = c.nodelist >= 0 && trim(col[c.nodelist]) == "None assigned";
  const bool cancelled_unallocated = end == start && c.state >= 0 && trim(col[c.state]).rfind("CANCELLED", 0) == 0 &&
                                     (c.alloc_tres < 0 || trim(col[c.alloc_tres]).empty());
  if (none_assigned || cancelled_unallocated) {
    r.skip = "never_started";
    return r;
  }
  if (end < start) {
    r.skip = "end_before_start";
    return r;
  }
  jb.submit_s = submit;
  jb.recorded_start_s = start;
  jb.runtime_s = end - start;

  const int tres_col = c.alloc_tres >= 0 && !trim(col[c.alloc_tres]).empty() ? c.alloc_tres : c.req_tres;
  std::string_view bad;
  const int64_t gpus = tres_col >= 0 ? tres_gpus(col[tres_col], bad) : -1;
  if (!bad.empty())
    fail(path, line_no,
         fmt::format("{} has '{}'; expected gres/gpu=N or gres/gpu:TYPE=N with N a GPU count in [0, 2147483647]",
                     c.h.names[tres_col], bad));
  jb.gpus = static_cast<int32_t>(std::max<int64_t>(0, gpus));
  constexpr int64_t kI32 = std::numeric_limits<int32_t>::max();
  auto int_col = [&](int k) -> int64_t {
    if (k < 0) return 0;
    auto v = to_int(col[k]);
    return v ? *v : 0;
  };
  auto count_col = [&](int k) -> int32_t {
    const int64_t v = int_col(k);
    if (v < 0 || v > kI32)
      fail(path, line_no, fmt::format("column {} is {}; expected a count in [0, 2147483647]", c.h.names[k], v));
    return static_cast<int32_t>(v);
  };
  jb.nodes = count_col(c.nodes);
  jb.cpus = count_col(c.cpus);
  if (tres_col >= 0) job_tres_res(col[tres_col], jb, path, line_no, c.h.names[tres_col]);
  if (jb.mem_per == JobSpec::MemPer::None && c.req_mem >= 0 && !trim(col[c.req_mem]).empty())
    req_mem(trim(col[c.req_mem]), jb, path, line_no);
  jb.priority = static_cast<int32_t>(std::clamp<int64_t>(int_col(c.prio), -kI32, kI32));

  jb.time_limit_s = JobBuilder::kUnknownLimit;
  const std::string_view lim = c.limit >= 0 ? trim(col[c.limit]) : std::string_view();
  if (lim == "UNLIMITED") {
    jb.time_limit_s = kNever;
  } else if (auto d = to_slurm_duration(lim)) {
    jb.time_limit_s = *d;
  } else if (c.limit_raw >= 0) {
    const std::string_view raw = trim(col[c.limit_raw]);
    if (raw == "UNLIMITED") jb.time_limit_s = kNever;
    else if (all_digits(raw)) jb.time_limit_s = static_cast<double>(*to_int(raw)) * 60.0;  // minutes
  }
  if (c.user >= 0) jb.user = b.intern(trim(col[c.user]));
  if (c.account >= 0) jb.account = b.intern(trim(col[c.account]));
  if (c.part >= 0) jb.partition = b.intern(trim(col[c.part]));
  if (c.qos >= 0) jb.qos = b.intern(trim(col[c.qos]));
  return r;
}

// The key that names one job across its attempts: JobIDRaw, else the JobID text.
std::string job_key(const std::vector<std::string_view>& col, const SacctColumns& c) {
  if (c.raw >= 0 && !trim(col[c.raw]).empty()) return std::string(trim(col[c.raw]));
  return std::string(trim(col[c.jobid]));
}

}  // namespace

TraceData read_sacct(input::LineSource& src, const ReadOptions& opts) {
  const std::string& path = src.path();
  JobBuilder b(path, Format::Sacct, opts);
  // Without JobIDRaw, array tasks 7_1 and 7_2 both take id 7 (id_from_jobid_prefix).
  b.allow_duplicate_ids();
  LineWindow in(src);
  size_t i = 0;
  const SacctColumns c = read_header(in, path, i);
  RecordReader records(in, c, path, i);
  // One entry per allocation row, in file order; an earlier attempt of a job is replaced by a
  // later one (kRequeuedAttempt) when both are kept to the end.
  std::vector<RowOutcome> rows;
  std::unordered_map<std::string, size_t> latest;  // job key -> index in rows
  for (RecordReader::Got got; (got = records.next()) != RecordReader::Got::End;) {
    b.row();
    if (got == RecordReader::Got::Orphan) {
      b.skip("orphan_fragment");
      continue;
    }
    if (records.joined_lines()) b.adjust("record_split_across_lines_joined");
    if (records.extra_fields()) b.adjust("pipe_in_free_text_recovered");
    const auto& col = records.col();
    if (trim(col[c.jobid]).find('.') != std::string_view::npos) {
      b.skip("step_row");
      continue;
    }
    RowOutcome r = map_row(col, c, records.line_no(), path, b);
    const auto [it, fresh] = latest.try_emplace(job_key(col, c), rows.size());
    if (!fresh) {
      // sacct lists one row per attempt of a requeued job only with --duplicates; without it, the
      // most recent. Keep that one: the latest Submit (requeueing resets it), ties to the later row.
      RowOutcome& old = rows[it->second];
      if (r.submit < old.submit) {
        r.skip = kSkipRequeuedAttempt;
      } else {
        old.skip = kSkipRequeuedAttempt;
        it->second = rows.size();
      }
    }
    rows.push_back(std::move(r));
  }
  for (auto& r : rows) {
    if (r.skip) b.skip(r.skip);
    else b.add(r.job, r.line_no);
  }
  return b.finish(/*shift_epoch=*/true);
}

}  // namespace floorsim::traces::detail
