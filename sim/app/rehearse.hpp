#pragma once
// `floorsim rehearse` (issue 7): replay every class at peak with one node failure part-way,
// judge the night against its targets, name the layer to fix for each failed criterion, and
// optionally search the largest load growth at which every criterion still holds.
//
// Criteria (targets in the scenario's "rehearse" block):
//   1. the deadline classes' floors fit the cluster and their work fits inside their windows
//      (if not, no configuration can fix it: layer floor);
//   2. each deadline class finishes with margin >= min_margin_s (floor / isolation / slack);
//   3. the interactive class's p99 wait <= p99_wait_target_s (isolation / floor);
//   4. the burst queue gives way without cascading preemption: cascades <= max (isolation);
//   5. the change log shows no unapproved edits (governance, issue 9: no policy change took
//      effect without the sign-off it needed; not evaluated when the scenario has no changes);
//   6. with a "sharing" block, the two-part worst case: a request service's p99 latency in the
//      batch's peak window, and the batch's margin with requests at full rate (isolation).
#include <limits>
#include <string>
#include <vector>

#include "sim/app/runner.hpp"
#include "sim/app/scenario.hpp"

namespace floorsim::app {

struct Criterion {
  std::string name;      // e.g. "var finishes with margin"
  std::string measured;  // human-readable measured value
  std::string target;
  double value = 0;      // the measured figure (minutes, seconds, count)
  bool pass = true;
  bool evaluated = true;
  std::string layer;     // when failed: floor, slack, isolation or governance
  std::string note;      // why that layer
};

struct Verdict {
  std::vector<Criterion> criteria;
  bool infeasible = false;  // no configuration can fix it
  std::string infeasible_reason;
  bool pass() const {
    for (const auto& c : criteria)
      if (!c.pass) return false;
    return true;
  }
};

// The built-in quant night (documented in rehearse.cpp; examples/rehearse-default.json equals it).
json default_night();

// Loads a rehearsal: applies `growth` to workload.synthetic.load_multiplier (1 = as written) and
// injects the part-way node failure when the scenario lists none. Warnings as load_scenario's.
Scenario load_rehearsal(const json& doc, const std::string& file, const std::string& base_dir, double growth = 1.0,
                        Warnings* warnings = nullptr);

// Judges a run's metrics.json against the scenario's targets. Pure.
Verdict judge(const Scenario& sc, const json& metrics);

struct Growth {
  double base_multiplier = 1;    // load_multiplier as written
  double max_ok = 0;             // largest growth factor found holding (0 = fails at 1)
  double first_fail = std::numeric_limits<double>::infinity();  // smallest tested factor that fails
  std::string first_fail_criterion, first_fail_layer;
  double tolerance = 0.02;
  int runs = 0;
};

// Bisection on the growth factor: 1, then doubling up to growth_max, then halving the bracket
// until it is narrower than growth_tolerance. Deterministic. Throws InputError when the scenario
// has no synthetic workload (nothing to grow).
// `progress` (optional) shows each run of the search, and the jobs of the run under way.
// `warnings`: every run's, kept once (null: printed once the search is done).
Growth search_growth(const json& doc, const std::string& file, const std::string& base_dir, Progress* progress = nullptr,
                     Warnings* warnings = nullptr);

std::string verdict_table(const Verdict& v);
json to_json(const Verdict& v);
json to_json(const Growth& g);

// Writes run's four files plus verdict.json into `out`, atomically.
void write_rehearsal_outputs(const Scenario& sc, const RunResult& r, const json& verdict, const io::OutTarget& out);

}  // namespace floorsim::app
