#include "fabric/run_jobs.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "fabric/flow_inputs.hpp"
#include "sim/core/cluster.hpp"
#include "sim/core/error.hpp"
#include "sim/core/input.hpp"

namespace floorsim::fabric {

namespace {

struct Columns {
  size_t id = 0, klass = 0, start = 0, nodes = 0, count = 0;
};

Columns header_columns(const std::vector<std::string>& f, const std::string& file, size_t line) {
  Columns c;
  c.count = f.size();
  auto find = [&](const char* name) {
    for (size_t i = 0; i < f.size(); ++i)
      if (f[i] == name) return i;
    throw InputError(file, std::to_string(line),
                     fmt::format("no \"{}\" column; expected a floorsim run's jobs.csv (job_id, class, start_s, "
                                 "node_list, ...)",
                                 name));
  };
  c.id = find("job_id");
  c.klass = find("class");
  c.start = find("start_s");
  c.nodes = find("node_list");
  return c;
}

std::vector<uint32_t> job_hosts(const std::unordered_map<std::string, uint32_t>& host_of, const std::string& list,
                                const std::string& file, size_t line) {
  std::vector<std::string> names;
  try {
    names = expand_hostlist(list);
  } catch (const std::invalid_argument&) {
    throw InputError(file, std::to_string(line), fmt::format("node_list \"{}\"; expected a Slurm hostlist", list));
  }
  std::vector<uint32_t> hosts;
  for (const auto& n : names) {
    const auto it = host_of.find(n);
    if (it == host_of.end())
      throw InputError(file, std::to_string(line),
                       fmt::format("node \"{}\" is not a fabric host; expected a name from the profile's node_names", n));
    hosts.push_back(it->second);
  }
  return hosts;
}

}  // namespace

RunJobsTraffic read_run_jobs(const Topology& t, const std::string& file, const std::string& text,
                             const RunJobsOptions& o) {
  std::unordered_map<std::string, uint32_t> host_of;
  for (uint32_t i = 0; i < o.node_names.size(); ++i) host_of.emplace(o.node_names[i], i);
  RunJobsTraffic out;
  input::LineSource src(file, text);
  std::string_view line;
  Columns col;
  bool header = true;
  while (src.next(line)) {
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const auto f = csv_fields(line, file, src.line_no());
    if (header) {
      col = header_columns(f, file, src.line_no());
      header = false;
      continue;
    }
    if (f.size() != col.count)
      throw InputError(file, std::to_string(src.line_no()),
                       fmt::format("{} fields; expected {} (the header's columns)", f.size(), col.count));
    ++out.rows;
    const std::string& st = f[col.start];
    double start = -1;
    const auto [p, ec] = std::from_chars(st.data(), st.data() + st.size(), start);
    if (!st.empty() && (ec != std::errc() || p != st.data() + st.size() || !std::isfinite(start)))
      throw InputError(file, std::to_string(src.line_no()), fmt::format("start_s \"{}\"; expected a number", st));
    if (st.empty() || start < 0 || f[col.nodes].empty()) {
      ++out.not_started;
      continue;
    }
    // Every started job's nodes are checked, also those of classes left out.
    const auto hosts = job_hosts(host_of, f[col.nodes], file, src.line_no());
    JobCollective jc = o.every;
    if (!o.by_class.empty()) {
      const auto it = o.by_class.find(f[col.klass]);
      if (it == o.by_class.end()) {
        ++out.other_class;
        continue;
      }
      jc = it->second;
    }
    TrafficSpec spec;
    spec.pattern = jc.collective;
    spec.hosts = hosts;
    spec.bytes = jc.bytes;
    spec.start_s = start;
    spec.tag = o.tag;
    const auto d = make_traffic(t, spec);
    if (d.empty()) {
      ++out.within_domain;
      continue;
    }
    out.jobs.push_back({f[col.id], f[col.klass], start, static_cast<uint32_t>(spec.hosts.size()), jc,
                        static_cast<uint32_t>(out.demands.size()), static_cast<uint32_t>(d.size())});
    out.demands.insert(out.demands.end(), d.begin(), d.end());
  }
  if (header) throw InputError(file, "1", "empty; expected a floorsim run's jobs.csv with a header");
  return out;
}

}  // namespace floorsim::fabric
