#include "sim/app/site_import.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "schedulers/slurm/config.hpp"
#include "schedulers/slurm/slurm.hpp"
#include "sim/core/error.hpp"

namespace floorsim::app {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// `path` as the scenario in `dir` names it: relative to that folder (lexically, so a symlinked
// folder keeps its spelling), absolute when they share no root.
std::string relative_to(const std::string& path, const std::string& dir) {
  const fs::path p = fs::absolute(path).lexically_normal();
  const fs::path rel = p.lexically_relative(fs::absolute(dir.empty() ? "." : dir).lexically_normal());
  return rel.empty() ? p.string() : rel.string();
}

}  // namespace

// The cluster is built from slurm.conf's NodeName lines by the model (the scenario writes no
// cluster block), so a site's own node names and CPU-only nodes reach the replay as they are.
void require_nodes(const slurm::SlurmConfig& conf, const std::string& conf_file) {
  if (slurm::cluster_from_conf(conf).nodes() == 0)
    throw InputError(conf_file, "", "slurm.conf defines no node (no NodeName line); expected the site's nodes");
}

json site_scenario(const SiteFiles& f, const std::string& scenario_dir) {
  slurm::SlurmConfig conf;
  slurm::read_slurm_conf(f.slurm_conf, conf);
  if (!f.dump.empty()) slurm::read_sacctmgr_dump(f.dump, conf);
  json doc;
  doc["name"] = conf.cluster_name.empty() ? "site" : conf.cluster_name;
  std::string what = "slurm.conf" + std::string(f.dump.empty() ? "" : " and sacctmgr dump");
  if (!f.sacct.empty()) {
    const std::string window = f.from.empty() && f.to.empty() ? "the whole of " + fs::path(f.sacct).filename().string()
                               : fmt::format("{} from {} to {}", fs::path(f.sacct).filename().string(),
                                             f.from.empty() ? "its start" : f.from, f.to.empty() ? "its end" : f.to);
    doc["description"] = fmt::format("Replay of {} under the site's own {} (written by floorsim site import); "
                                     "classes are the accounts.", window, what);
  } else {
    doc["description"] = fmt::format("The site's own {} (written by floorsim site import); add a workload.", what);
  }
  require_nodes(conf, f.slurm_conf);
  json sched = {{"type", "slurm"}, {"slurm_conf", relative_to(f.slurm_conf, scenario_dir)}};
  if (!f.dump.empty()) sched["sacctmgr_dump"] = relative_to(f.dump, scenario_dir);
  doc["scheduler"] = sched;
  if (!f.sacct.empty()) {
    json trace = {{"path", relative_to(f.sacct, scenario_dir)}, {"format", "sacct"}};
    if (!f.from.empty()) trace["from"] = f.from;
    if (!f.to.empty()) trace["to"] = f.to;
    doc["workload"] = {{"trace", trace}};
    doc["class_rule"] = {{"from", "account"}};
  } else {
    doc["workload"] = {{"jobs", json::array()}};
  }
  return doc;
}

}  // namespace floorsim::app
