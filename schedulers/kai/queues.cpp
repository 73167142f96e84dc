// KAI Queue manifests -> the model's queue tree: values checked (InputError with file and
// line), GPUs in milli-GPUs, cpu in millicores and memory in MB as KAI's Queue spells them.
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "schedulers/kai/kai_scheduler.hpp"
#include "sim/core/error.hpp"

namespace floorsim::kai {
namespace {

Milli to_milli(double gpus) { return gpus < 0 ? kUnlimited : static_cast<Milli>(std::llround(gpus * 1000.0)); }

QueueTree build_tree(const kueue::Manifests& mf, std::vector<std::string>& warnings) {
  warnings.insert(warnings.end(), mf.warnings.begin(), mf.warnings.end());
  QueueTree t;
  std::map<std::string, int> by_name;
  for (const auto& q : mf.kai_queues) {
    if (by_name.count(q.name))
      throw InputError(q.pos.file, q.pos.where(), "Queue " + q.name + " declared twice; expected unique names");
    auto check = [&](const kueue::KaiQueueObj::Res& r, const char* res) {
      for (auto [v, what] : {std::pair{r.quota, "quota"}, std::pair{r.limit, "limit"}})
        if (v < 0 && v != -1)
          throw InputError(q.pos.file, q.pos.where(),
                           fmt::format("Queue {}: spec.resources.{}.{} is {}; expected -1 (unlimited) or >= 0", q.name, res, what, v));
      if (r.over_quota_weight < 0)
        throw InputError(q.pos.file, q.pos.where(),
                         fmt::format("Queue {}: spec.resources.{}.overQuotaWeight is {}; expected >= 0", q.name, res, r.over_quota_weight));
      if (r.limit >= 0 && r.quota > r.limit)
        throw InputError(q.pos.file, q.pos.where(),
                         fmt::format("Queue {}: {} quota {} exceeds its limit {}; expected quota <= limit", q.name, res, r.quota, r.limit));
    };
    check(q.gpu, "gpu");
    check(q.cpu, "cpu");
    check(q.memory, "memory");
    // cpu in millicores, memory in MB, as KAI's Queue spells them (docs/queues).
    auto whole = [](const kueue::KaiQueueObj::Res& r) {
      auto m = [](double v) { return v < 0 ? kUnlimited : static_cast<Milli>(std::llround(v)); };
      return ResQuota{m(r.quota), m(r.limit), r.over_quota_weight};
    };
    QueueSpec s;
    s.name = q.name;
    s.preempt_min_runtime_s = q.preempt_min_runtime_s;
    s.reclaim_min_runtime_s = q.reclaim_min_runtime_s;
    s.priority = q.priority;
    s.quota = to_milli(q.gpu.quota);
    s.limit = to_milli(q.gpu.limit);
    s.weight = q.gpu.over_quota_weight;
    s.cpu = whole(q.cpu);
    s.memory = whole(q.memory);
    by_name[q.name] = t.add(s);
  }
  for (const auto& q : mf.kai_queues) {
    if (q.parent.empty()) continue;
    auto it = by_name.find(q.parent);
    if (it == by_name.end())
      throw InputError(q.pos.file, q.pos.where(), "Queue " + q.name + ": parentQueue " + q.parent + " is not declared; expected a Queue name");
    t.set_parent(by_name[q.name], it->second);
  }
  if (!t.finalize()) {
    const auto& q = mf.kai_queues.front();
    throw InputError(q.pos.file, q.pos.where(), "Queue parentQueue links form a cycle; expected a tree");
  }
  if (t.size() == 0) throw InputError(mf.kai_queues.empty() ? "" : mf.kai_queues.front().pos.file, "", "no KAI Queue in the manifests; expected scheduling.run.ai/v2 Queue documents");
  return t;
}

}  // namespace

QueueTree check_queues(const kueue::Manifests& mf, std::vector<std::string>& warnings) { return build_tree(mf, warnings); }

QueueTree load_queues_text(const std::string& yaml, const std::string& display, std::vector<std::string>& warnings) {
  kueue::Manifests mf;
  kueue::load_manifest_text(yaml, display, mf);
  return build_tree(mf, warnings);
}

QueueTree load_queues(const std::vector<std::string>& files, std::vector<std::string>& warnings) {
  kueue::Manifests mf;
  for (const auto& f : files) kueue::load_manifest_file(f, f, mf);
  return build_tree(mf, warnings);
}

}  // namespace floorsim::kai
