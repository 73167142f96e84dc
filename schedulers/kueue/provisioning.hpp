#pragma once
// The ProvisioningRequest admission check (Kueue docs: admission-check-controllers/provisioning;
// pkg/controller/admissionchecks/provisioning/controller.go). After quota reservation the check
// asks the cluster autoscaler for nodes; here that is a delay, `delay_s`, after which the
// attempt succeeds (the pods are created) or, with probability `failure_probability` (drawn from
// the scenario seed, per job and attempt), fails. A failed attempt n releases the quota and
// requeues the workload after min(backoffBaseSeconds 2^(n-1), backoffMaxSeconds) while
// n <= backoffLimitCount (check state Retry); past it the check is Rejected and the workload is
// deactivated.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "schedulers/kueue/manifest.hpp"

namespace floorsim::kueue {

// A ClusterQueue's ProvisioningRequest check with its resolved ProvisioningRequestConfig.
struct ProvisioningCheck {
  std::string check, config;
  std::vector<std::string> managed_resources;  // empty: every resource
  int32_t backoff_limit_count = 3;
  double backoff_base_s = 60, backoff_max_s = 1800;
};

// A failed attempt's outcome: requeue after `backoff_s`, or (retry false) rejected.
struct AfterFailure {
  bool retry = false;
  double backoff_s = 0;
};
// After failed attempt `attempt` (1-based), as syncCheckStates: retried while attempt <=
// backoffLimitCount, the requeue delay of workload.UpdateRequeueState without its jitter.
AfterFailure after_failure(const ProvisioningCheck& c, uint32_t attempt);

// Whether the workload needs a ProvisioningRequest (requiredPodSets): managedResources empty,
// or one of them among the resources it requests. Else the check is Ready at once.
bool request_needed(const std::vector<std::string>& managed, const std::vector<std::string>& requested);

// Whether attempt `attempt` of job `job` fails: a uniform draw of its own stream of `seed`, so
// that the outcome does not depend on the order of other draws.
bool attempt_fails(uint64_t seed, uint32_t job, uint32_t attempt, double probability);

// The ClusterQueue's ProvisioningRequest check, from its AdmissionCheck's parameters; "" and the
// check, or why the AdmissionCheck is inactive (Kueue: BadParametersRef, the ClusterQueue is
// then inactive).
std::string resolve_provisioning(const Manifests& mf, const AdmissionCheckObj& ac, ProvisioningCheck& out);

// The checks in flight, by job: when quota is reserved in a ClusterQueue with a check, an
// attempt starts; it ends `delay_s` later, passed or failed (decided when it starts, from the
// seed). Counts per job for jobs.csv and the report.
class Provisioner {
 public:
  Provisioner() = default;
  Provisioner(std::map<std::string, ProvisioningCheck> by_cq, double delay_s, double failure_probability, uint64_t seed,
              size_t jobs);

  bool any() const { return !by_cq_.empty(); }
  // Quota reserved for job `j` in ClusterQueue `cq` at `now`, the job requesting `requested`:
  // true when the check holds it until ready_at(j); false when it passes at once (no check,
  // no request needed, or delay_s 0).
  bool start(uint32_t j, const std::string& cq, const std::vector<std::string>& requested, double now);
  bool holding(uint32_t j) const { return ready_[j] > 0; }
  double ready_at(uint32_t j) const { return ready_[j]; }
  // The attempt in flight ends at `now` (>= ready_at): passed (nullopt-like: retry false and
  // passed true) or failed with Kueue's retry rule.
  struct Done {
    bool passed = true;
    AfterFailure next;
  };
  Done finish(uint32_t j, double now);
  // The workload lost its quota reservation (preempted) while provisioning: the attempt is dropped.
  void cancel(uint32_t j, double now);
  bool retrying(uint32_t j) const { return retrying_[j] != 0; }

  uint32_t attempts(uint32_t j) const { return attempts_[j]; }
  uint32_t failures(uint32_t j) const { return failures_[j]; }
  double wait_s(uint32_t j) const { return wait_s_[j]; }
  uint64_t rejected() const { return rejected_; }

 private:
  std::map<std::string, ProvisioningCheck> by_cq_;
  double delay_s_ = 0, failure_probability_ = 0;
  uint64_t seed_ = 1;
  std::vector<double> ready_, started_, wait_s_;
  std::vector<uint32_t> attempts_, failures_;
  std::vector<uint8_t> fails_, retrying_;
  std::vector<const ProvisioningCheck*> check_;
  uint64_t rejected_ = 0;
};

}  // namespace floorsim::kueue
