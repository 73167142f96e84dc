#pragma once
// Traffic patterns as host-to-host demands, and the coupling to the scheduler: a job's
// communication time from where it was placed and from what else is running.
//
// NVLink domains (topology.hpp HostModel): hosts in one domain talk over NVLink, never the
// fabric, so pairs inside one domain produce no demand; collectives run hierarchically (the
// fabric ring is over domains, one member host per domain).
//
// Randomness: std::mt19937_64 (its output is fixed by the standard) with our own Fisher-Yates
// and modulo draws, so patterns are identical on every platform for a given seed.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fabric/maxmin.hpp"
#include "fabric/routing.hpp"
#include "fabric/topology.hpp"

namespace floorsim::fabric {

enum class Pattern {
  Uniform,        // each host sends flows_per_host flows to uniformly drawn other hosts
  Permutation,    // a random derangement of the hosts: each sends to one, receives from one
  RingAllReduce,  // ring over NVLink domains: each member sends 2(n-1)/n * bytes to the next
  AllToAll,       // every ordered pair of hosts (different domains), bytes each
  Incast,         // every host sends bytes to the first host (the root)
  Training,       // a training job's gradient all-reduce = RingAllReduce over its placement
  VarGather,      // a VaR job's result gather = Incast of bytes per host to its first host
};
const char* pattern_name(Pattern p);
bool parse_pattern(const std::string& s, Pattern& out);

struct TrafficSpec {
  Pattern pattern = Pattern::Permutation;
  std::vector<uint32_t> hosts;  // participating hosts (a placement); empty = every host
  double bytes = 1e9;           // per flow (ring: per all-reduce buffer; see Pattern)
  uint64_t seed = 1;
  uint32_t flows_per_host = 1;  // Uniform only
  double start_s = 0;           // all flows arrive at start_s
  uint32_t tag = 0;             // copied into Demand::tag
};

// The demands of one pattern, in a stable order (by source, then destination).
std::vector<Demand> make_traffic(const Topology& t, const TrafficSpec& spec);

// ---- Scheduler coupling (called by the engine when jobs start and end) ----
//
// A running job's communication: its placement (host indices) and one collective's volume.
struct JobTraffic {
  std::vector<uint32_t> hosts;
  Pattern pattern = Pattern::Training;  // Training, VarGather, AllToAll, RingAllReduce, Incast
  double bytes = 0;                     // per collective (ring: the buffer being all-reduced)
};

struct JobComm {
  double comm_time_s = 0;            // one collective with everything else running (steady state)
  double alone_time_s = 0;           // the same collective on an idle fabric
  double slowdown = 1;               // comm_time_s / alone_time_s (1 when the job has no fabric traffic)
  double effective_bytes_per_s = 0;  // the job's fabric bytes / comm_time_s (0: no fabric traffic)
  uint32_t disconnected_flows = 0;   // flows with no live path (placement on a lost pod)
};

// For every running job: its collective's time when all running jobs communicate at once, by one
// max-min solve over all their flows (steady state: rates held for the whole collective; a
// collective's time = its slowest flow's bytes / rate), and alone. The engine multiplies the
// communication share of a job's runtime by `slowdown`, so placement (hop count, shared links)
// and other tenants change runtimes. Deterministic; O(one solve + one solve per job).
std::vector<JobComm> job_comm(const Topology& t, const FailureSet& f, const RoutingOptions& o,
                              std::span<const JobTraffic> running, MaxMinSolver& solver);

// One job's collective time with background demands (other jobs' flows, bytes ignored:
// they are treated as long-lived), by one max-min solve.
double comm_time_s(const Topology& t, const FailureSet& f, const RoutingOptions& o, const JobTraffic& job,
                   std::span<const Demand> background, MaxMinSolver& solver);

}  // namespace floorsim::fabric
