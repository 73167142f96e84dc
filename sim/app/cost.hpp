#pragma once
// `floorsim cost`: what each deadline class's capacity costs three ways, with prices as inputs.
//
//   shared         the class's used GPU-hours at the on-premises GPU-hour rate (a shared cluster
//                  bills what a job allocates, as sacct's TRES usage does), plus its measured
//                  chance of missing the deadline on the shared cluster alone (the run without
//                  capacity blocks when there is one) x the missed-deadline cost;
//   dedicated      whole nodes holding the class's floor, paid over the whole period (a day per
//                  night): idle GPU-hours are the capacity less the used. Its miss chance is not
//                  simulated but a fit bound: a night is missed when the class's work (the
//                  GPU-hours it used on the shared cluster) exceeds those GPUs x its window, met
//                  otherwise; over a sweep, the share of points whose work does not fit. A lower
//                  bound as long as the shared run's work is what the dedicated nodes would run:
//                  packing, arrival times and failures, which can make a fitting night late, are
//                  left out;
//   reserved+burst the floor reserved over the class's window and charged as if used (Slurm's
//                  reservation accounting books unused reserved time to the accounts eligible to
//                  use it, https://slurm.schedmd.com/reservations.html#account), work above the
//                  reservation at the shared rate, each capacity block's price shared by used
//                  GPU-hours among the deadline classes whose window overlaps the block's (all of
//                  them when windows are unknown), and the miss chance with the blocks had, or
//                  without them when one of its blocks cannot be had (unavailable_probability).
//
// Break-even points: the missed-deadline cost above which dedicated (and reserved+burst) costs
// less than shared; the utilisation of dedicated nodes above which they cost less than renting
// the same GPU-hours from the cloud on demand. The seed's three cases for dedicated nodes: the
// floor is most of what the shared cluster can give; isolation rules out sharing (an input);
// a missed deadline (x its chance) costs more than the dedicated nodes' idle time.
// Every function below is arithmetic on its arguments.
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/app/table.hpp"

namespace floorsim::app::cost {

using json = nlohmann::json;
inline constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

struct ClassPrice {
  double missed_deadline_usd = 0;  // cost of one night whose deadline the class misses
  bool isolation = false;          // the class may not share nodes (a policy input)
  double reserved_window_h = kUnknown;  // override of the measured window (required for sweeps)
};

struct Prices {
  double onprem_gpu_hour_usd = 0;    // given, or from the node's capital, lifetime and power
  double cloud_gpu_hour_usd = 0;     // on-demand
  double block_gpu_hour_usd = 0;     // capacity blocks without their own price_usd
  double period_h = 24;              // dedicated nodes are paid over this per night
  double most_fraction = 0.5;        // "most of what the shared cluster can give"
  std::map<std::string, ClassPrice> classes;
};

// The prices file (validated, JSON-pointer errors, exit 2 on bad input).
Prices load_prices(const json& doc, const std::string& file);
json prices_schema_example();
// (capital / (lifetime_years x 8760) + power_kw x price_per_kwh) / gpus_per_node.
double onprem_gpu_hour(double node_capital_usd, double lifetime_years, double node_power_kw, double power_usd_per_kwh,
                       int64_t gpus_per_node);

struct ClassObservation {
  std::string name;
  double floor_gpus = 0;
  double used_gpu_h = 0;                   // per night (mean over runs)
  double window_h = 0;                     // first submission to last deadline
  double window_from_s = kUnknown, window_to_s = kUnknown;  // that window in simulated time
  double p_miss = 0;                       // share of runs where it missed a deadline
  double p_miss_without_blocks = kUnknown; // the same with no capacity block had
  double dedicated_overflow_share = kUnknown;  // share of runs whose work exceeded dedicated GPUs x window (sweeps)
  double preemptions = 0;
  size_t runs = 1;
};

struct Block {
  std::string prefix;
  double cost_usd = 0;
  double unavailable_probability = 0;
  double from_s = kUnknown, to_s = kUnknown;  // the window it is up
};

struct Observation {
  std::string source;  // what was priced: "scenario X", "run DIR", "sweep DIR (N points)"
  double cluster_gpus = 0;
  double gpus_per_node = 8;
  std::vector<ClassObservation> classes;  // deadline classes only
  std::vector<Block> blocks;
  std::vector<std::string> warnings;
};

struct OptionCost {
  std::string option;  // shared | dedicated | reserved+burst
  double capacity_gpu_h = 0, capacity_usd = 0, idle_gpu_h = 0, idle_usd = 0, burst_usd = 0;
  double p_miss = 0, expected_missed_usd = 0;
  std::string p_miss_basis = "simulated";  // or "fit bound": not simulated (dedicated)
  double total_usd() const { return capacity_usd + burst_usd + expected_missed_usd; }
  double fixed_usd() const { return capacity_usd + burst_usd; }
};

struct ClassCost {
  std::string name;
  std::vector<OptionCost> options;  // shared, dedicated, reserved+burst
  double missed_breakeven_dedicated_usd = kUnknown;  // dedicated cheaper than shared above this
  double missed_breakeven_reserved_usd = kUnknown;   // reserved+burst cheaper than shared above this
  double dedicated_utilisation = 0;                  // used / dedicated capacity
  double utilisation_breakeven = kUnknown;           // dedicated cheaper than cloud on demand above this
  bool case_floor_most = false, case_isolation = false, case_miss_over_idle = false;
  std::string cheapest;
};

struct CostReport {
  Observation obs;
  Prices prices;
  std::vector<ClassCost> classes;
};

double block_cost(double nodes, double gpus_per_node, double days, double price_usd_or_nan, double block_gpu_hour_usd);
OptionCost shared_option(const ClassObservation& c, const Prices& p, double missed_usd);
// GPUs of whole nodes holding the floor.
double dedicated_gpus(double floor_gpus, double gpus_per_node);
// Whether `used_gpu_h` of work exceeds the dedicated GPUs x the window: the fit bound's miss.
bool dedicated_overflows(double used_gpu_h, double floor_gpus, double gpus_per_node, double window_h);
OptionCost dedicated_option(const ClassObservation& c, const Prices& p, double gpus_per_node, double missed_usd);
OptionCost reserved_burst_option(const ClassObservation& c, const Prices& p, double burst_usd, double q_unavailable,
                                 double missed_usd);
// (fixed_a - fixed_shared) / (p_shared - p_a): NaN when option a misses no less often.
double missed_breakeven(const OptionCost& shared, const OptionCost& a);
CostReport price(const Observation& obs, const Prices& prices);

// Observations from one run's metrics.json, the scenario's deadline windows and blocks
// (resolved scenario), and optionally the metrics of the same run with no block had.
using Windows = std::map<std::string, std::pair<double, double>>;  // class -> first submission, last deadline (s)
Observation observe_run(const json& metrics, const json& resolved_scenario, const Windows& windows,
                        const json* metrics_without_blocks, const Prices& prices, std::string source);
// Observations from a sweep's result lines (each a metrics block): miss chance = share of points;
// dedicated's fit bound = share of points whose work does not fit (each with its own floor).
Observation observe_sweep(const std::vector<json>& lines, const Prices& prices, std::string source, const std::string& file);

json to_json(const CostReport& r);
TextTable options_table(const CostReport& r);
std::string to_markdown(const CostReport& r);

}  // namespace floorsim::app::cost
