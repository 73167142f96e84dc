#include "schedulers/kueue/manifest.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <set>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/core/input.hpp"
#include "sim/core/io.hpp"

namespace floorsim::kueue {

bool parse_quantity(const std::string& s, double& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || !std::isfinite(v)) return false;
  const std::string suf(end);
  static const std::pair<const char*, double> kSuffix[] = {
      {"", 1},         {"m", 1e-3},     {"k", 1e3},          {"M", 1e6},          {"G", 1e9},
      {"T", 1e12},     {"P", 1e15},     {"Ki", 1024.0},      {"Mi", 1048576.0},   {"Gi", 1073741824.0},
      {"Ti", 1099511627776.0}, {"Pi", 1125899906842624.0}, {"n", 1e-9}, {"u", 1e-6}};
  for (const auto& [name, mult] : kSuffix)
    if (suf == name) {
      out = v * mult;
      return true;
    }
  return false;
}

bool parse_duration(const std::string& s, double& out_s) {
  // Go's time.ParseDuration units; a bare "0" is allowed, as there.
  if (s == "0") return out_s = 0, true;
  size_t i = 0;
  double total = 0;
  while (i < s.size()) {
    char* end = nullptr;
    const double v = std::strtod(s.c_str() + i, &end);
    if (end == s.c_str() + i || v < 0 || !std::isfinite(v)) return false;
    i = static_cast<size_t>(end - s.c_str());
    size_t u = i;
    while (u < s.size() && std::isalpha(static_cast<unsigned char>(s[u]))) ++u;
    const std::string unit = s.substr(i, u - i);
    const double mult = unit == "h" ? 3600 : unit == "m" ? 60 : unit == "s" ? 1 : unit == "ms" ? 1e-3
                        : unit == "us" ? 1e-6 : unit == "ns" ? 1e-9 : -1;
    if (mult < 0) return false;
    total += v * mult;
    i = u;
  }
  if (s.empty()) return false;
  out_s = total;
  return true;
}

bool tolerates(const Toleration& t, const Taint& taint) {
  if (!t.effect.empty() && t.effect != taint.effect) return false;
  if (!t.key.empty() && t.key != taint.key) return false;
  if (t.op == "Exists") return true;
  return t.value == taint.value;  // Equal (the default)
}

bool parse_toleration(const std::string& s, Toleration& out) {
  out = Toleration{};
  std::string rest = s;
  if (auto c = rest.rfind(':'); c != std::string::npos) {
    out.effect = rest.substr(c + 1);
    rest = rest.substr(0, c);
    if (out.effect != "NoSchedule" && out.effect != "PreferNoSchedule" && out.effect != "NoExecute") return false;
  }
  if (auto e = rest.find('='); e != std::string::npos) {
    out.key = rest.substr(0, e);
    out.value = rest.substr(e + 1);
  } else {
    out.key = rest;
    out.op = "Exists";
  }
  return !out.key.empty();
}

namespace {

// What floorsim does with a kind it does not read, in words.
std::string not_scheduled(const std::string& kind, const std::string& api) {
  static const char* kWorkloads[] = {"Pod", "Job", "JobSet", "CronJob", "Deployment", "StatefulSet", "PyTorchJob",
                                     "TFJob", "MPIJob", "RayJob", "RayCluster", "LeaderWorkerSet", "Workload", "PodGroup"};
  for (const char* w : kWorkloads)
    if (kind == w) return "is a workload, which floorsim does not schedule from manifests (jobs come from the trace); ignored";
  if (api.rfind("kueue.x-k8s.io/", 0) == 0 || api.rfind("scheduling.run.ai/", 0) == 0)
    return "is not modelled; ignored";
  return "is not a Kueue or KAI queue object; ignored";
}

struct Ctx {
  std::string file;
  Manifests& out;

  int line(const YAML::Node& n) const { return n.Mark().line >= 0 ? n.Mark().line + 1 : 0; }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& msg) const {
    throw InputError(file, std::to_string(line(n)), msg);
  }
  void fields(const YAML::Node& n, const std::string& path, std::initializer_list<const char*> known) {
    if (!n.IsMap()) fail(n, path + " must be a mapping");
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string k = it->first.as<std::string>();
      bool ok = false;
      for (const char* x : known) ok = ok || k == x;
      if (!ok) out.warnings.push_back(file + ":" + std::to_string(line(it->first)) + ": unknown field " + path + "." + k + " (ignored)");
    }
  }
  // A field Kueue or KAI defines that floorsim reads but does not model: one warning, naming
  // what is assumed instead.
  void not_modelled(const YAML::Node& parent, const char* key, const std::string& path, const std::string& assumed) {
    const YAML::Node n = parent[key];
    if (!n || n.IsNull()) return;
    out.warnings.push_back(file + ":" + std::to_string(line(n)) + ": " + path + "." + key + " is not modelled; " + assumed);
  }
  YAML::Node map(const YAML::Node& parent, const char* key, const std::string& path) {
    YAML::Node n = parent[key];
    if (n && !n.IsNull() && !n.IsMap()) fail(n, path + "." + key + " must be a mapping");
    return n;
  }
  YAML::Node seq(const YAML::Node& parent, const char* key, const std::string& path) {
    YAML::Node n = parent[key];
    if (n && !n.IsNull() && !n.IsSequence()) fail(n, path + "." + key + " must be a list");
    return n;
  }
  std::string str(const YAML::Node& parent, const char* key, const std::string& path, bool required,
                  const std::string& def = "") {
    YAML::Node n = parent[key];
    if (!n || n.IsNull()) {
      if (required) fail(parent, path + "." + key + " is required");
      return def;
    }
    if (!n.IsScalar()) fail(n, path + "." + key + " must be a string");
    return n.as<std::string>();
  }
  std::string choice(const YAML::Node& parent, const char* key, const std::string& path, const std::string& def,
                     std::initializer_list<const char*> allowed) {
    const std::string v = str(parent, key, path, false, def);
    std::string list;
    for (const char* a : allowed) {
      if (v == a) return v;
      list += (list.empty() ? "" : ", ") + std::string(a);
    }
    fail(parent[key], path + "." + key + " is '" + v + "'; expected one of " + list);
  }
  double quantity(const YAML::Node& n, const std::string& path) {
    if (!n.IsScalar()) fail(n, path + " must be a quantity (e.g. 8, 500m, 64Gi)");
    double v;
    if (!parse_quantity(n.as<std::string>(), v) || !std::isfinite(v) || v < 0)
      fail(n, path + " is '" + n.as<std::string>() + "'; expected a non-negative quantity (e.g. 8, 500m, 64Gi)");
    return v;
  }
  double number(const YAML::Node& n, const std::string& path) {
    if (!n.IsScalar()) fail(n, path + " must be a number");
    double v = 0;
    try {
      v = n.as<double>();
    } catch (const YAML::Exception&) {
      fail(n, path + " is '" + n.as<std::string>() + "'; expected a number");
    }
    if (!std::isfinite(v)) fail(n, path + " is '" + n.as<std::string>() + "'; expected a finite number");  // .nan, .inf
    return v;
  }
  int32_t integer(const YAML::Node& n, const std::string& path) {
    if (!n.IsScalar()) fail(n, path + " must be an integer");
    try {
      return n.as<int32_t>();
    } catch (const YAML::Exception&) {
      fail(n, path + " is '" + n.as<std::string>() + "'; expected an integer");
    }
  }
  double weight(const YAML::Node& spec, const std::string& path) {
    YAML::Node fs = map(spec, "fairSharing", path);
    if (!fs || fs.IsNull()) return 1;
    fields(fs, path + ".fairSharing", {"weight"});
    return fs["weight"] ? quantity(fs["weight"], path + ".fairSharing.weight") : 1;
  }

  std::vector<ResourceGroupSpec> groups(const YAML::Node& spec, const std::string& path) {
    std::vector<ResourceGroupSpec> out_groups;
    YAML::Node rgs = seq(spec, "resourceGroups", path);
    if (!rgs) return out_groups;
    for (size_t gi = 0; gi < rgs.size(); ++gi) {
      const YAML::Node g = rgs[gi];
      const std::string gp = path + ".resourceGroups[" + std::to_string(gi) + "]";
      fields(g, gp, {"coveredResources", "flavors"});
      ResourceGroupSpec rg;
      YAML::Node cov = seq(g, "coveredResources", gp);
      if (!cov) fail(g, gp + ".coveredResources is required");
      for (const auto& c : cov) {
        if (!c.IsScalar()) fail(c, gp + ".coveredResources entries must be resource names");
        rg.covered.push_back(c.as<std::string>());
      }
      YAML::Node fl = seq(g, "flavors", gp);
      if (!fl) fail(g, gp + ".flavors is required");
      for (size_t fi = 0; fi < fl.size(); ++fi) {
        const YAML::Node f = fl[fi];
        const std::string fp = gp + ".flavors[" + std::to_string(fi) + "]";
        fields(f, fp, {"name", "resources"});
        FlavorQuotas fq;
        fq.flavor = str(f, "name", fp, true);
        YAML::Node rs = seq(f, "resources", fp);
        if (!rs) fail(f, fp + ".resources is required");
        for (size_t ri = 0; ri < rs.size(); ++ri) {
          const YAML::Node r = rs[ri];
          const std::string rp = fp + ".resources[" + std::to_string(ri) + "]";
          fields(r, rp, {"name", "nominalQuota", "borrowingLimit", "lendingLimit"});
          QuotaSpec q;
          q.resource = str(r, "name", rp, true);
          if (!r["nominalQuota"]) fail(r, rp + ".nominalQuota is required");
          q.nominal = quantity(r["nominalQuota"], rp + ".nominalQuota");
          if (r["borrowingLimit"] && !r["borrowingLimit"].IsNull())
            q.borrowing_limit = quantity(r["borrowingLimit"], rp + ".borrowingLimit");
          if (r["lendingLimit"] && !r["lendingLimit"].IsNull())
            q.lending_limit = quantity(r["lendingLimit"], rp + ".lendingLimit");
          fq.resources.push_back(q);
        }
        rg.flavors.push_back(std::move(fq));
      }
      out_groups.push_back(std::move(rg));
    }
    return out_groups;
  }

  // spec.nodeTaints and spec.tolerations (core/v1 Taint, Toleration).
  void taints(const YAML::Node& spec, ResourceFlavorObj& f) {
    if (YAML::Node ts = seq(spec, "nodeTaints", "spec"); ts)
      for (size_t i = 0; i < ts.size(); ++i) {
        const std::string tp = "spec.nodeTaints[" + std::to_string(i) + "]";
        fields(ts[i], tp, {"key", "value", "effect", "timeAdded"});
        Taint t;
        t.key = str(ts[i], "key", tp, true);
        t.value = str(ts[i], "value", tp, false);
        t.effect = choice(ts[i], "effect", tp, "", {"NoSchedule", "PreferNoSchedule", "NoExecute"});
        f.taints.push_back(t);
      }
    if (YAML::Node ts = seq(spec, "tolerations", "spec"); ts)
      for (size_t i = 0; i < ts.size(); ++i) {
        const std::string tp = "spec.tolerations[" + std::to_string(i) + "]";
        fields(ts[i], tp, {"key", "operator", "value", "effect", "tolerationSeconds"});
        Toleration t;
        t.key = str(ts[i], "key", tp, false);
        t.op = choice(ts[i], "operator", tp, "Equal", {"Equal", "Exists"});
        t.value = str(ts[i], "value", tp, false);
        t.effect = str(ts[i], "effect", tp, false);
        if (!t.effect.empty()) t.effect = choice(ts[i], "effect", tp, "", {"NoSchedule", "PreferNoSchedule", "NoExecute"});
        not_modelled(ts[i], "tolerationSeconds", tp, "a NoExecute toleration is taken as lasting for ever");
        f.tolerations.push_back(t);
      }
  }

  // ClusterQueue admission checks: the plain list (v1beta1) or admissionChecksStrategy.
  void admission_checks(const YAML::Node& spec, ClusterQueueObj& cq) {
    if (YAML::Node l = seq(spec, "admissionChecks", "spec"); l)
      for (const auto& c : l) {
        if (!c.IsScalar()) fail(c, "spec.admissionChecks entries must be AdmissionCheck names");
        cq.admission_checks.push_back(c.as<std::string>());
      }
    if (YAML::Node st = map(spec, "admissionChecksStrategy", "spec"); st && !st.IsNull()) {
      fields(st, "spec.admissionChecksStrategy", {"admissionChecks"});
      if (YAML::Node rules = seq(st, "admissionChecks", "spec.admissionChecksStrategy"); rules)
        for (size_t i = 0; i < rules.size(); ++i) {
          const std::string rp = "spec.admissionChecksStrategy.admissionChecks[" + std::to_string(i) + "]";
          fields(rules[i], rp, {"name", "onFlavors"});
          cq.admission_checks.push_back(str(rules[i], "name", rp, true));
          not_modelled(rules[i], "onFlavors", rp, "the check applies to every flavor");
        }
    }
  }

  void cluster_queue(const YAML::Node& doc, const std::string& name) {
    ClusterQueueObj cq;
    cq.name = name;
    cq.pos = {file, line(doc)};
    YAML::Node spec = map(doc, "spec", "ClusterQueue");
    if (!spec) fail(doc, "ClusterQueue " + name + ": spec is required");
    const std::string p = "spec";
    fields(spec, p, {"cohortName", "cohort", "resourceGroups", "queueingStrategy", "namespaceSelector", "preemption",
                     "flavorFungibility", "fairSharing", "admissionScope", "admissionChecks",
                     "admissionChecksStrategy", "stopPolicy"});
    cq.cohort = str(spec, "cohortName", p, false, str(spec, "cohort", p, false));
    cq.queueing_strategy = choice(spec, "queueingStrategy", p, "BestEffortFIFO", {"BestEffortFIFO", "StrictFIFO"});
    cq.groups = groups(spec, p);
    if (YAML::Node pr = map(spec, "preemption", p); pr && !pr.IsNull()) {
      fields(pr, p + ".preemption", {"withinClusterQueue", "reclaimWithinCohort", "borrowWithinCohort"});
      cq.preemption.within = choice(pr, "withinClusterQueue", p + ".preemption", "Never",
                                    {"Never", "LowerPriority", "LowerOrNewerEqualPriority"});
      cq.preemption.reclaim = choice(pr, "reclaimWithinCohort", p + ".preemption", "Never",
                                     {"Never", "LowerPriority", "Any"});
      if (YAML::Node b = map(pr, "borrowWithinCohort", p + ".preemption"); b && !b.IsNull()) {
        const std::string bp = p + ".preemption.borrowWithinCohort";
        fields(b, bp, {"policy", "maxPriorityThreshold"});
        cq.preemption.bwc_policy = choice(b, "policy", bp, "Never", {"Never", "LowerPriority"});
        if (b["maxPriorityThreshold"] && !b["maxPriorityThreshold"].IsNull()) {
          cq.preemption.has_threshold = true;
          cq.preemption.threshold = integer(b["maxPriorityThreshold"], bp + ".maxPriorityThreshold");
        }
      }
      if (cq.preemption.reclaim == "Never" && cq.preemption.bwc_policy != "Never")
        fail(pr, "spec.preemption: reclaimWithinCohort=Never with borrowWithinCohort.policy != Never is rejected by "
                 "Kueue; expected reclaimWithinCohort LowerPriority or Any");
    }
    if (YAML::Node ff = map(spec, "flavorFungibility", p); ff && !ff.IsNull()) {
      const std::string fp = p + ".flavorFungibility";
      fields(ff, fp, {"whenCanBorrow", "whenCanPreempt", "preference"});
      cq.fungibility.when_can_borrow = choice(ff, "whenCanBorrow", fp, "MayStopSearch", {"MayStopSearch", "TryNextFlavor", "Borrow"});
      cq.fungibility.when_can_preempt = choice(ff, "whenCanPreempt", fp, "TryNextFlavor", {"TryNextFlavor", "MayStopSearch", "Preempt"});
      cq.fungibility.preference = choice(ff, "preference", fp, "BorrowingOverPreemption",
                                         {"BorrowingOverPreemption", "PreemptionOverBorrowing"});
    }
    cq.fair_weight = weight(spec, p);
    if (YAML::Node as = map(spec, "admissionScope", p); as && !as.IsNull()) {
      fields(as, p + ".admissionScope", {"admissionMode"});
      cq.admission_fair_sharing = choice(as, "admissionMode", p + ".admissionScope", "NoAdmissionFairSharing",
                                         {"NoAdmissionFairSharing", "UsageBasedAdmissionFairSharing"}) ==
                                  "UsageBasedAdmissionFairSharing";
    }
    cq.stop_policy = choice(spec, "stopPolicy", p, "None", {"None", "Hold", "HoldAndDrain"});
    admission_checks(spec, cq);
    const YAML::Node ns = spec["namespaceSelector"];
    cq.namespace_selector = ns && !ns.IsNull();
    if (!cq.namespace_selector)
      out.warnings.push_back(file + ":" + std::to_string(line(spec)) + ": ClusterQueue " + name +
                             " has no spec.namespaceSelector; Kueue reads a null selector as matching no namespace, so "
                             "its workloads are never admitted (namespaceSelector: {} admits every namespace)");
    else if (!ns.IsMap())
      fail(ns, "spec.namespaceSelector must be a mapping (a label selector)");
    else if (ns.size() > 0)
      out.warnings.push_back(file + ":" + std::to_string(line(ns)) + ": ClusterQueue " + name +
                             " spec.namespaceSelector matchLabels/matchExpressions are not modelled (namespaces carry no "
                             "labels); every namespace is taken as selected");
    // Limits are meaningless without a cohort (spec §1).
    if (cq.cohort.empty())
      for (const auto& g : cq.groups)
        for (const auto& f : g.flavors)
          for (const auto& r : f.resources)
            if (r.borrowing_limit >= 0 || r.lending_limit >= 0)
              fail(spec, "ClusterQueue " + name + ": borrowingLimit/lendingLimit need a cohortName; expected no limits "
                         "on a ClusterQueue without a cohort");
    out.cluster_queues.push_back(std::move(cq));
  }

  void doc(const YAML::Node& d) {
    if (!d || d.IsNull()) return;
    if (!d.IsMap()) fail(d, "a manifest document must be a mapping with apiVersion and kind");
    const std::string api = str(d, "apiVersion", "", true);
    const std::string kind = str(d, "kind", "", true);
    const bool kueue_api = api.rfind("kueue.x-k8s.io/", 0) == 0;
    static const char* kKueueKinds[] = {"ResourceFlavor", "ClusterQueue", "Cohort", "LocalQueue", "WorkloadPriorityClass",
                                        "AdmissionCheck", "Topology", "ProvisioningRequestConfig"};
    const bool read = (kueue_api && std::find(std::begin(kKueueKinds), std::end(kKueueKinds), kind) != std::end(kKueueKinds)) ||
                      (kind == "ResourceQuota" && api == "v1") || (kind == "Queue" && api.rfind("scheduling.run.ai/", 0) == 0);
    if (!read) {  // named, not read: its fields are not checked (a Job may have generateName only)
      out.warnings.push_back(file + ":" + std::to_string(line(d)) + ": kind " + kind + " (" + api + ") " + not_scheduled(kind, api));
      return;
    }
    YAML::Node meta = map(d, "metadata", "");
    if (!meta) fail(d, kind + ": metadata.name is required");
    const std::string name = str(meta, "name", "metadata", true);
    const std::string ns = str(meta, "namespace", "metadata", false, "default");
    fields(d, kind, {"apiVersion", "kind", "metadata", "spec", "value", "description", "status", "globalDefault",
                     "preemptionPolicy"});
    if (kind == "ResourceFlavor" && kueue_api) {
      ResourceFlavorObj f;
      f.name = name;
      f.pos = {file, line(d)};
      if (YAML::Node spec = map(d, "spec", kind); spec && !spec.IsNull()) {
        fields(spec, "spec", {"nodeLabels", "nodeTaints", "tolerations", "topologyName"});
        if (YAML::Node nl = map(spec, "nodeLabels", "spec"); nl && !nl.IsNull())
          for (auto it = nl.begin(); it != nl.end(); ++it) f.node_labels[it->first.as<std::string>()] = it->second.as<std::string>();
        taints(spec, f);
        f.topology = str(spec, "topologyName", "spec", false);
      }
      out.flavors.push_back(std::move(f));
    } else if (kind == "ClusterQueue" && kueue_api) {
      cluster_queue(d, name);
    } else if (kind == "Cohort" && kueue_api) {
      CohortObj c;
      c.name = name;
      c.pos = {file, line(d)};
      if (YAML::Node spec = map(d, "spec", kind); spec && !spec.IsNull()) {
        fields(spec, "spec", {"parentName", "parent", "resourceGroups", "fairSharing"});
        c.parent = str(spec, "parentName", "spec", false, str(spec, "parent", "spec", false));
        c.groups = groups(spec, "spec");
        c.fair_weight = weight(spec, "spec");
      }
      out.cohorts.push_back(std::move(c));
    } else if (kind == "LocalQueue" && kueue_api) {
      LocalQueueObj q;
      q.ns = ns;
      q.name = name;
      q.pos = {file, line(d)};
      YAML::Node spec = map(d, "spec", kind);
      if (!spec) fail(d, "LocalQueue " + name + ": spec.clusterQueue is required");
      fields(spec, "spec", {"clusterQueue", "fairSharing", "stopPolicy"});
      q.cluster_queue = str(spec, "clusterQueue", "spec", true);
      q.stop_policy = choice(spec, "stopPolicy", "spec", "None", {"None", "Hold", "HoldAndDrain"});
      q.fair_weight = weight(spec, "spec");
      out.local_queues.push_back(std::move(q));
    } else if (kind == "WorkloadPriorityClass" && kueue_api) {
      PriorityClassObj p;
      p.name = name;
      p.pos = {file, line(d)};
      if (!d["value"]) fail(d, "WorkloadPriorityClass " + name + ": value is required");
      p.value = integer(d["value"], "value");
      out.priority_classes.push_back(p);
    } else if (kind == "ResourceQuota" && api == "v1") {
      ResourceQuotaObj q;
      q.ns = ns;
      q.name = name;
      q.pos = {file, line(d)};
      YAML::Node spec = map(d, "spec", kind);
      if (spec && !spec.IsNull()) {
        fields(spec, "spec", {"hard", "scopes", "scopeSelector"});
        if (YAML::Node h = map(spec, "hard", "spec"); h && !h.IsNull())
          for (auto it = h.begin(); it != h.end(); ++it)
            q.hard[it->first.as<std::string>()] = quantity(it->second, "spec.hard." + it->first.as<std::string>());
      }
      out.resource_quotas.push_back(std::move(q));
    } else if (kind == "Queue" && api.rfind("scheduling.run.ai/", 0) == 0) {
      KaiQueueObj q;
      q.name = name;
      q.pos = {file, line(d)};
      YAML::Node spec = map(d, "spec", kind);
      if (spec && !spec.IsNull()) {
        fields(spec, "spec", {"parentQueue", "priority", "resources", "displayName", "preemptMinRuntime", "reclaimMinRuntime"});
        q.parent = str(spec, "parentQueue", "spec", false);
        auto dur = [&](const char* key, double& out_s) {
          const std::string v = str(spec, key, "spec", false);
          if (v.empty()) return;
          if (!parse_duration(v, out_s))
            fail(spec[key], "spec." + std::string(key) + " is '" + v + "'; expected a duration (e.g. 30s, 5m, 1h)");
        };
        dur("preemptMinRuntime", q.preempt_min_runtime_s);
        dur("reclaimMinRuntime", q.reclaim_min_runtime_s);
        if (spec["priority"]) q.priority = integer(spec["priority"], "spec.priority");
        if (YAML::Node rs = map(spec, "resources", "spec"); rs && !rs.IsNull()) {
          fields(rs, "spec.resources", {"gpu", "cpu", "memory"});
          auto res = [&](const char* key, KaiQueueObj::Res& r) {
            YAML::Node n = map(rs, key, "spec.resources");
            if (!n || n.IsNull()) return;
            const std::string rp = std::string("spec.resources.") + key;
            fields(n, rp, {"quota", "overQuotaWeight", "limit"});
            if (n["quota"]) r.quota = number(n["quota"], rp + ".quota");
            if (n["overQuotaWeight"]) r.over_quota_weight = number(n["overQuotaWeight"], rp + ".overQuotaWeight");
            if (n["limit"]) r.limit = number(n["limit"], rp + ".limit");
          };
          res("gpu", q.gpu);
          res("cpu", q.cpu);
          res("memory", q.memory);
        }
      }
      out.kai_queues.push_back(std::move(q));
    } else if (kind == "AdmissionCheck" && kueue_api) {
      AdmissionCheckObj a;
      a.name = name;
      a.pos = {file, line(d)};
      if (YAML::Node spec = map(d, "spec", kind); spec && !spec.IsNull()) {
        fields(spec, "spec", {"controllerName", "parameters", "retryDelayMinutes"});
        a.controller = str(spec, "controllerName", "spec", true);
        if (YAML::Node pm = map(spec, "parameters", "spec"); pm && !pm.IsNull()) {
          fields(pm, "spec.parameters", {"apiGroup", "kind", "name"});
          a.parameters_kind = str(pm, "kind", "spec.parameters", false);
          a.parameters_name = str(pm, "name", "spec.parameters", false);
        }
      }
      out.admission_checks.push_back(std::move(a));
    } else if (kind == "Topology" && kueue_api) {
      topology(d, name);
    } else if (kind == "ProvisioningRequestConfig" && kueue_api) {
      provisioning_config(d, name);
    } else {
      out.warnings.push_back(file + ":" + std::to_string(line(d)) + ": kind " + kind + " (" + api + ") " + not_scheduled(kind, api));
    }
  }

  // Topology (kueue.x-k8s.io topology_types.go): 1 to 16 distinct levels, the node label
  // kubernetes.io/hostname only as the last one.
  void topology(const YAML::Node& d, const std::string& name) {
    TopologyObj t;
    t.name = name;
    t.pos = {file, line(d)};
    YAML::Node spec = map(d, "spec", "Topology");
    if (!spec || spec.IsNull()) fail(d, "Topology " + name + ": spec.levels is required");
    fields(spec, "spec", {"levels"});
    YAML::Node levels = seq(spec, "levels", "spec");
    if (!levels || levels.size() == 0 || levels.size() > 16)
      fail(spec, "Topology " + name + ": spec.levels must list 1 to 16 levels");
    for (size_t i = 0; i < levels.size(); ++i) {
      const std::string lp = "spec.levels[" + std::to_string(i) + "]";
      fields(levels[i], lp, {"nodeLabel"});
      const std::string label = str(levels[i], "nodeLabel", lp, true);
      if (std::find(t.levels.begin(), t.levels.end(), label) != t.levels.end())
        fail(levels[i], "Topology " + name + ": " + lp + ".nodeLabel " + label + " is repeated; expected distinct levels");
      if (label == "kubernetes.io/hostname" && i + 1 != levels.size())
        fail(levels[i], "Topology " + name + ": kubernetes.io/hostname may only be the last level");
      t.levels.push_back(label);
    }
    out.topologies.push_back(std::move(t));
  }

  // ProvisioningRequestConfig: managedResources and retryStrategy are modelled (the check as
  // a delay with a failure probability, scheduler.provisioning_request); the rest is named.
  void provisioning_config(const YAML::Node& d, const std::string& name) {
    ProvisioningConfigObj c;
    c.name = name;
    c.pos = {file, line(d)};
    if (YAML::Node spec = map(d, "spec", "ProvisioningRequestConfig"); spec && !spec.IsNull()) {
      fields(spec, "spec", {"provisioningClassName", "parameters", "managedResources", "retryStrategy", "podSetUpdates",
                            "podSetMergePolicy"});
      c.class_name = str(spec, "provisioningClassName", "spec", false);
      if (!c.class_name.empty())
        out.warnings.push_back(file + ":" + std::to_string(line(spec["provisioningClassName"])) +
                               ": spec.provisioningClassName " + c.class_name +
                               " is not modelled; every class is a delay (scheduler.provisioning_request.delay_s) that "
                               "fails with probability failure_probability, on the nodes already in the cluster");
      not_modelled(spec, "parameters", "spec", "the class parameters change nothing");
      not_modelled(spec, "podSetUpdates", "spec", "no nodeSelector is added to the pods");
      not_modelled(spec, "podSetMergePolicy", "spec", "a workload has one PodSet");
      if (YAML::Node mr = seq(spec, "managedResources", "spec"); mr)
        for (const auto& r : mr) {
          if (!r.IsScalar()) fail(r, "spec.managedResources entries must be resource names");
          c.managed_resources.push_back(r.as<std::string>());
        }
      if (YAML::Node rs = map(spec, "retryStrategy", "spec"); rs && !rs.IsNull()) {
        fields(rs, "spec.retryStrategy", {"backoffLimitCount", "backoffBaseSeconds", "backoffMaxSeconds"});
        auto count = [&](const char* key, double& v) {
          if (!rs[key] || rs[key].IsNull()) return;
          const int32_t x = integer(rs[key], std::string("spec.retryStrategy.") + key);
          if (x < 0) fail(rs[key], std::string("spec.retryStrategy.") + key + " is negative; expected an integer >= 0");
          v = x;
        };
        double limit = c.backoff_limit_count;
        count("backoffLimitCount", limit);
        count("backoffBaseSeconds", c.backoff_base_s);
        count("backoffMaxSeconds", c.backoff_max_s);
        c.backoff_limit_count = static_cast<int32_t>(limit);
      }
    }
    out.provisioning_configs.push_back(std::move(c));
  }
};

}  // namespace

namespace {

// A first pass over the parse events, before LoadAll, for two things yaml-cpp does not do.
// 1. Duplicate keys: YAML 1.2 requires the keys of a mapping to be unique, but yaml-cpp keeps the
//    first value and drops the later one without a word; a manifest edited twice would then be
//    simulated with the value its author replaced. Each scalar key is checked within its mapping.
// 2. Termination: yaml-cpp 0.7's LoadAll never returns on some malformed streams (a lone ",": the
//    parser yields an empty document forever without consuming input; jbeder/yaml-cpp#1040, fixed
//    upstream by #1319 after 0.7). A real stream has at most one document per byte (each needs a
//    "---" or content), so more means the parser is stuck, and the text is reported as malformed.
class StructureCheck : public YAML::EventHandler {
 public:
  explicit StructureCheck(const std::string& display) : display_(display) {}
  void OnDocumentStart(const YAML::Mark&) override { stack_.clear(); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { node(m, nullptr); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { node(m, nullptr); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string& value) override {
    node(m, &value);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(m, nullptr);
    stack_.push_back({false, true, {}});
  }
  void OnSequenceEnd() override { stack_.pop_back(); }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(m, nullptr);
    stack_.push_back({true, true, {}});
  }
  void OnMapEnd() override { stack_.pop_back(); }

 private:
  struct Frame {
    bool is_map;
    bool at_key;                        // in a mapping: the next node is a key
    std::map<std::string, int> keys;    // scalar key -> its line
  };
  // A node inside the innermost collection; `key` is its text when it is a scalar.
  void node(const YAML::Mark& m, const std::string* key) {
    if (stack_.empty() || !stack_.back().is_map) return;
    Frame& f = stack_.back();
    f.at_key = !f.at_key;
    if (f.at_key || !key) return;  // a value, or a key that is null, an alias or a collection
    const auto [it, fresh] = f.keys.emplace(*key, m.line + 1);
    if (!fresh)
      throw InputError(display_, std::to_string(m.line + 1),
                       "key \"" + *key + "\" appears twice in this mapping (first at line " + std::to_string(it->second) +
                           "); expected each key once");
  }
  const std::string& display_;
  std::vector<Frame> stack_;
};

void check_structure(const std::string& text, const std::string& display) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  StructureCheck h(display);
  for (size_t docs = 0; parser.HandleNextDocument(h);)
    if (++docs > text.size() + 1)
      throw InputError(display, "1", "YAML syntax error: the parser makes no progress (a stray ',' or flow "
                                     "indicator outside a flow collection?); expected YAML documents");
}

}  // namespace

void load_manifest_text(const std::string& text, const std::string& display, Manifests& out) {
  io::check_utf8(text, display);
  Ctx ctx{display, out};
  std::vector<YAML::Node> docs;
  try {
    check_structure(text, display);
    docs = YAML::LoadAll(text);
  } catch (const YAML::ParserException& e) {
    throw InputError(display, std::to_string(e.mark.line + 1), "YAML syntax error: " + e.msg);
  }
  // A manifest file that declares nothing is a wrong path or an emptied file, not a cluster
  // without queues.
  bool any = false;
  for (const auto& d : docs) any = any || (d && !d.IsNull());
  if (!any) throw InputError(display, "1", "no YAML documents; expected Kueue objects (ResourceFlavor, ClusterQueue, ...)");
  try {
    for (const auto& d : docs) ctx.doc(d);
  } catch (const YAML::Exception& e) {  // conversions we did not anticipate
    throw InputError(display, std::to_string(e.mark.line + 1), e.msg);
  }
}

void load_manifest_file(const std::string& path, const std::string& display, Manifests& out) {
  load_manifest_text(input::read_text(path), display, out);
}

}  // namespace floorsim::kueue
