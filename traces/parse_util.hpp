#pragma once
// Shared helpers of the trace readers: CSV records over a LineSource, field splitting,
// strict number/time parsing (std::from_chars, no iostreams), and the JobBuilder that applies the
// options common to every format (CPU-only, zero runtime, missing limit, epoch, sort, max_jobs).
// Internal to traces/; not part of the public interface.
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/input.hpp"
#include "traces/trace.hpp"

namespace floorsim::traces::detail {

// Splits on runs of spaces/tabs (leading/trailing ignored).
void split_ws(std::string_view s, std::vector<std::string_view>& out);
// Splits on every `sep` (no quoting): "a||b" gives 3 fields.
void split_char(std::string_view s, char sep, std::vector<std::string_view>& out);
// Splits one CSV record (RFC 4180 quoting, "" inside quotes). Quoted fields are unquoted into
// `scratch`, which must outlive `out`. Returns false on an unterminated quote.
bool split_csv(std::string_view s, std::vector<std::string_view>& out, std::deque<std::string>& scratch);
// Quotes a CSV field when it holds a comma, quote or newline.
std::string csv_quote(std::string_view s);

std::string_view trim(std::string_view s);

// Whole-field numbers: surrounding blanks allowed, nothing else. "inf"/"-inf" accepted for doubles.
std::optional<double> to_double(std::string_view s);
std::optional<int64_t> to_int(std::string_view s);

// "YYYY-MM-DD HH:MM:SS" or "YYYY-MM-DDTHH:MM:SS" as seconds since 1970-01-01 00:00:00, read as a
// naive clock (no zone): only differences between such times are meaningful.
std::optional<double> to_naive_time(std::string_view s);

// Slurm durations: "[D-]HH:MM:SS", "MM:SS", "MM:SS.mmm", "D-HH", "D-HH:MM".
std::optional<double> to_slurm_duration(std::string_view s);

// Shortest text that reads back to the same double; "inf" for +infinity.
std::string fmt_num(double v);

// Throws InputError(file, "LINE", msg).
[[noreturn]] void fail(const std::string& file, size_t line, const std::string& msg);

// Reads CSV records from a LineSource: blank lines are skipped, a quoted field may span lines
// (the whole record then counts against the source's line cap).
class CsvReader {
 public:
  explicit CsvReader(input::LineSource& src) : path_(src.path()), cur_(src) {}
  // Next record; false at the end. line() is the record's first line (1-based).
  bool next(std::vector<std::string_view>& fields);
  size_t line() const { return line_; }

 private:
  const std::string& path_;
  input::LineSource& cur_;
  size_t line_ = 0;
  std::string joined_;
  std::deque<std::string> scratch_;  // deque: growing it keeps earlier views valid
};

// Maps header names to column indices; required columns throw at line 1 when absent.
struct Header {
  std::vector<std::string> names;
  int find(std::string_view name) const;  // -1 when absent
  int need(std::string_view name, const std::string& file, size_t line) const;
};

// Collects jobs and the report, then applies the filters every format shares.
class JobBuilder {
 public:
  // Marker a reader stores in time_limit_s when the trace gives no limit; finish() resolves it.
  static constexpr double kUnknownLimit = -1.0;

  JobBuilder(const std::string& path, Format format, const ReadOptions& opts);
  void row() { ++data_.report.rows; }
  void skip(const std::string& reason) { ++data_.report.skipped[reason]; }
  void adjust(const std::string& reason) { ++data_.report.adjusted[reason]; }
  // Notes a row's submit time for the epoch (earliest submit over every row that has one).
  void note_submit(double t) {
    if (t < min_submit_) min_submit_ = t;
  }
  StrId intern(std::string_view s) { return data_.workload.strings.intern(s); }
  ReadReport& report() { return data_.report; }
  // Adds a job; the CPU-only and zero-runtime filters run here (counted as skips). `where` is
  // the record's line (text formats) or array index (JSON, with where_is_index()), named when
  // its id turns out to be a duplicate.
  void add(JobSpec j, size_t where = 0);
  void where_is_index() { where_is_index_ = true; }
  // sacct lists a requeued job once per run (--duplicates): repeated ids are records, not errors.
  void allow_duplicate_ids() { allow_duplicates_ = true; }
  // Resolves unknown limits, shifts times by the epoch when `shift_epoch`, sorts by
  // (submit_s, id) stably, applies max_jobs.
  TraceData finish(bool shift_epoch);

 private:
  // Appended, not `"/" + to_string(w)`: GCC 12 warns -Wrestrict on that (a false positive, GCC bug 105329).
  std::string where_str(size_t w) const {
    std::string s = where_is_index_ ? "/" : "";
    return s.append(std::to_string(w));
  }
  const ReadOptions& opts_;
  TraceData data_;
  double min_submit_ = kNever;
  // Jobs as read, in chunks of kChunk: growing one vector would copy it at every doubling and
  // leave up to half its capacity unused; finish() moves the chunks into one vector of the exact
  // size, freeing each as it goes (a trace of millions of jobs peaks at about one copy).
  static constexpr size_t kChunk = size_t{1} << 16;
  std::vector<std::vector<JobSpec>> chunks_;
  size_t count_ = 0;
  std::vector<uint32_t> where_;  // by job, parallel to data_.workload.jobs until finish()
  bool where_is_index_ = false;
  bool allow_duplicates_ = false;
};

// Skip/adjust reasons shared by several readers (the README lists them all).
inline constexpr const char* kSkipCpuOnly = "cpu_only_job";
inline constexpr const char* kSkipZeroRuntime = "zero_runtime";
inline constexpr const char* kSkipMaxJobs = "beyond_max_jobs";
inline constexpr const char* kAdjLimitRuntime = "time_limit_unknown_set_to_runtime";
inline constexpr const char* kAdjLimitUnlimited = "time_limit_unknown_set_unlimited";

}  // namespace floorsim::traces::detail
