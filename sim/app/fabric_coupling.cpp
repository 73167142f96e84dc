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
  auto timed = std::make_shared<ObjectSpec>(*fabric::failure_spec());
  timed->name = "fabric failure";
  timed->doc = "a link, switch or pod lost for a while: exactly one of switch, link, pod";
  timed->fields.insert(timed->fields.begin(),
                       {number("at_s", nullptr, "failure time").at_least(0).in_unit("s").must(),
                        number("duration_s", nullptr, "until it is repaired (null = for the rest of the run)")
                            .at_least(1).in_unit("s").or_null()});
  auto s = std::make_shared<ObjectSpec>();
  s->name = "fabric";
  s->doc = "fabric contention stretches communicating jobs' runtimes (cluster node i = fabric host i)";
  s->fields = {string("file", nullptr, "fabric scenario (the format `floorsim fabric` reads), relative to this file").must(),
               map_of("traffic", traffic, "class name -> its collective; classes not listed do not communicate"),
               array_of("failures", timed, "timed link/switch/pod failures; jobs started meanwhile route around them")};
  return s;
}

FabricRuntime::FabricRuntime(const FabricCoupling& c) : fab_(c.fabric), by_class_(c.by_class), failures_(c.failures) {
  for (uint32_t i = 0; i < failures_.size(); ++i) {
    changes_.push_back({failures_[i].at_s, 0, i});
    if (failures_[i].until_s != kNever) changes_.push_back({failures_[i].until_s, 1, i});
  }
  std::sort(changes_.begin(), changes_.end(), [](const Change& a, const Change& b) {
    if (a.t != b.t) return a.t < b.t;
    if (a.up != b.up) return a.up > b.up;  // recoveries first
    return a.failure < b.failure;
  });
  failure_stats_.resize(failures_.size());
}

void FabricRuntime::advance_to(SimTime now) {
  while (next_change_ < changes_.size() && changes_[next_change_].t <= now) {
    const Change& c = changes_[next_change_++];
    if (dead_count_.empty()) {
      dead_count_.assign(fab_->topology.links(), 0);
      live_.link_dead.assign(fab_->topology.links(), 0);
    }
    for (uint64_t l : failures_[c.failure].links) {
      dead_count_[l] = static_cast<uint16_t>(dead_count_[l] + (c.up ? -1 : 1));
      live_.link_dead[l] = dead_count_[l] > 0;
    }
  }
}

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
  advance_to(v.now);
  const auto comm = fabric::job_comm(fab_->topology, live_, fab_->routing, running_, solver_);
  const auto& mine = comm[self];
  ++evaluated_;
  double slowdown = mine.slowdown;
  const bool disconnected = mine.disconnected_flows > 0 || !std::isfinite(slowdown);
  if (disconnected) {
    ++disconnected_;
    slowdown = 1.0;  // no live path: counted in the report, not guessed into the runtime
  }
  for (size_t i = 0; i < failures_.size(); ++i)
    if (failures_[i].at_s <= v.now && v.now < failures_[i].until_s) {
      FailureStats& fs = failure_stats_[i];
      ++fs.starts;
      fs.disconnected += disconnected;
      fs.slowdown_sum += slowdown;
      fs.slowdown_max = std::max(fs.slowdown_max, slowdown);
    }
  slowdown_sum_ += slowdown;
  slowdown_max_ = std::max(slowdown_max_, slowdown);
  const double f = by_class_[k].comm_fraction;
  const double s = (1 - f) + f * slowdown;
  stretch_max_ = std::max(stretch_max_, s);
  return s;
}

nlohmann::json FabricRuntime::report() const {
  nlohmann::json fl = nlohmann::json::array();
  for (size_t i = 0; i < failures_.size(); ++i) {
    const FailureStats& fs = failure_stats_[i];
    fl.push_back({{"what", failures_[i].what},
                  {"at_s", failures_[i].at_s},
                  {"until_s", failures_[i].until_s == kNever ? nlohmann::json() : nlohmann::json(failures_[i].until_s)},
                  {"links_dead", failures_[i].links.size()},
                  {"starts_during", fs.starts},
                  {"disconnected_starts_during", fs.disconnected},
                  {"mean_slowdown_during", fs.starts ? fs.slowdown_sum / static_cast<double>(fs.starts) : 1.0},
                  {"max_slowdown_during", fs.slowdown_max}});
  }
  return {{"fabric", fab_->name},
          {"failures", std::move(fl)},
          {"routing", fabric::routing_name(fab_->routing.mode)},
          {"starts_evaluated", evaluated_},
          {"disconnected_starts", disconnected_},
          {"mean_slowdown", evaluated_ ? slowdown_sum_ / static_cast<double>(evaluated_) : 1.0},
          {"max_slowdown", slowdown_max_},
          {"max_stretch", stretch_max_}};
}

std::vector<std::vector<uint32_t>> fabric_switch_tree(const FabricCoupling& c, size_t nodes) {
  std::vector<std::vector<uint32_t>> out;
  if (!c.fabric) return out;
  const fabric::Topology& t = c.fabric->topology;
  for (uint32_t l = 1; l <= t.h(); ++l) {
    std::vector<uint32_t> g(nodes);
    for (size_t n = 0; n < nodes; ++n) g[n] = static_cast<uint32_t>(n / t.subtree[l]);  // M_l hosts per subtree
    out.push_back(std::move(g));
  }
  return out;
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
  // No "traffic" key: no class communicates (reading a missing key of a const json is undefined).
  const nlohmann::json traffic = block.value("traffic", nlohmann::json::object());
  for (auto it = traffic.begin(); it != traffic.end(); ++it) {
    const StrId k = w.strings.find(it.key());
    if (k == StringTable::kMissing) continue;  // a class with no jobs
    ClassTraffic& c = by_class[k];
    c.communicates = true;
    const std::string pat = it.value()["pattern"];
    fabric::parse_pattern(pat, c.pattern);
    c.bytes_per_collective = it.value()["bytes_per_collective"];
    c.comm_fraction = it.value()["comm_fraction"];
  }
  std::vector<TimedFabricFailure> failures;
  const json fl = block.contains("failures") ? block["failures"] : json::array();
  for (size_t i = 0; i < fl.size(); ++i) {
    fabric::FailureSet one;
    fabric::apply_failure(fab.topology, one, fl[i], child("/fabric/failures", i), file);
    TimedFabricFailure t;
    t.at_s = fl[i]["at_s"].get<double>();
    t.until_s = fl[i]["duration_s"].is_null() ? kNever : t.at_s + fl[i]["duration_s"].get<double>();
    for (uint64_t l = 0; l < one.link_dead.size(); ++l)
      if (one.link_dead[l]) t.links.push_back(l);
    for (const auto& w : one.what) t.what += (t.what.empty() ? "" : ", ") + w;
    failures.push_back(std::move(t));
  }
  return {std::make_shared<const fabric::FabricScenario>(std::move(fab)), std::move(by_class), std::move(failures)};
}

}  // namespace floorsim::app
