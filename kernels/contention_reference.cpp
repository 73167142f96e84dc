// Host-only parts of batch contention: building a batch, the byte count, and the plain scalar
// reference solver the batch kernels are tested against. The reference is deliberately written
// differently from kernels/maxmin_core.hpp (recomputes everything each round, no lists) so a
// shared mistake is unlikely; it follows spec fabric §3's closed step literally.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/contention.hpp"

namespace floorsim::kernels {

void ContentionBatch::add(const fabric::FlowSet& fs) {
  const size_t L = fs.links(), F = fs.flows();
  if (fs.link_tier.size() != L) throw std::invalid_argument("flow set: link_tier size differs from link count");
  if (fs.flow_size_bytes.size() != F || fs.flow_start_s.size() != F)
    throw std::invalid_argument("flow set: flow_size_bytes/flow_start_s size differs from flow count");
  if (F > 0 && (fs.flow_offsets.front() != 0 || fs.flow_offsets.back() != fs.flow_links.size()))
    throw std::invalid_argument("flow set: flow_offsets must run from 0 to flow_links.size()");
  for (size_t f = 0; f < F; ++f)
    if (fs.flow_offsets[f] > fs.flow_offsets[f + 1])
      throw std::invalid_argument("flow set: flow_offsets not monotone at flow " + std::to_string(f));
  for (size_t f = 0; f < F; ++f)
    if (fs.flow_offsets[f + 1] - fs.flow_offsets[f] > 255)
      throw std::invalid_argument("flow set: flow " + std::to_string(f) + " crosses more than 255 links");
  for (uint32_t l : fs.flow_links)
    if (l >= L) throw std::invalid_argument("flow set: link index " + std::to_string(l) + " out of range");
  for (double c : fs.link_capacity_bytes_per_s)
    if (!(c >= 0.0) || !std::isfinite(c)) throw std::invalid_argument("flow set: link capacity must be finite and >= 0");
  for (size_t f = 0; f < F; ++f)
    if (!(fs.flow_size_bytes[f] >= 0.0) || !std::isfinite(fs.flow_start_s[f]))
      throw std::invalid_argument("flow set: flow " + std::to_string(f) + " needs size >= 0 and a finite start");

  link_capacity_bytes_per_s.insert(link_capacity_bytes_per_s.end(), fs.link_capacity_bytes_per_s.begin(),
                                   fs.link_capacity_bytes_per_s.end());
  link_tier.insert(link_tier.end(), fs.link_tier.begin(), fs.link_tier.end());
  for (uint32_t t : fs.link_tier) tiers = std::max(tiers, t + 1);
  const uint32_t base = static_cast<uint32_t>(flow_links.size());
  for (size_t f = 0; f < F; ++f) flow_link_offsets.push_back(base + fs.flow_offsets[f + 1]);
  flow_links.insert(flow_links.end(), fs.flow_links.begin(), fs.flow_links.end());
  flow_size_bytes.insert(flow_size_bytes.end(), fs.flow_size_bytes.begin(), fs.flow_size_bytes.end());
  flow_start_s.insert(flow_start_s.end(), fs.flow_start_s.begin(), fs.flow_start_s.end());
  link_offsets.push_back(static_cast<uint32_t>(link_capacity_bytes_per_s.size()));
  flow_offsets.push_back(static_cast<uint32_t>(flow_size_bytes.size()));
}

ContentionBytes contention_bytes_per_scenario(const ContentionBatch& b) {
  ContentionBytes r;
  const double B = std::max<size_t>(b.scenarios(), 1);
  const double L = b.total_links() / B, F = b.total_flows() / B, P = b.flow_links.size() / B;
  r.input_bytes = L * (8 + 4) + F * (4 + 8 + 8) + P * 4 + 2 * 4;
  r.output_bytes = F * (8 + 8) + 8 + 4 + 8 + b.tiers * 8;
  r.scratch_bytes = L * (8 + 8 + 4 + 4) + F * (4 + 8 + 8 + 8 + 1 + 1) + P * 4;
  return r;
}

namespace {

// Literal closed step over the flows with `in[f]`; returns rates (only those entries meaningful).
std::vector<double> reference_maxmin(const ContentionBatch& b, size_t s, const std::vector<char>& in) {
  const uint32_t l0 = b.link_offsets[s], L = b.link_offsets[s + 1] - l0;
  const uint32_t f0 = b.flow_offsets[s], F = b.flow_offsets[s + 1] - f0;
  std::vector<double> rate(F, 0.0);
  std::vector<char> frozen(F, 1);
  for (uint32_t f = 0; f < F; ++f) {
    if (!in[f]) continue;
    if (b.flow_link_offsets[f0 + f] == b.flow_link_offsets[f0 + f + 1]) rate[f] = kInf;
    else frozen[f] = 0;
  }
  auto path = [&](uint32_t f) {
    return std::pair(b.flow_links.begin() + b.flow_link_offsets[f0 + f],
                     b.flow_links.begin() + b.flow_link_offsets[f0 + f + 1]);
  };
  for (;;) {
    std::vector<double> frozen_rate(L, 0.0);
    std::vector<int> unfrozen(L, 0);
    for (uint32_t f = 0; f < F; ++f) {
      if (!in[f] || std::isinf(rate[f])) continue;
      auto [a, e] = path(f);
      for (auto it = a; it != e; ++it) {
        if (frozen[f]) frozen_rate[*it] += rate[f];
        else ++unfrozen[*it];
      }
    }
    double m = kInf;
    std::vector<double> share(L, kInf);
    for (uint32_t l = 0; l < L; ++l) {
      if (unfrozen[l] == 0) continue;
      share[l] = std::max(0.0, (b.link_capacity_bytes_per_s[l0 + l] - frozen_rate[l]) / unfrozen[l]);
      m = std::min(m, share[l]);
    }
    if (std::isinf(m)) break;  // no unfrozen flow left
    std::vector<uint32_t> to_freeze;
    for (uint32_t f = 0; f < F; ++f) {
      if (frozen[f]) continue;
      rate[f] = m;  // every unfrozen flow gets the minimum share
      auto [a, e] = path(f);
      if (std::any_of(a, e, [&](uint32_t l) { return share[l] <= m * (1 + kAttainRelTol); }))
        to_freeze.push_back(f);
    }
    for (uint32_t f : to_freeze) frozen[f] = 1;
  }
  return rate;
}

}  // namespace

ContentionResults contention_reference(const ContentionBatch& b) {
  ContentionResults out;
  out.tiers = b.tiers;
  for (size_t s = 0; s < b.scenarios(); ++s) {
    const uint32_t l0 = b.link_offsets[s], L = b.link_offsets[s + 1] - l0;
    const uint32_t f0 = b.flow_offsets[s], F = b.flow_offsets[s + 1] - f0;
    std::vector<char> all(F, 1);
    std::vector<double> rate = reference_maxmin(b, s, all);
    out.flow_rate_bytes_per_s.insert(out.flow_rate_bytes_per_s.end(), rate.begin(), rate.end());
    out.min_rate_bytes_per_s.push_back(F ? *std::min_element(rate.begin(), rate.end()) : kInf);
    std::vector<double> carried(b.tiers, 0.0), cap(b.tiers, 0.0);
    for (uint32_t l = 0; l < L; ++l) cap[b.link_tier[l0 + l]] += b.link_capacity_bytes_per_s[l0 + l];
    for (uint32_t f = 0; f < F; ++f)
      if (!std::isinf(rate[f]))
        for (uint32_t i = b.flow_link_offsets[f0 + f]; i < b.flow_link_offsets[f0 + f + 1]; ++i)
          carried[b.link_tier[l0 + b.flow_links[i]]] += rate[f];
    for (uint32_t t = 0; t < b.tiers; ++t) out.tier_utilisation.push_back(cap[t] > 0 ? carried[t] / cap[t] : 0.0);

    // Event loop: (re)solve over the flows present, advance to the next arrival or departure.
    std::vector<double> left(b.flow_size_bytes.begin() + f0, b.flow_size_bytes.begin() + f0 + F);
    std::vector<double> done_at(F, kInf);
    std::vector<char> done(F, 0);
    double t = kInf;
    for (uint32_t f = 0; f < F; ++f) t = std::min(t, b.flow_start_s[f0 + f]);
    while (!std::isinf(t)) {
      std::vector<char> present(F, 0);
      double next_arrival = kInf;
      bool any = false;
      for (uint32_t f = 0; f < F; ++f) {
        if (done[f]) continue;
        const double st = b.flow_start_s[f0 + f];
        if (st > t) { next_arrival = std::min(next_arrival, st); continue; }
        if (left[f] <= 0) { done[f] = 1; done_at[f] = t; continue; }
        present[f] = 1;
        any = true;
      }
      if (!any) { t = next_arrival; continue; }
      std::vector<double> r = reference_maxmin(b, s, present);
      double dt = kInf;
      for (uint32_t f = 0; f < F; ++f)
        if (present[f] && r[f] > 0) dt = std::min(dt, left[f] / r[f]);
      const bool arrival_first = next_arrival < t + dt;
      const double t_next = arrival_first ? next_arrival : t + dt;
      if (std::isinf(t_next)) break;
      for (uint32_t f = 0; f < F; ++f) {
        if (!present[f] || !(r[f] > 0)) continue;
        if (!arrival_first && left[f] / r[f] <= dt * (1 + kFinishRelTol)) { done[f] = 1; done_at[f] = t_next; }
        else left[f] -= r[f] * (t_next - t);
      }
      t = t_next;
    }
    out.flow_completion_s.insert(out.flow_completion_s.end(), done_at.begin(), done_at.end());
    double worst = -kInf;
    uint32_t wi = 0;
    for (uint32_t f = 0; f < F; ++f) if (done_at[f] > worst) { worst = done_at[f]; wi = f; }
    out.slowest_completion_s.push_back(F ? worst : 0.0);
    out.slowest_flow.push_back(wi);
  }
  return out;
}

}  // namespace floorsim::kernels
