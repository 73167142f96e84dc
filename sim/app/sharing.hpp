#pragma once
// The scenario's "sharing" block: intraday request services served on node pools whose GPUs
// also hold batch jobs, and how each pool shares a GPU (sim/app/sharing_model.hpp). A run
// records which pool GPUs held batch work when; after the run every service's requests are
// served against that timeline and their latencies go to metrics.json ("sharing"). Sharing
// modes that slow the batch (time-slicing, MPS, MIG, priority) stretch the runtimes of jobs
// placed on the pool through the engine's RuntimeModel hook; exclusive mode leaves the run as
// it is without the block.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/app/forwarding_scheduler.hpp"
#include "sim/app/sharing_model.hpp"
#include "sim/core/cluster.hpp"
#include "sim/core/config_spec.hpp"
#include "sim/core/runtime_model.hpp"
#include "sim/core/warnings.hpp"

namespace floorsim::app {

using json = nlohmann::json;

std::shared_ptr<const cfg::ObjectSpec> sharing_spec();

struct SharingPool {
  std::string name;
  std::vector<uint8_t> on_node;  // by NodeIdx: 1 = the node belongs to the pool
  int64_t gpus = 0;              // GPUs on the pool's nodes
  sharing::ModeParams params;
  int32_t dedicated_gpus = 0;
  std::string site_resource, maps_to;  // what the site configures, and how it is read
};

struct SharingService {
  std::string name;
  size_t pool = 0;
  std::vector<sharing::Request> requests;  // sorted by arrival
  double latency_target_s = 0;
  json work;  // how the per-request work was derived (reported)
};

struct SharingWindow {
  std::string name;
  SimTime from_s = 0, to_s = 0;
};

struct SharingConfig {
  std::vector<SharingPool> pools;
  std::vector<SharingService> services;
  std::vector<SharingWindow> windows;
  double peak_window_s = 3600;
  std::vector<std::string> deadline_classes;  // empty: every class with deadlines
  uint64_t seed = 1;
  bool stretches_batch() const;
};

// Reads the resolved "sharing" block (at /sharing of `file`); warns where a site's resource name
// maps to another mode than the one given. Throws InputError on bad input.
SharingConfig load_sharing(const json& r, const ClusterConfig& cluster, uint64_t seed, const std::string& base_dir,
                           const std::string& file, Warnings& warnings);

// Batch GPUs held per node over the run: (time, node, +gpus / -gpus) steps.
struct BatchStep {
  SimTime time_s;
  NodeIdx node;
  int32_t delta_gpus;
};
using BatchLog = std::vector<BatchStep>;

// Records every start and end of a job's allocation into `log`; forwards everything else, so
// the run is the same.
std::unique_ptr<Scheduler> record_batch(std::unique_ptr<Scheduler> inner, BatchLog& log);

// Stretches jobs placed on a pool whose mode slows the batch; multiplies `inner`'s stretch
// (the fabric model) when there is one.
class SharingRuntime final : public RuntimeModel {
 public:
  SharingRuntime(const SharingConfig& c, RuntimeModel* inner) : c_(c), inner_(inner) {}
  double stretch(JobIdx j, std::span<const NodeShare> placement, const Snapshot& view) override;
  json report() const override { return inner_ ? inner_->report() : json::object(); }
  const std::vector<double>& pool_stretch_sum() const { return sum_; }
  const std::vector<size_t>& pool_jobs() const { return jobs_; }

 private:
  const SharingConfig& c_;
  RuntimeModel* inner_;
  std::vector<double> sum_;
  std::vector<size_t> jobs_;
};

// metrics.json "sharing": per pool and service, latencies overall and per window (and in the
// batch's peak window), and the two-part worst case. `classes` is metrics.json's "classes".
json sharing_metrics(const SharingConfig& c, const BatchLog& log, const ClusterConfig& cluster, SimTime end_s,
                     const json& classes, const SharingRuntime* runtime);

}  // namespace floorsim::app
