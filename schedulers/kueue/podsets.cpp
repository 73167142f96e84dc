// Several PodSets and partial admission: see podsets.hpp.
#include "schedulers/kueue/podsets.hpp"

#include <algorithm>

namespace floorsim::kueue {

Request PodSets::total(std::span<const int32_t> counts) const {
  Request r{};
  r.untolerated = untolerated;
  for (size_t p = 0; p < sets.size(); ++p) {
    const Qty n = counts.empty() ? sets[p].count : counts[p];
    for (int k = 0; k < kMaxRes; ++k) r[k] += sets[p].per_pod[k] * n;
  }
  return r;
}

bool reduce_podsets(std::span<const int32_t> full, std::span<const int32_t> min,
                    const std::function<bool(std::span<const int32_t>)>& fits, std::vector<int32_t>& out) {
  const size_t n = full.size();
  std::vector<int32_t> delta(n), cur(n);
  int64_t total = 0;
  for (size_t i = 0; i < n; ++i) total += delta[i] = full[i] - min[i];
  if (total == 0) return false;
  auto probe = [&](int64_t i) {  // fillPodSetSizesForSearchIndex
    for (size_t p = 0; p < n; ++p) cur[p] = full[p] - static_cast<int32_t>(int64_t{delta[p]} * i / total);
    return fits(cur);
  };
  // sort.Search over [0, total]: the smallest budget that fits (fits is taken as monotone).
  int64_t lo = 0, hi = total + 1;
  int64_t good = -1;
  while (lo < hi) {
    const int64_t h = lo + (hi - lo) / 2;
    if (probe(h)) {
      hi = h;
      good = h;
      out = cur;
    } else {
      lo = h + 1;
    }
  }
  return good >= 0 && lo == good;
}

Assignment assign_podsets(const Model& m, QuotaTree& tree, const AdmittedSet& adm, Preemption& pre, FlavorAssigner& fa,
                          const Preemptor& in, const PodSets& ps, std::span<const int32_t> counts) {
  Assignment out;
  out.mode = Mode::Fit;
  Usage assigned;  // what the earlier PodSets were assigned ("previously considered podsets")
  for (size_t p = 0; p < ps.sets.size(); ++p) {
    const int32_t n = counts.empty() ? ps.sets[p].count : counts[p];
    if (n == 0) continue;
    Request req{};
    req.untolerated = ps.untolerated | ps.sets[p].untolerated;
    for (int k = 0; k < kMaxRes; ++k) req[k] = ps.sets[p].per_pod[k] * n;
    const Assignment a = fa.assign(m, tree, adm, pre, in, req, &assigned);
    out.mode = std::min(out.mode, a.mode);
    out.borrow = std::max(out.borrow, a.borrow);
    out.need_preemption |= a.need_preemption;
    if (out.mode == Mode::NoFit) break;
    for (uint8_t k = 0; k < a.usage.n; ++k) assigned.add(a.usage.fr[k], a.usage.qty[k]);
  }
  out.usage = assigned;
  return out;
}

}  // namespace floorsim::kueue
