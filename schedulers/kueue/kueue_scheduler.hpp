#pragma once
// The Kueue-like model behind floorsim::Scheduler: reads Kueue YAML manifests, maps jobs to
// LocalQueues by a rule in the scheduler block, and drives kueue::Core from engine events.
#include <memory>

#include "schedulers/registry.hpp"

namespace floorsim::kueue {

std::shared_ptr<const cfg::ObjectSpec> kueue_params_spec();  // params.cpp
// A request quantity in the scheduler block: a number, or a Kubernetes quantity string
// ("64Gi", "500m"); -1 when it is neither.
double request_quantity(const cfg::json& q);
std::unique_ptr<Scheduler> make_kueue(const cfg::json& resolved, const SchedulerContext& ctx);

}  // namespace floorsim::kueue
