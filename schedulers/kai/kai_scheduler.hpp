#pragma once
// The KAI-like model behind floorsim::Scheduler: reads KAI Queue YAML manifests
// (scheduling.run.ai/v2), maps jobs to leaf queues by a rule in the scheduler block, and runs
// KAI's actions (allocate, consolidation, reclaim, preempt) once per engine pass, packing
// fractional jobs onto shared GPUs when gpu_sharing is on. Spec kueue-kai-model.md §10.
#include <memory>

#include "schedulers/kai/model.hpp"
#include "schedulers/kueue/manifest.hpp"
#include "schedulers/registry.hpp"

namespace floorsim::kai {

std::shared_ptr<const cfg::ObjectSpec> kai_params_spec();
std::unique_ptr<Scheduler> make_kai(const cfg::json& resolved, const SchedulerContext& ctx);

// Builds the queue tree from manifest files (used by make_kai and tests). Warnings (unknown
// fields) are appended to `warnings`.
QueueTree load_queues(const std::vector<std::string>& files, std::vector<std::string>& warnings);
// Checks parsed manifests' Queues as make_kai does (InputError on a refusal); appends warnings.
QueueTree check_queues(const kueue::Manifests& mf, std::vector<std::string>& warnings);
QueueTree load_queues_text(const std::string& yaml, const std::string& display, std::vector<std::string>& warnings);

}  // namespace floorsim::kai
