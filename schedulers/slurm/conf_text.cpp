// The text and value syntax shared by the Slurm configuration readers: slurm.conf(5),
// topology.conf(5) and gres.conf(5) lines (Key=Value words, '#' comments, '\' continuations),
// and the value forms of slurm.conf(5) and sacctmgr(1) (times, TRES lists, host lists, counts).
#include "schedulers/slurm/conf_text.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/cluster.hpp"
#include "sim/core/error.hpp"

namespace floorsim::slurm {
namespace conf {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::string unquote(const std::string& s) {
  if (s.size() >= 2 && ((s.front() == '\'' && s.back() == '\'') || (s.front() == '"' && s.back() == '"')))
    return s.substr(1, s.size() - 2);
  return s;
}

// Splits on `sep` outside single or double quotes.
std::vector<std::string> split_outside_quotes(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  char q = 0;
  for (char c : s) {
    if (q) {
      if (c == q) q = 0;
      cur += c;
    } else if (c == '\'' || c == '"') {
      q = c;
      cur += c;
    } else if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

// The quote left open at the end of `s` (0 when every quote closes).
char open_quote(const std::string& s) {
  char q = 0;
  for (char c : s) {
    if (q) {
      if (c == q) q = 0;
    } else if (c == '\'' || c == '"') {
      q = c;
    }
  }
  return q;
}

// Logical lines of a slurm.conf-style file: comments removed, backslash continuations joined.
std::vector<Line> logical_lines(const std::string& text) {
  std::vector<Line> out;
  // A UTF-8 byte-order mark (editors on Windows write one) is not part of the first key.
  std::istringstream in(text.rfind("\xEF\xBB\xBF", 0) == 0 ? text.substr(3) : text);
  std::string raw, acc;
  int n = 0, start = 0;
  while (std::getline(in, raw)) {
    ++n;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    // '#' starts a comment unless escaped as "\#".
    std::string s;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '\\' && i + 1 < raw.size() && raw[i + 1] == '#') {
        s += '#';
        ++i;
      } else if (raw[i] == '#') {
        break;
      } else {
        s += raw[i];
      }
    }
    if (acc.empty()) start = n;
    const std::string t = trim(s);
    if (!t.empty() && t.back() == '\\') {
      acc += t.substr(0, t.size() - 1);  // joined as written: "a=1,\" + "b=2" is "a=1,b=2"
      continue;
    }
    acc += t;
    if (!trim(acc).empty()) out.push_back({start, trim(acc)});
    acc.clear();
  }
  if (!trim(acc).empty()) out.push_back({start, trim(acc)});
  return out;
}

// "Key=Value Key2="quoted value"" -> pairs (keys as written). As slurmctld's parse_config.c
// (keyvalue_pattern): spaces may stand on either side of '=' ("Key = value", "Key= value"), a
// quoted value may hold spaces and may be empty (Key=""), an unquoted one runs to the next space.
std::vector<std::pair<std::string, std::string>> kv_tokens(const std::string& line, const std::string& file, int ln) {
  auto space = [&](size_t at) { return at < line.size() && std::isspace(static_cast<unsigned char>(line[at])); };
  std::vector<std::pair<std::string, std::string>> out;
  size_t i = 0;
  while (i < line.size()) {
    while (space(i)) ++i;
    if (i >= line.size()) break;
    size_t k = i;
    while (k < line.size() && line[k] != '=' && !space(k)) ++k;
    const std::string key = line.substr(i, k - i);
    while (space(k)) ++k;
    if (key.empty() || k >= line.size() || line[k] != '=') {
      // slurmctld refuses what is left of a line that is not Key=Value ("Parse error in file ...
      // line N"); reading on without it would model a different cluster. Include lines never
      // get here (the slurm.conf reader takes them first).
      const std::string shown = key.empty() ? std::string("=") : key;
      throw InputError(file, std::to_string(ln), fmt::format("'{}' is not Key=Value; expected Key=Value words (a word without '=' is not slurm.conf syntax)", shown));
    }
    ++k;
    while (space(k)) ++k;
    std::string val;
    if (k < line.size() && (line[k] == '"' || line[k] == '\'')) {
      const char q = line[k];
      const size_t e = line.find(q, k + 1);
      if (e == std::string::npos)
        throw InputError(file, std::to_string(ln), fmt::format("unterminated quote in value of {}; expected a closing {}", key, q));
      val = line.substr(k + 1, e - k - 1);
      i = e + 1;
    } else if (k >= line.size()) {
      // keyvalue_pattern needs a value: "Key=" ending the line is slurmctld's "Parse error".
      throw InputError(file, std::to_string(ln), fmt::format("'{}=' has no value; expected Key=VALUE (Key=\"\" for an empty one)", key));
    } else {
      size_t e = k;
      while (e < line.size() && !space(e)) ++e;
      val = line.substr(k, e - k);
      i = e;
    }
    out.push_back({key, val});
  }
  return out;
}

[[noreturn]] void bad(const std::string& file, int ln, const std::string& msg) {
  throw InputError(file, std::to_string(ln), msg);
}

int64_t to_int(const std::string& v, const std::string& key, const std::string& file, int ln) {
  try {
    size_t pos = 0;
    const long long x = std::stoll(v, &pos);
    if (pos == v.size()) return x;
  } catch (...) {
  }
  bad(file, ln, fmt::format("{}={} is not an integer; expected a whole number", key, v));
}

double to_num(const std::string& v, const std::string& key, const std::string& file, int ln) {
  try {
    size_t pos = 0;
    const double x = std::stod(v, &pos);
    if (pos == v.size() && std::isfinite(x)) return x;  // stod takes "nan" and "inf"
  } catch (...) {
  }
  bad(file, ln, fmt::format("{}={} is not a number; expected a number", key, v));
}

// A number that must lie in [lo, hi]: every value that is later cast to an integer or scaled
// (minutes -> seconds) goes through here, so a huge value is an input error, not an overflow.
double to_bounded(const std::string& v, const std::string& key, double lo, double hi, const std::string& file,
                  int ln) {
  const double x = to_num(v, key, file, ln);
  if (x < lo || x > hi) bad(file, ln, fmt::format("{}={} is out of range; expected a number in [{}, {}]", key, v, lo, hi));
  return x;
}

// PriorityWeight*: unsigned 32-bit in Slurm.
double to_weight(const std::string& v, const std::string& key, const std::string& file, int ln) {
  const double x = to_num(v, key, file, ln);
  if (x < 0 || x > 4294967295.0) bad(file, ln, fmt::format("{}={} is out of range; expected a weight in [0, 4294967295]", key, v));
  return x;
}

double to_time(const std::string& v, const std::string& key, const std::string& file, int ln) {
  double s = 0;
  if (!parse_time_s(v, s))
    bad(file, ln, fmt::format("{}={} is not a Slurm time; expected minutes, MM:SS, HH:MM:SS, D-HH[:MM[:SS]] or UNLIMITED", key, v));
  return s;
}

bool to_bool(const std::string& v, const std::string& key, const std::string& file, int ln) {
  const std::string l = lower(v);
  if (l == "yes" || l == "1" || l == "true") return true;
  if (l == "no" || l == "0" || l == "false") return false;
  bad(file, ln, fmt::format("{}={} is not a yes/no value; expected YES or NO", key, v));
}

PreemptMode to_mode(const std::string& v, const std::string& key, const std::string& file, int ln) {
  // "REQUEUE,GANG" style lists: the first mode word decides; GANG only enables suspension.
  PreemptMode m = PreemptMode::Unset;
  for (auto& w : split_outside_quotes(lower(v), ',')) {
    const std::string t = trim(w);
    if (t == "off") m = PreemptMode::Off;
    else if (t == "cancel") m = PreemptMode::Cancel;
    else if (t == "requeue") m = PreemptMode::Requeue;
    else if (t == "suspend") m = PreemptMode::Suspend;
    else if (t == "gang" || t == "within" || t == "priority") continue;
    else bad(file, ln, fmt::format("{}={}: unknown preempt mode '{}'; expected OFF, CANCEL, REQUEUE, SUSPEND or GANG", key, v, t));
  }
  return m;
}

// "gres/gpu=16,cpu=64,node=2" (also "gres/gpu:16"). Unknown TRES (mem, billing, license) are
// not modelled and left out.
Tres to_tres(const std::string& v, const std::string& key, const std::string& file, int ln) {
  Tres t;
  for (auto& part : split_outside_quotes(v, ',')) {
    const std::string p = lower(trim(part));
    if (p.empty()) continue;
    size_t eq = p.find('=');
    if (eq == std::string::npos && p.rfind("gres/gpu:", 0) == 0) eq = 8;
    if (eq == std::string::npos) bad(file, ln, fmt::format("{}={}: '{}' has no value; expected TRES=count, e.g. gres/gpu=16", key, v, p));
    const std::string name = p.substr(0, eq), val = p.substr(eq + 1);
    // -1 clears a limit (sacctmgr(1): "To clear a previously set value use the modify command
    // with a new value of -1"); any other negative count is a typo, not "no limit".
    const int64_t n = (val == "-1" || val == "unlimited" || val == "infinite") ? kUnset : to_int(val, key + ":" + name, file, ln);
    if (n < kUnset)
      bad(file, ln, fmt::format("{}={}: '{}' is negative; expected a count >= 0 (or -1 for no limit)", key, v, p));
    if (name == "gres/gpu" || name.rfind("gres/gpu:", 0) == 0) t.gpu = n;
    else if (name == "node") t.node = n;
    else if (name == "cpu") t.cpu = n;
  }
  return t;
}

// A job-count limit (MaxJobs, GrpJobs, MaxJobsPerUser): -1 is no limit, as for TRES.
int64_t to_limit(const std::string& v, const std::string& key, const std::string& file, int ln) {
  const int64_t x = to_int(v, key, file, ln);
  if (x < kUnset) bad(file, ln, fmt::format("{}={} is negative; expected a count >= 0 (or -1 for no limit)", key, v));
  return x;
}

std::vector<std::string> to_list(const std::string& v) {
  std::vector<std::string> out;
  for (auto& w : split_outside_quotes(v, ',')) {
    std::string t = trim(unquote(trim(w)));
    if (!t.empty() && t[0] == '+') t = t.substr(1);  // "+a" adds to the parent's list
    if (!t.empty()) out.push_back(t);
  }
  return out;
}

std::vector<std::string> to_nodes(const std::string& v, const std::string& key, const std::string& file, int ln) {
  if (lower(v) == "all") return {};
  try {
    return expand_hostlist(v);
  } catch (const std::exception& e) {
    bad(file, ln, fmt::format("{}={} is not a node list ({}); expected e.g. n[1-8],gpu01", key, v, e.what()));
  }
}

// A count in slurm.conf: a whole number in [0, 2^31).
int32_t to_count(const std::string& v, const std::string& key, const std::string& file, int ln) {
  const int64_t x = to_int(v, key, file, ln);
  if (x < 0 || x > std::numeric_limits<int32_t>::max())
    bad(file, ln, fmt::format("{}={} is out of range; expected a count in [0, 2147483647]", key, v));
  return static_cast<int32_t>(x);
}

}  // namespace conf

using namespace conf;

bool parse_time_s(const std::string& in, double& out_s) {
  const std::string s = lower(trim(in));
  if (s == "unlimited" || s == "infinite" || s == "-1") {
    out_s = kNever;
    return true;
  }
  if (s.empty()) return false;
  auto digits = [](const std::string& t) {
    // At most 15 digits: exact in a double, and std::stod cannot throw out_of_range.
    return !t.empty() && t.size() <= 15 &&
           std::all_of(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  };
  double days = 0;
  std::string rest = s;
  const size_t dash = s.find('-');
  const bool has_days = dash != std::string::npos;
  if (has_days) {
    const std::string d = s.substr(0, dash);
    if (!digits(d)) return false;
    days = std::stod(d);
    rest = s.substr(dash + 1);
  }
  std::vector<std::string> f;
  std::stringstream ss(rest);
  std::string x;
  while (std::getline(ss, x, ':')) f.push_back(x);
  if (f.empty() || f.size() > 3) return false;
  for (auto& t : f)
    if (!digits(t)) return false;
  double sec = 0;
  if (has_days) {  // days-hours[:minutes[:seconds]]
    sec = std::stod(f[0]) * 3600;
    if (f.size() > 1) sec += std::stod(f[1]) * 60;
    if (f.size() > 2) sec += std::stod(f[2]);
  } else if (f.size() == 1) {  // minutes
    sec = std::stod(f[0]) * 60;
  } else if (f.size() == 2) {  // minutes:seconds
    sec = std::stod(f[0]) * 60 + std::stod(f[1]);
  } else {  // hours:minutes:seconds
    sec = std::stod(f[0]) * 3600 + std::stod(f[1]) * 60 + std::stod(f[2]);
  }
  out_s = days * 86400 + sec;
  return true;
}

}  // namespace floorsim::slurm
