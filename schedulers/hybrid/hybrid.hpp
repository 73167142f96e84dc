#pragma once
// A hybrid cluster: two scheduler models on one cluster, each owning part of the nodes (the
// common split "Slurm for batch, Kubernetes for services"): a Slurm-side model (slurm or a
// baseline) and a Kubernetes-side model (kueue or kai). Each job goes to one side by its class;
// each model sees a snapshot restricted to its own jobs and to the nodes it currently holds
// (the others look down to it), and the two models' decisions are merged. Nodes move between
// the sides only by the lending rule (lending.hpp); without it the split is static.
#include <memory>
#include <vector>

#include "schedulers/hybrid/lending.hpp"
#include "schedulers/registry.hpp"

namespace floorsim::hybrid {

struct Layout {
  std::vector<Side> node_home;  // by NodeIdx
  std::vector<Side> job_side;   // by JobIdx
  LendParams lending;
};

// The composite over two built models (index 0: Slurm side, 1: Kubernetes side). Neither may
// pack GPU fractions (the two sides would disagree on how a fractional job holds a GPU).
std::unique_ptr<Scheduler> make_hybrid(std::unique_ptr<Scheduler> slurm_side, std::unique_ptr<Scheduler> kubernetes_side,
                                       Layout layout);

// The "hybrid" entry of the scheduler registry (its block's parsing is hybrid_params.cpp).
SchedulerEntry registry_entry();

}  // namespace floorsim::hybrid
