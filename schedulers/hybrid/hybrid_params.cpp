// The "hybrid" scheduler block: the two models' own blocks, the node split, the class routing
// and the lending rule; validated here, so every error names the scenario file and the JSON
// pointer under /scheduler.
#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "schedulers/hybrid/hybrid.hpp"
#include "sim/core/error.hpp"

namespace floorsim::hybrid {
namespace {

using cfg::json;

const std::vector<std::string> kSlurmSide = {"slurm", "easy_backfill", "conservative_backfill", "fifo"};
const std::vector<std::string> kKubernetesSide = {"kueue", "kai"};
const char* kSideKey[2] = {"slurm", "kubernetes"};

// A side's block, resolved against its model's own spec (errors point under /scheduler/<side>).
json resolve_side(const json& b, int s, const std::string& ptr, const std::string& file) {
  const std::string p = cfg::child(ptr, kSideKey[s]);
  const auto& allowed = s == 0 ? kSlurmSide : kKubernetesSide;
  const std::string names = fmt::format("{}", fmt::join(allowed, ", "));
  if (!b.is_object()) cfg::fail(file, p, fmt::format("expected an object with a \"type\" (one of: {})", names));
  if (!b.contains("type") || !b["type"].is_string()) cfg::fail(file, cfg::child(p, "type"), fmt::format("missing; expected one of: {}", names));
  const std::string type = b["type"];
  if (std::find(allowed.begin(), allowed.end(), type) == allowed.end())
    cfg::fail(file, cfg::child(p, "type"), fmt::format("\"{}\" cannot run on the {} side; expected one of: {}", type, kSideKey[s], names));
  return cfg::resolve(b, *find_scheduler(type)->params(), p, file);
}

std::shared_ptr<const cfg::ObjectSpec> params_spec() {
  auto classes = cfg::obj("hybrid.classes", "which job classes each side schedules",
                          {cfg::array_of("slurm", cfg::Type::String, "classes scheduled by the Slurm side").with_default(json::array()),
                           cfg::array_of("kubernetes", cfg::Type::String, "classes scheduled by the Kubernetes side").with_default(json::array()),
                           cfg::choice("unlisted", {"slurm", "kubernetes", "error"}, "error",
                                       "the side of a job whose class is in neither list (error: refuse the scenario)")});
  classes->check = [](const json& r, const std::string& ptr, const std::string& file) {
    std::set<std::string> seen;
    for (const auto& c : r["slurm"]) seen.insert(c.get<std::string>());
    for (size_t i = 0; i < r["kubernetes"].size(); ++i)
      if (seen.count(r["kubernetes"][i].get<std::string>()))
        cfg::fail(file, cfg::child(cfg::child(ptr, "kubernetes"), i),
                  fmt::format("class \"{}\" is also listed for the Slurm side; expected each class on one side", r["kubernetes"][i].get<std::string>()));
  };
  auto lending = cfg::obj("hybrid.lending", "lend idle nodes to the other side and take them back",
                          {cfg::number("lend_after_s", 300.0, "a node idle this long, its side with nothing pending, may be lent").at_least(0).in_unit("s"),
                           cfg::choice("reclaim", {"drain", "preempt"}, "drain",
                                       "taking a lent node back: wait for the borrowed work to end, or requeue it after the grace time"),
                           cfg::number("reclaim_grace_s", 0.0, "preempt: the borrowed jobs run this long after the reclaim").at_least(0).in_unit("s")});
  auto s = cfg::obj("scheduler(hybrid)",
                    "a hybrid cluster: a Slurm-side and a Kubernetes-side model, each on its own nodes, jobs routed by class",
                    {cfg::string("type", "hybrid", "scheduler model").must(),
                     cfg::any("slurm", "the Slurm side's scheduler block: {\"type\": slurm, easy_backfill, conservative_backfill or fifo, ...}").must(),
                     cfg::any("kubernetes", "the Kubernetes side's scheduler block: {\"type\": kueue or kai, ...}").must(),
                     cfg::any("slurm_nodes", "the Slurm side's nodes: a count (the first nodes in cluster order) or a list of node names; "
                                             "the rest are the Kubernetes side's").must(),
                     cfg::object("classes", classes, "which job classes each side schedules"),
                     cfg::object("lending", lending, "lending of idle nodes between the sides (null = a static split)").or_null()});
  s->check = [](const json& r, const std::string& ptr, const std::string& file) {
    for (int side = 0; side < 2; ++side) resolve_side(r[kSideKey[side]], side, ptr, file);
    const json& sn = r["slurm_nodes"];
    const std::string p = cfg::child(ptr, "slurm_nodes");
    if (sn.is_number_integer()) {
      if (sn.get<int64_t>() < 1) cfg::fail(file, p, "expected at least 1 node");
    } else if (sn.is_array() && !sn.empty()) {
      for (size_t i = 0; i < sn.size(); ++i)
        if (!sn[i].is_string()) cfg::fail(file, cfg::child(p, i), "expected a node name");
    } else {
      cfg::fail(file, p, "expected a node count or a non-empty list of node names");
    }
  };
  return s;
}

std::vector<Side> node_homes(const json& sn, const ClusterConfig& c, const std::string& file) {
  const std::string p = "/scheduler/slurm_nodes";
  std::vector<Side> home(c.nodes(), Side::Kubernetes);
  if (sn.is_number_integer()) {
    const auto k = sn.get<int64_t>();
    if (k >= static_cast<int64_t>(c.nodes()))
      cfg::fail(file, p, fmt::format("{} of the cluster's {} nodes leaves none to the Kubernetes side; expected fewer", k, c.nodes()));
    std::fill(home.begin(), home.begin() + k, Side::Slurm);
    return home;
  }
  for (size_t i = 0; i < sn.size(); ++i) {
    const auto it = std::find(c.node_names.begin(), c.node_names.end(), sn[i].get<std::string>());
    if (it == c.node_names.end()) cfg::fail(file, cfg::child(p, i), fmt::format("no node \"{}\" in the cluster", sn[i].get<std::string>()));
    if (home[it - c.node_names.begin()] == Side::Slurm) cfg::fail(file, cfg::child(p, i), "node listed twice");
    home[it - c.node_names.begin()] = Side::Slurm;
  }
  if (std::none_of(home.begin(), home.end(), [](Side s) { return s == Side::Kubernetes; }))
    cfg::fail(file, p, "every node is the Slurm side's; expected some left to the Kubernetes side");
  return home;
}

std::vector<Side> job_sides(const json& classes, const SchedulerContext& ctx) {
  const Workload& w = ctx.workload;
  std::vector<Side> out(w.jobs.size());
  std::vector<int> of_class(w.strings.size(), -1);
  for (int s = 0; s < 2; ++s)
    for (const auto& c : classes[kSideKey[s]]) {
      const StrId id = w.strings.find(c.get<std::string>());
      if (id == StringTable::kMissing) {
        ctx.warn(fmt::format("{}: /scheduler/classes/{}: no job has class \"{}\"", ctx.scenario_file, kSideKey[s],
                             c.get<std::string>()));
        continue;
      }
      of_class[id] = s;
    }
  const std::string unlisted = classes["unlisted"];
  for (size_t j = 0; j < w.jobs.size(); ++j) {
    int s = of_class[w.jobs[j].klass];
    if (s < 0) {
      if (unlisted == "error")
        cfg::fail(ctx.scenario_file, "/scheduler/classes",
                  fmt::format("job {} has class \"{}\", in neither list; expected it listed for one side, or \"unlisted\" set",
                              w.jobs[j].id, w.strings.str(w.jobs[j].klass)));
      s = unlisted == "slurm" ? 0 : 1;
    }
    out[j] = static_cast<Side>(s);
  }
  return out;
}

// Builds a side's model. The models name their own keys as /scheduler/...: an error about
// the scenario is re-pointed under /scheduler/<side>, where the key really is.
std::unique_ptr<Scheduler> make_side(const json& resolved, const SchedulerContext& ctx, const std::string& key) {
  try {
    return find_scheduler(resolved["type"])->make(resolved, ctx);
  } catch (const InputError& e) {
    const std::string base = "/scheduler";
    if (e.file() != ctx.scenario_file || e.where().compare(0, base.size(), base) != 0 || e.where().rfind(base + "/" + key, 0) == 0) throw;
    const std::string head = (e.file().empty() ? std::string("<input>") : e.file()) + ":" + e.where() + ": ";
    const std::string what = e.what();
    throw InputError(e.file(), base + "/" + key + e.where().substr(base.size()), what.substr(std::min(head.size(), what.size())));
  }
}

std::unique_ptr<Scheduler> make(const json& r, const SchedulerContext& ctx) {
  const std::string& file = ctx.scenario_file;
  std::array<std::unique_ptr<Scheduler>, 2> side;
  for (int s = 0; s < 2; ++s) {
    const json resolved = resolve_side(r[kSideKey[s]], s, "/scheduler", file);
    SchedulerContext c = ctx;
    c.given = ctx.given && ctx.given->contains(kSideKey[s]) ? &(*ctx.given)[kSideKey[s]] : nullptr;
    side[s] = make_side(resolved, c, kSideKey[s]);
    if (side[s]->packs_gpu_fractions())
      cfg::fail(file, cfg::child(cfg::child("/scheduler", kSideKey[s]), "gpu_sharing"),
                "GPU sharing inside a hybrid cluster is not modelled (the other side holds whole GPUs); expected false");
  }
  Layout l;
  l.node_home = node_homes(r["slurm_nodes"], ctx.cluster, file);
  l.job_side = job_sides(r["classes"], ctx);
  if (!r["lending"].is_null()) {
    const json& lb = r["lending"];
    l.lending.enabled = true;
    l.lending.lend_after_s = lb["lend_after_s"];
    l.lending.reclaim = lb["reclaim"] == "preempt" ? Reclaim::Preempt : Reclaim::Drain;
    l.lending.reclaim_grace_s = lb["reclaim_grace_s"];
  }
  return make_hybrid(std::move(side[0]), std::move(side[1]), std::move(l));
}

}  // namespace

SchedulerEntry registry_entry() {
  return {"hybrid",
          "a hybrid cluster: Slurm-side and Kubernetes-side (kueue, kai) models on a node split, jobs routed by class, "
          "optional lending of idle nodes",
          params_spec, make, {}};
}

}  // namespace floorsim::hybrid
