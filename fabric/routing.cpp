#include "fabric/routing.hpp"

#include <array>
#include <stdexcept>

namespace floorsim::fabric {
namespace {

constexpr uint32_t kMaxLevels = 16;

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t flow_hash(uint64_t seed, uint64_t src, uint64_t dst, uint64_t flow, uint64_t level) {
  uint64_t hsh = splitmix64(seed);
  hsh = splitmix64(hsh ^ src);
  hsh = splitmix64(hsh ^ (dst << 1));
  hsh = splitmix64(hsh ^ (flow << 2));
  return splitmix64(hsh ^ (level << 3));
}

// Lower nodes of level i-1 on the source and destination side for a given B_{i-1}.
inline uint64_t side_node(const Topology& t, uint64_t host, uint32_t level_below, uint64_t b) {
  return (host / t.subtree[level_below]) * t.weight[level_below] + b;
}

inline bool hop_live(const Topology& t, const FailureSet& f, uint64_t src, uint64_t dst, uint32_t lb, uint64_t b,
                     uint32_t port) {
  return !f.dead(t.link_id(lb, side_node(t, src, lb, b), port, 0)) &&
         !f.dead(t.link_id(lb, side_node(t, dst, lb, b), port, 1));
}

inline uint64_t next_b(const Topology& t, uint32_t lb, uint64_t b, uint32_t port) {
  return port / t.x.p[lb] + uint64_t(t.x.w[lb]) * b;
}

// D-mod-K with next-live-port failover and backtracking (routing.hpp failure policy).
bool dmodk_search(const Topology& t, const FailureSet& f, uint64_t src, uint64_t dst, uint32_t level, uint32_t L,
                  uint64_t b, std::array<uint32_t, kMaxLevels>& ports, std::span<const uint32_t> pref) {
  if (level > L) return true;
  const uint32_t lb = level - 1, W = t.ports_up(lb);
  for (uint32_t r = 0; r < W; ++r) {
    const uint32_t u = (pref[lb] + r) % W;
    if (!hop_live(t, f, src, dst, lb, b, u)) continue;
    ports[lb] = u;
    if (dmodk_search(t, f, src, dst, level + 1, L, next_b(t, lb, b, u), ports, pref)) return true;
  }
  return false;
}

void enumerate(const Topology& t, const FailureSet& f, uint64_t src, uint64_t dst, uint32_t level, uint32_t L,
               uint64_t b, std::vector<uint32_t>& cur, std::vector<std::vector<uint32_t>>& out) {
  if (level > L) {
    out.push_back(cur);
    return;
  }
  const uint32_t lb = level - 1, W = t.ports_up(lb);
  for (uint32_t u = 0; u < W; ++u) {
    if (!hop_live(t, f, src, dst, lb, b, u)) continue;
    cur.push_back(u);
    enumerate(t, f, src, dst, level + 1, L, next_b(t, lb, b, u), cur, out);
    cur.pop_back();
  }
}

}  // namespace

const char* routing_name(RoutingMode m) {
  switch (m) {
    case RoutingMode::DModK: return "dmodk";
    case RoutingMode::Ecmp: return "ecmp";
    case RoutingMode::Split: return "split";
  }
  return "?";
}

bool parse_routing(const std::string& s, RoutingMode& out) {
  if (s == "dmodk") out = RoutingMode::DModK;
  else if (s == "ecmp") out = RoutingMode::Ecmp;
  else if (s == "split") out = RoutingMode::Split;
  else return false;
  return true;
}

uint32_t lca_level(const Topology& t, uint64_t src, uint64_t dst) {
  uint32_t L = 0;
  while (L < t.h() && src / t.subtree[L] != dst / t.subtree[L]) ++L;
  return L;
}

// dmodk_ports into `ports` (size >= L): route_one's, without an allocation per flow.
static void dmodk_ports_into(const Topology& t, const RoutingOptions& o, uint64_t dst, uint32_t L, std::span<uint32_t> ports) {
  const uint64_t d = o.lid_rank.empty() ? dst : o.lid_rank[dst];
  uint64_t div = 1;  // prod_{i<level} w_i p_i
  for (uint32_t lb = 0; lb < L; ++lb) {
    const uint32_t W = t.ports_up(lb), w = t.x.w[lb], p = t.x.p[lb];
    const auto r = static_cast<uint32_t>((d / div) % W);
    ports[lb] = o.cables == CableOrder::ParentsFirst ? (r % w) * p + r / w : r;
    div *= W;
  }
}

std::vector<uint32_t> dmodk_ports(const Topology& t, const RoutingOptions& o, uint64_t dst, uint32_t L) {
  std::vector<uint32_t> ports(L);
  dmodk_ports_into(t, o, dst, L, ports);
  return ports;
}

void path_links(const Topology& t, uint64_t src, uint64_t dst, std::span<const uint32_t> ports,
                std::vector<uint32_t>& out) {
  const uint32_t L = static_cast<uint32_t>(ports.size());
  if (L > kMaxLevels) throw std::invalid_argument("too many levels");
  std::array<uint64_t, kMaxLevels + 1> bs{};
  for (uint32_t lb = 0; lb < L; ++lb) {
    out.push_back(static_cast<uint32_t>(t.link_id(lb, side_node(t, src, lb, bs[lb]), ports[lb], 0)));
    bs[lb + 1] = next_b(t, lb, bs[lb], ports[lb]);
  }
  for (uint32_t lb = L; lb-- > 0;)
    out.push_back(static_cast<uint32_t>(t.link_id(lb, side_node(t, dst, lb, bs[lb]), ports[lb], 1)));
}

std::vector<std::vector<uint32_t>> live_paths(const Topology& t, const FailureSet& f, uint64_t src, uint64_t dst) {
  std::vector<std::vector<uint32_t>> out;
  std::vector<uint32_t> cur;
  const uint32_t L = lca_level(t, src, dst);
  enumerate(t, f, src, dst, 1, L, 0, cur, out);
  return out;
}

bool route_one(const Topology& t, const FailureSet& f, const RoutingOptions& o, uint64_t src, uint64_t dst,
               uint64_t flow_id, std::vector<uint32_t>& out) {
  const uint32_t L = lca_level(t, src, dst);
  if (L == 0) return true;
  std::array<uint32_t, kMaxLevels> ports{};
  if (o.mode == RoutingMode::DModK) {
    if (L > kMaxLevels) throw std::invalid_argument("too many levels");
    std::array<uint32_t, kMaxLevels> pref_ports{};
    dmodk_ports_into(t, o, dst, L, pref_ports);
    const std::span<const uint32_t> pref(pref_ports.data(), L);
    if (!o.adapt) {  // static: the healthy route or nothing
      const size_t first = out.size();
      path_links(t, src, dst, pref, out);
      for (size_t i = first; i < out.size(); ++i)
        if (f.dead(out[i])) {
          out.resize(first);
          return false;
        }
      return true;
    }
    if (!dmodk_search(t, f, src, dst, 1, L, 0, ports, pref)) return false;
    path_links(t, src, dst, std::span<const uint32_t>(ports.data(), L), out);
    return true;
  }
  if (o.mode == RoutingMode::Split) throw std::invalid_argument("split routing has no single path; use route_all");
  // Hash ECMP: a port per level; if the path has a dead link, re-hash over the live paths.
  bool live = true;
  uint64_t b = 0;
  for (uint32_t lb = 0; lb < L; ++lb) {
    const uint32_t W = t.ports_up(lb);
    ports[lb] = static_cast<uint32_t>(flow_hash(o.seed, src, dst, flow_id, lb) % W);
    if (!f.link_dead.empty() && !hop_live(t, f, src, dst, lb, b, ports[lb])) live = false;
    b = next_b(t, lb, b, ports[lb]);
  }
  if (!live && !o.adapt) return false;
  if (!live) {
    const auto paths = live_paths(t, f, src, dst);
    if (paths.empty()) return false;
    const auto& pick = paths[flow_hash(o.seed, src, dst, flow_id, kMaxLevels) % paths.size()];
    path_links(t, src, dst, pick, out);
    return true;
  }
  path_links(t, src, dst, std::span<const uint32_t>(ports.data(), L), out);
  return true;
}

RoutedFlows route_all(const Topology& t, const FailureSet& f, const RoutingOptions& o,
                      std::span<const Demand> demands) {
  RoutedFlows r;
  auto& s = r.set;
  s.link_capacity_bytes_per_s = t.link_capacity_bytes_per_s;
  s.link_tier = t.link_tier;
  s.flow_offsets.push_back(0);
  r.demand_routed.assign(demands.size(), 0);
  // Closes the flow whose links were just appended to s.flow_links.
  auto close_flow = [&](size_t di, double bytes) {
    s.flow_offsets.push_back(static_cast<uint32_t>(s.flow_links.size()));
    s.flow_size_bytes.push_back(bytes);
    s.flow_start_s.push_back(demands[di].start_s);
    r.flow_demand.push_back(static_cast<uint32_t>(di));
    r.demand_routed[di] = 1;
  };
  std::vector<uint32_t> links;
  for (size_t di = 0; di < demands.size(); ++di) {
    const auto& d = demands[di];
    if (d.src >= t.hosts() || d.dst >= t.hosts()) throw std::invalid_argument("demand names a host outside the fabric");
    if (!d.ports.empty()) {  // a given path: kept, or disconnected when it crosses a dead link
      const size_t first = s.flow_links.size();
      path_links(t, d.src, d.dst, d.ports, s.flow_links);
      bool live = true;
      for (size_t i = first; i < s.flow_links.size(); ++i) live = live && !f.dead(s.flow_links[i]);
      if (!live) {
        s.flow_links.resize(first);
        ++r.disconnected;
        continue;
      }
      close_flow(di, d.bytes);
      continue;
    }
    if (o.mode == RoutingMode::Split && d.src != d.dst) {
      const auto paths = live_paths(t, f, d.src, d.dst);
      if (paths.empty()) {
        ++r.disconnected;
        continue;
      }
      for (const auto& p : paths) {
        path_links(t, d.src, d.dst, p, s.flow_links);
        close_flow(di, d.bytes / static_cast<double>(paths.size()));
      }
      continue;
    }
    links.clear();
    if (!route_one(t, f, o, d.src, d.dst, d.flow_id == Demand::kAutoId ? di : d.flow_id, links)) {
      ++r.disconnected;
      continue;
    }
    s.flow_links.insert(s.flow_links.end(), links.begin(), links.end());
    close_flow(di, d.bytes);
  }
  return r;
}

}  // namespace floorsim::fabric
