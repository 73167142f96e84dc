#include "sim/app/site_import.hpp"

#include <cctype>
#include <filesystem>
#include <map>

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

// "gpu012" -> {"gpu", 12}; nothing unless the name ends in exactly three digits after a prefix.
std::optional<std::pair<std::string, int>> split_numbered(const std::string& name) {
  if (name.size() < 4) return std::nullopt;
  const std::string digits = name.substr(name.size() - 3), prefix = name.substr(0, name.size() - 3);
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  if (std::isdigit(static_cast<unsigned char>(prefix.back()))) return std::nullopt;
  return std::make_pair(prefix, std::stoi(digits));
}

}  // namespace

std::optional<json> cluster_block_for(const slurm::SlurmConfig& conf, const std::string& conf_file) {
  const ClusterConfig c = slurm::cluster_from_conf(conf);
  if (c.nodes() == 0) return std::nullopt;
  json groups = json::array();
  std::map<std::string, size_t> group_of;  // prefix -> index in groups
  for (size_t n = 0; n < c.nodes(); ++n) {
    const std::string& name = c.node_names[n];
    const auto why = [&](const std::string& what) {
      return InputError(conf_file, "",
                        fmt::format("node {} {}; expected GPU nodes named PREFIX001, PREFIX002, ... in order with the same "
                                    "GPUs per prefix (a scenario cluster block cannot name other nodes yet)",
                                    name, what));
    };
    if (c.node_gpus[n] <= 0) throw why("has no GPUs (Gres=gpu:N)");
    const auto parts = split_numbered(name);
    if (!parts) throw why("is not named PREFIX followed by three digits");
    auto it = group_of.find(parts->first);
    if (it == group_of.end()) {
      if (parts->second != 1) throw why("does not start its prefix at 001");
      group_of.emplace(parts->first, groups.size());
      groups.push_back({{"prefix", parts->first}, {"count", 1}, {"gpus_per_node", c.node_gpus[n]}});
      continue;
    }
    json& g = groups[it->second];
    if (it->second + 1 != groups.size() || parts->second != g["count"].get<int>() + 1) throw why("does not follow the previous node of its prefix");
    if (g["gpus_per_node"].get<int>() != c.node_gpus[n]) throw why("has other GPUs than the earlier nodes of its prefix");
    g["count"] = g["count"].get<int>() + 1;
  }
  if (groups.size() == 1)
    return json{{"nodes", groups[0]["count"]}, {"gpus_per_node", groups[0]["gpus_per_node"]}, {"node_prefix", groups[0]["prefix"]}};
  return json{{"node_groups", groups}};
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
  if (auto block = cluster_block_for(conf, f.slurm_conf)) doc["cluster"] = *block;
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
