#pragma once
// Traffic from a run's job placements: `floorsim run`'s jobs.csv gives each job's class, start
// time and the nodes it actually got (node_list, Slurm hostlist form); each started job's
// collective over those nodes becomes flows arriving at the job's start_s, all solved together.
//
// Node names map to fabric hosts by `node_names` (the hosts' names in host-index order, as a
// Slurm hostlist: "gpu[01-16]"), the run's cluster order when the run's fabric was this one.
// What is assumed and said in the pack: one collective per job at its first start, over its
// final allocation (a requeued job's last nodes); the run's end times are not used.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fabric/routing.hpp"
#include "fabric/topology.hpp"
#include "fabric/traffic.hpp"

namespace floorsim::fabric {

struct JobCollective {
  Pattern collective = Pattern::RingAllReduce;  // RingAllReduce or AllToAll
  double bytes = 1e9;                           // ring: the buffer all-reduced; all-to-all: per pair
};

struct RunJobsOptions {
  std::vector<std::string> node_names;           // host i is named node_names[i]
  JobCollective every;                           // used when `by_class` is empty
  std::map<std::string, JobCollective> by_class;  // when given: only these classes' jobs
  uint32_t tag = 0;                              // copied into each Demand::tag
};

// One job whose collective reached the fabric.
struct RunJob {
  std::string job_id, klass;
  double start_s = 0;
  uint32_t hosts = 0;
  JobCollective collective;
  uint32_t first_demand = 0, demands = 0;  // its flows: demands[first .. first + demands)
};

struct RunJobsTraffic {
  std::vector<Demand> demands;
  std::vector<RunJob> jobs;      // with at least one fabric flow, in file order
  uint64_t rows = 0;             // jobs in the file
  uint64_t not_started = 0;      // no start time or no nodes
  uint64_t within_domain = 0;    // started on one NVLink domain: no fabric flow
  uint64_t other_class = 0;      // by_class given and not naming the job's class
};

// `text` is jobs.csv's content. Throws InputError(file, LINE, ...) for a missing column, a start
// time that is not a number or a node the fabric does not name.
RunJobsTraffic read_run_jobs(const Topology& t, const std::string& file, const std::string& text,
                             const RunJobsOptions& o);

}  // namespace floorsim::fabric
