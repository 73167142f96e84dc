#include "schedulers/slurm/config.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <unordered_set>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/cluster.hpp"
#include "sim/core/error.hpp"
#include "sim/core/input.hpp"
#include "sim/core/io.hpp"

namespace floorsim::slurm {
namespace {

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
struct Line {
  int number;  // first physical line
  std::string text;
};
std::vector<Line> logical_lines(const std::string& text) {
  std::vector<Line> out;
  std::istringstream in(text);
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

// "Key=Value Key2="quoted value"" -> pairs (keys as written).
std::vector<std::pair<std::string, std::string>> kv_tokens(const std::string& line, const std::string& file, int ln) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i >= line.size()) break;
    size_t k = i;
    while (k < line.size() && line[k] != '=' && !std::isspace(static_cast<unsigned char>(line[k]))) ++k;
    const std::string key = line.substr(i, k - i);
    if (k >= line.size() || line[k] != '=') {
      // slurmctld refuses what is left of a line that is not Key=Value ("Parse error in file ...
      // line N"); reading on without it would model a different cluster. Include lines never
      // get here (read_slurm_conf_text takes them first).
      size_t n = k;
      while (n < line.size() && std::isspace(static_cast<unsigned char>(line[n]))) ++n;
      if (n < line.size() && line[n] == '=')
        throw InputError(file, std::to_string(ln), fmt::format("'{} =' has a space before '='; expected Key=Value without spaces", key));
      throw InputError(file, std::to_string(ln), fmt::format("'{}' is not Key=Value; expected Key=Value words (a word without '=' is not slurm.conf syntax)", key));
    }
    ++k;
    std::string val;
    if (k < line.size() && (line[k] == '"' || line[k] == '\'')) {
      const char q = line[k];
      const size_t e = line.find(q, k + 1);
      if (e == std::string::npos)
        throw InputError(file, std::to_string(ln), fmt::format("unterminated quote in value of {}; expected a closing {}", key, q));
      val = line.substr(k + 1, e - k - 1);
      i = e + 1;
    } else {
      size_t e = k;
      while (e < line.size() && !std::isspace(static_cast<unsigned char>(line[e]))) ++e;
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

void sched_parameters(const std::string& v, SlurmConfig& cfg, const std::string& file, int ln,
                      std::vector<std::string>& ignored) {
  for (auto& item : split_outside_quotes(v, ',')) {
    const std::string it = trim(item);
    if (it.empty()) continue;
    const size_t eq = it.find('=');
    const std::string k = lower(it.substr(0, eq));
    const std::string val = eq == std::string::npos ? "" : it.substr(eq + 1);
    // Ranges from slurm.conf(5) where it gives them (bf_window 1-43200 min, bf_resolution 1-3600 s,
    // bf_interval up to 10800 s); counts are C ints in slurmctld.
    auto num = [&](double lo, double hi) { return to_bounded(val, "SchedulerParameters:" + k, lo, hi, file, ln); };
    auto count = [&] { return static_cast<int64_t>(num(0, std::numeric_limits<int32_t>::max())); };
    auto& s = cfg.sched;
    if (k == "bf_window") s.bf_window_s = num(1, 43200) * 60;
    else if (k == "bf_resolution") s.bf_resolution_s = num(1, 3600);
    else if (k == "bf_interval") s.bf_interval_s = num(1, 10800);
    else if (k == "bf_max_job_test" || k == "max_job_bf") s.bf_max_job_test = count();
    else if (k == "bf_continue") s.bf_continue = true;
    else if (k == "bf_max_job_user") s.bf_max_job_user = count();
    else if (k == "sched_interval") s.sched_interval_s = num(1, 86400);
    else if (k == "default_queue_depth") s.default_queue_depth = count();
    else if (k == "batch_sched_delay") s.batch_sched_delay_s = num(0, 86400);
    else if (k == "assoc_limit_stop") s.assoc_limit_stop = true;
    else if (k == "max_switch_wait") s.max_switch_wait_s = num(0, 365 * 86400.0);
    else ignored.push_back("SchedulerParameters:" + k);
  }
}

// A count in slurm.conf: a whole number in [0, 2^31).
int32_t to_count(const std::string& v, const std::string& key, const std::string& file, int ln) {
  const int64_t x = to_int(v, key, file, ln);
  if (x < 0 || x > std::numeric_limits<int32_t>::max())
    bad(file, ln, fmt::format("{}={} is out of range; expected a count in [0, 2147483647]", key, v));
  return static_cast<int32_t>(x);
}

void node_line(const std::vector<std::pair<std::string, std::string>>& kv, SlurmConfig& cfg, NodeDef& defaults,
               const std::string& file, int ln, std::vector<std::string>& ignored,
               std::unordered_set<std::string>& seen) {
  NodeDef d = defaults;
  for (size_t i = 1; i < kv.size(); ++i) {
    const std::string k = lower(kv[i].first);
    const std::string& v = kv[i].second;
    if (k == "gres") {
      d.gpus = 0;
      for (auto& g : split_outside_quotes(v, ',')) {
        // gpu:8, gpu:a100:8, gpu:a100:8(S:0-1)
        std::string t = trim(g);
        if (auto p = t.find('('); p != std::string::npos) t = t.substr(0, p);
        auto parts = split_outside_quotes(t, ':');
        if (parts.empty() || lower(parts[0]) != "gpu") continue;
        if (parts.size() < 2) bad(file, ln, fmt::format("Gres={} has no count; expected gpu:N or gpu:TYPE:N", v));
        const int64_t sum = int64_t{d.gpus} + to_count(parts.back(), "Gres", file, ln);
        if (sum > std::numeric_limits<int32_t>::max())
          bad(file, ln, fmt::format("Gres={} adds up to {} GPUs; expected at most 2147483647 per node", v, sum));
        d.gpus = static_cast<int32_t>(sum);
      }
    } else if (k == "cpus" || k == "procs") {
      d.cpus = to_count(v, kv[i].first, file, ln);
    } else if (k == "weight") {
      d.weight = to_count(v, kv[i].first, file, ln);
    } else if (k == "nodehostname" || k == "nodeaddr" || k == "port" || k == "realmemory" || k == "sockets" ||
               k == "corespersocket" || k == "threadspercore" || k == "state" || k == "boards" ||
               k == "socketsperboard" || k == "features" || k == "tmpdisk") {
      continue;  // not scheduling-relevant for a GPU model
    } else {
      ignored.push_back("NodeName:" + kv[i].first);
    }
  }
  if (lower(kv[0].second) == "default") {
    defaults = d;
    return;
  }
  for (const auto& name : to_nodes(kv[0].second, "NodeName", file, ln)) {
    // slurmctld refuses a node defined twice; taking either definition would be a guess.
    if (!seen.insert(name).second)
      bad(file, ln, fmt::format("node {} is already defined; expected each NodeName once", name));
    NodeDef nd = d;
    nd.name = name;
    cfg.nodes.push_back(nd);
  }
}

void partition_line(const std::vector<std::pair<std::string, std::string>>& kv, SlurmConfig& cfg,
                    Partition& defaults, const std::string& file, int ln, std::vector<std::string>& ignored) {
  Partition p = defaults;
  for (size_t i = 1; i < kv.size(); ++i) {
    const std::string k = lower(kv[i].first);
    const std::string& v = kv[i].second;
    if (k == "nodes") p.nodes = to_nodes(v, kv[i].first, file, ln);
    else if (k == "prioritytier") p.priority_tier = to_int(v, kv[i].first, file, ln);
    else if (k == "priorityjobfactor") p.priority_job_factor = to_int(v, kv[i].first, file, ln);
    else if (k == "priority") p.priority_job_factor = p.priority_tier = to_int(v, kv[i].first, file, ln);
    else if (k == "maxtime") p.max_time_s = to_time(v, kv[i].first, file, ln);
    else if (k == "defaulttime") p.default_time_s = to_time(v, kv[i].first, file, ln);
    else if (k == "qos") p.qos = v;
    else if (k == "default") p.is_default = to_bool(v, kv[i].first, file, ln);
    else if (k == "preemptmode") p.preempt_mode = to_mode(v, kv[i].first, file, ln);
    else if (k == "state" || k == "oversubscribe" || k == "shared") continue;
    else ignored.push_back("PartitionName:" + kv[i].first);
  }
  if (lower(kv[0].second) == "default") {
    defaults = p;
    return;
  }
  p.name = kv[0].second;
  p.origin = {file, ln};
  for (const auto& q : cfg.partitions)
    if (q.name == p.name) bad(file, ln, fmt::format("partition {} defined twice; expected unique PartitionName", p.name));
  cfg.partitions.push_back(p);
}

}  // namespace

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

void read_slurm_conf(const std::string& path, SlurmConfig& cfg) { read_slurm_conf_text(input::read_text(path), path, cfg); }

namespace {

// One slurm.conf and the files it includes. slurmctld parses an included file into the same
// table as the including one (parse_config.c s_p_parse_file), so node names and the DEFAULT
// lines carry across files.
struct ConfReader {
  struct Open {
    std::filesystem::path id;  // weakly canonical, to recognise a file reached again
    std::string shown;         // as named in messages
  };
  SlurmConfig& cfg;
  std::unordered_set<std::string> seen_nodes;
  NodeDef node_defaults;
  Partition part_defaults;
  std::vector<Open> chain;  // the files being read, outermost first
  std::vector<std::string> warnings;  // per file, added after the whole configuration's

  bool read(const std::string& text, const std::string& file);  // false: no settings in it
  void include(const std::string& line, const std::string& file, int ln);
};

// "Include FILE" (slurm.conf(5), "Include"): FILE is read in place of the line. As in
// parse_config.c, a relative FILE is relative to the including file's directory and "%c" stands
// for the ClusterName set above, lowercased. slurmctld loops on a file that includes itself;
// here that is an error.
void ConfReader::include(const std::string& line, const std::string& file, int ln) {
  namespace fs = std::filesystem;
  std::istringstream words(line.substr(7));
  std::string name, rest;
  words >> name;
  if (words >> rest) bad(file, ln, fmt::format("Include {} {}: text after the file name; expected Include FILE", name, rest));
  for (size_t at; (at = name.find("%c")) != std::string::npos;) {
    if (cfg.cluster_name.empty())
      bad(file, ln, fmt::format("Include {}: %c stands for ClusterName, which is not set above this line; expected ClusterName= first", name));
    name.replace(at, 2, lower(cfg.cluster_name));
  }
  fs::path path(name);
  if (path.is_relative()) path = fs::path(file).parent_path() / path;
  const std::string shown = path.lexically_normal().string();
  std::error_code ec;
  if (!fs::exists(path, ec))
    bad(file, ln, fmt::format("Include {}: {} does not exist; expected a file (a relative name is read from this file's directory)", name, shown));
  if (!fs::is_regular_file(path, ec)) bad(file, ln, fmt::format("Include {}: {} is not a regular file; expected a slurm.conf file", name, shown));
  const fs::path id = fs::weakly_canonical(path, ec);
  for (const auto& o : chain) {
    if (o.id != id) continue;
    std::string cycle;
    for (const auto& c : chain) cycle += c.shown + " -> ";
    bad(file, ln, fmt::format("Include {}: the file includes itself ({}{}); expected Includes without a cycle", name, cycle, shown));
  }
  chain.push_back({id, shown});
  read(io::read_file(path), shown);  // an empty included file is allowed (slurmctld only logs it)
  chain.pop_back();
}

bool ConfReader::read(const std::string& text, const std::string& file) {
  io::check_utf8(text, file);
  bool any_line = false;
  std::vector<std::string> ignored;
  bool priority_type_set = false;
  for (const auto& L : logical_lines(text)) {
    any_line = true;
    const int ln = L.number;
    if (L.text.size() > 7 && lower(L.text.substr(0, 7)) == "include" && std::isspace(static_cast<unsigned char>(L.text[7]))) {
      include(L.text, file, ln);
      continue;
    }
    auto kv = kv_tokens(L.text, file, ln);
    if (kv.empty()) continue;
    const std::string first = lower(kv[0].first);
    if ((first == "nodename" || first == "partitionname") && kv[0].second.empty())
      bad(file, ln, fmt::format("'{}' has no value; expected {}=NAME", kv[0].first, kv[0].first));
    if (first == "nodename") {
      node_line(kv, cfg, node_defaults, file, ln, ignored, seen_nodes);
      continue;
    }
    if (first == "partitionname") {
      partition_line(kv, cfg, part_defaults, file, ln, ignored);
      continue;
    }
    if (first == "nodeset" || first == "frontendname" || first == "downnodes") {
      ignored.push_back(kv[0].first);
      continue;
    }
    for (const auto& [key, v] : kv) {
      const std::string k = lower(key);
      if (v.empty() && k != "schedulerparameters") bad(file, ln, fmt::format("'{}' has no value; expected Key=Value", key));
      auto& pr = cfg.prio;
      if (k == "clustername") cfg.cluster_name = v;
      else if (k == "schedulertype") {
        const std::string l = lower(v);
        if (l == "sched/backfill") cfg.sched.backfill = true;
        else if (l == "sched/builtin") cfg.sched.backfill = false;
        else bad(file, ln, fmt::format("SchedulerType={}; expected sched/backfill or sched/builtin", v));
      } else if (k == "schedulerparameters") sched_parameters(v, cfg, file, ln, ignored);
      else if (k == "prioritytype") {
        const std::string l = lower(v);
        if (l == "priority/basic") pr.type = PriorityType::Basic;
        else if (l == "priority/multifactor") pr.type = PriorityType::Multifactor;
        else bad(file, ln, fmt::format("PriorityType={}; expected priority/basic or priority/multifactor", v));
        priority_type_set = true;
      } else if (k == "priorityflags") {
        for (auto& f : to_list(lower(v))) {
          if (f == "no_fair_tree") pr.fair_tree = false;
          else if (f == "fair_tree") pr.fair_tree = true;
          else ignored.push_back("PriorityFlags:" + f);
        }
      } else if (k == "prioritydecayhalflife") pr.decay_half_life_s = to_time(v, key, file, ln);
      else if (k == "prioritymaxage") pr.max_age_s = to_time(v, key, file, ln);
      else if (k == "prioritycalcperiod") pr.calc_period_s = to_time(v, key, file, ln);
      else if (k == "priorityusageresetperiod") {
        const std::string u = lower(v);
        static constexpr const char* kOk[] = {"none", "now", "daily", "weekly", "monthly", "quarterly", "yearly"};
        if (std::find(std::begin(kOk), std::end(kOk), u) == std::end(kOk))
          bad(file, ln, fmt::format("PriorityUsageResetPeriod={}; expected NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY or YEARLY", v));
        pr.usage_reset_period = u;
      } else if (k == "priorityweightage") pr.weight_age = to_weight(v, key, file, ln);
      else if (k == "priorityweightfairshare") pr.weight_fairshare = to_weight(v, key, file, ln);
      else if (k == "priorityweightjobsize") pr.weight_jobsize = to_weight(v, key, file, ln);
      else if (k == "priorityweightpartition") pr.weight_partition = to_weight(v, key, file, ln);
      else if (k == "priorityweightqos") pr.weight_qos = to_weight(v, key, file, ln);
      else if (k == "priorityweightassoc") pr.weight_assoc = to_weight(v, key, file, ln);
      else if (k == "priorityfavorsmall") pr.favor_small = to_bool(v, key, file, ln);
      else if (k == "priorityweighttres") {
        for (auto& item : split_outside_quotes(v, ',')) {
          const auto eq = item.find('=');
          if (eq == std::string::npos) bad(file, ln, fmt::format("PriorityWeightTRES item '{}'; expected TRES=weight", item));
          const std::string t = lower(trim(item.substr(0, eq)));
          const double w = to_num(trim(item.substr(eq + 1)), key, file, ln);
          if (t == "gres/gpu") pr.weight_tres_gpu = w;
          else if (t == "cpu") pr.weight_tres_cpu = w;
          else if (t == "node") pr.weight_tres_node = w;
          else ignored.push_back("PriorityWeightTRES:" + t);
        }
      } else if (k == "accountingstoragetype") {
        cfg.accounting_storage_type = lower(trim(v));
      } else if (k == "accountingstorageenforce") {
        for (auto& f : to_list(lower(v))) {
          if (f == "limits") cfg.enforce_limits = true;
          else if (f == "qos") cfg.enforce_qos = true;
          else if (f == "safe") cfg.enforce_safe = cfg.enforce_limits = true;  // safe implies limits (spec §4)
          else if (f == "associations") cfg.enforce_associations = true;
          else if (f == "all") cfg.enforce_limits = cfg.enforce_qos = cfg.enforce_associations = true;
          else if (f == "nojobs" || f == "nosteps" || f == "wckeys") continue;
          else bad(file, ln, fmt::format("AccountingStorageEnforce item '{}'; expected associations, limits, qos, safe, nojobs, nosteps, wckeys or all", f));
        }
      } else if (k == "preempttype") {
        const std::string l = lower(v);
        if (l == "preempt/qos") cfg.preempt_qos = true;
        else if (l == "preempt/none") cfg.preempt_qos = false;
        else if (l == "preempt/partition_prio") {
          cfg.preempt_qos = false;
          cfg.warnings.push_back("PreemptType=preempt/partition_prio is not modelled; preemption is off");
        } else bad(file, ln, fmt::format("PreemptType={}; expected preempt/none, preempt/qos or preempt/partition_prio", v));
      } else if (k == "preemptmode") cfg.preempt_mode = to_mode(v, key, file, ln);
      else if (k == "preemptexempttime") cfg.preempt_exempt_time_s = to_time(v, key, file, ln);
      else if (k == "preemptparameters") {
        for (auto& f : to_list(lower(v)))
          if (f == "youngest_first") cfg.preempt_youngest_first = true;
          else ignored.push_back("PreemptParameters:" + f);
      } else if (k == "topologyplugin") {
        const std::string l = lower(v);
        if (l == "topology/tree") cfg.topology = "tree";
        else if (l == "topology/block") cfg.topology = "block";
        else if (l == "topology/none" || l == "topology/default" || l == "topology/flat") cfg.topology = "none";
        else bad(file, ln, fmt::format("TopologyPlugin={}; expected topology/tree, topology/block or topology/flat", v));
      } else if (k == "killwait") cfg.sched.kill_wait_s = to_bounded(v, key, 0, 65533, file, ln);
      else if (k == "resvoverrun") cfg.resv_over_run_s = lower(v) == "unlimited" ? kNever : to_bounded(v, key, 0, 65533, file, ln) * 60;
      else if (k == "overtimelimit") cfg.sched.over_time_limit_s = lower(v) == "unlimited" ? kNever : to_bounded(v, key, 0, 65533, file, ln) * 60;
      else if (k == "selecttype" || k == "selecttypeparameters" || k == "gresTypes" || k == "grestypes" ||
               k == "slurmctldhost" || k == "controlmachine" || k == "authtype" || k == "credtype")
        continue;  // fixed by the model (cons_tres, whole GPUs) or irrelevant to scheduling
      else ignored.push_back(key);
    }
  }
  (void)priority_type_set;
  if (!ignored.empty()) {
    std::string w = file + ": ignored keys not modelled by the slurm model:";
    for (size_t i = 0; i < ignored.size(); ++i) w += (i ? ", " : " ") + ignored[i];
    warnings.push_back(w);
  }
  return any_line;
}

}  // namespace

void read_slurm_conf_text(const std::string& text, const std::string& file, SlurmConfig& cfg) {
  ConfReader reader{cfg, {}, {}, {}, {}, {}};
  std::error_code ec;
  reader.chain.push_back({std::filesystem::weakly_canonical(file, ec), file});
  const bool any_line = reader.read(text, file);
  // priority_multifactor.c init(): without slurmdbd there is no usage history, so the age and
  // fair-share weights are dropped, with slurmctld's own error (seen live on 22.05).
  if (!cfg.accounting_storage_type.empty() && cfg.accounting_storage_type != "accounting_storage/slurmdbd") {
    if (cfg.prio.weight_age != 0) cfg.warnings.push_back(file + ": PriorityWeightAge can only be used with SlurmDBD, ignoring");
    if (cfg.prio.weight_fairshare != 0) cfg.warnings.push_back(file + ": PriorityWeightFairshare can only be used with SlurmDBD, ignoring");
    cfg.prio.weight_age = cfg.prio.weight_fairshare = 0;
  }
  // An explicitly named slurm.conf with no settings is a wrong path or an emptied file.
  if (!any_line) bad(file, 1, "no settings; expected slurm.conf lines (Key=Value ...)");
  cfg.warnings.insert(cfg.warnings.end(), reader.warnings.begin(), reader.warnings.end());
}

void read_sacctmgr_dump(const std::string& path, SlurmConfig& cfg) { read_sacctmgr_dump_text(input::read_text(path), path, cfg); }

void read_sacctmgr_dump_text(const std::string& text, const std::string& file, SlurmConfig& cfg) {
  io::check_utf8(text, file);
  std::unordered_set<std::string> seen_qos;  // within this file (a dump may override inline QOS)
  std::istringstream in(text);
  std::string raw;
  int ln = 0;
  std::string parent = "root";
  bool have_root = false;
  for (const auto& a : cfg.accounts) have_root |= a.name == "root";
  if (!have_root) cfg.accounts.push_back(root_account());
  std::vector<std::string> ignored;
  while (std::getline(in, raw)) {
    ++ln;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    const std::string line = trim(raw);
    if (line.empty() || line[0] == '#') continue;
    // Read on, an open quote swallows the rest of the line into one name, and the damage shows
    // up later as an unrelated error ("QOS 'normal' is not defined") against another file.
    if (const char q = open_quote(line))
      bad(file, ln, fmt::format("unterminated quote: a {} opens but does not close; expected a closing {}", q, q));
    const size_t dash = line.find(" - ");
    if (dash == std::string::npos)
      bad(file, ln, "line is not 'Kind - 'name':Key=Value...'; expected Cluster, Parent, Account, User or QOS lines as written by sacctmgr dump");
    const std::string kind = lower(trim(line.substr(0, dash)));
    auto fields = split_outside_quotes(trim(line.substr(dash + 3)), ':');
    const std::string name = unquote(trim(fields[0]));
    if (name.empty()) bad(file, ln, fmt::format("{} line has an empty name; expected '{} - 'name'", kind, kind));
    std::vector<std::pair<std::string, std::string>> kv;
    for (size_t i = 1; i < fields.size(); ++i) {
      const std::string f = trim(fields[i]);
      if (f.empty()) continue;
      const size_t eq = f.find('=');
      if (eq == std::string::npos) bad(file, ln, fmt::format("option '{}' has no value; expected Key=Value", f));
      kv.push_back({f.substr(0, eq), unquote(trim(f.substr(eq + 1)))});
    }
    auto fairshare = [&](const std::string& v, const std::string& k) -> int64_t {
      if (lower(v) == "parent") return 1;  // not modelled: treated as 1 share
      return to_int(v, k, file, ln);
    };
    if (kind == "cluster") {
      cfg.cluster_name = name;
    } else if (kind == "parent") {
      bool found = false;
      for (const auto& a : cfg.accounts) found |= a.name == name;
      if (!found) bad(file, ln, fmt::format("Parent '{}' is not a defined account; expected an account listed earlier", name));
      parent = name;
    } else if (kind == "account") {
      Account a;
      a.name = name;
      a.parent = parent;
      for (const auto& [key, v] : kv) {
        const std::string k = lower(key);
        if (k == "fairshare") a.fairshare = fairshare(v, key);
        else if (k == "grptres") a.grp_tres = to_tres(v, key, file, ln);
        else if (k == "maxtres" || k == "maxtresperjob") a.max_tres_per_user = to_tres(v, key, file, ln);
        else if (k == "maxjobs") a.max_jobs = to_limit(v, key, file, ln);
        else if (k == "maxwall" || k == "maxwalldurationperjob") a.max_wall_s = to_time(v, key, file, ln);
        else if (k == "description" || k == "organization") continue;
        else ignored.push_back("Account:" + key);
      }
      bool dup = false;
      for (auto& e : cfg.accounts) dup |= e.name == name;
      if (dup) bad(file, ln, fmt::format("account '{}' defined twice; expected each account once", name));
      cfg.accounts.push_back(a);
    } else if (kind == "user") {
      User u;
      u.name = name;
      u.origin = {file, ln};
      u.account = parent;
      for (const auto& [key, v] : kv) {
        const std::string k = lower(key);
        if (k == "fairshare") u.fairshare = fairshare(v, key);
        else if (k == "grptres") u.grp_tres = to_tres(v, key, file, ln);
        else if (k == "defaultqos") u.default_qos = v;
        else if (k == "maxjobs") u.max_jobs = to_limit(v, key, file, ln);
        else if (k == "maxwall" || k == "maxwalldurationperjob") u.max_wall_s = to_time(v, key, file, ln);
        else if (k == "defaultaccount" || k == "adminlevel" || k == "qos" || k == "defaultwckey" || k == "wckeys") continue;
        else ignored.push_back("User:" + key);
      }
      cfg.users.push_back(u);
    } else if (kind == "qos") {
      Qos q;
      q.name = name;
      q.origin = {file, ln};
      for (const auto& [key, v] : kv) {
        const std::string k = lower(key);
        if (k == "priority") q.priority = to_int(v, key, file, ln);
        else if (k == "usagefactor") q.usage_factor = to_bounded(v, key, 0, 1e9, file, ln);
        else if (k == "grptres") q.grp_tres = to_tres(v, key, file, ln);
        else if (k == "grptresmins") q.grp_tres_mins = to_tres(v, key, file, ln);
        else if (k == "maxtresperuser" || k == "maxtresperu") q.max_tres_per_user = to_tres(v, key, file, ln);
        else if (k == "maxtresperjob" || k == "maxtres") q.max_tres_per_job = to_tres(v, key, file, ln);
        else if (k == "maxjobsperuser" || k == "maxjobspu") q.max_jobs_per_user = to_limit(v, key, file, ln);
        else if (k == "grpjobs") q.grp_jobs = to_limit(v, key, file, ln);
        else if (k == "maxwall" || k == "maxwalldurationperjob") q.max_wall_s = to_time(v, key, file, ln);
        else if (k == "preempt") q.preempt = to_list(v);
        else if (k == "preemptmode") q.preempt_mode = to_mode(v, key, file, ln);
        else if (k == "preemptexempttime") q.preempt_exempt_time_s = to_time(v, key, file, ln);
        else if (k == "gracetime") q.grace_time_s = to_bounded(v, key, 0, 365 * 86400.0, file, ln);
        else if (k == "flags") {
          for (auto& f : to_list(lower(v))) {
            if (f == "denyonlimit") q.flags.deny_on_limit = true;
            else if (f == "noreserve") q.flags.no_reserve = true;
            else if (f == "overpartqos") q.flags.over_part_qos = true;
            else if (f == "nodecay") q.flags.no_decay = true;
            else ignored.push_back("QOS:Flags:" + f);
          }
        } else if (k == "description") continue;
        else ignored.push_back("QOS:" + key);
      }
      if (!seen_qos.insert(name).second)
        bad(file, ln, fmt::format("QOS '{}' appears twice in this dump; expected each QOS once", name));
      bool replaced = false;
      for (auto& e : cfg.qos)
        if (e.name == name) e = q, replaced = true;
      if (!replaced) cfg.qos.push_back(q);
    } else {
      bad(file, ln, fmt::format("unknown line kind '{}'; expected Cluster, Parent, Account, User or QOS", kind));
    }
  }
  if (!ignored.empty()) {
    std::string w = file + ": ignored options not modelled by the slurm model:";
    for (size_t i = 0; i < ignored.size(); ++i) w += (i ? ", " : " ") + ignored[i];
    cfg.warnings.push_back(w);
  }
}

void read_topology_conf(const std::string& path, SlurmConfig& cfg) { read_topology_conf_text(input::read_text(path), path, cfg); }

void read_topology_conf_text(const std::string& text, const std::string& file, SlurmConfig& cfg) {
  io::check_utf8(text, file);
  for (const auto& L : logical_lines(text)) {
    auto kv = kv_tokens(L.text, file, L.number);
    if (kv.empty()) continue;
    const std::string first = lower(kv[0].first);
    if (first == "switchname") {
      Switch s;
      s.name = kv[0].second;
      s.origin = {file, L.number};
      for (size_t i = 1; i < kv.size(); ++i) {
        const std::string k = lower(kv[i].first);
        if (k == "nodes") s.nodes = to_nodes(kv[i].second, kv[i].first, file, L.number);
        else if (k == "switches") s.switches = to_nodes(kv[i].second, kv[i].first, file, L.number);
        else if (k == "linkspeed") continue;
        else bad(file, L.number, fmt::format("unknown SwitchName option '{}'; expected Nodes, Switches or LinkSpeed", kv[i].first));
      }
      cfg.switches.push_back(s);
    } else if (first == "blockname") {
      Block b;
      b.name = kv[0].second;
      b.origin = {file, L.number};
      for (size_t i = 1; i < kv.size(); ++i) {
        if (lower(kv[i].first) == "nodes") b.nodes = to_nodes(kv[i].second, kv[i].first, file, L.number);
        else bad(file, L.number, fmt::format("unknown BlockName option '{}'; expected Nodes", kv[i].first));
      }
      cfg.blocks.push_back(b);
    } else if (first == "blocksizes") {
      cfg.block_sizes.clear();
      cfg.block_sizes_origin = {file, L.number};
      for (auto& x : to_list(kv[0].second)) cfg.block_sizes.push_back(to_int(x, "BlockSizes", file, L.number));
    } else {
      bad(file, L.number, fmt::format("unknown line '{}'; expected SwitchName=, BlockName= or BlockSizes=", kv[0].first));
    }
  }
}

void read_gres_conf(const std::string& path, SlurmConfig& cfg) { read_gres_conf_text(input::read_text(path), path, cfg); }

void read_gres_conf_text(const std::string& text, const std::string& file, SlurmConfig& cfg) {
  io::check_utf8(text, file);
  // NodeName=n[1-8] Name=gpu [Type=a100] Count=8 | File=/dev/nvidia[0-7]. A line without
  // NodeName applies to every node; AutoDetect lines are ignored.
  for (const auto& L : logical_lines(text)) {
    auto kv = kv_tokens(L.text, file, L.number);
    std::vector<std::string> nodes;
    bool all = true, gpu = false;
    int64_t count = -1;
    std::string count_text;  // checked once the line is known to be about GPUs
    for (const auto& [key, v] : kv) {
      const std::string k = lower(key);
      if (k == "nodename") nodes = to_nodes(v, key, file, L.number), all = false;
      else if (k == "name") gpu = lower(v) == "gpu";
      else if (k == "count") count_text = v;
      else if (k == "file") {
        // /dev/nvidia[0-7] -> 8 devices
        try {
          count = static_cast<int64_t>(expand_hostlist(v).size());
        } catch (const std::exception&) {
          bad(file, L.number, fmt::format("File={} is not a device list; expected e.g. /dev/nvidia[0-7]", v));
        }
      } else if (k == "type" || k == "cores" || k == "autodetect" || k == "links" || k == "flags") continue;
      else bad(file, L.number, fmt::format("unknown gres.conf key '{}'; expected NodeName, Name, Type, Count, File, Cores", key));
    }
    if (!gpu) continue;
    // A negative or oversized GPU Count is an error, not a line to skip or a count to wrap.
    if (!count_text.empty()) count = to_count(count_text, "Count", file, L.number);
    if (count < 0) continue;
    for (auto& n : cfg.nodes)
      if (all || std::find(nodes.begin(), nodes.end(), n.name) != nodes.end()) n.gpus = static_cast<int32_t>(count);
  }
}

namespace {
nlohmann::json tres_json(const Tres& t) {
  nlohmann::json j = nlohmann::json::object();
  if (t.gpu >= 0) j["gres/gpu"] = t.gpu;
  if (t.node >= 0) j["node"] = t.node;
  if (t.cpu >= 0) j["cpu"] = t.cpu;
  return j;
}
const char* mode_name(PreemptMode m) {
  switch (m) {
    case PreemptMode::Unset: return "unset";
    case PreemptMode::Off: return "OFF";
    case PreemptMode::Cancel: return "CANCEL";
    case PreemptMode::Requeue: return "REQUEUE";
    case PreemptMode::Suspend: return "SUSPEND";
  }
  return "unset";
}
nlohmann::json time_json(double s) { return std::isfinite(s) ? nlohmann::json(s) : nlohmann::json("UNLIMITED"); }
}  // namespace

nlohmann::json to_json(const SlurmConfig& c) {
  using nlohmann::json;
  json j;
  j["version"] = c.version == Version::V22_05 ? "22.05" : "master";
  j["cluster_name"] = c.cluster_name;
  const auto& s = c.sched;
  j["sched"] = {{"sched_interval_s", s.sched_interval_s}, {"default_queue_depth", s.default_queue_depth},
                {"batch_sched_delay_s", s.batch_sched_delay_s},
                {"assoc_limit_stop", s.assoc_limit_stop}, {"backfill", s.backfill},
                {"bf_interval_s", s.bf_interval_s}, {"bf_window_s", s.bf_window_s},
                {"bf_resolution_s", s.bf_resolution_s}, {"bf_max_job_test", s.bf_max_job_test},
                {"bf_continue", s.bf_continue}, {"bf_max_job_user", s.bf_max_job_user},
                {"kill_wait_s", s.kill_wait_s}, {"requeue_delay_s", s.requeue_delay_s}};
  const auto& p = c.prio;
  j["priority"] = {{"type", p.type == PriorityType::Basic ? "priority/basic" : "priority/multifactor"},
                   {"fair_tree", p.fair_tree}, {"decay_half_life_s", p.decay_half_life_s},
                   {"max_age_s", p.max_age_s}, {"calc_period_s", p.calc_period_s},
                   {"usage_reset_period", p.usage_reset_period},
                   {"weight_age", p.weight_age}, {"weight_fairshare", p.weight_fairshare},
                   {"weight_jobsize", p.weight_jobsize}, {"weight_partition", p.weight_partition},
                   {"weight_qos", p.weight_qos}, {"weight_assoc", p.weight_assoc},
                   {"weight_tres_gpu", p.weight_tres_gpu}, {"weight_tres_cpu", p.weight_tres_cpu},
                   {"weight_tres_node", p.weight_tres_node}};
  j["enforce"] = {{"limits", c.enforce_limits}, {"qos", c.enforce_qos}, {"safe", c.enforce_safe},
                  {"associations", c.enforce_associations}};
  j["preempt"] = {{"type", c.preempt_qos ? "preempt/qos" : "preempt/none"}, {"mode", mode_name(c.preempt_mode)},
                  {"exempt_time_s", c.preempt_exempt_time_s}, {"youngest_first", c.preempt_youngest_first}};
  j["topology"] = c.topology;
  j["nodes"] = c.nodes.size();
  j["partitions"] = json::array();
  for (const auto& q : c.partitions)
    j["partitions"].push_back({{"name", q.name}, {"nodes", q.nodes.empty() ? "ALL" : hostlist(q.nodes)},
                               {"priority_tier", q.priority_tier}, {"priority_job_factor", q.priority_job_factor},
                               {"max_time_s", time_json(q.max_time_s)}, {"qos", q.qos}, {"default", q.is_default}});
  j["qos"] = json::array();
  for (const auto& q : c.qos)
    j["qos"].push_back({{"name", q.name}, {"priority", q.priority}, {"usage_factor", q.usage_factor},
                        {"grp_tres", tres_json(q.grp_tres)}, {"grp_tres_mins", tres_json(q.grp_tres_mins)},
                        {"max_tres_per_user", tres_json(q.max_tres_per_user)},
                        {"max_jobs_per_user", q.max_jobs_per_user}, {"max_wall_s", q.max_wall_s},
                        {"preempt", q.preempt}, {"preempt_mode", mode_name(q.preempt_mode)},
                        {"preempt_exempt_time_s", q.preempt_exempt_time_s}, {"grace_time_s", q.grace_time_s},
                        {"flags", {{"DenyOnLimit", q.flags.deny_on_limit}, {"NoReserve", q.flags.no_reserve},
                                   {"OverPartQOS", q.flags.over_part_qos}, {"NoDecay", q.flags.no_decay}}}});
  j["accounts"] = json::array();
  for (const auto& a : c.accounts)
    j["accounts"].push_back({{"name", a.name}, {"parent", a.parent}, {"fairshare", a.fairshare}, {"grp_tres", tres_json(a.grp_tres)}});
  j["users"] = json::array();
  for (const auto& u : c.users)
    j["users"].push_back({{"name", u.name}, {"account", u.account}, {"fairshare", u.fairshare}, {"default_qos", u.default_qos}});
  j["warnings"] = c.warnings;
  return j;
}

}  // namespace floorsim::slurm
