#pragma once
// Entitlement sizing (`floorsim size`, issue 7): from a run's per-class timeline, measure each
// class's peak demand (inside its deadline window for deadline classes), propose floors and warn
// where a floor would run at 80% utilisation or more.
//
// Rules (documented in --help and the README):
//   - demand is capped at the physical capacity (a queue deeper than the cluster is not a peak);
//   - deadline classes: floor = observed peak demand inside [first submit, last deadline], but
//     together they must fit the cluster: if the peaks sum above capacity, each keeps the GPUs its
//     work needs on average over its window (work / window) and the rest of the capacity is
//     shared in proportion to the peak above that need; if even the needs do not fit, the
//     deadline floors cannot fit the cluster (no configuration can fix it);
//   - every other class: 1.5 x observed peak (the published rule for quotas), capped at capacity;
//   - floor utilisation = time-integral of min(allocated, floor) / integral of floor while the
//     class had demand; >= 0.8 is a warning (the floor is nearly exhausted).
#include <string>
#include <vector>

#include "sim/app/scenario.hpp"

namespace floorsim::app {

struct TimelinePoint {
  SimTime time_s;
  std::string klass;
  int64_t allocated, demanded;
};

// Parses timeline.csv text (time_s,class,gpus_allocated,gpus_demanded,floor_gpus).
std::vector<TimelinePoint> parse_timeline(const std::string& csv, const std::string& file);

struct ClassSizing {
  std::string klass;
  bool deadline = false;
  SimTime window_from_s = 0, window_to_s = 0;
  int64_t current_floor_gpus = 0;
  int64_t peak_demand_gpus = 0;
  double need_gpus = 0;           // deadline classes: work / window
  int64_t proposed_floor_gpus = 0;
  double current_utilisation = 0; // of the current floor (0 when it is 0)
  double proposed_utilisation = 0;
  bool warn = false;              // proposed utilisation >= 0.8
};

struct Sizing {
  int64_t capacity_gpus = 0;
  std::vector<ClassSizing> classes;
  bool deadline_fits = true;
  std::vector<std::string> warnings;
};

Sizing size_floors(const Scenario& sc, const std::vector<TimelinePoint>& timeline, SimTime end_s);
std::string sizing_table(const Sizing& s);
json to_json(const Sizing& s);

}  // namespace floorsim::app
