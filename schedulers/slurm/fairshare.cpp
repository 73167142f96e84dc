// Usage and fair-share: usage accrual every PriorityCalcPeriod with PriorityDecayHalfLife decay and
// PriorityUsageResetPeriod, classic fair-share and Fair Tree. Follows
// src/plugins/priority/multifactor/{priority_multifactor.c,fair_tree.c}; https://slurm.schedmd.com/fair_tree.html.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include <fmt/format.h>

#include "schedulers/common/placement.hpp"
#include "schedulers/slurm/model.hpp"
#include "sim/core/error.hpp"

namespace floorsim::slurm {

// Fair Tree works on flat copies of the association tree (children in CSR form) so that a
// recomputation touches only a few contiguous arrays; ties between siblings go by name.
void SlurmModel::build_fair_tree() {
  std::vector<uint32_t> by_name(assoc_.size());
  std::iota(by_name.begin(), by_name.end(), 0u);
  std::stable_sort(by_name.begin(), by_name.end(), [&](uint32_t a, uint32_t b) { return assoc_[a].name < assoc_[b].name; });
  for (size_t i = 0; i < by_name.size(); ++i)
    assoc_[by_name[i]].name_rank =
        i > 0 && assoc_[by_name[i]].name == assoc_[by_name[i - 1]].name ? assoc_[by_name[i - 1]].name_rank : static_cast<uint32_t>(i);
  // Fair Tree works on flat copies (children in CSR form) so that a recomputation touches
  // only a few contiguous arrays.
  const size_t na = assoc_.size();
  ft_off_.assign(na + 1, 0);
  ft_child_.clear();
  for (size_t i = 0; i < na; ++i) {
    ft_off_[i] = static_cast<uint32_t>(ft_child_.size());
    ft_child_.insert(ft_child_.end(), assoc_[i].children.begin(), assoc_[i].children.end());
  }
  ft_off_[na] = static_cast<uint32_t>(ft_child_.size());
  ft_order_ = ft_child_;
  ft_share_.resize(na);
  ft_key_.resize(na);
  ft_user_.resize(na);
  ft_users_ = 0;
  for (size_t i = 0; i < na; ++i) {
    ft_share_[i] = assoc_[i].shares;
    ft_key_[i] = assoc_[i].name_rank;
    ft_user_[i] = assoc_[i].is_user;
    ft_users_ += assoc_[i].is_user;
  }
  ft_usage_.resize(na);
  ft_lf_.resize(na);
  ft_fs_.resize(na);
  ft_nusers_.assign(na, 0);
  for (size_t i = 0; i < na; ++i)
    if (assoc_[i].is_user)
      for (uint32_t a = static_cast<uint32_t>(i); a != kNoIdx; a = assoc_[a].parent) ++ft_nusers_[a];
  fs_at_.assign(na, 0);
  ft_s_.assign(na, 0);
  ft_ent_.resize(ft_child_.size());
  for (size_t i = 0; i < ft_child_.size(); ++i) ft_ent_[i] = {0.0, ft_key_[ft_child_[i]], ft_child_[i]};
  for (size_t a = 0; a < na; ++a) {
    int64_t ssum = 0;
    for (uint32_t i = ft_off_[a]; i < ft_off_[a + 1]; ++i) ssum += ft_share_[ft_child_[i]];
    for (uint32_t i = ft_off_[a]; i < ft_off_[a + 1]; ++i)
      ft_s_[ft_child_[i]] = ssum > 0 ? static_cast<double>(ft_share_[ft_child_[i]]) / static_cast<double>(ssum) : 0;
  }
  ft_pos_.assign(na, 0);
  ft_before_.assign(na, 0);
  lf_at_.assign(na, 0);
  ft_wide_.assign(na, 0);
  fo_ = ft_child_;  // all usages are 0: any order is sorted
  fo_pos_.assign(na, 0);
  fo_pre_.assign(ft_child_.size(), 0);
  fo_at_.assign(na, 0);
  fo_usum_.assign(na, 0);
  for (size_t a = 0; a < na; ++a) {
    const uint32_t b = ft_off_[a], e = ft_off_[a + 1];
    bool wide = e - b >= 16;
    for (uint32_t i = b; i < e && wide; ++i) wide = ft_s_[ft_child_[i]] == ft_s_[ft_child_[b]];
    ft_wide_[a] = wide;
    for (uint32_t i = b; i < e; ++i) {
      fo_pos_[fo_[i]] = i;
      fo_pre_[i] = i == b ? 0 : fo_pre_[i - 1] + ft_nusers_[fo_[i - 1]];
    }
  }
}

void SlurmModel::recalc_usage(const Snapshot& v) {
  const auto& pr = cfg_.prio;
  const SimTime now = v.now;
  if (last_calc_s_ < 0) {
    last_calc_s_ = now;
    return;
  }
  if (now - last_calc_s_ < pr.calc_period_s) return;
  const double dt = now - last_calc_s_;
  // Decay: usage x d^dt, d = 1 - ln2/half-life (priority_multifactor.c _init_decay_vars).
  const double d = pr.decay_half_life_s > 0 ? std::pow(1.0 - 0.693 / pr.decay_half_life_s, dt) : 1.0;
  if (!(d >= 0) || !std::isfinite(d)) wide_ok_ = false;  // the usage order would not survive
  {
    // Each usage times d (unrolled by hand: the compiler's loop takes 2 doubles a step).
    double* u = usage_.data();
    const size_t nu = usage_.size();
    size_t i = 0;
    for (; i + 8 <= nu; i += 8)
      for (size_t k = 0; k < 8; ++k) u[i + k] *= d;
    for (; i < nu; ++i) u[i] *= d;
  }
  for (auto& q : qos_)
    if (!q.q.flags.no_decay) q.usage_gpu_s *= d, q.usage_node_s *= d, q.usage_cpu_s *= d;
  // New usage: jobs that stopped since the last calculation, and running jobs up to now.
  for (JobIdx j : v.running) {
    if (acc_from_[j] < 0) continue;
    add_usage(v, j, now - acc_from_[j], pend_assoc_, pend_qos_);
    acc_from_[j] = now;
  }
  // In association order, as a loop over all of them would add (the sums are floating point).
  std::sort(pend_list_.begin(), pend_list_.end());
  for (uint32_t i : pend_list_) {
    if (!(pend_assoc_[i] >= 0) || !std::isfinite(pend_assoc_[i])) wide_ok_ = false;
    // Usage of a user adds to every account above it.
    for (uint32_t a = i; a != kNoIdx && pend_assoc_[i] != 0; a = assoc_[a].parent) {
      usage_[a] += pend_assoc_[i];
      if (assoc_[a].parent != kNoIdx && ft_wide_[assoc_[a].parent]) fo_moved_.push_back(a);
    }
    pend_assoc_[i] = 0;
    pend_mark_[i] = 0;
  }
  pend_list_.clear();
  if (!fo_moved_.empty()) {
    // Right to left, so that each grown child is moved into an already sorted right part.
    std::sort(fo_moved_.begin(), fo_moved_.end(), [&](uint32_t x, uint32_t y) { return fo_pos_[x] > fo_pos_[y]; });
    fo_moved_.erase(std::unique(fo_moved_.begin(), fo_moved_.end()), fo_moved_.end());
    if (wide_ok_)
      for (uint32_t a : fo_moved_) wide_moved(a);
    fo_moved_.clear();
  }
  for (size_t q = 0; q < qos_.size(); ++q) {
    qos_[q].usage_gpu_s += pend_qos_[q * kTres + 0];
    qos_[q].usage_node_s += pend_qos_[q * kTres + 1];
    qos_[q].usage_cpu_s += pend_qos_[q * kTres + 2];
    for (int t = 0; t < kTres; ++t) pend_qos_[q * kTres + t] = 0;
  }
  // PriorityUsageResetPeriod: usage starts from zero at each period boundary.
  const double period = reset_period_s_;
  if (period > 0 && std::floor(now / period) > std::floor(last_reset_s_ / period)) {
    std::fill(usage_.begin(), usage_.end(), 0.0);
    for (auto& q : qos_) q.usage_gpu_s = q.usage_node_s = q.usage_cpu_s = 0;
    last_reset_s_ = now;
  }
  last_calc_s_ = now;
  fs_dirty_ = true;
  ++fs_epoch_;
  prio_epoch(now);
}

void SlurmModel::fairshare() const {
  if (cfg_.prio.fair_tree) {
    // Fair Tree (fair_tree.c; fair_tree.html): rank users by a DFS over children sorted by level fairshare.
    const size_t users = ft_users_;
    for (size_t i = 0; i < assoc_.size(); ++i) ft_usage_[i] = usage_[i];
    double rank = static_cast<double>(users);
    fair_tree_rank(root_, rank);
    for (size_t i = 0; i < assoc_.size(); ++i)
      if (ft_user_[i]) assoc_[i].fs = users ? ft_fs_[i] / static_cast<double>(users) : 0;
    return;
  }
  // Classic: U_eff = U_norm + (U_eff_parent - U_norm) * S_raw / S_siblings; fs = 2^(-U_eff/S_norm).
  const double total = std::max(usage_[root_], 0.0);
  std::vector<uint32_t>& stack = tree_buf_;
  stack.assign(1, root_);
  std::vector<double>& snorm = snorm_buf_;
  snorm.assign(assoc_.size(), 1.0);
  assoc_[root_].usage_efctv = 1.0;
  while (!stack.empty()) {
    const uint32_t a = stack.back();
    stack.pop_back();
    int64_t sib = 0;
    for (uint32_t c : assoc_[a].children) sib += assoc_[c].shares;
    for (uint32_t c : assoc_[a].children) {
      const AssocRt& ch = assoc_[c];
      const double sraw = sib > 0 ? static_cast<double>(ch.shares) / static_cast<double>(sib) : 0;
      snorm[c] = snorm[a] * sraw;
      const double unorm = total > 0 ? usage_[c] / total : 0;
      ch.usage_efctv = a == root_ ? unorm : unorm + (assoc_[a].usage_efctv - unorm) * sraw;
      if (ch.is_user) ch.fs = snorm[c] > 0 ? std::pow(2.0, -ch.usage_efctv / snorm[c]) : 0;
      stack.push_back(c);
    }
  }
}

void SlurmModel::fair_tree_rank(uint32_t a, double& rank) const {
  // Children sorted by level fairshare LF = S/U descending (U = 0 -> infinite); ties by name,
  // then by association index (the children's order), so the order is total and an insertion
  // sort of the previous order (usually still sorted) gives the one sorted order without
  // allocating. Users of equal LF share a rank.
  const uint32_t b = ft_off_[a], e = ft_off_[a + 1];
  int64_t ssum = 0;
  double usum = 0;
  for (uint32_t i = b; i < e; ++i) ssum += ft_share_[ft_child_[i]], usum += ft_usage_[ft_child_[i]];
  for (uint32_t i = b; i < e; ++i) {
    const uint32_t c = ft_child_[i];
    const double s = ssum > 0 ? static_cast<double>(ft_share_[c]) / static_cast<double>(ssum) : 0;
    const double u = usum > 0 ? ft_usage_[c] / usum : 0;
    ft_lf_[c] = u > 0 ? s / u : std::numeric_limits<double>::infinity();
  }
  const double* lf = ft_lf_.data();
  const uint32_t* key = ft_key_.data();
  auto before = [&](uint32_t x, uint32_t y) {
    if (lf[x] != lf[y]) return lf[x] > lf[y];
    if (key[x] != key[y]) return key[x] < key[y];
    return x < y;
  };
  uint32_t* ord = ft_order_.data();
  for (uint32_t i = b + 1; i < e; ++i) {
    const uint32_t x = ord[i];
    uint32_t k = i;
    for (; k > b && before(x, ord[k - 1]); --k) ord[k] = ord[k - 1];
    ord[k] = x;
  }
  uint32_t i = b;
  while (i < e) {
    const uint32_t c = ord[i];
    if (!ft_user_[c]) {
      fair_tree_rank(c, rank);
      ++i;
      continue;
    }
    uint32_t k = i;
    while (k < e && ft_user_[ord[k]] && lf[ord[k]] == lf[c]) {
      ft_fs_[ord[k]] = rank;
      ++k;
    }
    rank -= static_cast<double>(k - i);
    i = k;
  }
}

// One level of fair_tree_rank for the children of a: level fairshares (same sums in the same
// order), the same total order (insertion sort of the last one), and for each child its
// position and the users below the children ordered before it.
void SlurmModel::fair_tree_level(uint32_t a) const {
  if (lf_at_[a] == fs_epoch_) return;
  lf_at_[a] = fs_epoch_;
  const uint32_t b = ft_off_[a], e = ft_off_[a + 1];
  double usum = 0;
  for (uint32_t i = b; i < e; ++i) usum += usage_[ft_child_[i]];
  FtEnt* E = ft_ent_.data();
  for (uint32_t i = b; i < e; ++i) {
    const uint32_t c = E[i].idx;
    const double u = usum > 0 ? usage_[c] / usum : 0;
    E[i].lf = u > 0 ? ft_s_[c] / u : std::numeric_limits<double>::infinity();
  }
  auto before = [](const FtEnt& x, const FtEnt& y) {
    if (x.lf != y.lf) return x.lf > y.lf;
    if (x.key != y.key) return x.key < y.key;
    return x.idx < y.idx;
  };
  for (uint32_t i = b + 1; i < e; ++i) {
    if (!before(E[i], E[i - 1])) continue;
    const FtEnt x = E[i];
    uint32_t k = i;
    for (; k > b && before(x, E[k - 1]); --k) E[k] = E[k - 1];
    E[k] = x;
  }
  uint32_t seen = 0;
  for (uint32_t i = b; i < e; ++i) {
    ft_pos_[E[i].idx] = i;
    ft_before_[E[i].idx] = seen;
    seen += ft_nusers_[E[i].idx];
  }
}

// A child of a wide level whose usage grew moves right to its place in the usage order.
inline void SlurmModel::wide_moved(uint32_t x) {
  const uint32_t e = ft_off_[assoc_[x].parent + 1];
  const uint32_t from = fo_pos_[x];
  const double ux = usage_[x];
  uint32_t i = from;
  for (; i + 1 < e && usage_[fo_[i + 1]] < ux; ++i) {
    fo_[i] = fo_[i + 1];
    fo_pos_[fo_[i]] = i;
  }
  if (i == from) return;
  fo_[i] = x;
  fo_pos_[x] = i;
  for (uint32_t k = from + 1; k <= i; ++k) fo_pre_[k] = fo_pre_[k - 1] + ft_nusers_[fo_[k - 1]];
}

// fair_tree_level's ft_before_[x] for a child x of the wide level p, from the usage order: the
// children of larger LF come first (a prefix of fo_), then those of x's LF by (name, index).
// own: x is the user whose rank is asked, so it counts from the first of the run of users of
// its LF that it ends (fair_tree_user).
inline uint32_t SlurmModel::fair_tree_before_wide(uint32_t p, uint32_t x, bool own) const {
  const uint32_t b = ft_off_[p], e = ft_off_[p + 1];
  const uint32_t px = fo_pos_[x];
  {
    // Usually x's neighbours in the usage order have usages far enough from x's that their LFs
    // are strictly larger (left) and smaller (right) whatever usum is: with every quotient a
    // normal number, each of the two divisions errs by at most half an ulp, so a usage ratio
    // above 1 + 2^-49 keeps the LFs apart (u = 0 gives LF = inf, above any finite LF). Then x
    // forms its own tie group and no sum over the level is needed.
    const double* u = usage_.data();
    const double M = u[fo_[e - 1]];          // the largest usage of the level
    const double low = M * 0x1p-800;          // usages at least this give normal quotients
    constexpr double K = 1.0 + 0x1p-48;
    const double ux = u[x];
    const bool ok = M <= 0x1p800 && ft_s_[x] >= 0x1p-100 && (ux == 0 || ux >= low);
    const bool left = px == b || (ux > 0 && u[fo_[px - 1]] * K < ux && (u[fo_[px - 1]] == 0 || u[fo_[px - 1]] >= low));
    const bool right = px + 1 == e || (ux * K < u[fo_[px + 1]] && u[fo_[px + 1]] >= low);
    if (ok && left && right) return fo_pre_[px];
  }
  if (fo_at_[p] != fs_epoch_) {
    // In CSR order, as fair_tree_level adds them (unrolled by hand: the adds stay in order).
    const double* u = usage_.data();
    const uint32_t* c = ft_child_.data();
    double usum = 0;
    uint32_t i = b;
    for (; i + 4 <= e; i += 4) {
      usum += u[c[i]];
      usum += u[c[i + 1]];
      usum += u[c[i + 2]];
      usum += u[c[i + 3]];
    }
    for (; i < e; ++i) usum += u[c[i]];
    fo_usum_[p] = usum;
    fo_at_[p] = fs_epoch_;
  }
  const double usum = fo_usum_[p];
  const double s = ft_s_[x];  // the same for every child of a wide level
  auto lf = [&](uint32_t c) {
    const double u = usum > 0 ? usage_[c] / usum : 0;
    return u > 0 ? s / u : std::numeric_limits<double>::infinity();
  };
  const double L = lf(x);
  // Usually no other child has x's LF: then both neighbours decide.
  uint32_t lo = b, hi = px;  // first position with LF <= L
  if (px > b && lf(fo_[px - 1]) > L) lo = px;
  while (lo < hi) {
    const uint32_t m = lo + (hi - lo) / 2;
    if (lf(fo_[m]) > L) lo = m + 1;
    else hi = m;
  }
  uint32_t end = px + 1, h2 = e;  // first position with LF < L
  if (end < e && lf(fo_[end]) < L) h2 = end;
  while (end < h2) {
    const uint32_t m = end + (h2 - end) / 2;
    if (lf(fo_[m]) < L) h2 = m;
    else end = m + 1;
  }
  const uint32_t* key = ft_key_.data();
  auto before = [&](uint32_t y, uint32_t z) { return key[y] != key[z] ? key[y] < key[z] : y < z; };
  uint32_t last = x;  // own: the last account before x in the tie group (x: none)
  if (own)
    for (uint32_t k = lo; k < end; ++k) {
      const uint32_t y = fo_[k];
      if (!ft_user_[y] && before(y, x) && (last == x || before(last, y))) last = y;
    }
  uint32_t seen = fo_pre_[lo];
  if (!own) {
    for (uint32_t k = lo; k < end; ++k)
      if (before(fo_[k], x)) seen += ft_nusers_[fo_[k]];
  } else if (last != x) {
    for (uint32_t k = lo; k < end; ++k)
      if (fo_[k] == last || before(fo_[k], last)) seen += ft_nusers_[fo_[k]];
  }
  return seen;
}

// fair_tree_rank's walk gives rank = users - (users visited before u's tie group): at each
// level the users below the siblings ordered before the path's child; at u's own level, before
// the first of the consecutive users of u's LF that u belongs to.
void SlurmModel::fair_tree_user(uint32_t u) const {
  uint64_t seen = 0;
  for (uint32_t x = u; assoc_[x].parent != kNoIdx; x = assoc_[x].parent) {
    const uint32_t p = assoc_[x].parent;
    if (ft_off_[p + 1] - ft_off_[p] == 1) continue;  // an only child: no sibling before it
    if (wide_ok_ && ft_wide_[p]) {
      seen += fair_tree_before_wide(p, x, x == u);
      continue;
    }
    fair_tree_level(p);
    if (x != u) {
      seen += ft_before_[x];
      continue;
    }
    const uint32_t b = ft_off_[p];
    const FtEnt* E = ft_ent_.data();
    const uint32_t pos = ft_pos_[u];
    uint32_t i = pos;
    while (i > b && ft_user_[E[i - 1].idx] && E[i - 1].lf == E[pos].lf) --i;
    seen += ft_before_[E[i].idx];
  }
  const double users = static_cast<double>(ft_users_);
  assoc_[u].fs = ft_users_ ? (users - static_cast<double>(seen)) / users : 0;
}

}  // namespace floorsim::slurm
