#include "kernels/fat_tree_gen.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace floorsim::kernels::gen {

uint32_t fat_tree_hosts(uint32_t k) { return k * k * k / 4; }
uint32_t fat_tree_links(uint32_t k) { return 6 * fat_tree_hosts(k); }

fabric::FlowSet fat_tree_links(const FatTreeSpec& s) {
  if (s.k < 2 || s.k % 2) throw std::invalid_argument("fat tree: k must be even and >= 2");
  const uint32_t H = fat_tree_hosts(s.k);
  fabric::FlowSet fs;
  const double c1 = s.host_link_bytes_per_s / s.edge_taper, c2 = c1 / s.agg_taper;
  for (uint32_t tier = 0; tier < 3; ++tier)
    for (uint32_t i = 0; i < 2 * H; ++i) {
      fs.link_capacity_bytes_per_s.push_back(tier == 0 ? s.host_link_bytes_per_s : tier == 1 ? c1 : c2);
      fs.link_tier.push_back(tier);
    }
  for (uint32_t l : s.failed_links) {
    if (l >= fs.links()) throw std::invalid_argument("fat tree: failed link out of range");
    fs.link_capacity_bytes_per_s[l] = 0.0;
  }
  fs.flow_offsets = {0};
  return fs;
}

std::vector<uint32_t> fat_tree_route(const FatTreeSpec& s, const fabric::FlowSet& links, uint32_t src,
                                     uint32_t dst, Routing routing, std::mt19937_64& rng) {
  const uint32_t h = s.k / 2, H = fat_tree_hosts(s.k), pod_hosts = h * h;
  if (src == dst) return {};
  const uint32_t es = src / h, ed = dst / h, ps = src / pod_hosts, pd = dst / pod_hosts;
  auto candidate = [&](uint32_t a, uint32_t j) -> std::vector<uint32_t> {
    if (es == ed) return {src, H + dst};
    if (ps == pd) return {src, 2 * H + es * h + a, 3 * H + ed * h + a, H + dst};
    const uint32_t gs = ps * h + a, gd = pd * h + a;
    return {src, 2 * H + es * h + a, 4 * H + gs * h + j, 5 * H + gd * h + j, 3 * H + ed * h + a, H + dst};
  };
  const uint32_t n_paths = es == ed ? 1 : ps == pd ? h : h * h;
  uint32_t first;
  if (routing == Routing::Random) {
    first = static_cast<uint32_t>(rng() % n_paths);
    return candidate(first % h, first / h);
  }
  const uint32_t a0 = dst % h, j0 = (dst / h) % h;
  first = a0 + h * j0;
  // D-mod-K, then the next live path in (a, j) order: failover to the next live port.
  for (uint32_t i = 0; i < n_paths; ++i) {
    const uint32_t c = (first + i) % n_paths;
    auto p = candidate(c % h, c / h);
    if (std::all_of(p.begin(), p.end(), [&](uint32_t l) { return links.link_capacity_bytes_per_s[l] > 0; }))
      return p;
  }
  return candidate(a0, j0);  // disconnected: keep the static path (rate 0, never finishes)
}

void add_flow(fabric::FlowSet& fs, const std::vector<uint32_t>& path, double size_bytes, double start_s) {
  if (fs.flow_offsets.empty()) fs.flow_offsets.push_back(0);
  fs.flow_links.insert(fs.flow_links.end(), path.begin(), path.end());
  fs.flow_offsets.push_back(static_cast<uint32_t>(fs.flow_links.size()));
  fs.flow_size_bytes.push_back(size_bytes);
  fs.flow_start_s.push_back(start_s);
}

fabric::FlowSet random_fat_tree_scenario(const FatTreeSpec& spec, uint32_t flows, Routing routing,
                                         double size_lo, double size_hi, double start_hi, uint64_t seed) {
  std::mt19937_64 rng(seed);
  fabric::FlowSet fs = fat_tree_links(spec);
  const uint32_t H = fat_tree_hosts(spec.k);
  std::vector<uint32_t> perm(H);
  std::iota(perm.begin(), perm.end(), 0u);
  std::shuffle(perm.begin(), perm.end(), rng);
  std::uniform_real_distribution<double> size(size_lo, size_hi), start(0.0, start_hi);
  for (uint32_t f = 0; f < flows; ++f) {
    const uint32_t src = f % H;
    uint32_t dst = perm[f % H];
    if (dst == src) dst = (dst + 1) % H;  // no self-flows
    auto p = fat_tree_route(spec, fs, src, dst, routing, rng);
    const double sz = size_lo == size_hi ? size_lo : size(rng);
    const double st = start_hi > 0 ? start(rng) : 0.0;
    add_flow(fs, p, sz, st);
  }
  return fs;
}

}  // namespace floorsim::kernels::gen
