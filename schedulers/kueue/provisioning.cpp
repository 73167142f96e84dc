// The ProvisioningRequest admission check: retry rule, managed resources, seeded failures
// (pkg/controller/admissionchecks/provisioning/controller.go, pkg/workload UpdateRequeueState,
// pkg/util/admissioncheck ConfigHelper).
#include "schedulers/kueue/provisioning.hpp"

#include <algorithm>
#include <cmath>

#include "traces/synthetic.hpp"

namespace floorsim::kueue {

AfterFailure after_failure(const ProvisioningCheck& c, uint32_t attempt) {
  AfterFailure a;
  if (static_cast<int64_t>(attempt) > c.backoff_limit_count) return a;
  a.retry = true;
  a.backoff_s = std::min(c.backoff_base_s * std::ldexp(1.0, static_cast<int>(attempt) - 1), c.backoff_max_s);
  return a;
}

bool request_needed(const std::vector<std::string>& managed, const std::vector<std::string>& requested) {
  if (managed.empty()) return true;
  for (const auto& r : requested)
    if (std::find(managed.begin(), managed.end(), r) != managed.end()) return true;
  return false;
}

bool attempt_fails(uint64_t seed, uint32_t job, uint32_t attempt, double probability) {
  if (probability <= 0) return false;
  if (probability >= 1) return true;
  // Streams of their own, away from the workload's and the capacity blocks' draws.
  traces::Rng rng(seed, 9100000007ULL + (static_cast<uint64_t>(job) << 8) + attempt);
  return rng.uniform() < probability;
}

std::string resolve_provisioning(const Manifests& mf, const AdmissionCheckObj& ac, ProvisioningCheck& out) {
  out = {};
  out.check = ac.name;
  if (ac.parameters_name.empty()) return "missing parameters reference";
  if (!ac.parameters_kind.empty() && ac.parameters_kind != "ProvisioningRequestConfig")
    return "bad parameters reference (kind " + ac.parameters_kind + "; expected ProvisioningRequestConfig)";
  auto it = std::find_if(mf.provisioning_configs.begin(), mf.provisioning_configs.end(),
                         [&](const ProvisioningConfigObj& c) { return c.name == ac.parameters_name; });
  if (it == mf.provisioning_configs.end())
    return "ProvisioningRequestConfig " + ac.parameters_name + " is not in the manifests";
  out.config = it->name;
  out.managed_resources = it->managed_resources;
  out.backoff_limit_count = it->backoff_limit_count;
  out.backoff_base_s = it->backoff_base_s;
  out.backoff_max_s = it->backoff_max_s;
  return "";
}

Provisioner::Provisioner(std::map<std::string, ProvisioningCheck> by_cq, double delay_s, double failure_probability,
                         uint64_t seed, size_t jobs)
    : by_cq_(std::move(by_cq)), delay_s_(delay_s), failure_probability_(failure_probability), seed_(seed) {
  ready_.assign(jobs, 0);
  started_.assign(jobs, 0);
  wait_s_.assign(jobs, 0);
  attempts_.assign(jobs, 0);
  failures_.assign(jobs, 0);
  fails_.assign(jobs, 0);
  retrying_.assign(jobs, 0);
  check_.assign(jobs, nullptr);
}

bool Provisioner::start(uint32_t j, const std::string& cq, const std::vector<std::string>& requested, double now) {
  retrying_[j] = 0;
  auto it = by_cq_.find(cq);
  if (it == by_cq_.end() || delay_s_ <= 0 || !request_needed(it->second.managed_resources, requested)) return false;
  const uint32_t attempt = ++attempts_[j];
  check_[j] = &it->second;
  fails_[j] = attempt_fails(seed_, j, attempt, failure_probability_) ? 1 : 0;
  started_[j] = now;
  ready_[j] = now + delay_s_;
  return true;
}

Provisioner::Done Provisioner::finish(uint32_t j, double now) {
  Done d;
  wait_s_[j] += std::min(now, ready_[j]) - started_[j];
  ready_[j] = 0;
  if (!fails_[j]) return d;
  d.passed = false;
  ++failures_[j];
  d.next = after_failure(*check_[j], attempts_[j]);
  if (d.next.retry) retrying_[j] = 1;
  else ++rejected_;
  return d;
}

void Provisioner::cancel(uint32_t j, double now) {
  if (!ready_[j]) return;
  wait_s_[j] += std::min(now, ready_[j]) - started_[j];
  ready_[j] = 0;
}

}  // namespace floorsim::kueue
