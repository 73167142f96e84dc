#pragma once
// CPUs and memory on nodes for the Kubernetes models (kueue, kai): a job's pods ask for cpu and
// memory besides GPUs, and a node holds them only while it has them free (kube-scheduler's
// NodeResourcesFit filter). The engine owns the real counts (ClusterView::free_cpus,
// free_mem_mib); a model keeps a pass copy here, takes from it as it starts jobs, and gives
// back what victims free, as it does with its free-GPU vector.
//
// Units. Node CPUs are whole cores (cluster.node_groups cpus_per_node), node memory MiB. A
// job's ask is a total in millicores and MiB, split over its node shares: by GPUs for a GPU job
// (a share of g of its G GPUs asks g/G of it), evenly over its pods for a CPU-only job (one pod
// when its node count is 0). A share's CPUs are rounded up to whole cores (a 100m pod holds one
// core of a node; the quota still charges 100m), its memory up to whole MiB.
#include <cstdint>
#include <span>
#include <vector>

#include <string>

#include "sim/core/cluster.hpp"
#include "sim/core/scheduler_api.hpp"

namespace floorsim::placement {

// What a job's pods ask of nodes besides GPUs, in total over all its pods.
struct NodeAsk {
  int64_t cpu_milli = 0;
  int64_t mem_mib = 0;
  bool any() const { return cpu_milli > 0 || mem_mib > 0; }
};

// The pods of a CPU-only job (gpus == 0): its node count, or one.
inline int32_t cpu_only_pods(const JobSpec& js) { return js.nodes > 0 ? js.nodes : 1; }

// The memory a job's own fields ask in all, MiB: mem_per_node_mib per pod (its node count, or
// one), mem_per_cpu_mib x cpus, mem_per_gpu_mib x gpus; 0 when none is given. (The Kubernetes
// models take a job's memory as its pods' memory request.)
inline int64_t job_mem_mib(const JobSpec& js) {
  switch (js.mem_per) {
    case JobSpec::MemPer::Node: return static_cast<int64_t>(js.mem_mib) * (js.nodes > 0 ? js.nodes : 1);
    case JobSpec::MemPer::Cpu: return static_cast<int64_t>(js.mem_mib) * js.cpus;
    case JobSpec::MemPer::Gpu: return static_cast<int64_t>(js.mem_mib) * js.gpus;
    case JobSpec::MemPer::None: break;
  }
  return 0;
}

// Whole cores and MiB one share asks: `part` of `whole` (GPUs of the share / of the job, or
// 1 / pods), rounded up.
int32_t share_cpus(int64_t cpu_milli, int64_t part, int64_t whole);
int32_t share_mem(int64_t mem_mib, int64_t part, int64_t whole);

// Load-time fit check: can `job`, its pods asking `ask` besides GPUs, ever be placed on
// `cluster` (every node up and idle) by NodeResources::first_fit? Empty when it can (or asks
// nothing of nodes, or no node gives CPUs or memory); else why not, naming what the job asks
// per node and the largest node, for the caller's one-line refusal. A model whose job would
// never fit would leave it pending forever (KAI) or deactivate it after waitForPodsReady
// (Kueue), so the scenario is refused instead. GPUs alone are checked by the caller.
std::string never_fits(const JobSpec& job, const NodeAsk& ask, const ClusterConfig& cluster);

class NodeResources {
 public:
  // The pass copy: the view's free CPUs and memory, and which nodes track them (capacity > 0).
  void reset(const ClusterView& c);
  // Every up node's full capacity as free (can the job ever fit here).
  void reset_capacity(const ClusterView& c);
  // Some node tracks CPUs or memory: an ask can bind.
  bool binds() const { return binds_; }
  // First fit (placement::first_fit's rules) of `job` on the GPUs `free` and the CPUs and
  // memory here, on nodes with allowed[n] != 0 (empty: all). A GPU job that asks nothing here,
  // or a cluster that tracks neither, is placed by GPUs alone, exactly as placement::first_fit.
  // A CPU-only job takes cpu_only_pods(job) up nodes, one share of 0 GPUs each.
  bool first_fit(const JobSpec& job, const NodeAsk& ask, std::span<const int32_t> free, std::span<const uint8_t> allowed,
                 std::vector<NodeShare>& out, int32_t max_node_gpus) const;
  // Fills the CPUs and memory of shares placed by GPUs alone (topology-aware placement) from
  // `ask`, split by GPUs over `gpus`; false when some node does not have them free.
  bool fill(std::span<NodeShare> shares, const NodeAsk& ask, int32_t gpus) const;
  // Takes (give: returns) the CPUs and memory of a placement.
  void take(std::span<const NodeShare> p) { move(p, -1); }
  void give(std::span<const NodeShare> p) { move(p, 1); }

 private:
  bool fits(size_t n, int32_t cpus, int32_t mem) const {
    return (cpus_.empty() || cap_cpus_[n] <= 0 || cpus <= cpus_[n]) && (mem_.empty() || cap_mem_[n] <= 0 || mem <= mem_[n]);
  }
  NodeShare share(size_t n, int32_t gpus, int32_t cpus, int32_t mem) const;
  void move(std::span<const NodeShare> p, int sign);
  std::vector<int32_t> cpus_, mem_, cap_cpus_, cap_mem_;
  std::vector<uint8_t> up_;
  bool binds_ = false;
};

}  // namespace floorsim::placement
