#pragma once
// The pieces of the slurm.conf reader (slurm_conf.cpp), one file per mechanism: the keys of
// slurm.conf(5) and what each does here (conf_keys.cpp), the NodeName, NodeSet and PartitionName
// lines (conf_nodes.cpp). Every warning is one line "FILE:LINE: what; what floorsim assumes".
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "schedulers/slurm/config.hpp"

namespace floorsim::slurm::conf {

using Words = std::vector<std::pair<std::string, std::string>>;

// Warnings of one reading, in file order.
struct Notes {
  std::vector<std::string> lines;
  void add(const std::string& file, int ln, const std::string& msg);
};

// One Key=Value of a slurm.conf line other than NodeName, NodeSet, PartitionName, DownNodes and
// Include: a modelled key takes effect, a key irrelevant to scheduling is accepted quietly, a
// key that changes scheduling but is not modelled gets its own warning, an unknown key a warning.
void setting(const std::string& key, const std::string& v, SlurmConfig& cfg, const std::string& file, int ln, Notes& notes);

// The slurm.conf keys of slurm.conf(5) accepted quietly: they do not change which job starts
// where or when (daemons, ports, paths, logging, accounting storage, launch and task plugins).
bool quiet_key(const std::string& lower_key);

// DefCpuPerGPU, DefMemPerCPU, DefMemPerGPU, DefMemPerNode (global or on a PartitionName line)
// into d; false when `lower_key` is none of them.
bool job_default(const std::string& lower_key, const std::string& key, const std::string& v, JobDefaults& d,
                 const std::string& file, int ln);

// MaxMemPerCPU, MaxMemPerNode (global or on a PartitionName line) into m; false when
// `lower_key` is neither. 0 and UNLIMITED mean no limit.
bool mem_limit(const std::string& lower_key, const std::string& key, const std::string& v, MemLimit& m,
               const std::string& file, int ln);

// NodeName, NodeSet and PartitionName lines; DEFAULT lines set the defaults of the lines after
// them (parse_config.c). Partition node lists are resolved once the whole file has been read,
// since a NodeSet may be defined after the partition that names it.
struct NodeLines {
  NodeDef node_defaults;
  Partition part_defaults;
  std::string part_nodes_default;
  std::unordered_set<std::string> seen_nodes;
  std::vector<std::string> part_nodes;  // as written, by partition (index in cfg.partitions)

  void node(const Words& kv, SlurmConfig& cfg, const std::string& file, int ln, Notes& notes);
  void nodeset(const Words& kv, SlurmConfig& cfg, const std::string& file, int ln, Notes& notes);
  void partition(const Words& kv, SlurmConfig& cfg, const std::string& file, int ln, Notes& notes);
  // Partition Nodes= (host lists, NodeSet names, ALL) into node names; warnings for nodes
  // slurmctld would not schedule on as written (State=DOWN, DRAIN, FUTURE, CLOUD).
  void resolve(SlurmConfig& cfg, Notes& notes) const;
  static void drop_future(SlurmConfig& cfg);
};

}  // namespace floorsim::slurm::conf
