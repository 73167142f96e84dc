#pragma once
// The files a scenario document names (trace, replayed rate, fabric scenario, slurm.conf,
// sacctmgr dump, topology.conf, gres.conf, Kueue/KAI manifests): inputs that an output path may
// not be, contain or replace (sim/core/output_guard.hpp).
#include <filesystem>
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
                                            "topology_conf", "gres_conf", "manifests", "calibration"};

// A file a scenario names: its path (relative ones resolved against the scenario's folder, as
// the readers resolve them) and the JSON pointer that names it.
struct NamedFile {
  std::filesystem::path path;
  std::string pointer;
};
std::vector<NamedFile> scenario_files(const nlohmann::json& doc, const std::string& base_dir);

// Every non-empty path under a kPathKeys key anywhere in `doc` (scenario_files' paths).
std::vector<io::OutInput> scenario_inputs(const nlohmann::json& doc, const std::string& base_dir);

// Opens every file `doc` names: a missing or unreadable one throws InputError naming it (and
// the pointer in `scenario_file` that names it). Reading them is the readers' part (validate
// builds the model, which parses them).
void check_files_readable(const nlohmann::json& doc, const std::string& base_dir, const std::string& scenario_file);

// What a sweep reads: the sweep file, its base and every file they (or an axis value) name.
std::vector<io::OutInput> sweep_inputs(const sweep::SweepSpec& s);

}  // namespace floorsim::app
