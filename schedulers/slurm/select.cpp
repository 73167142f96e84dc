// select/cons_tres's node choice without topology: src/plugins/select/cons_tres/job_test.c
// (_eval_nodes_consec in 22.05; cons_tres.html "best fit").
#include "schedulers/slurm/select.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>

#include "schedulers/common/placement.hpp"
#include "schedulers/slurm/bitset.hpp"

namespace floorsim::slurm {
namespace {

struct Set {
  size_t begin, end;  // node index range [begin, end) of candidates (gaps skipped when taking)
  int64_t cpus = 0;
  int32_t nodes = 0;
  int32_t weight = 0;
};

// Consecutive runs of candidate nodes, a new run where a non-candidate interrupts or the Weight changes.
std::vector<Set> consecutive_sets(std::span<const uint8_t> cand, const std::vector<int32_t>& cpus, std::span<const int32_t> weight) {
  std::vector<Set> sets;
  bool open = false;
  for (size_t n = 0; n < cand.size(); ++n) {
    if (!cand[n]) {
      open = false;
      continue;
    }
    if (!open || sets.back().weight != weight[n]) {
      sets.push_back({n, n, 0, 0, weight[n]});
      open = true;
    }
    Set& s = sets.back();
    s.end = n + 1;
    s.cpus += cpus[n];
    ++s.nodes;
  }
  return sets;
}

// _eval_nodes_consec's test: is set s better than the best so far (b, b_ok) for rem_nodes more nodes?
bool better_set(const Set& s, bool ok, const Set* b, bool b_ok) {
  if (b == nullptr || s.weight < b->weight) return true;
  if (s.weight != b->weight) return false;
  return (ok && !b_ok) || (ok && s.cpus < b->cpus) || (!ok && s.cpus > b->cpus);  // as written in 22.05
}
bool set_ok(const Set& s, int32_t rem_nodes) { return s.nodes >= rem_nodes && s.cpus >= rem_nodes; }  // a CPU per task, a task per node

// The best set for `rem_nodes` more nodes (-1: none left).
int best_set(const std::vector<Set>& sets, int32_t rem_nodes) {
  int best = -1;
  bool best_ok = false;
  for (size_t i = 0; i < sets.size(); ++i) {
    const Set& s = sets[i];
    if (s.nodes == 0) continue;
    const bool ok = set_ok(s, rem_nodes);
    if (better_set(s, ok, best < 0 ? nullptr : &sets[best], best_ok)) best = static_cast<int>(i), best_ok = ok;
  }
  return best;
}

// A one-node job in one walk over the nodes (the hot path: no allocation): each run's CPUs and
// its node of fewest available CPUs; returns that node of the best run, or -1.
int64_t one_node(const SelectInput& in, int32_t per, int32_t cap) {
  Set cur{0, 0, 0, 0, 0}, best{0, 0, 0, 0, 0};
  int64_t cur_pick = -1, best_pick = -1;
  int32_t cur_min = 0;
  bool have = false, best_ok = false;
  auto close = [&] {
    if (cur.nodes == 0) return;
    const bool ok = set_ok(cur, 1);
    if (better_set(cur, ok, have ? &best : nullptr, best_ok)) best = cur, best_ok = ok, best_pick = cur_pick, have = true;
    cur.nodes = 0;
  };
  // The candidates a word (64 nodes) at a time, from a branch-free test the compiler
  // vectorizes; runs are then walked over the candidates alone (a gap closes a run, as a
  // non-candidate node does).
  const size_t nn = in.free_gpus.size();
  const int32_t* __restrict fg = in.free_gpus.data();
  const uint8_t* __restrict al = in.allowed.data();
  const int32_t lo = std::max(per, 1);
  alignas(8) uint8_t buf[64];
  size_t prev = SIZE_MAX;
  for (size_t n0 = 0; n0 < nn; n0 += 64) {
    const size_t m = std::min<size_t>(64, nn - n0);
    for (size_t i = 0; i < m; ++i) buf[i] = static_cast<uint8_t>((al[n0 + i] != 0) & (fg[n0 + i] >= lo));
    uint64_t word = 0;
    size_t i = 0;
    for (; i + 8 <= m; i += 8) word |= pack8_nonzero(buf + i) << i;
    for (; i < m; ++i) word |= static_cast<uint64_t>(buf[i]) << i;
    for (; word != 0; word &= word - 1) {
      const size_t n = n0 + static_cast<size_t>(std::countr_zero(word));
      if (cur.nodes > 0 && (n != prev + 1 || cur.weight != in.weight[n])) close();
      prev = n;
      const int32_t a = std::clamp(in.free_cpus[n], 0, cap);
      if (cur.nodes == 0) cur = {n, n, 0, 0, in.weight[n]}, cur_pick = -1;
      cur.cpus += a;
      ++cur.nodes;
      if (cur_pick < 0 || a < cur_min) cur_pick = static_cast<int64_t>(n), cur_min = a;
    }
  }
  close();
  return best_pick;
}

}  // namespace

bool select_nodes(const JobSpec& job, const SelectInput& in, std::span<const NodeIdx> weight_order, std::vector<NodeShare>& out) {
  out.clear();
  const size_t nn = in.free_gpus.size();
  if (job.gpus <= 0 || job.nodes > job.gpus) return false;
  const bool one = job.nodes <= 1;
  const int32_t per = job.nodes > 0 ? job.gpus / job.nodes : job.gpus;
  if (job.nodes <= 0 && in.max_node_gpus > 0 && job.gpus > in.max_node_gpus)
    return placement::first_fit_ordered(job, in.free_gpus, in.allowed, weight_order, out, in.max_node_gpus);
  // Available CPUs (_select_cores): what the job can use on the node. CPUs are not a fit
  // condition here (a node short of CPUs still counts, with 0).
  const int32_t cap = std::max(1, in.job_cpus_per_node);
  if (one) {
    const int64_t pick = one_node(in, per, cap);
    if (pick < 0) {
      // No node holds the whole job (nodes 0): spread, as floorsim's first fit does.
      return job.nodes <= 0 && placement::first_fit_ordered(job, in.free_gpus, in.allowed, weight_order, out, in.max_node_gpus);
    }
    out.push_back({static_cast<NodeIdx>(pick), job.gpus});
    return true;
  }
  std::vector<uint8_t> cand(nn);
  for (size_t n = 0; n < nn; ++n) cand[n] = in.allowed[n] && in.free_gpus[n] >= per && in.free_gpus[n] > 0;
  std::vector<int32_t> avail(nn);
  for (size_t n = 0; n < nn; ++n) avail[n] = std::clamp(in.free_cpus[n], 0, cap);
  std::vector<Set> sets = consecutive_sets(cand, avail, in.weight);
  // Gang job: N nodes of gpus/N each, the first gpus%N of them (in node order) one more.
  std::vector<NodeIdx> chosen;
  int32_t rem = job.nodes;
  while (rem > 0) {
    const int b = best_set(sets, rem);
    if (b < 0) break;
    for (size_t n = sets[b].begin; n < sets[b].end && rem > 0; ++n)
      if (cand[n]) chosen.push_back(static_cast<NodeIdx>(n)), --rem;
    sets[b].nodes = 0;
  }
  if (rem > 0) return false;
  std::sort(chosen.begin(), chosen.end());
  int32_t big = job.gpus % job.nodes;
  for (NodeIdx n : chosen) {
    const bool more = big > 0 && in.free_gpus[n] >= per + 1;
    out.push_back({n, per + (more ? 1 : 0)});
    big -= more ? 1 : 0;
  }
  if (big > 0) {  // the +1 shares found no room on the chosen nodes: first fit decides
    out.clear();
    return placement::first_fit_ordered(job, in.free_gpus, in.allowed, weight_order, out, in.max_node_gpus);
  }
  return true;
}

}  // namespace floorsim::slurm
