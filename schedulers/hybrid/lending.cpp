#include "schedulers/hybrid/lending.hpp"

namespace floorsim::hybrid {

LendStep lend_step(const LendParams& p, SimTime now, const std::array<Demand, 2>& demand,
                   std::span<const uint8_t> idle, std::span<const int32_t> capacity_gpus,
                   std::span<const NodeState> in) {
  LendStep out;
  out.nodes.assign(in.begin(), in.end());
  auto& ns = out.nodes;
  const size_t nn = ns.size();
  for (size_t n = 0; n < nn; ++n) {
    if (!idle[n]) ns[n].idle_since_s = -1;
    else if (ns[n].idle_since_s < 0) ns[n].idle_since_s = now;
  }
  if (!p.enabled) return out;
  auto want = [&](Side s) { return demand[static_cast<int>(s)]; };

  // Reclaims that finished: the borrowed work on the node has ended.
  for (size_t n = 0; n < nn; ++n)
    if (ns[n].reclaiming && idle[n]) {
      ns[n] = {ns[n].home, ns[n].home, false, ns[n].idle_since_s, -1};
      out.reclaimed.push_back(static_cast<NodeIdx>(n));
    }
  // Idle borrowed nodes whose borrower has nothing pending go home at once (no reclaim needed).
  for (size_t n = 0; n < nn; ++n)
    if (ns[n].holder != ns[n].home && !ns[n].reclaiming && idle[n] && !want(ns[n].holder).pending) {
      ns[n].holder = ns[n].home;
      out.returned.push_back(static_cast<NodeIdx>(n));
    }
  for (Side home : {Side::Slurm, Side::Kubernetes}) {
    const Side away = other(home);
    // Reclaim: the home side's unmet demand, covered first by lent nodes that are idle (they
    // come back without waiting), then by the others, in node order; nodes already being
    // reclaimed count towards it.
    int64_t need = want(home).unmet_gpus;
    for (size_t n = 0; n < nn; ++n)
      if (ns[n].home == home && ns[n].reclaiming) need -= capacity_gpus[n];
    for (int pass = 0; pass < 2 && need > 0; ++pass)
      for (size_t n = 0; n < nn && need > 0; ++n) {
        NodeState& s = ns[n];
        if (s.home != home || s.holder != away || s.reclaiming || (pass == 0) != static_cast<bool>(idle[n])) continue;
        need -= capacity_gpus[n];
        if (idle[n]) {  // nothing of the borrower on it: home at once
          s.holder = home;
          out.reclaim_started.push_back(static_cast<NodeIdx>(n));
          out.reclaimed.push_back(static_cast<NodeIdx>(n));
          continue;
        }
        s.reclaiming = true;
        s.reclaim_since_s = now;
        out.reclaim_started.push_back(static_cast<NodeIdx>(n));
        if (p.reclaim == Reclaim::Preempt) out.preempt_now.push_back(static_cast<NodeIdx>(n));
      }
    // Lend: only while the home side has no pending work at all, idle long enough, up to the
    // other side's unmet demand.
    if (want(home).pending || !want(away).pending) continue;
    // (the borrower's demand already counts the free GPUs of what it holds, borrowed or not).
    int64_t give = want(away).unmet_gpus;
    for (size_t n = 0; n < nn && give > 0; ++n) {
      NodeState& s = ns[n];
      if (s.home != home || s.holder != home || !idle[n]) continue;
      const SimTime due = s.idle_since_s + p.lend_after_s;
      if (now < due) {
        if (due < out.wake_s) out.wake_s = due;
        continue;
      }
      s.holder = away;
      give -= capacity_gpus[n];
      out.lent.push_back(static_cast<NodeIdx>(n));
    }
  }
  return out;
}

}  // namespace floorsim::hybrid
