#include "traces/parse_util.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

namespace floorsim::traces::detail {

static inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

void split_ws(std::string_view s, std::vector<std::string_view>& out) {
  out.clear();
  size_t i = 0, n = s.size();
  while (i < n) {
    while (i < n && is_blank(s[i])) ++i;
    if (i >= n) break;
    size_t j = i;
    while (j < n && !is_blank(s[j])) ++j;
    out.emplace_back(s.data() + i, j - i);
    i = j;
  }
}

void split_char(std::string_view s, char sep, std::vector<std::string_view>& out) {
  out.clear();
  size_t start = 0;
  for (;;) {
    size_t p = s.find(sep, start);
    if (p == std::string_view::npos) {
      out.emplace_back(s.substr(start));
      return;
    }
    out.emplace_back(s.substr(start, p - start));
    start = p + 1;
  }
}

bool split_csv(std::string_view s, std::vector<std::string_view>& out, std::deque<std::string>& scratch) {
  out.clear();
  size_t i = 0, n = s.size();
  size_t quoted = 0;
  for (;;) {
    if (i < n && s[i] == '"') {
      // Quoted field: collect into scratch (reused slots keep their capacity).
      if (quoted >= scratch.size()) scratch.emplace_back();
      std::string& buf = scratch[quoted++];
      buf.clear();
      ++i;
      bool closed = false;
      while (i < n) {
        if (s[i] == '"') {
          if (i + 1 < n && s[i + 1] == '"') {
            buf.push_back('"');
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        buf.push_back(s[i++]);
      }
      if (!closed) return false;
      out.emplace_back(buf);
      if (i >= n) return true;
      if (s[i] != ',') return false;  // text after a closing quote
      ++i;
      if (i == n) {
        out.emplace_back();
        return true;
      }
      continue;
    }
    size_t p = s.find(',', i);
    if (p == std::string_view::npos) {
      out.emplace_back(s.substr(i));
      return true;
    }
    out.emplace_back(s.substr(i, p - i));
    i = p + 1;
    if (i == n) {
      out.emplace_back();
      return true;
    }
  }
}

std::string csv_quote(std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string r = "\"";
  for (char c : s) {
    if (c == '"') r += '"';
    r += c;
  }
  r += '"';
  return r;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

std::optional<double> to_double(std::string_view s) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  {
    // Fast path: most trace numbers are short integers ("-1", "599850"); exact in a double.
    size_t i = s[0] == '-' ? 1 : 0;
    if (i < s.size() && s.size() - i <= 15) {
      int64_t v = 0;
      size_t k = i;
      for (; k < s.size() && s[k] >= '0' && s[k] <= '9'; ++k) v = v * 10 + (s[k] - '0');
      if (k == s.size()) return static_cast<double>(i ? -v : v);
    }
  }
  if (s == "inf" || s == "+inf" || s == "Infinity") return kNever;
  if (s == "-inf") return -kNever;
  const char* b = s.data();
  const char* e = b + s.size();
  if (*b == '+') ++b;
  double v = 0;
  auto [p, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || p != e || std::isnan(v)) return std::nullopt;
  return v;
}

std::optional<int64_t> to_int(std::string_view s) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  const char* b = s.data();
  const char* e = b + s.size();
  if (*b == '+') ++b;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || p != e) return std::nullopt;
  return v;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

static bool digits(std::string_view s, size_t pos, size_t n, int& v) {
  if (pos + n > s.size()) return false;
  v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  return true;
}

std::optional<double> to_naive_time(std::string_view s) {
  s = trim(s);
  // YYYY-MM-DD?HH:MM:SS, 19 characters, optionally followed by fractional seconds.
  if (s.size() < 19) return std::nullopt;
  int y, mo, d, h, mi, se;
  if (!digits(s, 0, 4, y) || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' || !digits(s, 8, 2, d) ||
      (s[10] != ' ' && s[10] != 'T') || !digits(s, 11, 2, h) || s[13] != ':' || !digits(s, 14, 2, mi) ||
      s[16] != ':' || !digits(s, 17, 2, se))
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return std::nullopt;
  double frac = 0;
  if (s.size() > 19) {
    if (s[19] != '.') return std::nullopt;
    auto f = to_double(s.substr(19));
    if (!f) return std::nullopt;
    frac = *f;
  }
  const int64_t days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  return static_cast<double>(days * 86400 + h * 3600 + mi * 60 + se) + frac;
}

std::optional<double> to_slurm_duration(std::string_view s) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  double days = 0;
  if (auto dash = s.find('-'); dash != std::string_view::npos) {
    auto d = to_int(s.substr(0, dash));
    if (!d || *d < 0) return std::nullopt;
    days = static_cast<double>(*d);
    s = s.substr(dash + 1);
    // "D-HH" and "D-HH:MM" are Slurm forms too.
    std::vector<std::string_view> parts;
    split_char(s, ':', parts);
    if (parts.size() > 3 || parts.empty()) return std::nullopt;
    double mult[3] = {3600, 60, 1}, total = 0;
    for (size_t i = 0; i < parts.size(); ++i) {
      auto v = to_double(parts[i]);
      if (!v || *v < 0) return std::nullopt;
      total += *v * mult[i];
    }
    return days * 86400 + total;
  }
  std::vector<std::string_view> parts;
  split_char(s, ':', parts);
  if (parts.size() < 2 || parts.size() > 3) return std::nullopt;  // a bare number is minutes in Slurm input,
                                                                    // but sacct never prints one
  double total = 0;
  for (auto p : parts) {
    auto v = to_double(p);
    if (!v || *v < 0) return std::nullopt;
    total = total * 60 + *v;
  }
  return total;
}

std::string fmt_num(double v) {
  if (v == kNever) return "inf";
  if (v == -kNever) return "-inf";
  if (v == std::floor(v) && std::fabs(v) < 9e15) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{}", v);
}

void fail(const std::string& file, size_t line, const std::string& msg) {
  throw InputError(file, std::to_string(line), msg);
}

bool CsvReader::next(std::vector<std::string_view>& fields) {
  std::string_view line;
  for (;;) {
    if (!cur_.next(line)) return false;
    if (!trim(line).empty()) break;
  }
  line_ = cur_.line_no();
  if (split_csv(line, fields, scratch_)) return true;
  // An open quote: the record continues on the next lines.
  joined_.assign(line);
  std::string_view more;
  // A quoted field longer than this many lines is taken as a broken quote, not free text.
  for (int extra = 0; extra < 1000 && cur_.next(more); ++extra) {
    joined_ += '\n';
    joined_ += more;
    if (joined_.size() > cur_.max_line_bytes())
      fail(path_, line_, fmt::format("quoted record longer than {} bytes; expected a closing quote", cur_.max_line_bytes()));
    if (split_csv(joined_, fields, scratch_)) return true;
  }
  fail(path_, line_, "malformed quoted field (unterminated, or text after the closing quote); expected RFC 4180 quoting");
}

int Header::find(std::string_view name) const {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  return -1;
}

int Header::need(std::string_view name, const std::string& file, size_t line) const {
  int i = find(name);
  if (i < 0) fail(file, line, fmt::format("header has no column '{}'; expected it among the column names", name));
  return i;
}

JobBuilder::JobBuilder(const std::string& path, Format format, const ReadOptions& opts) : opts_(opts) {
  data_.report.file = path;
  data_.report.format = format_name(format);
}

void JobBuilder::add(JobSpec j, size_t where) {
  if (j.gpus <= 0 && j.gpu_milli <= 0 && !opts_.keep_cpu_jobs) {
    skip(kSkipCpuOnly);
    return;
  }
  if (j.runtime_s <= 0 && opts_.drop_zero_runtime) {
    skip(kSkipZeroRuntime);
    return;
  }
  if (chunks_.empty() || chunks_.back().size() == kChunk) chunks_.emplace_back().reserve(kChunk);
  chunks_.back().push_back(j);
  ++count_;
  where_.push_back(static_cast<uint32_t>(std::min<size_t>(where, UINT32_MAX)));
}

TraceData JobBuilder::finish(bool shift_epoch) {
  auto& jobs = data_.workload.jobs;
  jobs.reserve(jobs.size() + count_);
  for (auto& c : chunks_) {
    jobs.insert(jobs.end(), c.begin(), c.end());
    std::vector<JobSpec>().swap(c);
  }
  chunks_ = {};
  // Job ids are kept in every output and name jobs in reports, so two records with one id are
  // an error, not something to guess about (which one is the job?).
  if (!allow_duplicates_) {
    std::vector<std::pair<int64_t, uint32_t>> ids(jobs.size());  // (id, position)
    for (size_t i = 0; i < jobs.size(); ++i) ids[i] = {jobs[i].id, static_cast<uint32_t>(i)};
    std::sort(ids.begin(), ids.end());
    for (size_t i = 1; i < ids.size(); ++i)
      if (ids[i].first == ids[i - 1].first) {
        const uint32_t first = where_[ids[i - 1].second], again = where_[ids[i].second];
        throw InputError(data_.report.file, where_str(std::max(first, again)),
                         fmt::format("job id {} appears again (first at {}); expected unique job ids",
                                     ids[i].first, where_str(std::min(first, again))));
      }
  }
  where_ = {};
  auto before = [](const JobSpec& a, const JobSpec& b) {
    if (a.submit_s != b.submit_s) return a.submit_s < b.submit_s;
    return a.id < b.id;
  };
  // Most logs are in submit order already: then no sort (and no sort buffer of half the jobs).
  if (!std::is_sorted(jobs.begin(), jobs.end(), before)) std::stable_sort(jobs.begin(), jobs.end(), before);
  if (opts_.max_jobs > 0 && jobs.size() > opts_.max_jobs) {
    data_.report.skipped[kSkipMaxJobs] += jobs.size() - opts_.max_jobs;
    jobs.resize(opts_.max_jobs);
  }
  // The epoch shift is uniform, so it keeps the order above.
  const double epoch = (shift_epoch && min_submit_ != kNever) ? min_submit_ : 0.0;
  // Dated formats only: PAI's creation_time counts seconds from the trace's start.
  const bool dated = data_.report.format == "sacct" || data_.report.format == "helios" || data_.report.format == "philly";
  if (dated && epoch != 0) data_.report.wall_t0_s = epoch;
  for (auto& j : jobs) {
    if (j.time_limit_s == kUnknownLimit) {
      if (opts_.missing_limit_is_runtime) {
        j.time_limit_s = j.runtime_s;
        adjust(kAdjLimitRuntime);
      } else {
        j.time_limit_s = kNever;
        adjust(kAdjLimitUnlimited);
      }
    }
    if (epoch != 0) {
      j.submit_s -= epoch;
      if (j.recorded_start_s != -1) j.recorded_start_s -= epoch;
    }
  }
  data_.report.jobs = jobs.size();
  return std::move(data_);
}

}  // namespace floorsim::traces::detail
