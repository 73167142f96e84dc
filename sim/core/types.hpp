#pragma once
// Value types shared by every area: simulated time, job specs, interned strings.
// Jobs live in one flat std::vector<JobSpec>; everything refers to them by JobIdx.
#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace floorsim {

using SimTime = double;    // simulated seconds since the scenario's epoch
using JobIdx = uint32_t;   // index into Workload::jobs (not the trace's job id)
using NodeIdx = uint32_t;  // index into the cluster's node table
using StrId = uint32_t;    // interned string; 0 is always the empty string

inline constexpr SimTime kNever = std::numeric_limits<double>::infinity();
inline constexpr JobIdx kNoJob = std::numeric_limits<JobIdx>::max();

// Interns names (users, accounts, classes, QOS, partitions) so that JobSpec stays flat.
// Ids are dense and stable in insertion order, so outputs do not depend on hashing.
class StringTable {
 public:
  StringTable() { intern(""); }
  StringTable(const StringTable& o) { *this = o; }
  StringTable& operator=(const StringTable& o) {
    if (this == &o) return *this;
    store_.clear();
    index_.clear();
    for (const auto& s : o.store_) intern(s);
    return *this;
  }
  StringTable(StringTable&&) = default;
  StringTable& operator=(StringTable&&) = default;

  StrId intern(std::string_view s) {
    if (auto it = index_.find(s); it != index_.end()) return it->second;
    store_.emplace_back(s);  // deque: references stay valid, so the key view does too
    const auto id = static_cast<StrId>(store_.size() - 1);
    index_.emplace(std::string_view(store_.back()), id);
    return id;
  }
  // Returns the id of s, or nullopt-like kMissing when it was never interned.
  static constexpr StrId kMissing = std::numeric_limits<StrId>::max();
  StrId find(std::string_view s) const {
    auto it = index_.find(s);
    return it == index_.end() ? kMissing : it->second;
  }
  const std::string& str(StrId id) const { return store_[id]; }
  size_t size() const { return store_.size(); }

 private:
  std::deque<std::string> store_;
  std::unordered_map<std::string_view, StrId> index_;
};

// What a job asks for and how long it really runs. Running state lives in the engine (JobRun).
struct JobSpec {
  int64_t id = 0;                     // the trace's job id, kept in every output
  SimTime submit_s = 0;               // when the job enters the queue
  SimTime runtime_s = 0;              // wall time it needs if never interrupted
  SimTime time_limit_s = kNever;      // requested limit; planners (backfill) use this, not runtime
  SimTime deadline_s = kNever;        // absolute deadline for deadline-bound classes
  SimTime checkpoint_interval_s = 0;  // 0 = never checkpoints: an interruption loses all work
  SimTime recorded_start_s = -1;      // start recorded in the trace (-1 = unknown), for validation
  int32_t gpus = 0;                   // total GPUs (SWF: processors)
  int32_t nodes = 0;                  // 0 = any nodes; >0 = exactly this many nodes (gang)
  int32_t cpus = 0;                   // total CPUs over all nodes (Slurm ReqCPUS); 0 = not given
  int32_t gpu_milli = 0;              // fractional GPU share in 1/1000 (0 = whole GPUs); with it gpus == 1
  int32_t priority = 0;               // priority from the trace or the class (k8s PriorityClass value)
  StrId user = 0, account = 0, klass = 0, qos = 0, partition = 0;
  bool preemptible = false;
  bool requeueable = true;            // Slurm JobRequeue=1 default
  int16_t gpu_milli_limit = 0;        // burst maximum of a fractional share (0 = the request); fits the padding
  // Memory request in MiB (Slurm counts memory in MB = MiB), with what it is per, as sbatch(1)
  // --mem (per node), --mem-per-cpu, --mem-per-gpu. MemPer::None: not given; where nodes have
  // consumable memory Slurm then applies DefMemPerNode, whose default (0, "unlimited") gives
  // the job all the memory of each node it uses (slurm.conf(5) DefMemPerNode; sbatch(1) --mem=0).
  enum class MemPer : uint8_t { None, Node, Cpu, Gpu };
  MemPer mem_per = MemPer::None;
  int32_t mem_mib = 0;  // up to 2 PiB
};

// A set of jobs sorted by (submit_s, id) plus the strings they refer to.
struct Workload {
  std::vector<JobSpec> jobs;
  StringTable strings;
};

}  // namespace floorsim
