#pragma once
// The verbs of `floorsim`, in the order `floorsim --help` lists them. One line per verb.
#include "sim/cli/cli.hpp"

namespace floorsim::cli {

int verb_run(const Args& args);       // sim/cli/verb_run.cpp
int verb_validate(const Args& args);  // sim/cli/verb_run.cpp
int verb_schema(const Args& args);    // sim/cli/verb_run.cpp
int verb_trace(const Args& args);     // sim/cli/verb_trace.cpp
int verb_calibrate(const Args& args);  // sim/cli/verb_calibrate.cpp
int verb_fabric(const Args& args);     // sim/cli/verb_fabric.cpp
int verb_rehearse(const Args& args);   // sim/cli/verb_rehearse.cpp
int verb_size(const Args& args);       // sim/cli/verb_size.cpp
int verb_sweep(const Args& args);      // sim/cli/verb_sweep.cpp
int verb_merge(const Args& args);      // sim/cli/verb_sweep.cpp
int verb_tune(const Args& args);       // sim/cli/verb_tune.cpp
int verb_compare(const Args& args);    // sim/cli/verb_compare.cpp
int verb_report(const Args& args);     // sim/cli/verb_report.cpp
int verb_impact(const Args& args);     // sim/cli/verb_govern.cpp
int verb_audit(const Args& args);      // sim/cli/verb_govern.cpp
int verb_lint(const Args& args);       // sim/cli/verb_govern.cpp
int verb_site(const Args& args);       // sim/cli/verb_site.cpp
int verb_cost(const Args& args);       // sim/cli/verb_cost.cpp
int verb_review(const Args& args);     // sim/cli/verb_review.cpp

struct Verb {
  const char* name;
  const char* summary;
  int (*run)(const Args&);
};

inline const Verb kVerbs[] = {
    {"run", "simulate a scenario and write metrics.json, jobs.csv, timeline.csv", verb_run},
    {"validate", "check a scenario file and print it with every default filled in", verb_validate},
    {"schema", "print the JSON Schema of the scenario format", verb_schema},
    {"site", "import a Slurm site: slurm.conf + sacctmgr dump + a sacct window -> a replay scenario", verb_site},
    {"trace", "read a trace (swf, helios, philly, pai, sacct, csv): stats, or convert to swf/csv", verb_trace},
    {"calibrate", "measure the Monte Carlo VaR kernel on this device; write paths/s to a JSON", verb_calibrate},
    {"fabric", "fat-tree sign-off pack: routing, max-min contention, degraded cases (signoff.md/.json)", verb_fabric},
    {"rehearse", "replay a quant night at peak with a node failure; verdict per criterion and layer to fix (--growth)", verb_rehearse},
    {"cost", "price each deadline class: dedicated vs shared vs reserved+burst, idle and missed-deadline cost, break-even points", verb_cost},
    {"review", "months of sacct or a run vs entitlements: weekly/monthly use, waits, idle, pile-ups, rebalancing, Prometheus alert rules", verb_review},
    {"size", "entitlement sizing: peak demand per class, proposed floors (deadline floors fit the cluster), 80% warnings", verb_size},
    {"sweep", "run many scenarios (grid / list / Latin hypercube over JSON-pointer axes) on threads; --resume, --shard i/N", verb_sweep},
    {"merge", "join sweep shard outputs (checks no index is missing or doubled)", verb_merge},
    {"tune", "search Slurm priority weights and backfill parameters for an objective; judged on held-out jobs", verb_tune},
    {"compare", "regression gate: metrics.json or sweep results against tolerance bands; table + JUnit XML", verb_compare},
    {"report", "one self-contained HTML report (inline SVG) of a run or sweep directory", verb_report},
    {"impact", "run a scenario with and without proposed policy changes; per-class floor, margin, p99 wait deltas", verb_impact},
    {"audit", "audit pack of a run: controlled policy, approval log, sacct --parsable2 accounting", verb_audit},
    {"lint", "policy lint of a scenario, slurm.conf (+ sacctmgr dump) or Kueue YAML (exit 1 on findings)", verb_lint},
};

}  // namespace floorsim::cli
