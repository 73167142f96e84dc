#pragma once
// The files a scenario document names (trace, replayed rate, fabric scenario, slurm.conf,
// sacctmgr dump, topology.conf, gres.conf, Kueue/KAI manifests): inputs that an output path may
// not be, contain or replace (sim/core/output_guard.hpp).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/output_guard.hpp"

namespace floorsim::app {

namespace sweep {
struct SweepSpec;
}

// The spec keys whose string (or array of strings) values are file paths.
inline constexpr const char* kPathKeys[] = {"path", "rate_file", "file", "slurm_conf", "sacctmgr_dump",
                                            "topology_conf", "gres_conf", "manifests"};

// Every non-empty path under a kPathKeys key anywhere in `doc`, relative ones resolved against
// `base_dir` (as the readers resolve them).
std::vector<io::OutInput> scenario_inputs(const nlohmann::json& doc, const std::string& base_dir);

// What a sweep reads: the sweep file, its base and every file they (or an axis value) name.
std::vector<io::OutInput> sweep_inputs(const sweep::SweepSpec& s);

}  // namespace floorsim::app
