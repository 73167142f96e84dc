// The slurm.conf reader: its lines (src/common/parse_config.c: Key=Value words, Include, DEFAULT
// lines carried across included files) handed to the keys (conf_keys.cpp) and the NodeName,
// NodeSet and PartitionName lines (conf_nodes.cpp).
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>
#include <sstream>
#include <unordered_set>

#include <fmt/format.h>

#include "schedulers/slurm/conf_read.hpp"
#include "schedulers/slurm/conf_text.hpp"
#include "schedulers/slurm/config.hpp"
#include "sim/core/cluster.hpp"
#include "sim/core/error.hpp"
#include "sim/core/input.hpp"
#include "sim/core/io.hpp"

namespace floorsim::slurm {
using namespace conf;

void read_slurm_conf(const std::string& path, SlurmConfig& cfg) { read_slurm_conf_text(input::read_text(path), path, cfg); }

namespace {

// One slurm.conf and the files it includes. slurmctld parses an included file into the same
// table as the including one (parse_config.c s_p_parse_file), so node names and the DEFAULT
// lines carry across files.
struct ConfReader {
  struct Open {
    std::filesystem::path id;  // weakly canonical, to recognise a file reached again
    std::string shown;         // as named in messages
  };
  SlurmConfig& cfg;
  NodeLines lines;
  std::vector<Open> chain;  // the files being read, outermost first
  Notes notes;              // added after the whole configuration's

  bool read(const std::string& text, const std::string& file);  // false: no settings in it
  void include(const std::string& line, const std::string& file, int ln);
};

// "Include FILE" (slurm.conf(5), "Include"): FILE is read in place of the line. As in
// parse_config.c, a relative FILE is relative to the including file's directory and "%c" stands
// for the ClusterName set above, lowercased. slurmctld loops on a file that includes itself;
// here that is an error.
void ConfReader::include(const std::string& line, const std::string& file, int ln) {
  namespace fs = std::filesystem;
  std::istringstream words(line.substr(7));
  std::string name, rest;
  words >> name;
  if (words >> rest) bad(file, ln, fmt::format("Include {} {}: text after the file name; expected Include FILE", name, rest));
  for (size_t at; (at = name.find("%c")) != std::string::npos;) {
    if (cfg.cluster_name.empty())
      bad(file, ln, fmt::format("Include {}: %c stands for ClusterName, which is not set above this line; expected ClusterName= first", name));
    name.replace(at, 2, lower(cfg.cluster_name));
  }
  fs::path path(name);
  if (path.is_relative()) path = fs::path(file).parent_path() / path;
  const std::string shown = path.lexically_normal().string();
  std::error_code ec;
  if (!fs::exists(path, ec))
    bad(file, ln, fmt::format("Include {}: {} does not exist; expected a file (a relative name is read from this file's directory)", name, shown));
  if (!fs::is_regular_file(path, ec)) bad(file, ln, fmt::format("Include {}: {} is not a regular file; expected a slurm.conf file", name, shown));
  const fs::path id = fs::weakly_canonical(path, ec);
  for (const auto& o : chain) {
    if (o.id != id) continue;
    std::string cycle;
    for (const auto& c : chain) cycle += c.shown + " -> ";
    bad(file, ln, fmt::format("Include {}: the file includes itself ({}{}); expected Includes without a cycle", name, cycle, shown));
  }
  chain.push_back({id, shown});
  read(input::read_text(path.string()), shown);  // an empty included file is allowed (slurmctld only logs it)
  chain.pop_back();
}

bool ConfReader::read(const std::string& text, const std::string& file) {
  io::check_utf8(text, file);
  bool any_line = false;
  for (const auto& L : logical_lines(text)) {
    any_line = true;
    const int ln = L.number;
    if (L.text.size() > 7 && lower(L.text.substr(0, 7)) == "include" && std::isspace(static_cast<unsigned char>(L.text[7]))) {
      include(L.text, file, ln);
      continue;
    }
    auto kv = kv_tokens(L.text, file, ln);
    if (kv.empty()) continue;
    const std::string first = lower(kv[0].first);
    const bool named = first == "nodename" || first == "partitionname" || first == "nodeset";
    // "NodeName= CPUs=4": parse_config.c would take "CPUs=4" as the name; a name holding '=' is
    // a missing one.
    if (named && (kv[0].second.empty() || kv[0].second.find('=') != std::string::npos)) bad(file, ln, fmt::format("'{}' has no value; expected {}=NAME", kv[0].first, kv[0].first));
    if (first == "nodename") lines.node(kv, cfg, file, ln, notes);
    else if (first == "partitionname") lines.partition(kv, cfg, file, ln, notes);
    else if (first == "nodeset") lines.nodeset(kv, cfg, file, ln, notes);
    else if (first == "downnodes" || first == "frontendname")
      notes.add(file, ln, fmt::format("{}={} is not modelled; floorsim starts every node up (failures come from the scenario)", kv[0].first, kv[0].second));
    else
      for (const auto& [key, v] : kv) setting(key, v, cfg, file, ln, notes);
  }
  return any_line;
}

}  // namespace

void read_slurm_conf_text(const std::string& text, const std::string& file, SlurmConfig& cfg) {
  ConfReader reader{cfg, {}, {}, {}};
  std::error_code ec;
  reader.chain.push_back({std::filesystem::weakly_canonical(file, ec), file});
  const bool any_line = reader.read(text, file);
  // priority_multifactor.c init(): without slurmdbd there is no usage history, so the age and
  // fair-share weights are dropped, with slurmctld's own error (seen live on 22.05).
  if (!cfg.accounting_storage_type.empty() && cfg.accounting_storage_type != "accounting_storage/slurmdbd") {
    if (cfg.prio.weight_age != 0) cfg.warnings.push_back(file + ": PriorityWeightAge can only be used with SlurmDBD, ignoring");
    if (cfg.prio.weight_fairshare != 0) cfg.warnings.push_back(file + ": PriorityWeightFairshare can only be used with SlurmDBD, ignoring");
    cfg.prio.weight_age = cfg.prio.weight_fairshare = 0;
  }
  // An explicitly named slurm.conf with no settings is a wrong path or an emptied file.
  if (!any_line) bad(file, 1, "no settings; expected slurm.conf lines (Key=Value ...)");
  reader.lines.resolve(cfg, reader.notes);
  cfg.warnings.insert(cfg.warnings.end(), reader.notes.lines.begin(), reader.notes.lines.end());
}

}  // namespace floorsim::slurm
