#pragma once
// The Kueue-like model behind floorsim::Scheduler: reads Kueue YAML manifests, maps jobs to
// LocalQueues by a rule in the scheduler block, and drives kueue::Core from engine events.
#include <memory>

#include "schedulers/registry.hpp"

namespace floorsim::kueue {

std::shared_ptr<const cfg::ObjectSpec> kueue_params_spec();
std::unique_ptr<Scheduler> make_kueue(const cfg::json& resolved, const SchedulerContext& ctx);

}  // namespace floorsim::kueue
