#pragma once
// Billable TRES: what a running job adds to its association's fair-share usage per second.
// slurm.conf(5) TRESBillingWeights (per partition) and PriorityFlags=MAX_TRES; slurmctld computes
// it in assoc_mgr_tres_weighted (src/common/assoc_mgr.c) from the job's allocated TRES.
#include <string>
#include <vector>

namespace floorsim::slurm {

struct BillingWeights {
  bool set = false;  // TRESBillingWeights given (else: billed by allocated CPUs)
  double cpu = 0, node = 0, gpu = 0, mem_per_mb = 0;
};

// Parses "CPU=1.0,Mem=0.25G,GRES/gpu=2.0" (names case-insensitive; a Mem weight may carry a
// unit suffix K/M/G/T: the weight per that many bytes, slurmctld stores it per MB). TRES that
// floorsim does not model (licenses, burst buffers, typed GRES) go to `unmodelled`: they bill 0.
// Returns an error text ("" = fine).
std::string parse_billing_weights(const std::string& text, BillingWeights& out, std::vector<std::string>& unmodelled);

// The job's billable TRES (TRES_ARRAY_BILLING). Without weights: its allocated CPUs. With
// MAX_TRES: the largest weighted node TRES (CPU, memory, node, GRES) instead of their sum;
// floorsim has no global TRES (licenses), which MAX_TRES would add.
double billable_tres(const BillingWeights& w, bool max_tres, double cpus, double gpus, double nodes, double mem_mb);

}  // namespace floorsim::slurm
