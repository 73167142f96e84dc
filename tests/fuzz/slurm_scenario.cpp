// Slurm scenarios from fuzzer bytes (see slurm_scenario.hpp). The order of the choices below
// is the byte layout; keep it stable, or the seeds in tests/fuzz/seeds/slurm_sim/ and the kept
// inputs in tests/fuzz/regress/slurm_sim/ decode to other scenarios.
#include "tests/fuzz/slurm_scenario.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace floorsim::fuzz {
namespace {

using nlohmann::json;

// The fuzzer's bytes as a stream of choices.
class Choices {
 public:
  explicit Choices(std::string_view d) : d_(d) {}
  // One of n options (0 when the bytes are used up).
  size_t pick(size_t n) { return i_ < d_.size() ? static_cast<uint8_t>(d_[i_++]) % n : 0; }
  template <class T, size_t N>
  T one_of(const T (&opts)[N]) { return opts[pick(N)]; }
  bool chance(size_t one_in) { return pick(one_in) == 0; }

 private:
  std::string_view d_;
  size_t i_ = 0;
};

struct Shape {
  size_t nodes;
  int gpus_per_node;
};

std::string node_name(size_t i) { return fmt::format("gpu{:03}", i + 1); }

// A reservation object, as the scheduler block and reservation_create changes take it.
json reservation(Choices& c, const Shape& sh, const std::string& name, bool from_change) {
  static constexpr double kStart[] = {0, 600, 3600, 86400};
  static constexpr double kDuration[] = {60, 600, 3600, 14400, 86400};
  static constexpr const char* kPeriod[] = {"NONE", "HOURLY", "DAILY", "WEEKLY"};
  json r = {{"name", name}, {"start_s", c.one_of(kStart)}, {"duration_s", c.one_of(kDuration)}, {"period", c.one_of(kPeriod)}};
  switch (c.pick(3)) {
    case 0: r["node_cnt"] = 1 + c.pick(sh.nodes); break;
    case 1: r["gpus"] = 1 + c.pick(sh.nodes * sh.gpus_per_node); break;
    default: r["nodes"] = node_name(c.pick(sh.nodes)); break;
  }
  switch (c.pick(4)) {
    case 0: r["accounts"] = json::array({"a"}); break;
    case 1: r["accounts"] = json::array({"a", "b"}); break;
    case 2: r["qos"] = json::array({"hi"}); break;
    default: r["users"] = json::array({"ua"}); break;
  }
  if (!c.chance(3)) r["request_classes"] = json::array({"risk"});
  const size_t bits = c.pick(32);
  json flags = json::array();
  if (bits & 1) flags.push_back("FLEX");
  if (bits & 2) flags.push_back("MAGNETIC");
  if (bits & 4) flags.push_back("PURGE_COMP");
  if (bits & 8 && from_change) flags.push_back("IGNORE_JOBS");
  if (bits & 16) flags.push_back("USER_DELETE");
  r["flags"] = flags;
  if (from_change) r.erase("name");  // the change's target names it
  return r;
}

json slurm_block(Choices& c, const Shape& sh) {
  static constexpr const char* kVersion[] = {"22.05", "master"};
  static constexpr double kSchedInterval[] = {1, 10, 60};
  static constexpr double kBfInterval[] = {1, 30};
  static constexpr double kBfWindowMin[] = {1, 60, 1440};
  static constexpr double kBfResolution[] = {1, 60, 300};
  static constexpr double kRequeueDelay[] = {0, 120};
  static constexpr const char* kPreemptType[] = {"preempt/none", "preempt/qos"};
  static constexpr const char* kPreemptMode[] = {"OFF", "CANCEL", "REQUEUE", "SUSPEND"};
  static constexpr double kOverRun[] = {0, 60};
  static constexpr const char* kPriorityType[] = {"auto", "basic", "multifactor"};
  json s = {{"type", "slurm"},
            {"version", c.one_of(kVersion)},
            {"backfill", !c.chance(4)},
            {"sched_interval_s", c.one_of(kSchedInterval)},
            {"bf_interval_s", c.one_of(kBfInterval)},
            {"bf_window_min", c.one_of(kBfWindowMin)},
            {"bf_resolution_s", c.one_of(kBfResolution)},
            {"requeue_delay_s", c.one_of(kRequeueDelay)},
            {"preempt_type", c.one_of(kPreemptType)},
            {"preempt_mode", c.one_of(kPreemptMode)},
            {"resv_over_run_s", c.one_of(kOverRun)},
            {"priority_type", c.one_of(kPriorityType)},
            {"priority_weight_qos", 1000},
            {"accounts", json::array({{{"name", "a"}}, {{"name", "b"}}})},
            {"users", json::array({{{"name", "ua"}, {"account", "a"}}, {{"name", "ub"}, {"account", "b"}}})}};
  static constexpr double kGrace[] = {0, 30};
  static constexpr const char* kQosMode[] = {"", "REQUEUE", "CANCEL", "SUSPEND"};
  static constexpr double kExempt[] = {-1, 300};
  json hi = {{"name", "hi"}, {"priority", 100}, {"grace_time_s", c.one_of(kGrace)}};
  if (!c.chance(4)) hi["preempt"] = json::array({"lo"});
  json lo = {{"name", "lo"}, {"priority", 1}, {"preempt_mode", c.one_of(kQosMode)}, {"preempt_exempt_time_s", c.one_of(kExempt)}};
  if (c.chance(2)) lo["flags"] = json::array({"NoReserve"});
  s["qos"] = json::array({hi, lo});
  json resv = json::array();
  for (size_t k = 0, n = c.pick(4); k < n; ++k) resv.push_back(reservation(c, sh, fmt::format("r{}", k), false));
  s["reservations"] = resv;
  return s;
}

// Reservation changes by a cluster admin (allowed by the default governance).
json changes(Choices& c, const Shape& sh) {
  static constexpr double kAt[] = {0, 300, 3600};
  json out = json::array();
  for (size_t k = 0, n = c.pick(3); k < n; ++k) {
    json what;
    switch (c.pick(3)) {
      case 0: what = {{"kind", "reservation_create"}, {"target", fmt::format("c{}", k)}, {"value", reservation(c, sh, "", true)}}; break;
      case 1: what = {{"kind", "reservation_delete"}, {"target", "r0"}}; break;
      default: what = {{"kind", "reservation_update"}, {"target", "r0"}, {"value", {{"duration_s", 7200}}}}; break;
    }
    out.push_back({{"time_s", c.one_of(kAt)},
                   {"requester", {{"user", "admin"}, {"role", "cluster_admin"}, {"team", "ops"}}},
                   {"what", what}});
  }
  return out;
}

json failures(Choices& c, const Shape& sh) {
  static constexpr double kAt[] = {0, 60, 1800, 7200};
  json out = json::array();
  for (size_t k = 0, n = c.pick(4); k < n; ++k) {
    json f = {{"node", node_name(c.pick(sh.nodes))}, {"at_s", c.one_of(kAt)}};
    switch (c.pick(3)) {
      case 0: f["duration_s"] = nullptr; break;
      case 1: f["duration_s"] = 60; break;
      default: f["duration_s"] = 3600; break;
    }
    out.push_back(f);
  }
  return out;
}

json jobs(Choices& c, const Shape& sh) {
  static constexpr double kSubmit[] = {0, 30, 600, 3600, 86400};
  static constexpr double kRuntime[] = {0, 1, 60, 600, 3600, 7200};
  static constexpr double kLimit[] = {-1, 60, 600, 3600, 7200, 90000};
  static constexpr const char* kQos[] = {"", "hi", "lo"};
  static constexpr const char* kClass[] = {"risk", "batch"};
  json out = json::array();
  for (size_t k = 0, n = 1 + c.pick(12); k < n; ++k) {
    const bool b = c.chance(2);
    json j = {{"id", k + 1},
              {"submit_s", c.one_of(kSubmit)},
              {"runtime_s", c.one_of(kRuntime)},
              {"gpus", 1 + c.pick(sh.nodes * sh.gpus_per_node)},
              {"account", b ? "b" : "a"},
              {"user", b ? "ub" : "ua"},
              {"qos", c.one_of(kQos)},
              {"class", c.one_of(kClass)},
              {"requeueable", !c.chance(4)},
              {"checkpoint_interval_s", c.chance(2) ? 300 : 0}};
    const double limit = c.one_of(kLimit);
    j["time_limit_s"] = limit < 0 ? json(nullptr) : json(limit);
    out.push_back(j);
  }
  return out;
}

}  // namespace

json slurm_scenario_from_bytes(std::string_view data) {
  Choices c(data);
  static constexpr int kGpusPerNode[] = {1, 2, 4, 8};
  const Shape sh{1 + c.pick(6), c.one_of(kGpusPerNode)};
  json s = {{"name", "fuzz-slurm"},
            {"cluster", {{"nodes", sh.nodes}, {"gpus_per_node", sh.gpus_per_node}}},
            {"classes", {{"risk", {{"floor_gpus", 0}}}, {"batch", {{"floor_gpus", 0}}}}},
            {"engine", {{"check_invariants", true}}}};
  s["scheduler"] = slurm_block(c, sh);
  s["changes"] = changes(c, sh);
  s["failures"] = failures(c, sh);
  s["workload"] = {{"jobs", jobs(c, sh)}};
  return s;
}

}  // namespace floorsim::fuzz
