#pragma once
// Slurm scenarios from fuzzer bytes (the slurm_sim fuzz target): a small cluster, a Slurm block
// with reservations (one-off and HOURLY/DAILY/WEEKLY; FLEX, MAGNETIC, PURGE_COMP, IGNORE_JOBS),
// QOS preemption (preempt/qos with CANCEL, REQUEUE or SUSPEND, grace times), reservation change
// events, node failures and a dozen jobs. Every byte string gives a scenario: each choice takes
// the next byte modulo its number of options (0 once the bytes run out), in the order written
// in slurm_scenario.cpp, so seeds can be written by hand.
#include <string_view>

#include <nlohmann/json.hpp>

namespace floorsim::fuzz {

nlohmann::json slurm_scenario_from_bytes(std::string_view data);

}  // namespace floorsim::fuzz
