#include "fabric/traffic.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>

namespace floorsim::fabric {
namespace {

struct PatternName { Pattern p; const char* name; };
constexpr PatternName kPatterns[] = {
    {Pattern::Uniform, "uniform"},     {Pattern::Permutation, "permutation"},
    {Pattern::RingAllReduce, "ring_allreduce"}, {Pattern::AllToAll, "all_to_all"},
    {Pattern::Incast, "incast"},       {Pattern::Training, "training_allreduce"},
    {Pattern::VarGather, "var_gather"},
};

uint64_t draw(std::mt19937_64& rng, uint64_t n) { return rng() % n; }  // bias < n/2^64

std::vector<uint32_t> participants(const Topology& t, const TrafficSpec& s) {
  std::vector<uint32_t> hosts = s.hosts;
  if (hosts.empty()) {
    hosts.resize(t.hosts());
    for (uint32_t i = 0; i < hosts.size(); ++i) hosts[i] = i;
  }
  for (uint32_t hst : hosts)
    if (hst >= t.hosts()) throw std::invalid_argument("traffic names host " + std::to_string(hst) + " outside the fabric");
  return hosts;
}

}  // namespace

const char* pattern_name(Pattern p) {
  for (const auto& e : kPatterns)
    if (e.p == p) return e.name;
  return "?";
}

bool parse_pattern(const std::string& s, Pattern& out) {
  for (const auto& e : kPatterns)
    if (s == e.name) {
      out = e.p;
      return true;
    }
  return false;
}

std::vector<Demand> make_traffic(const Topology& t, const TrafficSpec& s) {
  const auto hosts = participants(t, s);
  const size_t n = hosts.size();
  std::vector<Demand> out;
  auto add = [&](uint32_t a, uint32_t b, double bytes) {
    if (a == b || t.nvlink_domain(a) == t.nvlink_domain(b)) return;  // NVLink, not fabric
    out.push_back({a, b, bytes, s.start_s, s.tag});
  };
  std::mt19937_64 rng(s.seed);
  switch (s.pattern) {
    case Pattern::Uniform:
      if (n < 2) break;
      for (size_t i = 0; i < n; ++i)
        for (uint32_t k = 0; k < s.flows_per_host; ++k) {
          size_t j = draw(rng, n - 1);
          if (j >= i) ++j;  // any other participant
          add(hosts[i], hosts[j], s.bytes);
        }
      break;
    case Pattern::Permutation: {
      if (n < 2) break;
      std::vector<size_t> perm(n);
      for (size_t i = 0; i < n; ++i) perm[i] = i;
      for (size_t i = n - 1; i > 0; --i) std::swap(perm[i], perm[draw(rng, i + 1)]);  // Fisher-Yates
      // Derangement: a fixed point swaps its target with the next position's (stable rule).
      for (size_t i = 0; i < n; ++i)
        if (perm[i] == i) std::swap(perm[i], perm[(i + 1) % n]);
      for (size_t i = 0; i < n; ++i) add(hosts[i], hosts[perm[i]], s.bytes);
      break;
    }
    case Pattern::RingAllReduce:
    case Pattern::Training: {
      // One member per NVLink domain, in placement order (hierarchical all-reduce).
      // Domains marked as met: linear in the hosts (a scan of the ring per host was quadratic,
      // minutes at k=64's 65,536 hosts).
      std::vector<uint32_t> ring;
      std::vector<uint8_t> met(t.hosts() == 0 ? 0 : t.nvlink_domain(t.hosts() - 1) + 1, 0);
      for (uint32_t hst : hosts)
        if (!met[t.nvlink_domain(hst)]) {
          met[t.nvlink_domain(hst)] = 1;
          ring.push_back(hst);
        }
      const size_t m = ring.size();
      if (m < 2) break;
      const double per_link = 2.0 * static_cast<double>(m - 1) / static_cast<double>(m) * s.bytes;
      for (size_t i = 0; i < m; ++i) add(ring[i], ring[(i + 1) % m], per_link);
      break;
    }
    case Pattern::AllToAll:
      for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) add(hosts[i], hosts[j], s.bytes);
      break;
    case Pattern::Incast:
    case Pattern::VarGather:
      for (size_t i = 1; i < n; ++i) add(hosts[i], hosts[0], s.bytes);
      break;
  }
  return out;
}

namespace {

// Per tag: max over its flows of size / rate (a collective waits for its slowest flow).
std::vector<double> times_by_tag(const RoutedFlows& r, std::span<const Demand> d, const std::vector<double>& rates,
                                 size_t tags) {
  std::vector<double> out(tags, 0);
  for (size_t f = 0; f < r.set.flows(); ++f) {
    const uint32_t tag = d[r.flow_demand[f]].tag;
    out[tag] = std::max(out[tag], r.set.flow_size_bytes[f] / rates[f]);
  }
  return out;
}

std::vector<Demand> job_demands(const Topology& t, const JobTraffic& j, uint32_t tag) {
  TrafficSpec s;
  s.pattern = j.pattern;
  s.hosts = j.hosts;
  s.bytes = j.bytes;
  s.tag = tag;
  if (j.hosts.empty()) return {};
  auto d = make_traffic(t, s);
  for (size_t i = 0; i < d.size(); ++i) d[i].flow_id = (uint64_t(tag) << 32) | i;  // same path alone or not
  return d;
}

}  // namespace

std::vector<JobComm> job_comm(const Topology& t, const FailureSet& f, const RoutingOptions& o,
                              std::span<const JobTraffic> running, MaxMinSolver& solver) {
  std::vector<JobComm> out(running.size());
  std::vector<Demand> all;
  std::vector<double> job_bytes(running.size(), 0);
  std::vector<double> rates;
  for (size_t j = 0; j < running.size(); ++j) {
    auto d = job_demands(t, running[j], static_cast<uint32_t>(j));
    for (const auto& x : d) job_bytes[j] += x.bytes;
    // Alone.
    auto r = route_all(t, f, o, d);
    solver.solve(r.set, rates);
    out[j].alone_time_s = d.empty() ? 0 : times_by_tag(r, d, rates, running.size())[j];
    out[j].disconnected_flows = r.disconnected;
    all.insert(all.end(), d.begin(), d.end());
  }
  auto r = route_all(t, f, o, all);
  solver.solve(r.set, rates);
  const auto together = times_by_tag(r, all, rates, running.size());
  for (size_t j = 0; j < running.size(); ++j) {
    out[j].comm_time_s = together[j];
    out[j].slowdown = out[j].alone_time_s > 0 ? together[j] / out[j].alone_time_s : 1.0;
    out[j].effective_bytes_per_s = together[j] > 0 ? job_bytes[j] / together[j] : 0;
  }
  return out;
}

double comm_time_s(const Topology& t, const FailureSet& f, const RoutingOptions& o, const JobTraffic& job,
                   std::span<const Demand> background, MaxMinSolver& solver) {
  std::vector<Demand> all = job_demands(t, job, 0);
  for (auto d : background) {
    d.tag = 1;
    if (d.flow_id == Demand::kAutoId) d.flow_id = (1ull << 32) | all.size();
    all.push_back(d);
  }
  auto r = route_all(t, f, o, all);
  std::vector<double> rates;
  solver.solve(r.set, rates);
  return times_by_tag(r, all, rates, 2)[0];
}

}  // namespace floorsim::fabric
