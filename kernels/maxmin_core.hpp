#pragma once
// The per-scenario max-min solver and event loop, written once for host and device
// (FLOORSIM_HD). Included by kernels/contention.cu only; one instance per backend namespace.
// No allocation: every buffer is a slice of the batch's flat scratch arrays.
#include <cstdint>

#include "kernels/contention.hpp"
#include "kernels/hd.hpp"

namespace floorsim::kernels::FLOORSIM_BACKEND::detail {

// One scenario's inputs (local indices) and its scratch slices.
struct ScenarioView {
  uint32_t links, flows;
  const double* cap;        // [links]
  const uint32_t* tier;     // [links]
  const uint32_t* off;      // [flows+1], global offsets into `path`
  const uint32_t* path;     // flow_links (global array; local link values)
  const double* size;       // [flows]
  const double* start;      // [flows]
  // scratch
  double* frozen;           // [links] rate already frozen on the link
  double* share;            // [links] this round's share
  uint32_t* unfrozen_n;     // [links] unfrozen flows on the link (all 0 between solves)
  uint32_t* link_list;      // [links] links with unfrozen flows (ascending index)
  uint32_t* flow_list;      // [flows] unfrozen flows (ascending index)
  double* remaining;        // [flows] bytes left
  uint8_t* state;           // [flows] 0 waiting, 1 active, 2 done
  double* flow_cap;         // [flows] min capacity of the flow's single-flow links
  uint32_t* spath;          // [path entries] per flow, its shared links (at off[f] - off[0])
  uint8_t* scount;          // [flows] number of shared links of the flow
};

// Max-min rates of the flows with state[f] == want, progressive filling by closed steps
// (spec fabric §3): share_l = (c_l - frozen_l) / unfrozen_l; every unfrozen flow gets
// m = min share; flows crossing a link whose share attains m (relative kAttainRelTol) freeze
// at m. At most one round per link. Writes rate[f] for the selected flows only.
// Two exact shortcuts keep a round proportional to the contended part of the problem:
//  - only links touched by the selected flows are visited (no O(all links) reset per solve);
//  - a link crossed by exactly one selected flow has share c_l for as long as that flow is
//    unfrozen, so it is folded into the flow's own cap (flow_cap[f] = min such c_l) and left
//    out of the per-round scans (each flow keeps a compact list of its shared links).
// Precondition: unfrozen_n[l] == 0 for every link (true on exit, since every flow freezes).
FLOORSIM_HD inline void maxmin_solve(const ScenarioView& v, uint8_t want, double* rate) {
  uint32_t nf = 0, nt = 0;
  for (uint32_t f = 0; f < v.flows; ++f) {
    if (v.state[f] != want) continue;
    if (v.off[f] == v.off[f + 1]) { rate[f] = kInf; continue; }  // no link: unconstrained
    v.flow_list[nf++] = f;
    for (uint32_t i = v.off[f]; i < v.off[f + 1]; ++i) {
      const uint32_t l = v.path[i];
      if (v.unfrozen_n[l]++ == 0) { v.link_list[nt++] = l; v.frozen[l] = 0.0; }
    }
  }
  // Fold single-flow links into the flows' caps (and release them: unfrozen_n back to 0);
  // keep each flow's shared links in spath and the shared links in link_list.
  const uint32_t base = v.off[0];
  for (uint32_t i = 0; i < nf; ++i) {
    const uint32_t f = v.flow_list[i];
    double cap = kInf;
    uint32_t* sp = v.spath + (v.off[f] - base);
    uint8_t n = 0;
    for (uint32_t k = v.off[f]; k < v.off[f + 1]; ++k) {
      const uint32_t l = v.path[k];
      if (v.unfrozen_n[l] == 1) {
        if (v.cap[l] < cap) cap = v.cap[l];
      } else {
        sp[n++] = l;
      }
    }
    v.flow_cap[f] = cap;
    v.scount[f] = n;
  }
  uint32_t nl = 0;
  for (uint32_t i = 0; i < nt; ++i) {
    const uint32_t l = v.link_list[i];
    if (v.unfrozen_n[l] > 1) v.link_list[nl++] = l;
    else v.unfrozen_n[l] = 0;  // single-flow link: its flow's cap stands in for it
  }
  while (nf > 0) {
    double m = kInf;
    for (uint32_t i = 0; i < nl; ++i) {
      const uint32_t l = v.link_list[i];
      double s = (v.cap[l] - v.frozen[l]) / v.unfrozen_n[l];
      if (!(s > 0.0)) s = 0.0;  // rounding below zero; capacity 0 (failed link)
      v.share[l] = s;
      if (s < m) m = s;
    }
    for (uint32_t i = 0; i < nf; ++i) {
      const double c = v.flow_cap[v.flow_list[i]];
      if (c < m) m = c;
    }
    if (!(m > 0.0)) m = 0.0;
    const double thr = m + m * kAttainRelTol;
    uint32_t keep = 0;
    for (uint32_t i = 0; i < nf; ++i) {
      const uint32_t f = v.flow_list[i];
      const uint32_t* sp = v.spath + (v.off[f] - base);
      const uint32_t n = v.scount[f];
      bool hit = v.flow_cap[f] <= thr;
      for (uint32_t k = 0; !hit && k < n; ++k) hit = v.share[sp[k]] <= thr;
      if (!hit) { v.flow_list[keep++] = f; continue; }
      rate[f] = m;
      for (uint32_t k = 0; k < n; ++k) {
        v.frozen[sp[k]] += m;
        --v.unfrozen_n[sp[k]];
      }
    }
    nf = keep;
    uint32_t lk = 0;
    for (uint32_t i = 0; i < nl; ++i)
      if (v.unfrozen_n[v.link_list[i]] > 0) v.link_list[lk++] = v.link_list[i];
    nl = lk;
  }
}

// Completion times: flows join at start_s; re-solve at every arrival and departure.
// `rate` is scratch here ([flows]); completion[f] is written for every flow. `static_rate`
// (the rates with every flow present) stands in for the first solve when every flow is
// present from the first instant on: the same problem, so the same answer.
FLOORSIM_HD inline void completion_times(const ScenarioView& v, const double* static_rate, double* rate,
                                         double* completion) {
  double t = kInf;
  for (uint32_t f = 0; f < v.flows; ++f) {
    v.state[f] = 0;
    v.remaining[f] = v.size[f];
    completion[f] = kInf;
    if (v.start[f] < t) t = v.start[f];
  }
  bool first = true;
  while (t < kInf) {
    // Arrivals at or before t join; empty flows finish on arrival.
    double next_arrival = kInf;
    uint32_t active = 0;
    for (uint32_t f = 0; f < v.flows; ++f) {
      if (v.state[f] == 0) {
        if (v.start[f] <= t) {
          v.state[f] = 1;
        } else {
          if (v.start[f] < next_arrival) next_arrival = v.start[f];
          continue;
        }
      }
      if (v.state[f] != 1) continue;
      if (!(v.remaining[f] > 0.0)) { v.state[f] = 2; completion[f] = t; continue; }
      ++active;
    }
    if (active == 0) { t = next_arrival; continue; }
    if (first && active == v.flows) {
      for (uint32_t f = 0; f < v.flows; ++f) rate[f] = static_rate[f];
    } else {
      maxmin_solve(v, 1, rate);
    }
    first = false;
    // Step to the next departure, or to an arrival strictly before it (then nobody departs).
    double dt = kInf;
    for (uint32_t f = 0; f < v.flows; ++f) {
      if (v.state[f] != 1 || !(rate[f] > 0.0)) continue;
      const double d = v.remaining[f] / rate[f];
      if (d < dt) dt = d;
    }
    const bool arrival_first = next_arrival < t + dt;
    const double t_next = arrival_first ? next_arrival : t + dt;
    if (!(t_next < kInf)) break;  // only stuck flows (rate 0) left and nobody arriving
    const double step = t_next - t;
    const double finish_within = dt + dt * kFinishRelTol;
    for (uint32_t f = 0; f < v.flows; ++f) {
      if (v.state[f] != 1 || !(rate[f] > 0.0)) continue;
      if (!arrival_first && v.remaining[f] / rate[f] <= finish_within) {
        v.state[f] = 2;
        completion[f] = t_next;
      } else {
        v.remaining[f] -= rate[f] * step;
      }
    }
    t = t_next;
  }
}

}  // namespace floorsim::kernels::FLOORSIM_BACKEND::detail
