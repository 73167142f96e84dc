#pragma once
// Optional hook through which a model outside the engine (the fabric's contention model)
// stretches a job's runtime when it starts, from where it was placed and what else runs. The
// engine stays free of fabric and policy: it only asks for the stretch factor.
#include <span>

#include <nlohmann/json.hpp>

#include "sim/core/scheduler_api.hpp"

namespace floorsim {

class RuntimeModel {
 public:
  virtual ~RuntimeModel() = default;
  // Wall-clock seconds per second of work for job j, which starts now on `placement`; `view`
  // already shows it running. 1 = runs as fast as its trace runtime says. Fixed for the run
  // (first-order: later starts do not re-rate jobs already running).
  virtual double stretch(JobIdx j, std::span<const NodeShare> placement, const Snapshot& view) = 0;
  // Figures for metrics.json ("runtime_model").
  virtual nlohmann::json report() const { return nlohmann::json::object(); }
};

}  // namespace floorsim
