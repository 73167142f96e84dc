#include "sim/app/fabric_coupling.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "sim/app/scenario.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"

namespace floorsim::app {
namespace fs = std::filesystem;
using namespace cfg;

std::shared_ptr<const ObjectSpec> fabric_coupling_spec() {
  auto traffic = std::make_shared<ObjectSpec>();
  traffic->name = "class_traffic";
  traffic->doc = "how a class's jobs communicate";
  traffic->fields = {
      choice("pattern", {"training_allreduce", "var_gather", "ring_allreduce", "all_to_all", "incast"}, "training_allreduce",
             "collective: training_allreduce = ring all-reduce over the job's nodes, var_gather = incast to its first node"),
      number("bytes_per_collective", nullptr, "bytes per collective (ring: the buffer all-reduced; gather: per node)")
          .at_least(0).in_unit("bytes").must(),
      number("comm_fraction", nullptr, "share of the job's trace runtime spent in this collective on an idle fabric")
          .at_least(0).at_most(1).must()};
  auto s = std::make_shared<ObjectSpec>();
  s->name = "fabric";
  s->doc = "fabric contention stretches communicating jobs' runtimes (cluster node i = fabric host i)";
  s->fields = {string("file", nullptr, "fabric scenario (the format `floorsim fabric` reads), relative to this file").must(),
               map_of("traffic", traffic, "class name -> its collective; classes not listed do not communicate")};
  return s;
}

FabricRuntime::FabricRuntime(const FabricCoupling& c) : fab_(c.fabric), by_class_(c.by_class) {}

double FabricRuntime::stretch(JobIdx j, std::span<const NodeShare> placement, const Snapshot& v) {
  const StrId k = v.jobs[j].klass;
  if (k >= by_class_.size() || !by_class_[k].communicates || by_class_[k].comm_fraction == 0) return 1.0;
  // Every running communicating job's traffic, the new job's at a known position.
  running_.clear();
  size_t self = 0;
  for (JobIdx r : v.running) {
    const StrId rk = v.jobs[r].klass;
    if (rk >= by_class_.size() || !by_class_[rk].communicates) continue;
    if (r == j) self = running_.size();
    fabric::JobTraffic t;
    t.pattern = by_class_[rk].pattern;
    t.bytes = by_class_[rk].bytes_per_collective;
    for (const auto& s : (r == j ? placement : v.allocation_of(r))) t.hosts.push_back(s.node);
    running_.push_back(std::move(t));
  }
  const auto comm = fabric::job_comm(fab_->topology, healthy_, fab_->routing, running_, solver_);
  const auto& mine = comm[self];
  ++evaluated_;
  double slowdown = mine.slowdown;
  if (mine.disconnected_flows > 0 || !std::isfinite(slowdown)) {
    ++disconnected_;
    slowdown = 1.0;  // no live path: counted in the report, not guessed into the runtime
  }
  slowdown_sum_ += slowdown;
  slowdown_max_ = std::max(slowdown_max_, slowdown);
  const double f = by_class_[k].comm_fraction;
  const double s = (1 - f) + f * slowdown;
  stretch_max_ = std::max(stretch_max_, s);
  return s;
}

nlohmann::json FabricRuntime::report() const {
  return {{"fabric", fab_->name},
          {"routing", fabric::routing_name(fab_->routing.mode)},
          {"starts_evaluated", evaluated_},
          {"disconnected_starts", disconnected_},
          {"mean_slowdown", evaluated_ ? slowdown_sum_ / static_cast<double>(evaluated_) : 1.0},
          {"max_slowdown", slowdown_max_},
          {"max_stretch", stretch_max_}};
}

FabricCoupling load_fabric_coupling(const nlohmann::json& block, const std::string& base_dir, const std::string& file,
                                    const Workload& w, const ClusterConfig& cluster) {
  if (block.is_null()) return {};
  fs::path p = block["file"].get<std::string>();
  if (p.is_relative()) p = fs::path(base_dir) / p;
  const std::string path = p.lexically_normal().string();
  fabric::FabricScenario fab = fabric::parse_fabric_scenario(parse_json_text(io::read_file(path), path), path);
  if (cluster.nodes() > fab.topology.hosts())
    fail(file, "/fabric/file",
         fmt::format("the fabric has {} hosts but the cluster has {} nodes; expected at least one host per node",
                     fab.topology.hosts(), cluster.nodes()));
  std::vector<ClassTraffic> by_class(w.strings.size());
  for (auto it = block["traffic"].begin(); it != block["traffic"].end(); ++it) {
    const StrId k = w.strings.find(it.key());
    if (k == StringTable::kMissing) continue;  // a class with no jobs
    ClassTraffic& c = by_class[k];
    c.communicates = true;
    const std::string pat = it.value()["pattern"];
    fabric::parse_pattern(pat, c.pattern);
    c.bytes_per_collective = it.value()["bytes_per_collective"];
    c.comm_fraction = it.value()["comm_fraction"];
  }
  return {std::make_shared<const fabric::FabricScenario>(std::move(fab)), std::move(by_class)};
}

}  // namespace floorsim::app
