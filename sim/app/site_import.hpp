#pragma once
// `floorsim site import`: a scenario that replays a window of a Slurm site's accounting (sacct)
// under the site's own policy (slurm.conf and sacctmgr dump), written from those files.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace floorsim::slurm {
struct SlurmConfig;
}

namespace floorsim::app {

struct SiteFiles {
  std::string slurm_conf;     // required
  std::string dump;           // sacctmgr dump ("" = none)
  std::string sacct;          // sacct --parsable2 ("" = no workload yet)
  std::string from, to;       // wall-clock window of the sacct dump ("" = its start / end)
};

// Refuses (InputError naming the file) a slurm.conf without NodeName lines: a replay needs the
// site's nodes, and the scenario takes them from slurm.conf (no cluster block is written).
void require_nodes(const slurm::SlurmConfig& conf, const std::string& conf_file);

// The scenario document for `f`, its paths relative to `scenario_dir` (as scenario paths
// resolve). Reads slurm.conf and the dump (errors name them). Pure otherwise.
nlohmann::json site_scenario(const SiteFiles& f, const std::string& scenario_dir);

}  // namespace floorsim::app
