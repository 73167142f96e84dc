// Kueue's topology assignment (pkg/cache/tas_flavor_snapshot.go findTopologyAssignment):
// phase 1 counts the pods each domain takes, bottom up; phase 2 picks the level and the
// domain(s) there, then walks down level by level, keeping as few domains as cover the pods.
#include "schedulers/kueue/tas.hpp"

#include <algorithm>
#include <map>
#include <numeric>

#include <fmt/format.h>

namespace floorsim::kueue::tas {

Domains build(std::string topology, std::vector<std::string> level_keys,
              const std::vector<std::vector<std::string>>& leaf_paths) {
  Domains d;
  d.topology = std::move(topology);
  d.level_keys = std::move(level_keys);
  const size_t nl = d.level_keys.size();
  d.levels.resize(nl);
  std::vector<std::vector<std::vector<std::string>>> paths(nl);  // by level, by domain
  std::vector<std::map<std::vector<std::string>, uint32_t>> index(nl);
  for (const auto& leaf : leaf_paths) {
    std::vector<std::string> prefix;
    uint32_t parent = 0;
    for (size_t l = 0; l < nl; ++l) {
      prefix.push_back(leaf[l]);
      auto [it, fresh] = index[l].emplace(prefix, static_cast<uint32_t>(paths[l].size()));
      if (fresh) {
        paths[l].push_back(prefix);
        d.levels[l].value.push_back(leaf[l]);
        d.levels[l].parent.push_back(parent);
      }
      parent = it->second;
    }
  }
  for (size_t l = 0; l < nl; ++l) {
    auto& lv = d.levels[l];
    const size_t n = lv.value.size();
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return paths[l][a] < paths[l][b]; });
    lv.rank.assign(n, 0);
    for (uint32_t r = 0; r < n; ++r) lv.rank[order[r]] = r;
    lv.child_off.assign(n + 1, 0);
    if (l + 1 < nl) {
      const auto& below = d.levels[l + 1];
      for (uint32_t p : below.parent) ++lv.child_off[p + 1];
      for (size_t i = 0; i < n; ++i) lv.child_off[i + 1] += lv.child_off[i];
      lv.children.resize(below.parent.size());
      std::vector<uint32_t> fill(lv.child_off.begin(), lv.child_off.end() - 1);
      for (uint32_t c = 0; c < below.parent.size(); ++c) lv.children[fill[below.parent[c]]++] = c;
    }
  }
  return d;
}

namespace {

// The algorithm's per-call state: `state[level][domain]` is first the pods a domain can take,
// then the pods assigned to it.
struct Walk {
  const Domains& d;
  std::vector<std::vector<int32_t>> state;

  // Largest first, ties in lexical order (sortedDomains, MostFreeCapacity order).
  std::vector<uint32_t> sorted(size_t l, std::vector<uint32_t> doms) const {
    const auto& st = state[l];
    const auto& rk = d.levels[l].rank;
    std::sort(doms.begin(), doms.end(), [&](uint32_t a, uint32_t b) {
      if (st[a] != st[b]) return st[a] > st[b];
      return rk[a] < rk[b];
    });
    return doms;
  }
  // findBestFitDomainIdx: in a largest-first list, the first domain of the smallest count that
  // still takes `count` (0 when the first does not).
  size_t best_fit(size_t l, std::span<const uint32_t> doms, int32_t count) const {
    const auto& st = state[l];
    size_t best = 0;
    for (size_t i = 0; i < doms.size(); ++i)
      if (st[doms[i]] >= count && st[doms[i]] != st[doms[best]]) best = i;
    return best;
  }
  std::string not_fit(int32_t fit, int32_t total) const {
    if (fit == 0) return fmt::format("topology \"{}\" doesn't allow to fit any of {} pod(s)", d.topology, total);
    return fmt::format("topology \"{}\" allows to fit only {} out of {} pod(s)", d.topology, fit, total);
  }
  // findLevelWithFitDomains: the level and the domain(s) there; "" or the reason.
  std::string find_level(size_t& l, bool required, int32_t count, bool unconstrained, std::vector<uint32_t>& out) const {
    for (;;) {
      std::vector<uint32_t> all(d.levels[l].value.size());
      std::iota(all.begin(), all.end(), 0u);
      if (all.empty()) return "no topology domains at level: " + d.level_keys[l];
      const std::vector<uint32_t> s = sorted(l, std::move(all));
      const auto& st = state[l];
      if (st[s[0]] >= count) {
        out = {s[best_fit(l, s, count)]};
        return "";
      }
      if (required) return not_fit(st[s[0]], count);
      if (l > 0 && !unconstrained) {
        --l;
        continue;
      }
      int32_t remaining = count;
      for (size_t i = 0; remaining > 0 && i < s.size() && st[s[i]] > 0; ++i) {
        size_t off = 0;
        if (st[s[i]] >= remaining) off = best_fit(l, std::span(s).subspan(i), remaining);
        out.push_back(s[i + off]);
        remaining -= st[s[i]];
      }
      if (remaining > 0) return not_fit(count - remaining, count);
      return "";
    }
  }
  // updateCountsToMinimum: take domains in order until they cover `count`; the last one is the
  // smallest that covers what remains.
  std::vector<uint32_t> take(size_t l, const std::vector<uint32_t>& doms, int32_t count) {
    std::vector<uint32_t> out;
    int32_t remaining = count;
    auto& st = state[l];
    for (size_t i = 0; i < doms.size(); ++i) {
      uint32_t dom = doms[i];
      if (st[dom] >= remaining) dom = doms[i + best_fit(l, std::span(doms).subspan(i), remaining)];
      if (st[dom] >= remaining) {
        st[dom] = remaining;
        out.push_back(dom);
        return out;
      }
      remaining -= st[dom];
      out.push_back(dom);
    }
    return out;  // unreachable: the domains were chosen to cover the count
  }
};

}  // namespace

Assignment assign(const Domains& d, std::span<const int32_t> leaf_fit, const PodSetRequest& r) {
  Assignment a;
  const size_t nl = d.levels.size();
  if (nl == 0) {
    a.reason = "topology \"" + d.topology + "\" has no levels";
    return a;
  }
  size_t level = nl - 1;
  if (r.kind != Kind::Unconstrained) {
    auto it = std::find(d.level_keys.begin(), d.level_keys.end(), r.level);
    if (it == d.level_keys.end()) {
      a.reason = "no requested topology level: " + r.level;
      return a;
    }
    level = static_cast<size_t>(it - d.level_keys.begin());
  }
  Walk w{d, {}};
  w.state.resize(nl);
  w.state[nl - 1].assign(leaf_fit.begin(), leaf_fit.end());
  for (size_t l = nl - 1; l > 0; --l) {  // phase 1: counts bubble up
    w.state[l - 1].assign(d.levels[l - 1].value.size(), 0);
    for (size_t i = 0; i < w.state[l].size(); ++i) w.state[l - 1][d.levels[l].parent[i]] += w.state[l][i];
  }
  const bool unconstrained = r.kind == Kind::Unconstrained;
  std::vector<uint32_t> cur;
  a.reason = w.find_level(level, r.kind == Kind::Required, r.count, unconstrained, cur);
  if (!a.fits()) return a;
  cur = w.take(level, cur, r.count);
  for (size_t l = level; l + 1 < nl; ++l) {  // phase 2b: down, as few domains as cover the pods
    const auto& lv = d.levels[l];
    std::vector<uint32_t> lower;
    for (uint32_t dom : cur) lower.insert(lower.end(), lv.children.begin() + lv.child_off[dom], lv.children.begin() + lv.child_off[dom + 1]);
    cur = w.take(l + 1, w.sorted(l + 1, std::move(lower)), r.count);
  }
  const auto& leaves = d.levels[nl - 1];
  std::sort(cur.begin(), cur.end(), [&](uint32_t x, uint32_t y) { return leaves.rank[x] < leaves.rank[y]; });
  for (uint32_t leaf : cur) a.leaves.emplace_back(leaf, w.state[nl - 1][leaf]);
  return a;
}

}  // namespace floorsim::kueue::tas
