#pragma once
// The PodSets of each job class (scheduler block `job_podsets`, and the batch/Job annotation
// kueue.x-k8s.io/job-min-parallelism in `job_annotations`) and, from them, the PodSets of one
// job. A job's own pods (its `nodes` pods of gpus / nodes GPUs, or with `nodes` 0 one pod per
// GPU, as the TAS placement counts them) are the PodSet with count "job": it carries the job's
// GPUs; the other PodSets (a launcher, a head) ask for CPU, memory or other resources only, are
// charged to quota, and are not placed on nodes.
#include <string>
#include <vector>

#include "schedulers/kueue/podsets.hpp"
#include "schedulers/kueue/tas_place.hpp"
#include "sim/core/config_spec.hpp"
#include "sim/core/types.hpp"

namespace floorsim::kueue {

struct PodSetTemplate {
  std::string name;
  bool job_pods = false;  // count "job": the job's own pods, with its GPUs
  int32_t count = 1;      // pods (fixed PodSets)
  int32_t min_count = 0;  // minCount (0: none)
  Request per_pod{};      // the block's `requests`, in the model's units
};

struct ClassPodSets {
  std::vector<PodSetTemplate> sets;  // empty: the class's jobs have one PodSet, never partial
  size_t job_set = 0;                // index of the job's own pods
  bool any() const { return !sets.empty(); }
};

// By class StrId. `resources` are the model's resource names; bad input is an InputError at
// /scheduler/job_podsets/CLASS/... .
std::vector<ClassPodSets> read_job_podsets(const cfg::json& block, const std::vector<JobAnnotations>& ann,
                                           const StringTable& strings, const std::string& file,
                                           const std::vector<std::string>& resources, int gpu_kind,
                                           std::vector<std::string>& warnings);

// The job's pods: `nodes` pods when its GPUs divide evenly over them, else one per GPU (one pod
// for a job without GPUs).
int32_t job_pods(const JobSpec& js);

// The PodSets of job `js`: the job's own pods ask for `per_gpu` per GPU, `gpu_kind` GPUs and
// their share of `per_job` (rounded up per pod), plus the block's requests.
PodSets podsets_of(const ClassPodSets& c, const JobSpec& js, int gpu_kind, const Request& per_gpu, const Request& per_job,
                   uint64_t untolerated);

}  // namespace floorsim::kueue
