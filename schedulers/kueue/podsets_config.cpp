// job_podsets and job-min-parallelism -> each class's PodSets; a job's PodSets. See podsets_config.hpp.
#include "schedulers/kueue/podsets_config.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "schedulers/kueue/kueue_scheduler.hpp"
#include "schedulers/kueue/manifest_model.hpp"
#include "sim/core/error.hpp"

namespace floorsim::kueue {

namespace {

PodSetTemplate read_podset(const cfg::json& v, const std::string& at, const std::string& file,
                           const std::vector<std::string>& resources, int gpu_kind) {
  if (!v.is_object()) throw InputError(file, at, "got " + v.dump() + "; expected an object {name, count, requests, min_count}");
  PodSetTemplate t;
  for (const auto& [key, x] : v.items()) {
    const std::string kp = cfg::child(at, key);
    if (key == "name") {
      if (!x.is_string() || x.get<std::string>().empty()) throw InputError(file, kp, "got " + x.dump() + "; expected a PodSet name");
      t.name = x.get<std::string>();
    } else if (key == "count") {
      if (x.is_string() && x.get<std::string>() == "job") {
        t.job_pods = true;
      } else if (x.is_number_integer() && x.get<int64_t>() >= 1 && x.get<int64_t>() <= INT32_MAX) {
        t.count = static_cast<int32_t>(x.get<int64_t>());
      } else {
        throw InputError(file, kp, "got " + x.dump() + "; expected a pod count >= 1 or \"job\" (the job's own pods)");
      }
    } else if (key == "min_count") {
      if (!x.is_number_integer() || x.get<int64_t>() < 1 || x.get<int64_t>() > INT32_MAX)
        throw InputError(file, kp, "got " + x.dump() + "; expected a pod count >= 1 (minCount)");
      t.min_count = static_cast<int32_t>(x.get<int64_t>());
    } else if (key == "requests") {
      if (!x.is_object()) throw InputError(file, kp, "got " + x.dump() + "; expected an object resource -> quantity per pod");
      for (const auto& [res, q] : x.items()) {
        int kind = 0;
        double scale = 1;
        const double qty = request_quantity(q);
        if (!resource_kind(res, kind, scale, resources) || qty < 0)
          throw InputError(file, cfg::child(kp, res), "got " + q.dump() + "; expected a quantity >= 0 (a number or \"64Gi\", \"500m\")");
        if (kind == gpu_kind && qty > 0)
          throw InputError(file, cfg::child(kp, res), "GPUs are the job's own: expected them only from the job (the PodSet with count \"job\")");
        t.per_pod[kind] += static_cast<Qty>(std::llround(qty * scale));
      }
    } else {
      throw InputError(file, kp, "unknown key; expected name, count, requests or min_count");
    }
  }
  if (t.name.empty()) throw InputError(file, at, "no name; expected {\"name\": ..., \"count\": ...}");
  if (!t.job_pods && t.min_count > t.count)
    throw InputError(file, cfg::child(at, "min_count"), fmt::format("{} is above count {}; expected 1 .. count", t.min_count, t.count));
  return t;
}

}  // namespace

std::vector<ClassPodSets> read_job_podsets(const cfg::json& block, const std::vector<JobAnnotations>& ann,
                                           const StringTable& strings, const std::string& file,
                                           const std::vector<std::string>& resources, int gpu_kind,
                                           std::vector<std::string>& warnings) {
  std::vector<ClassPodSets> out(strings.size());
  for (const auto& [klass, list] : block.items()) {
    const std::string ptr = cfg::child("/scheduler/job_podsets", klass);
    if (!list.is_array() || list.empty()) throw InputError(file, ptr, "got " + list.dump() + "; expected a non-empty array of PodSets");
    ClassPodSets c;
    std::set<std::string> names;
    int job_sets = 0, partial = 0;
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string at = cfg::child(ptr, i);
      PodSetTemplate t = read_podset(list[i], at, file, resources, gpu_kind);
      if (!names.insert(t.name).second) throw InputError(file, cfg::child(at, "name"), "PodSet " + t.name + " given twice; expected unique names");
      if (t.job_pods) c.job_set = i, ++job_sets;
      if (t.min_count > 0 && ++partial > 1)  // the Workload webhook's rule for partial admission
        throw InputError(file, cfg::child(at, "min_count"), "a second PodSet with min_count; expected at most one (Kueue partial admission)");
      c.sets.push_back(std::move(t));
    }
    if (job_sets != 1) throw InputError(file, ptr, fmt::format("{} PodSets with count \"job\"; expected exactly one (the job's own pods)", job_sets));
    const StrId id = strings.find(klass);
    if (id == StringTable::kMissing) {
      warnings.push_back("scheduler.job_podsets." + klass + ": no job has this class; ignored");
      continue;
    }
    if (ann[id].min_count > 0) {
      if (partial > 0)
        throw InputError(file, ptr, "min_count given here and kueue.x-k8s.io/job-min-parallelism in job_annotations; expected one of them");
      c.sets[c.job_set].min_count = ann[id].min_count;
    }
    out[id] = std::move(c);
  }
  // job-min-parallelism alone: the batch/Job integration's one PodSet with minCount = the value.
  for (size_t id = 0; id < ann.size(); ++id)
    if (ann[id].min_count > 0 && !out[id].any()) {
      PodSetTemplate t;
      t.name = "main";
      t.job_pods = true;
      t.min_count = ann[id].min_count;
      out[id].sets.push_back(t);
    }
  return out;
}

int32_t job_pods(const JobSpec& js) {
  if (js.gpus <= 0) return std::max(1, js.nodes);
  if (js.nodes > 0 && js.gpus % js.nodes == 0) return js.nodes;
  return js.nodes > 0 ? 1 : js.gpus;
}

PodSets podsets_of(const ClassPodSets& c, const JobSpec& js, int gpu_kind, const Request& per_gpu, const Request& per_job,
                   uint64_t untolerated) {
  PodSets ps;
  ps.untolerated = untolerated;
  for (const auto& t : c.sets) {
    PodSet p;
    p.per_pod = t.per_pod;
    if (!t.job_pods) {
      p.count = t.count;
      p.min_count = t.min_count > 0 ? t.min_count : t.count;
    } else {
      p.count = job_pods(js);
      const int32_t g = js.gpus / p.count;  // GPUs per pod
      for (int k = 0; k < kMaxRes; ++k) p.per_pod[k] += per_gpu[k] * g + (per_job[k] + p.count - 1) / p.count;
      if (gpu_kind >= 0) p.per_pod[gpu_kind] += g;
      // A minCount at or above the job's pods: admitted whole (Kueue rejects minCount > count).
      p.min_count = t.min_count > 0 ? std::min(t.min_count, p.count) : p.count;
    }
    ps.sets.push_back(p);
  }
  return ps;
}

}  // namespace floorsim::kueue
