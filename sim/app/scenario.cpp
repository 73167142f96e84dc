#include "sim/app/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "kernels/calibration.hpp"
#include "schedulers/common/node_resources.hpp"
#include "schedulers/registry.hpp"
#include "sim/app/capacity_block.hpp"
#include "sim/app/delay_scheduling.hpp"
#include "sim/app/changes.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"
#include "sim/core/json_errors.hpp"
#include "sim/core/node_labels.hpp"
#include "traces/synthetic.hpp"
#include "traces/trace.hpp"
#include "traces/window.hpp"

namespace floorsim::app {
namespace fs = std::filesystem;
using namespace cfg;

namespace {

// A key given twice in one object: nlohmann keeps the last silently, which would hide an edit
// (two "cluster" blocks, the first one ignored). Tracks keys per open object and the JSON
// pointer of the current position, through the parser's callback.
class DuplicateKeyCheck {
 public:
  explicit DuplicateKeyCheck(const std::string& file) : file_(file) {}
  bool operator()(int /*depth*/, json::parse_event_t ev, json& parsed) {
    using E = json::parse_event_t;
    switch (ev) {
      case E::object_start: frames_.push_back({true, {}, {}, 0}); break;
      case E::array_start: frames_.push_back({false, {}, {}, 0}); break;
      case E::key: {
        Frame& f = frames_.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second)
          throw InputError(file_, pointer(), "key \"" + f.key + "\" appears twice in this object; expected each key once");
        break;
      }
      case E::object_end:
      case E::array_end:
        frames_.pop_back();
        value_done();
        break;
      case E::value: value_done(); break;
    }
    return true;
  }

 private:
  struct Frame {
    bool object;
    std::set<std::string> keys;
    std::string key;  // objects: the current key
    size_t index;     // arrays: the current element
  };
  void value_done() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
  }
  std::string pointer() const {
    std::string p;
    for (const auto& f : frames_) {
      p += "/";
      if (!f.object) {
        p += std::to_string(f.index);
        continue;
      }
      for (char c : f.key) p += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
    }
    return p.empty() ? "/" : p;
  }
  const std::string& file_;
  std::vector<Frame> frames_;
};

}  // namespace

json parse_json_text(const std::string& text, const std::string& file) {
  try {
    return json::parse(text, DuplicateKeyCheck(file));
  } catch (const json::parse_error& e) {
    // Byte offset -> line number.
    size_t line = 1;
    for (size_t i = 0; i < e.byte && i < text.size(); ++i) line += text[i] == '\n';
    std::string what = e.what();
    if (auto p = what.find("parse error"); p != std::string::npos) what = what.substr(p);
    throw InputError(file, std::to_string(line), "invalid JSON (" + what + "); expected a JSON document");
  } catch (const json::out_of_range& e) {  // a number beyond a double ("1e400")
    throw InputError(file, std::to_string(json_overflow_line(text, e.what())),
                     "number out of range; expected a number a double can hold");
  }
}

Scenario load_scenario_file(const std::string& path, Warnings* warnings) {
  const std::string text = io::read_file(path);
  json doc = parse_json_text(text, path);
  std::string base = fs::path(path).parent_path().string();
  if (base.empty()) base = ".";
  return load_scenario(doc, path, base, warnings);
}

namespace {

ClusterConfig build_nodes(const json& c);

// One label set per node group (the cluster's labels, the group's over them), or none at all
// when neither gives a label.
void add_labels(const json& c, ClusterConfig& out) {
  const json none = json::object();
  auto labels_of = [&](const json& o) -> const json& { return o.contains("labels") ? o["labels"] : none; };
  const bool groups = c.contains("node_groups") && !c["node_groups"].empty();
  bool any = !labels_of(c).empty();
  if (groups)
    for (const auto& g : c["node_groups"]) any = any || !labels_of(g).empty();
  if (!any) return;
  NodeLabels base;
  for (const auto& [k, v] : labels_of(c).items()) base[k] = v.get<std::string>();
  if (!groups) {
    out.label_sets.push_back(base);
    out.node_label_set.assign(out.nodes(), 0);
    return;
  }
  for (const auto& g : c["node_groups"]) {
    NodeLabels set = base;
    for (const auto& [k, v] : labels_of(g).items()) set[k] = v.get<std::string>();
    out.node_label_set.insert(out.node_label_set.end(), g["count"].get<size_t>(), static_cast<uint32_t>(out.label_sets.size()));
    out.label_sets.push_back(std::move(set));
  }
}

ClusterConfig build_cluster(const json& c) {
  ClusterConfig out = build_nodes(c);
  add_labels(c, out);
  return out;
}

ClusterConfig build_nodes(const json& c) {
  ClusterConfig out;
  if (c.contains("node_groups") && !c["node_groups"].empty()) {
    uint32_t leaf_base = 0;
    for (const auto& g : c["node_groups"]) {
      ClusterConfig part = uniform_cluster(g["prefix"], g["count"].get<size_t>(), g["gpus_per_node"].get<int32_t>(),
                                           g["nodes_per_leaf"].get<size_t>());
      for (size_t i = 0; i < part.nodes(); ++i) {
        out.node_names.push_back(part.node_names[i]);
        out.node_gpus.push_back(part.node_gpus[i]);
        out.node_leaf.push_back(leaf_base + part.node_leaf[i]);
        out.node_cpus.push_back(g["cpus_per_node"].get<int32_t>());
        out.node_mem_bytes.push_back(g["mem_per_node_mib"].get<int64_t>() << 20);
      }
      for (const auto& l : part.leaf_names) out.leaf_names.push_back(g["prefix"].get<std::string>() + "-" + l);
      leaf_base = static_cast<uint32_t>(out.leaf_names.size());
    }
    // Not given for any node: empty, so they never bind (ClusterConfig).
    if (!out.gives_cpus()) out.node_cpus.clear();
    if (!out.gives_mem()) out.node_mem_bytes.clear();
  } else {
    out = uniform_cluster(c["node_prefix"], c["nodes"].get<size_t>(), c["gpus_per_node"].get<int32_t>(),
                          c["nodes_per_leaf"].get<size_t>());
  }
  return out;
}

// The cluster: the scenario's "cluster" block, or the nodes the scheduler's own configuration
// files declare (slurm.conf NodeName lines). Given both, they must agree node for node (names
// and GPUs): running on one while the other says otherwise would be a silent guess.
// A block that gives only gpu_memory_mib describes no nodes. With the nodes taken from the
// files, the resolved scenario keeps no node keys, so that it runs again as it ran.
ClusterConfig cluster_of(const json& doc, json& r, const std::string& file, const std::string& base_dir) {
  const SchedulerEntry* entry = find_scheduler(r["scheduler"]["type"].get<std::string>());
  std::optional<ClusterConfig> files;
  if (entry && entry->cluster) files = entry->cluster(r["scheduler"], base_dir);
  if (!files) return build_cluster(r["cluster"]);
  static const char* kNodeKeys[] = {"nodes", "gpus_per_node", "node_prefix", "nodes_per_leaf", "node_groups"};
  const json& given = doc.contains("cluster") && doc["cluster"].is_object() ? doc["cluster"] : json::object();
  if (std::none_of(std::begin(kNodeKeys), std::end(kNodeKeys), [&](const char* k) { return given.contains(k); })) {
    for (const char* k : kNodeKeys) r["cluster"].erase(k);
    add_labels(r["cluster"], *files);  // cluster.labels: every node the files declare
    return *files;
  }
  ClusterConfig block = build_cluster(r["cluster"]);
  std::string diff;
  if (block.node_names != files->node_names)
    diff = fmt::format("the cluster block has {} nodes ({}), the scheduler's files {} ({})", block.nodes(),
                       hostlist(block.node_names), files->nodes(), hostlist(files->node_names));
  else
    for (size_t n = 0; n < block.nodes() && diff.empty(); ++n)
      if (block.node_gpus[n] != files->node_gpus[n])
        diff = fmt::format("node {} has {} GPUs in the cluster block, {} in the scheduler's files", block.node_names[n],
                           block.node_gpus[n], files->node_gpus[n]);
  if (!diff.empty())
    fail(file, "/cluster", diff + "; expected the same nodes and GPUs (leave \"cluster\" out to take the nodes from slurm.conf)");
  if (files->leaf_names.size() == 1) files->node_leaf = block.node_leaf, files->leaf_names = block.leaf_names;
  files->label_sets = block.label_sets, files->node_label_set = block.node_label_set;  // same nodes, in order
  return *files;
}

// The scheduler block: its "type" picks the model whose spec validates the rest.
json resolve_scheduler(const json& sb, const std::string& file) {
  if (!sb.is_object()) fail(file, "/scheduler", "expected an object with a \"type\"");
  if (!sb.contains("type") || !sb["type"].is_string()) fail(file, "/scheduler/type", "missing scheduler type; expected a string naming a model");
  const std::string type = sb["type"];
  const SchedulerEntry* entry = find_scheduler(type);
  if (!entry) {
    std::string names;
    for (const auto& e : scheduler_registry()) names += (names.empty() ? "" : ", ") + e.type;
    fail(file, "/scheduler/type", fmt::format("unknown scheduler \"{}\"; expected one of: {}", type, names));
  }
  return resolve(sb, *entry->params(), "/scheduler", file);
}

// Capacity blocks: extra nodes (one leaf each), down outside their window (node events below).
void add_capacity_blocks(const json& blocks, const std::string& file, ClusterConfig& cluster) {
  for (size_t i = 0; i < blocks.size(); ++i) {
    const json& b = blocks[i];
    ClusterConfig part = uniform_cluster(b["prefix"], b["nodes"].get<size_t>(), b["gpus_per_node"].get<int32_t>(), 0);
    const auto leaf = static_cast<uint32_t>(cluster.leaf_names.size());
    for (size_t n = 0; n < part.nodes(); ++n) {
      if (std::find(cluster.node_names.begin(), cluster.node_names.end(), part.node_names[n]) != cluster.node_names.end())
        fail(file, child(child("/capacity_blocks", i), "prefix"), fmt::format("node name \"{}\" is already in the cluster; expected a new prefix", part.node_names[n]));
      cluster.node_names.push_back(part.node_names[n]);
      cluster.node_gpus.push_back(part.node_gpus[n]);
      cluster.node_leaf.push_back(leaf);
    }
    cluster.leaf_names.push_back(b["prefix"].get<std::string>() + "-block");
  }
}

// GPU fractions (KAI gpu-fraction / gpu-memory, spec kueue-kai-model.md §10): a share of one
// GPU in milli, gpu-memory charged as memory / the GPU's memory; the burst limit alongside.
struct GpuShare {
  std::string file;
  double gpu_mem_mib;

  void apply(const json& j, const std::string& ptr, JobSpec& js) const {
    const double f = j["gpu_fraction"], fl = j["gpu_fraction_limit"];
    const double mem = j["gpu_memory_mib"].get<double>(), meml = j["gpu_memory_limit_mib"].get<double>();
    if ((f > 0 || fl > 0) && (mem > 0 || meml > 0))
      fail(file, ptr, "gives both gpu_fraction and gpu_memory_mib; expected one of them");
    auto milli = [&](double share) { return static_cast<int32_t>(std::ceil(share * 1000.0 - 1e-9)); };
    const int32_t req = f > 0 ? milli(f) : mem > 0 ? milli(mem / gpu_mem_mib) : 0;
    const int32_t lim = fl > 0 ? milli(fl) : meml > 0 ? milli(meml / gpu_mem_mib) : 0;
    if (req == 0) {
      if (lim > 0) fail(file, child(ptr, fl > 0 ? "gpu_fraction_limit" : "gpu_memory_limit_mib"), "a burst limit without a request; expected gpu_fraction or gpu_memory_mib too");
      return;
    }
    const char* key = f > 0 ? "gpu_fraction" : "gpu_memory_mib";
    if (req >= 1000) fail(file, child(ptr, key), fmt::format("asks for {} of a GPU; expected less than one GPU (use gpus for whole GPUs)", req / 1000.0));
    if (js.gpus != 1) fail(file, child(ptr, "gpus"), fmt::format("is {} with a GPU share; expected 1 (a share is of one GPU)", js.gpus));
    if (lim > 1000 || (lim > 0 && lim < req))
      fail(file, child(ptr, fl > 0 ? "gpu_fraction_limit" : "gpu_memory_limit_mib"), "burst limit below the request or above one GPU; expected request <= limit <= 1 GPU");
    js.gpu_milli = req;
    js.gpu_milli_limit = static_cast<int16_t>(lim);
  }
};

// A wall-clock time of the scenario (workload.trace.from/to, clock.t0), or an error naming it.
double wall_time(const json& v, const std::string& file, const std::string& ptr) {
  const auto t = traces::parse_wall_time(v.get<std::string>());
  if (!t) fail(file, ptr, fmt::format("\"{}\" is not a time; expected YYYY-MM-DDTHH:MM:SS (optionally Z or +HH:MM)", v.get<std::string>()));
  return *t;
}

// workload.trace.from/to: the window's jobs (traces/window.hpp); t = 0 becomes `from`.
// Returns the wall-clock time of t = 0.
double apply_window(const json& t, const traces::ReadReport& rr, const std::string& file, Workload& w, json& report,
                    Warnings& warnings) {
  const std::string ptr = "/workload/trace";
  if (std::isnan(rr.wall_t0_s))
    fail(file, child(ptr, "from"), fmt::format("a window needs wall-clock submit times; format {} has none (expected sacct, helios or philly)", rr.format));
  const double from = t["from"].get<std::string>().empty() ? rr.wall_t0_s : wall_time(t["from"], file, child(ptr, "from"));
  const double to = t["to"].get<std::string>().empty() ? kNever : wall_time(t["to"], file, child(ptr, "to"));
  if (to <= from)
    fail(file, child(ptr, "to"), fmt::format("{} is not after from ({}); expected a window that ends after it starts", t["to"].get<std::string>(), traces::format_wall_time(from)));
  const traces::WindowCounts c = traces::select_window(w, rr.wall_t0_s, from, to);
  if (w.jobs.empty())
    fail(file, child(ptr, "from"), fmt::format("no job of {} was submitted, queued or running in [{}, {}); expected a window within the trace (its first submit is {})",
                                               rr.file, traces::format_wall_time(from), std::isfinite(to) ? traces::format_wall_time(to) : std::string("end"),
                                               traces::format_wall_time(rr.wall_t0_s)));
  report["window"] = {{"from", traces::format_wall_time(from)}, {"to", std::isfinite(to) ? json(traces::format_wall_time(to)) : json(nullptr)},
                      {"in_window", c.in_window}, {"running_at_from", c.running_at_from}, {"pending_at_from", c.pending_at_from},
                      {"ended_before_from", c.ended_before_from}, {"submitted_after_to", c.submitted_after_to}};
  if (c.running_at_from + c.pending_at_from > 0)
    warnings.add(fmt::format("{}: {} jobs running and {} queued at {} are submitted at t = 0 with the run time they had left; "
                             "the model places them afresh and their queue time before it (Slurm's age factor) is not counted",
                             rr.file, c.running_at_from, c.pending_at_from, traces::format_wall_time(from)));
  return from;
}

// workload.trace: the trace's jobs replace `w`; its reader report goes into `report`. Returns
// the wall-clock time of t = 0 (NaN when the trace has no dates).
double read_trace_workload(const json& t, const std::string& base_dir, const std::string& file, Workload& w, json& report,
                           Warnings& warnings) {
  traces::ReadOptions o;
  o.gpus_per_proc = t["gpus_per_proc"];
  o.missing_limit_is_runtime = t["missing_time_limit"] == "runtime";
  o.drop_zero_runtime = t["drop_zero_runtime"];
  o.keep_cpu_jobs = t["keep_cpu_jobs"];
  o.max_jobs = t["max_jobs"].get<size_t>();
  fs::path p = t["path"].get<std::string>();
  if (p.is_relative()) p = fs::path(base_dir) / p;
  auto data = traces::read_trace(p.lexically_normal().string(), traces::parse_format(t["format"]), o);
  w = std::move(data.workload);
  double t0 = data.report.wall_t0_s;
  if (!t["from"].get<std::string>().empty() || !t["to"].get<std::string>().empty()) t0 = apply_window(t, data.report, file, w, report, warnings);
  const double scale = t["time_scale"];
  if (scale != 1.0 && !w.jobs.empty()) {
    const SimTime first = w.jobs.front().submit_s;
    for (auto& j : w.jobs) j.submit_s = first + (j.submit_s - first) * scale;
  }
  report["trace"] = {{"file", data.report.file}, {"format", data.report.format}, {"rows", data.report.rows},
                     {"jobs", data.report.jobs}, {"skipped", data.report.skipped}, {"adjusted", data.report.adjusted}};
  return t0;
}

// workload.jobs, appended to `w`.
void add_inline_jobs(const json& inl, const std::string& file, const GpuShare& share, Workload& w) {
  std::map<int64_t, size_t> explicit_ids;  // id -> first index: a repeated id is an error, not a guess
  for (size_t i = 0; i < inl.size(); ++i) {
    const json& j = inl[i];
    JobSpec js;
    js.id = j["id"].is_null() ? static_cast<int64_t>(w.jobs.size() + 1) : j["id"].get<int64_t>();
    if (!j["id"].is_null()) {
      if (auto [it, fresh] = explicit_ids.emplace(js.id, i); !fresh)
        throw InputError(file, "/workload/jobs/" + std::to_string(i) + "/id",
                         "job id " + std::to_string(js.id) + " is also /workload/jobs/" + std::to_string(it->second) +
                             "/id; expected unique job ids");
    }
    js.submit_s = j["submit_s"];
    js.runtime_s = j["runtime_s"];
    js.time_limit_s = j["time_limit_s"].is_null() ? js.runtime_s : j["time_limit_s"].get<double>();
    js.gpus = j["gpus"];
    js.nodes = j["nodes"];
    js.cpus = j["cpus"];
    {
      const int64_t pn = j["mem_per_node_mib"], pc = j["mem_per_cpu_mib"], pg = j["mem_per_gpu_mib"];
      if ((pn > 0) + (pc > 0) + (pg > 0) > 1)
        throw InputError(file, child("/workload/jobs", i), "gives more than one of mem_per_node_mib, mem_per_cpu_mib, mem_per_gpu_mib; expected at most one (sbatch's --mem, --mem-per-cpu and --mem-per-gpu are mutually exclusive)");
      js.mem_per = pn > 0 ? JobSpec::MemPer::Node : pc > 0 ? JobSpec::MemPer::Cpu : pg > 0 ? JobSpec::MemPer::Gpu : JobSpec::MemPer::None;
      js.mem_mib = static_cast<int32_t>(pn > 0 ? pn : pc > 0 ? pc : pg);
    }
    js.user = w.strings.intern(j["user"].get<std::string>());
    js.account = w.strings.intern(j["account"].get<std::string>());
    js.klass = w.strings.intern(j["class"].get<std::string>());
    js.qos = w.strings.intern(j["qos"].get<std::string>());
    js.partition = w.strings.intern(j["partition"].get<std::string>());
    js.priority = j["priority"];
    js.deadline_s = j["deadline_s"].is_null() ? kNever : j["deadline_s"].get<double>();
    js.checkpoint_interval_s = j["checkpoint_interval_s"];
    js.preemptible = j["preemptible"];
    js.requeueable = j["requeueable"];
    share.apply(j, child("/workload/jobs", i), js);
    w.jobs.push_back(js);
  }
}

// One workload.synthetic class as the generator's spec (a rate_file relative to `base_dir`).
traces::ClassGen class_gen(const json& g, const std::string& base_dir) {
  traces::ClassGen c;
  c.name = g["name"];
  const std::string kind = g["kind"];
  c.kind = kind == "deadline_batch" ? traces::GenKind::DeadlineBatch : kind == "stream" ? traces::GenKind::Stream
         : kind == "gang" ? traces::GenKind::Gang : traces::GenKind::Burst;
  c.user = g["user"];
  c.account = g["account"];
  c.qos = g["qos"];
  c.core_qos = g["core_qos"];
  c.partition = g["partition"];
  c.priority = g["priority"];
  c.preemptible = g["preemptible"];
  c.requeueable = g["requeueable"];
  c.checkpoint_interval_s = g["checkpoint_interval_s"];
  c.start_s = g["start_s"];
  c.end_s = g["end_s"].is_null() ? c.start_s : g["end_s"].get<double>();
  c.spread_s = g["spread_s"];
  c.grid_after_s = g["grid_after_s"];
  c.deadline_s = g["deadline_s"].is_null() ? kNever : g["deadline_s"].get<double>();
  c.jobs = g["jobs"];
  c.core_jobs = g["core_jobs"];
  c.gpus = g["gpus"];
  c.nodes = g["nodes"];
  c.runtime_s = g["runtime_s"];
  c.runtime_jitter = g["runtime_jitter"];
  c.time_limit_factor = g["time_limit_factor"];
  c.rate_per_s = g["rate_per_s"];
  if (g.contains("profile"))
    for (const auto& p : g["profile"]) c.profile.push_back({p["from_s"], p["to_s"], p["multiplier"]});
  if (const std::string rf = g["rate_file"]; !rf.empty()) {
    fs::path p = rf;
    if (p.is_relative()) p = fs::path(base_dir) / p;
    const std::string path = p.lexically_normal().string();
    c.rate_per_s = 1;  // the file's rates are the multipliers of a 1/s base
    c.profile = traces::read_rate_profile(path, io::read_file(path));
  }
  return c;
}

// The generator holds every job in memory: a workload over `max_jobs` is refused before any
// is made, naming the class that contributes most.
void refuse_oversized(const traces::SyntheticSpec& spec, double max_jobs, const std::string& file) {
  double total = 0, most = -1;
  size_t at = 0;
  for (size_t i = 0; i < spec.classes.size(); ++i) {
    const double n = traces::expected_jobs(spec.classes[i], spec.load_multiplier);
    total += n;
    if (n > most) most = n, at = i;
  }
  if (total > max_jobs)
    fail(file, "/workload/synthetic/max_jobs",
         fmt::format("is {:.0f}, but the classes would generate {:.4g} jobs ({:.4g} from class \"{}\" at load_multiplier {}); "
                     "expected fewer jobs (check the class's count, rate and window) or a larger max_jobs",
                     max_jobs, total, most, spec.classes[at].name, spec.load_multiplier));
}

// Grid jobs of a class with fallback_at_s, by job id until the jobs are sorted.
using FallbackIds = std::vector<std::pair<SimTime, std::vector<int64_t>>>;

// workload.synthetic: generated jobs appended to `w` (ids after the largest so far).
FallbackIds add_synthetic_jobs(const json& syn, uint64_t seed, const std::string& base_dir, const GpuShare& share, Workload& w,
                               json& report) {
  FallbackIds fallback_ids;
  traces::SyntheticSpec spec;
  spec.load_multiplier = syn["load_multiplier"];
  spec.seed = seed;
  json from_calibration = json::object();
  for (const auto& g : syn["classes"]) {
    spec.classes.push_back(class_gen(g, base_dir));
    if (!g.contains("paths_per_job")) continue;
    // The device measured once (floorsim calibrate) sets the runtime: paths over paths/s, the
    // paths split over the job's GPUs.
    fs::path cal = g["calibration"].get<std::string>();
    if (cal.is_relative()) cal = fs::path(base_dir) / cal;
    const double rate = kernels::load_calibration(cal).paths_per_s;
    traces::ClassGen& c = spec.classes.back();
    c.runtime_s = g["paths_per_job"].get<double>() / (rate * c.gpus);
    from_calibration[c.name] = {{"paths_per_job", g["paths_per_job"]}, {"paths_per_s", rate}, {"runtime_s", c.runtime_s}};
  }
  if (!from_calibration.empty()) report["runtime_from_calibration"] = from_calibration;
  refuse_oversized(spec, syn["max_jobs"].get<double>(), share.file);
  int64_t first_id = 1;
  for (const auto& j : w.jobs) first_id = std::max(first_id, j.id + 1);
  json gen = json::array();
  size_t gen_at = w.jobs.size();
  const auto generated = traces::generate(spec, first_id, w);
  for (size_t i = 0; i < generated.size(); ++i) {
    const auto& g = generated[i];
    // generate() appends in class order: this class's jobs are the next g.jobs.
    for (size_t k = gen_at; k < gen_at + static_cast<size_t>(g.jobs) && k < w.jobs.size(); ++k)
      share.apply(syn["classes"][i], child("/workload/synthetic/classes", i), w.jobs[k]);
    gen_at += static_cast<size_t>(g.jobs);
    gen.push_back({{"class", g.name}, {"jobs", g.jobs}, {"gpu_s", g.gpu_s}});
    const json& fa = syn["classes"][i]["fallback_at_s"];
    if (!fa.is_null() && !g.grid_ids.empty()) fallback_ids.push_back({fa.get<double>(), g.grid_ids});
  }
  report["synthetic"] = {{"load_multiplier", spec.load_multiplier}, {"classes", gen}};
  return fallback_ids;
}

// The fallbacks by job index (the jobs sorted), earliest first.
std::vector<Scenario::Fallback> fallbacks_of(const FallbackIds& fallback_ids, const Workload& w) {
  std::vector<Scenario::Fallback> out;
  if (fallback_ids.empty()) return out;
  std::map<int64_t, JobIdx> by_id;
  for (size_t i = 0; i < w.jobs.size(); ++i) by_id.emplace(w.jobs[i].id, static_cast<JobIdx>(i));
  for (const auto& [at, ids] : fallback_ids) {
    Scenario::Fallback f{at, {}};
    for (int64_t id : ids) f.jobs.push_back(by_id.at(id));
    out.push_back(std::move(f));
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.at_s < b.at_s; });
  return out;
}

// Every job must be able to run on this cluster. Returns how many jobs had their node count
// clamped to their GPU count.
// CPU-only jobs and CPUs and memory as resources are modelled by the slurm, kueue and kai
// models (`model`: the scheduler type): with another model a CPU-only job is refused, and nodes
// that give CPUs or memory get a warning that those are not checked. A model that says what
// jobs ask of nodes (SchedulerEntry::node_ask: kueue, kai) has each job checked against the
// idle cluster by its own rule.
size_t check_jobs_fit(Workload& w, const ClusterConfig& cluster, const std::string& file, const json& sched,
                      Warnings& warnings) {
  const std::string model = sched["type"].get<std::string>();
  const int64_t total_gpus = cluster.total_gpus();
  const int32_t max_node = cluster.max_node_gpus();
  const bool res = cluster.gives_cpus() || cluster.gives_mem();
  const bool res_model = model == "slurm" || model == "kueue" || model == "kai";
  const SchedulerEntry* entry = find_scheduler(model);
  const SchedulerEntry::NodeAskOf ask_of = res && entry && entry->node_ask ? entry->node_ask(sched) : nullptr;
  // The placement on the idle cluster depends on the job's GPUs, node count and ask only, so
  // each shape is placed once (a trace has few shapes and many jobs; the check is per node).
  std::set<std::tuple<int32_t, int32_t, int64_t, int64_t>> fitting;
  auto check_ask = [&](const JobSpec& j) {
    if (!ask_of) return;
    const placement::NodeAsk a = ask_of(j);
    if (!fitting.emplace(j.gpus, j.nodes, a.cpu_milli, a.mem_mib).second) return;
    if (const std::string why = placement::never_fits(j, a, cluster); !why.empty()) fail(file, "/workload", why);
  };
  size_t clamped_nodes = 0;
  for (size_t i = 0; i < w.jobs.size(); ++i) {
    JobSpec& j = w.jobs[i];
    if (j.gpus <= 0 && j.gpu_milli <= 0) {
      if (j.gpus < 0 || !res || !res_model)
        fail(file, "/workload", fmt::format("job {} asks for {} GPUs; expected at least 1 (CPU-only jobs need the slurm, kueue or kai model and nodes that give CPUs or memory: cluster.node_groups cpus_per_node, mem_per_node_mib; the {} model places GPUs only)", j.id, j.gpus, model));
      if (static_cast<size_t>(j.nodes) > cluster.nodes())
        fail(file, "/workload", fmt::format("job {} needs {} nodes; the cluster has {}", j.id, j.nodes, cluster.nodes()));
      check_ask(j);
      continue;
    }
    if (j.gpu_milli > 0 && j.gpus != 1)  // a share (trace gpu_milli, gpu_fraction) is of one GPU
      fail(file, "/workload", fmt::format("job {} has a GPU share of {} milli on {} GPUs; expected a share of exactly one GPU", j.id, j.gpu_milli, j.gpus));
    if (j.nodes > j.gpus) {  // e.g. Helios rows with node_num > gpu_num: one GPU per node at most
      j.nodes = j.gpus;
      ++clamped_nodes;
    }
    const bool too_big = j.gpus > total_gpus || static_cast<size_t>(j.nodes) > cluster.nodes() ||
                         (j.nodes > 0 && (j.gpus + j.nodes - 1) / j.nodes > max_node);
    if (too_big)
      fail(file, "/workload", fmt::format("job {} needs {} GPUs on {} nodes; the cluster has {} GPUs on {} nodes of at most {}",
                                          j.id, j.gpus, j.nodes == 0 ? std::string("any") : std::to_string(j.nodes), total_gpus,
                                          cluster.nodes(), max_node));
    check_ask(j);
  }
  if (res && !res_model)  // after the checks: bad input gets its one error line alone
    warnings.add(fmt::format("{}: the {} model places GPUs only; the nodes' CPUs and memory are not checked (the slurm model checks them)",
                             file, model));
  return clamped_nodes;
}

// Classes: the rule maps a job field to a class name.
void apply_class_rule(const json& rule, Workload& w) {
  const std::string from = rule["from"];
  const StrId def_class = w.strings.intern(rule["default"].get<std::string>());
  std::map<StrId, StrId> remap;
  if (rule.contains("map"))
    for (auto it = rule["map"].begin(); it != rule["map"].end(); ++it)
      remap[w.strings.intern(it.key())] = w.strings.intern(it.value().get<std::string>());
  for (auto& j : w.jobs) {
    StrId v = from == "class" ? j.klass : from == "account" ? j.account : from == "qos" ? j.qos
            : from == "partition" ? j.partition : j.user;
    if (auto it = remap.find(v); it != remap.end()) v = it->second;
    j.klass = v == 0 ? def_class : v;
  }
}

// Declared classes first (in name order, as JSON objects are), then any others seen; the
// floors by class StrId.
void list_classes(const json& declared, Workload& w, std::vector<StrId>& classes, std::vector<int32_t>& floors) {
  std::vector<uint8_t> listed(w.strings.size() + declared.size() + 1, 0);
  for (auto it = declared.begin(); it != declared.end(); ++it) {
    const StrId k = w.strings.intern(it.key());
    if (listed.size() <= k) listed.resize(k + 1, 0);
    floors.resize(std::max<size_t>(floors.size(), k + 1), 0);
    floors[k] = it.value()["floor_gpus"];
    classes.push_back(k);
    listed[k] = 1;
  }
  std::vector<StrId> seen;
  for (const auto& j : w.jobs)
    if (j.klass >= listed.size() || !listed[j.klass]) {
      if (listed.size() <= j.klass) listed.resize(j.klass + 1, 0);
      listed[j.klass] = 1;
      seen.push_back(j.klass);
    }
  std::sort(seen.begin(), seen.end(), [&](StrId a, StrId b) { return w.strings.str(a) < w.strings.str(b); });
  classes.insert(classes.end(), seen.begin(), seen.end());
  floors.resize(w.strings.size(), 0);
}

EngineConfig engine_config(const json& r) {
  EngineConfig ec;
  const json& e = r["engine"];
  ec.enforce_time_limit = e["enforce_time_limit"];
  ec.horizon_s = e["horizon_s"].is_null() ? kNever : e["horizon_s"].get<double>();
  ec.sched_interval_s = e["sched_interval_s"];
  ec.requeue_delay_s = e["requeue_delay_s"];
  ec.check_invariants = e["check_invariants"];
  ec.keep_timeline = r["output"]["timeline"];
  return ec;
}

// failures: each named node down at at_s, back after duration_s when given.
void add_failure_events(const json& fl, const ClusterConfig& cluster, const std::string& file, std::vector<NodeEvent>& events) {
  for (size_t i = 0; i < fl.size(); ++i) {
    const std::string name = fl[i]["node"];
    auto it = std::find(cluster.node_names.begin(), cluster.node_names.end(), name);
    if (it == cluster.node_names.end())
      fail(file, child(child("/failures", i), "node"), fmt::format("unknown node \"{}\"; expected a node name such as \"{}\"", name, cluster.node_names.front()));
    const NodeIdx n = static_cast<NodeIdx>(it - cluster.node_names.begin());
    const double at = fl[i]["at_s"];
    events.push_back({at, n, false});
    if (!fl[i]["duration_s"].is_null()) events.push_back({at + fl[i]["duration_s"].get<double>(), n, true});
  }
}

// Capacity blocks: down from the start until their window opens, down again when it closes; a
// block not had on the night (unavailable_probability, drawn from the seed) never comes up.
void add_capacity_block_events(json& blocks, uint64_t seed, size_t base_nodes, std::vector<NodeEvent>& events) {
  for (size_t i = 0, node = base_nodes; i < blocks.size(); ++i) {
    json& b = blocks[i];
    const double from = b["from_s"], to = b["to_s"];
    b["duration_days"] = capacity_block_days(b);
    const bool had = capacity_block_had(seed, i, b["unavailable_probability"].get<double>());
    for (int64_t k = 0; k < b["nodes"].get<int64_t>(); ++k, ++node) {
      const auto n = static_cast<NodeIdx>(node);
      if (!had) {
        events.push_back({0, n, false});
        continue;
      }
      if (from > 0) {
        events.push_back({0, n, false});
        events.push_back({from, n, true});
      }
      events.push_back({to, n, false});
    }
  }
}

// Random failures: per node, exponential gaps (mean mtbf_s) from its own random stream.
std::vector<NodeEvent> random_failure_events(const json& fm, uint64_t seed, size_t base_nodes) {
  const double mtbf = fm["mtbf_s"], repair = fm["repair_s"], from = fm["from_s"], to = fm["to_s"];
  std::vector<NodeEvent> ev;
  for (size_t n = 0; n < base_nodes; ++n) {
    traces::Rng rng(seed, 1000003 + n);
    for (double t = from + rng.exponential() * mtbf; t < to; t += repair + rng.exponential() * mtbf) {
      ev.push_back({t, static_cast<NodeIdx>(n), false});
      ev.push_back({t + repair, static_cast<NodeIdx>(n), true});
    }
  }
  std::stable_sort(ev.begin(), ev.end(), [](const NodeEvent& a, const NodeEvent& b) {
    return a.at_s != b.at_s ? a.at_s < b.at_s : a.node < b.node;
  });
  return ev;
}

}  // namespace

Scenario load_scenario(const json& doc, const std::string& file, const std::string& base_dir, Warnings* caller) {
  WarningScope warnings(caller);
  Scenario sc;
  sc.file = file;
  sc.base_dir = base_dir;
  json r = resolve(doc, *scenario_spec(), "", file);
  r["scheduler"] = resolve_scheduler(r["scheduler"], file);
  if (doc.is_object() && doc.contains("scheduler")) sc.scheduler_given = doc["scheduler"];
  sc.seed = r["seed"].get<uint64_t>();
  sc.cluster = cluster_of(doc, r, file, base_dir);
  sc.base_nodes = sc.cluster.nodes();
  json blocks = r.contains("capacity_blocks") ? r["capacity_blocks"] : json::array();
  add_capacity_blocks(blocks, file, sc.cluster);

  // Workload: trace, then inline jobs, then synthetic classes; sorted by submission.
  const GpuShare share{file, r["cluster"]["gpu_memory_mib"].get<double>()};
  Workload& w = sc.workload;
  json report = json::object();
  const json& wl = r["workload"];
  double trace_t0 = std::numeric_limits<double>::quiet_NaN();
  if (wl.contains("trace") && !wl["trace"].is_null()) trace_t0 = read_trace_workload(wl["trace"], base_dir, file, w, report, warnings.sink());
  // The clock: t = 0 on the wall clock, given or from a dated trace (see clock_spec).
  if (const json& t0 = r["clock"]["t0"]; !t0.get<std::string>().empty()) {
    sc.t0_wall_s = wall_time(t0, file, "/clock/t0");
    report["clock"] = {{"t0", traces::format_wall_time(sc.t0_wall_s)}, {"from", "clock.t0"}};
  } else if (!std::isnan(trace_t0)) {
    sc.t0_wall_s = trace_t0;
    report["clock"] = {{"t0", traces::format_wall_time(trace_t0)}, {"from", "workload.trace"}};
  }
  add_inline_jobs(wl.contains("jobs") ? wl["jobs"] : json::array(), file, share, w);
  FallbackIds fallback_ids;
  if (wl.contains("synthetic") && !wl["synthetic"].is_null())
    fallback_ids = add_synthetic_jobs(wl["synthetic"], sc.seed, base_dir, share, w, report);
  auto before = [](const JobSpec& a, const JobSpec& b) { return a.submit_s != b.submit_s ? a.submit_s < b.submit_s : a.id < b.id; };
  // A trace alone is in this order already: no sort buffer of half its jobs then.
  if (!std::is_sorted(w.jobs.begin(), w.jobs.end(), before)) std::stable_sort(w.jobs.begin(), w.jobs.end(), before);
  sc.fallbacks = fallbacks_of(fallback_ids, w);
  if (const size_t clamped_nodes = check_jobs_fit(w, sc.cluster, file, r["scheduler"], warnings.sink())) report["adjusted"]["nodes_clamped_to_gpus"] = clamped_nodes;

  apply_class_rule(r["class_rule"], w);
  list_classes(r["classes"], w, sc.classes, sc.floors);
  int64_t floor_sum = 0;
  for (auto f : sc.floors) floor_sum += f;
  report["floors_gpus_total"] = floor_sum;

  // Engine and failures.
  sc.engine = engine_config(r);
  add_failure_events(r.contains("failures") ? r["failures"] : json::array(), sc.cluster, file, sc.node_events);
  add_capacity_block_events(blocks, sc.seed, sc.base_nodes, sc.node_events);
  if (!blocks.empty()) {
    r["capacity_blocks"] = blocks;  // duration_days filled in
    json had = json::array();
    for (size_t i = 0; i < blocks.size(); ++i)
      had.push_back({{"prefix", blocks[i]["prefix"]}, {"had", capacity_block_had(sc.seed, i, blocks[i]["unavailable_probability"].get<double>())}});
    report["capacity_blocks"] = had;
  }
  if (r.contains("failure_model") && !r["failure_model"].is_null()) {
    const std::vector<NodeEvent> ev = random_failure_events(r["failure_model"], sc.seed, sc.base_nodes);
    report["random_failures"] = ev.size() / 2;
    sc.node_events.insert(sc.node_events.end(), ev.begin(), ev.end());
  }
  sc.workload_report = report;
  sc.fabric = load_fabric_coupling(r["fabric"], base_dir, file, sc.workload, sc.cluster);
  if (sc.fabric.fabric && !r["delay_scheduling"].is_null())
    fail(file, "/delay_scheduling", "the fabric block already stretches runtimes by placement; expected either fabric or delay_scheduling (its own slowdown by level)");
  sc.governance = load_governance(r);
  sc.changes = load_changes(r, file);
  if (r.contains("sharing")) sc.sharing = std::make_shared<const SharingConfig>(load_sharing(r["sharing"], sc.cluster, sc.seed, base_dir, file, warnings.sink()));
  sc.resolved = std::move(r);
  warnings.done();
  return sc;
}

}  // namespace floorsim::app
