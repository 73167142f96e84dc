#pragma once
// The scheduler block and slurm.conf both set the same settings; slurm.conf is read after the
// block and its keys win. A key the block sets explicitly and the file sets to another value is
// a trap (a weight sweep over the block does nothing), so it gets a warning naming both.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedulers/slurm/config.hpp"

namespace floorsim::slurm {

// One warning per block key in `given` (the scheduler block as written) whose setting in
// `from_block` (the block's settings alone) differs from `effective` (after slurm.conf).
std::vector<std::string> conf_override_warnings(const nlohmann::json& given, const SlurmConfig& from_block,
                                                const SlurmConfig& effective, const std::string& scenario_file,
                                                const std::string& conf_file);

// The block keys (of the same table) whose setting the slurm.conf at `conf_path` decides: the
// file read over two different starting configurations gives both the same value.
std::vector<std::string> block_keys_set_by_conf(const std::string& conf_path);

}  // namespace floorsim::slurm
