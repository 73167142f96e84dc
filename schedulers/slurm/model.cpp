// The slurm model's scheduling passes. See slurm.hpp; the passes follow Slurm's
// src/slurmctld/job_scheduler.c (main loop) and src/plugins/sched/backfill/backfill.c.
#include <algorithm>
#include <array>
#include <bit>
#include <functional>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "schedulers/common/placement.hpp"
#include "schedulers/slurm/slurm.hpp"
#include "schedulers/slurm/topology.hpp"
#include "sim/core/error.hpp"

namespace floorsim::slurm {

const char* reason_text(uint16_t code) {
  static constexpr const char* kNames[] = {
      "None", "Priority", "Resources", "BeginTime", "PartitionTimeLimit", "PartitionNodeLimit",
      "QOSGrpGRES", "QOSGrpNodeLimit", "QOSGrpCpuLimit", "QOSMaxGRESPerUser", "QOSMaxNodePerUserLimit",
      "QOSMaxCpuPerUserLimit", "QOSMaxGRESPerJob", "QOSMaxNodePerJobLimit", "QOSMaxCpuPerJobLimit",
      "QOSMaxJobsPerUserLimit", "QOSGrpJobsLimit", "QOSMaxWallDurationPerJobLimit", "QOSGrpGRESMinutes",
      "QOSGrpNodeMinutes", "QOSGrpCpuMinutesLimit", "AssocGrpGRES", "AssocGrpNodeLimit", "AssocGrpCpuLimit",
      "AssocMaxJobsLimit", "AssocMaxWallDurationPerJobLimit", "Reservation", "ResvDeleted"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == kReasonCount);
  return code < kReasonCount ? kNames[code] : "Other";
}

namespace {

constexpr int kTres = 3;  // 0 gpu, 1 node, 2 cpu
constexpr SimTime kYear_s = 365.0 * 86400;
constexpr uint32_t kNoIdx = UINT32_MAX;

// The next multiple of `step` strictly after t (t >= 0): t + (step - fmod(t, step)), as
// _will_run_test aligns its groups; whole seconds (the common case) in integers, exactly.
inline double next_barrier(double t, double step) {
  if (t >= 0 && t < 9.0e15) {
    const auto ti = static_cast<int64_t>(t);
    const auto si = static_cast<int64_t>(step);
    if (static_cast<double>(ti) == t && static_cast<double>(si) == step && si > 0) return static_cast<double>(ti + (si - ti % si));
  }
  return t + (step - std::fmod(t, step));
}

// cons_common _will_run_test (22.05, and master alike) releases running jobs in end-time order,
// in groups aligned on a barrier: the first released job's end rounded up to the next multiple
// of 30 s (a multiple itself goes up by a whole 30 s), so that running jobs do not shift them
// between passes. A group takes every next job ending by barrier + window; the window then
// doubles until the next job is within it. A group of over 200 jobs (rm_job_cnt) is not tested
// and runs on into the next. Checked against a live slurmctld 22.05
// (tests/oracle/recorded/backfill.tsv); time 0 is taken as a whole minute of the epoch, which
// slurmctld's barrier counts from. Jobs on none of the tested job's nodes are not fed in.
class ReleaseGroups {
 public:
  enum class Step { More, Test, Skip };  // the group goes on / is complete: test it / is not tested
  // After releasing a job ending at t; next_t is the next end (kNever if none).
  Step released(SimTime t, SimTime next_t) {
    if (barrier_ < 0) barrier_ = next_barrier(t, window_);
    if (next_t > barrier_ + window_) {
      removed_ = 0;
      do window_ *= 2;
      while (next_t != kNever && next_t > barrier_ + window_);
      return Step::Test;
    }
    if (removed_++ > 200) {
      removed_ = 0;
      return Step::Skip;
    }
    return Step::More;
  }

 private:
  SimTime window_ = 30, barrier_ = -1;
  size_t removed_ = 0;
};

// Bits set in x. Without POPCNT (FLOORSIM_POPCNT=OFF, or not x86-64 with it) std::popcount
// becomes a library call; the fallback is a few instructions inline.
inline int popcount64(uint64_t x) {
#if defined(__POPCNT__) || defined(__ARM_NEON)
  return std::popcount(x);
#else
  x -= (x >> 1) & 0x5555555555555555ULL;
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return static_cast<int>((x * 0x0101010101010101ULL) >> 56);
#endif
}

// Bit k: byte k of p[0..8) is not 0 (SWAR: a byte's high bit after the add says "not 0", the
// multiply gathers the 8 high bits into the top byte).
inline uint64_t pack8_nonzero(const uint8_t* p) {
  uint64_t x;
  std::memcpy(&x, p, 8);
  if constexpr (std::endian::native != std::endian::little) x = __builtin_bswap64(x);
  const uint64_t lo7 = 0x7F7F7F7F7F7F7F7FULL;
  const uint64_t hi = (((x & lo7) + lo7) | x) & ~lo7;
  return ((hi >> 7) * 0x0102040810204080ULL) >> 56;
}

// A node bitset (64 nodes a word, (n + 63) / 64 words at out) of the nodes whose value is not 0.
// Wider values are narrowed to bytes first (a loop the compiler vectorizes).
template <class T>
void pack_nonzero(const T* __restrict src, size_t n, uint64_t* __restrict out) {
  alignas(8) uint8_t buf[64];
  for (size_t w = 0; w * 64 < n; ++w) {
    const size_t n0 = w * 64, m = std::min<size_t>(64, n - n0);
    const uint8_t* b;
    if constexpr (sizeof(T) == 1) {
      b = reinterpret_cast<const uint8_t*>(src + n0);
    } else {
      for (size_t i = 0; i < m; ++i) buf[i] = src[n0 + i] != 0;
      b = buf;
    }
    uint64_t word = 0;
    size_t i = 0;
    for (; i + 8 <= m; i += 8) word |= pack8_nonzero(b + i) << i;
    for (; i < m; ++i) word |= static_cast<uint64_t>(b[i] != 0) << i;
    out[w] = word;
  }
}

// kSpread[b]: the 8 bits of b as 8 bytes of 0/1, lowest bit in the first byte (little endian).
constexpr auto kSpread = [] {
  std::array<uint64_t, 256> t{};
  for (uint64_t b = 0; b < 256; ++b)
    for (uint64_t i = 0; i < 8; ++i)
      if ((b >> i) & 1) t[b] |= uint64_t{1} << (8 * i);
  return t;
}();

struct PartRt {
  std::string name;
  std::vector<uint8_t> mask;  // by node
  std::vector<uint8_t> keep;  // by node: 0 on its nodes, 0xFF elsewhere (NODES_BUSY clears avail)
  int64_t tier = 1, job_factor = 1;
  SimTime max_time_s = kNever, default_time_s = -1;
  uint32_t qos = kNoIdx;
  int64_t gpus = 0, nodes = 0, cpus = 0;
  PreemptMode preempt_mode = PreemptMode::Unset;
};

struct QosRt {
  Qos q;
  std::vector<uint8_t> preempts;  // by QOS index
  double usage_gpu_s = 0, usage_node_s = 0, usage_cpu_s = 0;  // decayed TRES-seconds (GrpTRESMins)
};

struct AssocRt {
  std::string name;
  uint32_t parent = kNoIdx;
  bool is_user = false;
  int64_t shares = 1;
  Tres grp_tres;
  int64_t max_jobs = kUnset;
  SimTime max_wall_s = kUnset;
  uint32_t default_qos = kNoIdx;
  std::vector<uint32_t> children;
  // Derived from the usages on demand (SlurmModel::ensure_fs), hence mutable.
  mutable double fs = 1.0;      // fair-share factor (users)
  mutable double usage_efctv = 0;
  uint32_t name_rank = 0;  // rank of the name among all names (Fair Tree ties go by name)
};

// A reservation (spec §6) as reserved GPUs per node: whole-node ones (Nodes=, NodeCnt=) reserve
// every GPU of their nodes, TRES=gres/gpu:N reserves N GPUs.
struct ResvRt {
  std::string name;
  SimTime start_s = 0, dur_s = 0, period_s = 0;  // period 0 = one-off
  std::vector<int32_t> gpus;                    // reserved GPUs by node
  int64_t total_gpus = 0;
  std::vector<StrId> users, accounts, qos, classes;  // access lists (names interned) and requesters
  bool flex = false, magnetic = false;
  std::vector<std::string> assocs;  // associations the idle time is split over
  double idle_gpu_s = 0;
  int64_t used_gpus = 0;            // insiders' GPUs after the last pass
  SimTime acc_s = 0;                // idle accounted up to here
  SimTime purge_s = -1;             // PURGE_COMP idle time (-1 = no flag)
  SimTime last_end_s = -kNever;     // last end of one of its jobs (PURGE_COMP idle clock)
  SimTime deleted_s = kNever;       // purged at this time
  // The occurrence whose end is after t (only the next one matters, spec §6).
  void window(SimTime t, SimTime& s, SimTime& e) const {
    s = start_s;
    if (period_s > 0 && t > start_s) {
      s = start_s + std::floor((t - start_s) / period_s) * period_s;
      if (s + dur_s <= t) s += period_s;
    }
    e = s + dur_s;
  }
  // Reserved seconds of [a, b) (over every occurrence).
  double overlap(SimTime a, SimTime b) const {
    double tot = 0;
    SimTime s, e;
    window(a, s, e);
    while (s < b && std::isfinite(s)) {
      tot += std::max(0.0, std::min(b, e) - std::max(a, s));
      if (period_s <= 0) break;
      s += period_s;
      e += period_s;
    }
    return tot;
  }
};

struct Slice {
  SimTime begin, end;
  uint32_t next;  // kNoIdx = last
};

struct EndRec {
  SimTime t;
  JobIdx job;
  uint32_t off, cnt;  // placement in local_ when cnt > 0 (started in this pass)
};
// The release order of will_run: end time, then job index for equal ends (slurmctld sorts by
// end time only; the index makes the order total and stable).
inline bool end_before(const EndRec& a, const EndRec& b) {
  if (a.t != b.t) return a.t < b.t;
  return a.job < b.job;
}

class SlurmModel final : public Scheduler {
 public:
  SlurmModel(SlurmConfig cfg, const Workload& wl, const ClusterConfig& cluster, const std::string& file)
      : cfg_(std::move(cfg)) {
    build(wl, cluster, file);
  }

  std::string_view name() const override { return "slurm"; }
  std::string_view reason_name(uint16_t code) const override { return reason_text(code); }
  std::vector<std::string> extra_columns() const override {
    if (topo_mode_ == 0) return {"priority", "planned_start_s", "eff_qos"};
    // Topology runs only (outputs without a topology stay as they were): what the job spans.
    return {"priority", "planned_start_s", "eff_qos", topo_mode_ == 1 ? "leaves" : "blocks", "switch_wait_s"};
  }
  void extra_values(JobIdx j, std::vector<std::string>& out) const override {
    out.push_back(std::to_string(static_cast<uint64_t>(prio_[j])));
    out.push_back(planned_[j] >= 0 ? fmt::format("{}", planned_[j]) : std::string());
    out.push_back(jqos_[j] == kNoIdx ? std::string() : qos_[jqos_[j]].q.name);
    if (topo_mode_ != 0) {
      out.push_back(jspans_[j] > 0 ? std::to_string(jspans_[j]) : std::string());
      out.push_back(jsw_waited_s_[j] >= 0 ? fmt::format("{}", jsw_waited_s_[j]) : std::string());
    }
  }
  nlohmann::json report(const Snapshot& fv) const override {
    final_now_ = fv.now;
    nlohmann::json j;
    j["config"] = to_json(cfg_);
    j["main_passes"] = main_passes_;
    j["backfill_passes"] = bf_passes_;
    j["backfill_starts"] = bf_starts_;
    j["main_starts"] = main_starts_;
    j["preemptions"] = preempts_;
    nlohmann::json rs = nlohmann::json::object();
    for (const auto& r : resv_) {
      // Idle reserved GPU-seconds (the slurmdbd rollup's "unused"), split equally over the
      // reservation's associations (spec §6); accounted up to the end of the run.
      const double idle = r.idle_gpu_s + r.overlap(r.acc_s, std::max(r.acc_s, std::min(final_now_, r.deleted_s))) *
                                             static_cast<double>(std::max<int64_t>(0, r.total_gpus - r.used_gpus));
      nlohmann::json by = nlohmann::json::object();
      for (const auto& a : r.assocs) by[a] = idle / static_cast<double>(r.assocs.size());
      rs[r.name] = {{"reserved_gpus", r.total_gpus}, {"idle_gpu_s", idle}, {"idle_gpu_s_by_association", by}};
      if (std::isfinite(r.deleted_s)) rs[r.name]["purged_at_s"] = r.deleted_s;
    }
    j["reservations"] = rs;
    nlohmann::json fs = nlohmann::json::object();
    ensure_fs();
    for (const auto& a : assoc_)
      if (a.is_user) fs[a.name + "@" + (a.parent == kNoIdx ? "" : assoc_[a.parent].name)] = a.fs;
    j["fairshare"] = fs;
    if (topo_mode_ != 0) j["topology"] = topo_report(fv.now);
    return j;
  }

  void on_job_event(const JobEvent& ev, const Snapshot& v) override {
    const JobIdx j = ev.job;
    ++events_;
    switch (ev.kind) {
      case JobEvent::Kind::Started:
        acc_from_[j] = ev.time_s;
        if (topo_mode_ != 0) topo_started(j, ev.time_s, v);
        break;
      case JobEvent::Kind::Ended:
      case JobEvent::Kind::Requeued:
      case JobEvent::Kind::Suspended:
        if (jresv_[j] != kNoIdx) resv_[jresv_[j]].last_end_s = std::max(resv_[jresv_[j]].last_end_s, ev.time_s);
        if (acc_from_[j] >= 0) {
          add_usage(v, j, ev.time_s - acc_from_[j], pend_assoc_, pend_qos_);
          acc_from_[j] = -1;
        }
        break;
      default:
        break;
    }
  }

  void schedule(const Snapshot& v, Decisions& out) override;
  // Policy changes (issue 9): defined in schedulers/slurm/policy_change.inc (included below).
  ChangeOutcome on_policy_change(const PolicyChange& c, const Snapshot& v, Decisions& out) override;
  ChangeScope change_scope(const PolicyChange& c, const Snapshot& v) const override;

 private:
  ChangeOutcome change_qos(const PolicyChange& c);
  ChangeOutcome change_weight(const PolicyChange& c);
  ChangeOutcome change_resv(const PolicyChange& c, const Snapshot& v);
  ChangeOutcome delete_assoc(const PolicyChange& c, const Snapshot& v, Decisions& out);
  void cancel_gone(const Snapshot& v, Decisions& out);
  void classes_where(const Snapshot& v, ChangeScope& s, const std::function<bool(JobIdx)>& pred) const;
  std::vector<uint8_t> nodes_of_qos(uint32_t q) const;
  std::vector<uint32_t> assoc_subtree(const std::string& target) const;
  std::vector<uint8_t> jgone_;  // by job: its association was deleted (cancelled at submission)
  const Workload* wl_ = nullptr;
  const ClusterConfig* cluster_ = nullptr;
  std::string file_;
  // ---- construction ----
  void build(const Workload& wl, const ClusterConfig& cluster, const std::string& file);
  uint32_t find_qos(const std::string& n) const {
    for (size_t i = 0; i < qos_.size(); ++i)
      if (qos_[i].q.name == n) return static_cast<uint32_t>(i);
    return kNoIdx;
  }

  // ---- accounting ----
  void add_usage(const Snapshot& v, JobIdx j, double dt, std::vector<double>& to_assoc, std::vector<double>& to_qos) {
    if (dt <= 0) return;
    const JobSpec& js = v.jobs[j];
    const uint32_t q = jqos_[j];
    const double uf = q == kNoIdx ? 1.0 : qos_[q].q.usage_factor;
    const uint32_t a = jassoc_[j];
    if (&to_assoc == &pend_assoc_ && !pend_mark_[a]) pend_mark_[a] = 1, pend_list_.push_back(a);
    to_assoc[a] += dt * js.gpus * uf;  // billable TRES = GPUs (TRESBillingWeights gres/gpu=1)
    if (q != kNoIdx) {
      to_qos[q * kTres + 0] += dt * js.gpus * uf;
      to_qos[q * kTres + 1] += dt * jnodes_[j] * uf;
      to_qos[q * kTres + 2] += dt * js.cpus * uf;
    }
  }
  void recalc_usage(const Snapshot& v);
  // Fair-share factors are a pure function of the usages, so they are recomputed only when a
  // priority (or the report) needs them after the usages changed.
  void ensure_fs() const {
    if (!fs_dirty_) return;
    fairshare();
    fs_dirty_ = false;
  }
  void fairshare() const;
  void fair_tree_rank(uint32_t a, double& rank) const;
  // One user's fair-share factor as fairshare() would set it (sort_queue needs only the users
  // of pending jobs): Fair Tree ranks by position, so a user's rank is the number of users the
  // depth-first walk visits before its tie group, counted level by level along its path.
  void ensure_fs_of(uint32_t a) const {
    if (!fs_dirty_) return;
    if (!cfg_.prio.fair_tree) {
      ensure_fs();
      return;
    }
    if (fs_at_[a] == fs_epoch_) return;
    fair_tree_user(a);
    fs_at_[a] = fs_epoch_;
  }
  // Out of line: inlined into sort_queue's per-job loop it costs that loop registers.
  [[gnu::noinline]] void fair_tree_user(uint32_t u) const;
  void fair_tree_level(uint32_t a) const;
  double priority(const Snapshot& v, JobIdx j, SimTime at) const;
  // slurmctld sets a job's priority at submission (priority_p_set) and again for every pending
  // job when the decay thread runs, every PriorityCalcPeriod (_decay_thread, fair_tree_decay); the
  // queue is sorted by that stored value in between (spec §3). An epoch is such a recalculation
  // (or a policy change): a job's priority is computed at max(its queue time, the epoch's time).
  void prio_epoch(SimTime t) {
    ++prio_epoch_;
    prio_epoch_t_ = t;
  }
  struct PrioTerms;
  void prio_terms(const Snapshot& v, JobIdx j, PrioTerms& c) const;

  // ---- pass helpers ----
  void count_running(const Snapshot& v);
  void charge(JobIdx j, const JobSpec& js, int sign);
  void charge_apply(JobIdx j, const JobSpec& js, int sign);
  uint16_t limit_reason(const Snapshot& v, JobIdx j, SimTime limit) const;
  uint16_t static_reason(const Snapshot& v, JobIdx j) const;
  bool denied(const Snapshot& v, JobIdx j, SimTime limit) const;
  SimTime begin_time(const Snapshot& v, JobIdx j) const {
    const JobRun& r = v.runs[j];
    SimTime b = r.eligible_s;
    // A requeued job waits requeue_delay + 1 s with Reason=BeginTime (spec §8).
    if (r.requeues > 0 && !r.suspended && r.queued_s > 0) b = std::max(b, r.queued_s + cfg_.sched.requeue_delay_s + 1);
    return b;
  }
  SimTime job_limit(JobIdx j, const JobSpec& js) const {
    const PartRt& p = part_[jpart_[j]];
    SimTime l = js.time_limit_s;
    if (!std::isfinite(l)) l = p.default_time_s >= 0 ? p.default_time_s : p.max_time_s;
    return l;
  }
  void sort_queue(const Snapshot& v);
  // busy_gpus (by node; empty = none) are GPUs held by running jobs into the window of the
  // reservation named busy_name, which is being created or updated at run time (spec §6 IGNORE_JOBS).
  void build_reservations(const Workload& wl, const ClusterConfig& cluster, const std::string& file,
                          std::span<const int32_t> busy_gpus = {}, const std::string& busy_name = {});
  bool resv_prepare(JobIdx j, SimTime t0, SimTime t1, SimTime& wait_until) {
    adj_on_ = false;
    resv_next_free_ = kNever;
    return resv_.empty() || resv_prepare_some(j, t0, t1, wait_until);  // inline: called per backfill retry
  }
  bool resv_prepare_some(JobIdx j, SimTime t0, SimTime t1, SimTime& wait_until);
  void adjusted(std::span<const int32_t> base, std::vector<int32_t>& out) const {
    out.resize(nn_);
    for (size_t n = 0; n < nn_; ++n) {
      int32_t f = mask_[n] ? std::max(0, base[n] - adj_sub_[n]) : 0;
      if (adj_cap_[n] >= 0) f = std::min(f, adj_cap_[n]);
      out[n] = f;
    }
  }
  // Placement on mask_ (slurm.conf Weight: lowest weight first, then node order; shares are
  // listed in node order).
  bool place(const JobSpec& js, std::span<const int32_t> f) {
    if (topo_mode_ != 0) return place_topo(js, f);
    if (!weighted_) return placement::first_fit_masked(js, f, mask_, shares_, max_node_gpus_);
    if (!placement::first_fit_ordered(js, f, mask_, node_order_, shares_, max_node_gpus_)) return false;
    std::sort(shares_.begin(), shares_.end(), [](const NodeShare& a, const NodeShare& b) { return a.node < b.node; });
    return true;
  }
  bool fit(const JobSpec& js, std::span<const int32_t> base) {
    if (!adj_on_) return place(js, base);
    adjusted(base, jfree_);
    return place(js, jfree_);
  }
  void resv_account(const Snapshot& v);
  // A wake-up for a condition of one job (begin time, window, grace end): that pass runs the
  // main loop like an event does.
  // The engine keeps one wake-up per pass (the earliest), so these are remembered here and
  // the earliest future one is asked for again at every pass.
  void wake_special(Decisions& out, SimTime t) {
    out.wake_at(t);
    if (std::find(specials_.begin(), specials_.end(), t) == specials_.end()) specials_.push_back(t);
  }
  void resv_note_used() {
    for (size_t k = 0; k < resv_.size(); ++k) {
      int64_t u = 0;
      for (size_t n = 0; n < nn_; ++n) u += resv_used_[k * nn_ + n];
      resv_[k].used_gpus = u;
    }
  }
  void resv_end_kills(const Snapshot& v, Decisions& out);
  void resv_purge(const Snapshot& v, Decisions& out);
  bool try_preempt(const Snapshot& v, JobIdx j, Decisions& out, bool& waiting);
  // May a job of QOS q preempt running job r now (spec §5)? When only PreemptExemptTime keeps
  // r, exempt_until says until when (else -1).
  bool preemptable(const Snapshot& v, uint32_t q, JobIdx r, SimTime& exempt_until) const {
    exempt_until = -1;
    if (v.runs[r].stop_s >= 0 || stopping_[r]) return false;
    const uint32_t rq = jqos_[r];
    if (rq == kNoIdx || !qos_[q].preempts[rq]) return false;
    PreemptMode m = qos_[rq].q.preempt_mode != PreemptMode::Unset ? qos_[rq].q.preempt_mode : cfg_.preempt_mode;
    if (m == PreemptMode::Off || m == PreemptMode::Unset) return false;
    SimTime exempt = qos_[rq].q.preempt_exempt_time_s;
    const uint32_t pq = part_[jpart_[r]].qos;
    if (exempt < 0 && pq != kNoIdx) exempt = qos_[pq].q.preempt_exempt_time_s;
    if (exempt < 0) exempt = cfg_.preempt_exempt_time_s;
    if (exempt > 0 && v.now < v.runs[r].start_s + exempt) {
      exempt_until = v.runs[r].start_s + exempt;
      return false;
    }
    return true;
  }
  bool is_preemptor(JobIdx j) const { return preempt_on_ && jqos_[j] != kNoIdx && qos_preempts_any_[jqos_[j]]; }
  void start(const Snapshot& v, JobIdx j, Decisions& out, SimTime limit);
  void main_pass(const Snapshot& v, Decisions& out, size_t depth);
  void backfill_pass(const Snapshot& v, Decisions& out);
  // Backfill map (spec §2).
  void map_reset(SimTime begin, SimTime end);
  void map_add(SimTime start, SimTime end, uint32_t from = 0);  // the nodes of share_bits_
  uint32_t map_split(SimTime t, uint32_t from = 0);
  bool will_run(const Snapshot& v, JobIdx j, const JobSpec& js, SimTime& start_s);
  // will_run's fast path (same answers, spec §2): see build_plan().
  // Without a node count first fit places a job wherever its mask holds enough GPUs (on one
  // node when one holds them all, else spread), so the sum decides and place_lazy places.
  // Not with a topology plugin: a tree or block placement can refuse a job that the sum admits
  // (--switches, a block level), and it must place the job itself (place_topo).
  bool sum_decides(const JobSpec& js) const {
    return cfg_.plan_backfill && resv_.empty() && topo_mode_ == 0 && js.gpus > 0 && js.nodes <= 0;
  }
  void build_plan(const Snapshot& v);
  bool build_plan_ones(const Snapshot& v);
  template <class Add>
  bool fill_levels(const Snapshot& v, size_t per, Add&& add);
  bool caps_refresh(const Snapshot& v);
  bool plan_reusable() const;
  void plan_groups(const Snapshot& v);
  const uint64_t* level(size_t k) const { return lvl_bits_.data() + k * static_cast<size_t>(planes_) * nw_; }
  // mbits_ = nodes (a bitset) & the pass's available nodes & the partition's (pbits).
  [[gnu::always_inline]] void set_mbits(const uint64_t* __restrict nodes, const uint64_t* __restrict pbits) {
    uint64_t* __restrict mb = mbits_.data();
    const uint64_t* __restrict ab = avail_bits_.data();
    if (nw_ == 2) {  // up to 128 nodes
      mb[0] = nodes[0] & ab[0] & pbits[0];
      mb[1] = nodes[1] & ab[1] & pbits[1];
    } else if (nw_ == 1) {
      mb[0] = nodes[0] & ab[0] & pbits[0];
    } else {
      for (size_t w = 0; w < nw_; ++w) mb[w] = nodes[w] & ab[w] & pbits[w];
    }
  }
  [[gnu::always_inline]] int64_t plan_sum(const uint64_t* planes) const {
    const uint64_t* m = mbits_.data();
    if (planes_ == 1 && nw_ == 2) return popcount64(m[0] & planes[0]) + popcount64(m[1] & planes[1]);
    return plan_sum_any(planes);
  }
  // The sum over the planes of at(b), unrolled up to 4 planes (nodes of up to 15 GPUs).
  template <class At>
  int64_t sum_planes(At&& at) const {
    switch (planes_) {
      case 4: return at(0) + at(1) + at(2) + at(3);
      case 3: return at(0) + at(1) + at(2);
      case 2: return at(0) + at(1);
      default: {
        int64_t s = 0;
        for (int b = 0; b < planes_; ++b) s += at(b);
        return s;
      }
    }
  }
  int64_t plan_sum_any(const uint64_t* planes) const {
    const uint64_t* __restrict m = mbits_.data();
    if (nw_ == 1) {  // up to 64 nodes (multi-GPU clusters), the mask in a register
      const uint64_t m0 = m[0];
      return sum_planes([m0, planes](int b) { return static_cast<int64_t>(popcount64(m0 & planes[b])) << b; });
    }
    if (nw_ == 2) {  // up to 128 nodes
      const uint64_t m0 = m[0], m1 = m[1];
      return sum_planes([m0, m1, planes](int b) { return static_cast<int64_t>(popcount64(m0 & planes[2 * b]) + popcount64(m1 & planes[2 * b + 1])) << b; });
    }
    int64_t s = 0;
    for (int b = 0; b < planes_; ++b)
      for (size_t w = 0; w < nw_; ++w) s += static_cast<int64_t>(popcount64(m[w] & planes[b * nw_ + w])) << b;
    return s;
  }
  // Sums only grow from level to level: the last tested level says whether any holds `gpus`
  // on the mask, and the capacities whether even an empty map does.
  bool plan_fits_ever(int64_t gpus) const {
    return plan_sum(level(grp_k_.back())) >= gpus && !(cap_needed_ && plan_sum(cap_bits_.data()) < gpus);
  }
  [[gnu::always_inline]] inline bool will_run_fast(const Snapshot& v, const JobSpec& js, SimTime& start_s);
  int retry_by_sums(const Snapshot& v, int64_t gpus, SimTime later_start, SimTime window_end, size_t& kx);
  bool retry_on_slice(const Snapshot& v, int64_t gpus, uint32_t slice, const uint64_t* pbits, SimTime later_start,
                      SimTime window_end, size_t& kx);
  // The first level whose later ends all end after x: ends_ is in end time order.
  size_t first_after(SimTime x) const { return static_cast<size_t>(std::upper_bound(lvl_t_.begin() + 1, lvl_t_.end(), x) - lvl_t_.begin()) - 1; }
  // The same by a walk from k, first_after of an earlier, smaller x (a test's later_starts grow).
  size_t first_after_from(SimTime x, size_t k) const {
    const size_t ne = lvl_t_.size() - 1;
    while (k < ne && lvl_t_[k + 1] <= x) ++k;
    return k;
  }
  // Walks ends_ in ReleaseGroups' groups: release(k) frees the k-th end for the tested job and
  // returns false for one it skips (on none of its nodes, or a preemptee released already);
  // test() is asked after each group. On a pass: the last released end and the ends walked.
  template <class Release, class Test>
  bool release_walk(Release&& release, Test&& test, SimTime& last_end, size_t& walked) const {
    ReleaseGroups groups;
    bool pending = false;  // a group still open when the ends ran out (the rest were skipped)
    const size_t ne = ends_.size();
    for (size_t k = 0; k < ne;) {
      const EndRec& er = ends_[k++];
      if (!release(k - 1)) continue;
      last_end = er.t;
      const auto step = groups.released(er.t, k < ne ? ends_[k].t : kNever);
      pending = step == ReleaseGroups::Step::More;
      if (step == ReleaseGroups::Step::Test && test()) {
        walked = k;
        return true;
      }
    }
    walked = ne;
    return pending && test();
  }
  bool place_lazy(const Snapshot& v, const JobSpec& js);
  // Bitset (64 nodes a word) to one byte (0/1) per node.
  void expand_bits(std::span<const uint64_t> bits, std::vector<uint8_t>& out) const {
    out.resize(nw_ * 64);
    for (size_t w = 0; w < nw_; ++w)
      for (size_t b = 0; b < 8; ++b) {
        const uint64_t x = kSpread[(bits[w] >> (8 * b)) & 0xFF];
        std::memcpy(out.data() + w * 64 + b * 8, &x, 8);
      }
    out.resize(nn_);
  }
  std::span<const NodeShare> end_alloc(const Snapshot& v, const EndRec& e) const {
    if (e.cnt == 0) return v.allocation_of(e.job);
    return std::span<const NodeShare>(local_).subspan(e.off, e.cnt);
  }

  // ---- topology (spec §7; schedulers/slurm/topology.hpp) ----
  void build_topology(const Workload& wl, const ClusterConfig& cluster, const std::string& file);
  bool place_topo(const JobSpec& js, std::span<const int32_t> f);
  void topo_begin(const Snapshot& v);
  void topo_end(const Snapshot& v, Decisions& out);
  void topo_started(JobIdx j, SimTime t, const Snapshot& v);
  nlohmann::json topo_report(SimTime end_s) const;
  uint8_t topo_mode_ = 0;            // 0 none, 1 topology/tree, 2 topology/block
  topo::Tree tree_;
  topo::Blocks blocks_;
  topo::Scratch tscr_;
  const std::vector<uint32_t>* group_of_node_ = nullptr;  // leaf or base block by node
  size_t groups_ = 0;
  std::string tree_source_;          // where the tree came from (report)
  SimTime now_ = 0;                  // the pass's time (placement's --switches clock)
  SimTime sw_wake_ = kNever;         // earliest end of a --switches wait still ahead
  std::vector<uint32_t> jsw_;        // by job: --switches N (0 = none)
  std::vector<SimTime> jsw_wait_s_;  // by job: its max wait
  std::vector<int32_t> jseg_;        // by job: --segment S (0 = none)
  std::vector<SimTime> jsw_from_;    // by job: first evaluation (wait4switch_start), -1 = none yet
  std::vector<uint8_t> jsw_refused_; // by job: refused at least once for more leaves than N
  std::vector<SimTime> jsw_waited_s_;  // by job: first refusal to start (-1 = never refused)
  std::vector<uint16_t> jspans_;     // by job: leaves / base blocks at its first start
  std::vector<uint64_t> span_jobs_;  // jobs by leaves / blocks spanned (index = count)
  uint64_t sw_jobs_ = 0, sw_waited_ = 0, sw_timed_out_ = 0;
  double sw_wait_total_s_ = 0;
  uint64_t starts_at_begin_ = 0, frag_samples_ = 0;
  double frag_int_ = 0, frag_dur_s_ = 0, frag_last_ = 0, frag_max_ = 0;
  SimTime frag_t_ = -1;
  bool frag_pend_ = false;
  std::vector<int64_t> frag_buf_;

  SlurmConfig cfg_;
  size_t nn_ = 0;
  int64_t cluster_gpus_ = 0;
  int32_t max_node_gpus_ = 1;
  std::vector<NodeIdx> node_order_;  // nodes by (Weight, index)
  bool weighted_ = false;            // some node's Weight differs from another's
  std::vector<PartRt> part_;
  std::vector<QosRt> qos_;
  std::vector<AssocRt> assoc_;
  std::vector<double> usage_;  // by association: decayed billable GPU-seconds of the subtree (users add up)
  uint32_t root_ = 0;
  size_t nusers_ = 0;        // user StrId range for per-(QOS,user) counters
  int64_t max_job_factor_ = 1, max_qos_prio_ = 0;
  bool preempt_on_ = false;
  std::vector<uint8_t> qos_preempts_any_;  // by QOS: its Preempt list is not empty
  std::vector<JobIdx> pre_;                // will_run: preemptable jobs released at now
  std::vector<uint8_t> pre_mark_;          // by job: in pre_

  // per job
  std::vector<uint32_t> jpart_, jqos_, jassoc_;
  std::vector<int32_t> jnodes_;
  std::vector<double> prio_;
  std::vector<uint64_t> prio_at_;       // by job: the epoch prio_ was computed in
  std::vector<SimTime> prio_queued_;    // by job: its queued_s then (a requeue computes afresh)
  uint64_t prio_epoch_ = 1;
  double reset_period_s_ = 0;  // PriorityUsageResetPeriod in seconds (0: NONE or NOW)
  SimTime prio_epoch_t_ = -kNever;
  std::vector<SimTime> planned_, acc_from_;
  std::vector<uint8_t> considered_;

  // accounting
  std::vector<double> pend_assoc_, pend_qos_;
  std::vector<uint32_t> pend_list_;  // associations with pending usage (recalc_usage visits only these)
  std::vector<uint8_t> pend_mark_;
  SimTime last_calc_s_ = -1;
  SimTime last_reset_s_ = 0;

  // timers
  SimTime next_main_s_ = 0, next_bf_s_ = 0;
  uint64_t main_passes_ = 0, bf_passes_ = 0, bf_starts_ = 0, main_starts_ = 0, preempts_ = 0;

  // per-pass buffers (reused)
  std::vector<JobIdx> order_;
  std::vector<int32_t> free_, proj_;
  std::vector<uint8_t> avail_, mask_, part_failed_, stopping_;
  std::vector<int64_t> qos_used_, qos_jobs_, qu_used_, qu_jobs_, assoc_used_, assoc_jobs_;
  struct Charged {
    JobIdx job;
    int sign;
  };
  std::vector<Charged> charged_;  // charges since the counters were last zero
  std::vector<NodeShare> shares_, local_;
  std::vector<EndRec> ends_;
  std::vector<JobIdx> cand_, victims_, stopped_now_;
  // reservations
  std::vector<ResvRt> resv_;
  std::vector<uint32_t> jresv_;
  std::vector<int32_t> resv_used_;  // insiders' GPUs by reservation x node
  std::vector<uint8_t> resv_failed_;
  std::vector<int32_t> adj_sub_, adj_cap_, jfree_;
  bool adj_on_ = false;
  bool resv_blocked_ = false;
  bool resv_deleted_ = false;  // resv_prepare refused because the job's reservation is gone
  bool mins_blocked_ = false;
  // Skipping periodic passes that cannot decide anything new (nothing happened since the last
  // one of the same kind, the queue order is the same, no time-dependent condition expired).
  uint64_t events_ = 0, ev_main_ = UINT64_MAX, ev_bf_ = UINT64_MAX;
  SimTime last_main_s_ = -kNever;  // the last main pass (batch_sched_delay counts from it)
  int64_t up_main_ = -1, up_bf_ = -1;
  SimTime unskip_s_ = kNever;  // a time-dependent condition (exempt time, begin) expires then
  uint64_t ev_last_ = UINT64_MAX;
  std::vector<SimTime> specials_;
  bool mins_blocked_prev_ = false;  // a job waits on a GrpTRESMins limit: decay may free it
  std::vector<JobIdx> order_main_, order_bf_;
  uint64_t ep_main_ = 0, ep_bf_ = 0;  // prio_epoch_ when order_main_ / order_bf_ were taken
  SimTime resv_next_free_ = kNever;
  std::vector<uint8_t> resv_overlap_;  // by reservation: overlaps the interval resv_prepare tested
  JobIdx cur_bf_job_ = 0;  // the job backfill tests
  JobIdx cur_job_ = 0;  // earliest end of a reservation that kept the job out  // some job waited only because of a reservation in this pass
  mutable SimTime final_now_ = 0;
  std::vector<Slice> slices_;
  std::vector<uint64_t> slice_mask_;  // slice i's available nodes: bitset at [i*nw_, (i+1)*nw_)
  std::vector<uint64_t> accw_;        // AND of the slices a test spans
  size_t nw_ = 1;                     // 64-bit words per node bitset
  std::vector<int64_t> bf_user_;
  // The release plan of a backfill pass (build_plan): the release groups of will_run are the
  // same for every tested job (only its node mask differs), so each group's projected free GPUs
  // are kept once per pass as bit planes (bit b of every node's GPUs, 64 nodes a word), and a
  // job's projected sum over its mask is a few popcounts instead of a walk over the releases.
  std::vector<uint64_t> part_bits_;   // by partition x word: the partition's nodes
  std::vector<uint64_t> avail_bits_;  // nodes available to this backfill pass (the map's start)
  std::vector<uint64_t> mbits_;       // the tested job's nodes (fast path)
  std::vector<uint64_t> share_bits_;  // nodes of shares_ (map_add, overlap check)
  bool shares_lazy_ = false;          // place_lazy gave share_bits_ only (1 GPU on each node)
  void shares_from_bits() {
    shares_.clear();
    for (size_t w = 0; w < nw_; ++w)
      for (uint64_t m = share_bits_[w]; m != 0; m &= m - 1)
        shares_.push_back({static_cast<NodeIdx>(w * 64 + static_cast<size_t>(std::countr_zero(m))), 1});
  }
  // Level k is free_ plus the first k entries of ends_ (k = 0 .. ends): a job's projected GPUs
  // after any prefix of the release order are a few popcounts on its mask. grp_k_ lists the levels
  // at which will_run tests a job whose mask meets every running job (level 0 first).
  std::vector<uint64_t> lvl_bits_;    // by level x plane x word
  std::vector<uint64_t> cap_bits_;    // by plane x word: capacities
  std::vector<SimTime> lvl_t_;        // by level: end time of its last released job (level >= 1)
  std::vector<uint32_t> grp_k_;       // tested levels of the plan's own grouping, ascending
  SimTime end_max_ = 0;               // latest end in ends_
  std::vector<int32_t> lvl_val_;      // scratch: GPUs by node
  int planes_ = 0;                    // 0: some value is negative, the fast path is off
  bool cap_needed_ = true;
  int cap_planes_ = 0;                // cap_bits_ holds cap_src_ in this many planes
  std::vector<int32_t> cap_src_;
  int32_t cap_max_ = 0, cap_min_ = 0; // range of cap_src_
  bool plan_ok_ = false;              // built for the current free_ and ends_
  // The inputs of the last plan built from running jobs only (plan_reusable).
  bool plan_key_ok_ = false;
  std::vector<EndRec> plan_ends_;
  std::vector<int32_t> plan_free_;
  uint32_t lazy_k_ = 0;               // will_run_fast's answer (a level), placed only when needed
  bool lazy_ok_ = false;              // will_run_fast answered from the plan (else will_run placed)
  std::vector<uint64_t> run_bits_;    // nodes of the running jobs in the plan
  std::vector<uint64_t> end_bits_;    // by end x word: the nodes of ends_[k]
  mutable std::vector<uint32_t> tree_buf_;
  // Fair Tree (flat, by association): CSR children (original order) and their order by LF as
  // last sorted, which an insertion sort turns into the new order cheaply.
  std::vector<uint32_t> ft_off_, ft_child_, ft_key_;
  std::vector<int64_t> ft_share_;
  std::vector<uint8_t> ft_user_;
  size_t ft_users_ = 0;
  mutable std::vector<uint32_t> ft_order_;
  mutable std::vector<double> ft_usage_, ft_lf_, ft_fs_;
  mutable std::vector<double> snorm_buf_;
  mutable bool fs_dirty_ = true;
  // Per-user Fair Tree (ensure_fs_of): usage state number, when each association's fs and its
  // children's level fairshares were last computed, users below each association.
  uint64_t fs_epoch_ = 1;
  mutable std::vector<uint64_t> fs_at_, lf_at_;
  mutable std::vector<uint32_t> ft_pos_, ft_before_;
  std::vector<double> ft_s_;  // by association: its shares over its siblings' (static)
  // Each level's children as (LF, name rank, index) in CSR positions, in the order last sorted.
  struct FtEnt {
    double lf;
    uint32_t key, idx;
  };
  mutable std::vector<FtEnt> ft_ent_;
  std::vector<uint32_t> ft_nusers_;
  // priority(): the terms of a job that change only with a policy change (weights, QOS
  // priorities), each as priority() computed it, so the sum adds the same numbers in order.
  struct PrioTerms {
    double size = 0, part = 0, qos = 0, tres = 0;
    uint64_t gen = 0;
  };
  mutable std::vector<PrioTerms> prio_terms_;
  uint64_t prio_gen_ = 1;  // bumped by every applied policy change
  // sort_queue: the order is a strict total order when there is no preemption (id last, ids
  // unique), so the previous order with the new jobs appended, insertion-sorted, is the one
  // sorted order (priorities move little between passes).
  bool ids_unique_ = false;
  bool one_tier_ = false;  // every partition has the same PriorityTier
  std::vector<uint64_t> queue_mark_;  // by job: sort_queue's stamp (queued now / kept in order)
  uint64_t queue_stamp_ = 0;
  // Wide levels (many children of equal shares, e.g. one account per SWF group under root):
  // LF = S / (U / usum) with one S is non-increasing in the usage, so the children are kept
  // sorted by usage (decay multiplies all by one factor, which keeps the order; new usage only
  // moves a child right) and a child's place in fair_tree_level's order is two binary searches
  // plus its tie group instead of a sort of the whole level (fair_tree_before_wide).
  std::vector<uint8_t> ft_wide_;      // by association: its children's level is kept this way
  std::vector<uint32_t> fo_;          // CSR positions: the level's children by usage ascending
  std::vector<uint32_t> fo_pos_;      // by association: its position in fo_
  std::vector<uint32_t> fo_pre_;      // CSR positions: users below fo_[b..i) of the level
  std::vector<uint32_t> fo_moved_;    // recalc_usage: children of wide levels whose usage grew
  mutable std::vector<uint64_t> fo_at_;  // by association: epoch of fo_usum_
  mutable std::vector<double> fo_usum_;  // by association: its children's usage sum (same order as fair_tree_level)
  bool wide_ok_ = true;  // off for good once a usage is not a finite number >= 0 (order not kept)
  void wide_moved(uint32_t x);
  uint32_t fair_tree_before_wide(uint32_t p, uint32_t x, bool own) const;
};

// ---------------------------------------------------------------- construction

void SlurmModel::build(const Workload& wl, const ClusterConfig& cluster, const std::string& file) {
  wl_ = &wl;
  cluster_ = &cluster;
  file_ = file;
  {
    const std::string& u = cfg_.prio.usage_reset_period;  // lower case (config readers)
    reset_period_s_ = u == "daily" ? 86400 : u == "weekly" ? 7 * 86400 : u == "monthly" ? 30 * 86400 : u == "quarterly" ? 91 * 86400 : u == "yearly" ? 365 * 86400 : 0;
  }
  nn_ = cluster.nodes();
  cluster_gpus_ = cluster.total_gpus();
  max_node_gpus_ = std::max<int32_t>(1, cluster.max_node_gpus());
  std::map<std::string, NodeIdx> node_index;
  for (size_t n = 0; n < nn_; ++n) node_index[cluster.node_names[n]] = static_cast<NodeIdx>(n);
  {
    // slurm.conf NodeName ... Weight=: "jobs will be allocated the nodes with the lowest weight
    // which satisfies their requirements" (slurm.conf(5)); nodes not in slurm.conf weigh 1.
    std::map<std::string, int32_t> weight_of;
    for (const auto& d : cfg_.nodes) weight_of[d.name] = d.weight;
    for (const auto& [n, wgt] : cfg_.inline_weights) weight_of.emplace(n, wgt);  // slurm.conf's Weight wins
    std::vector<int32_t> w(nn_, 1);
    for (size_t n = 0; n < nn_; ++n)
      if (auto it = weight_of.find(cluster.node_names[n]); it != weight_of.end()) w[n] = it->second;
    node_order_.resize(nn_);
    std::iota(node_order_.begin(), node_order_.end(), NodeIdx{0});
    std::stable_sort(node_order_.begin(), node_order_.end(), [&](NodeIdx a, NodeIdx b) { return w[a] < w[b]; });
    weighted_ = std::any_of(w.begin(), w.end(), [&](int32_t x) { return x != w[0]; });
  }
  auto node_cpus = [&](NodeIdx n) -> int64_t {
    for (const auto& d : cfg_.nodes)
      if (d.name == cluster.node_names[n]) return d.cpus;
    return 1;
  };

  // QOS: "normal" always exists (Slurm creates it).
  if (cfg_.qos.empty() || std::none_of(cfg_.qos.begin(), cfg_.qos.end(), [](const Qos& q) { return q.name == "normal"; })) {
    Qos n;
    n.name = "normal";
    cfg_.qos.insert(cfg_.qos.begin(), n);
  }
  for (const auto& q : cfg_.qos) qos_.push_back(QosRt{q, std::vector<uint8_t>(cfg_.qos.size(), 0)});
  for (auto& q : qos_) {
    for (const auto& name : q.q.preempt) {
      const uint32_t t = find_qos(name);
      if (t == kNoIdx) throw InputError(file, "", fmt::format("QOS {} preempts unknown QOS '{}'; expected a defined QOS", q.q.name, name));
      q.preempts[t] = 1;
    }
    max_qos_prio_ = std::max(max_qos_prio_, q.q.priority);
  }
  preempt_on_ = cfg_.preempt_qos;
  for (const auto& q : qos_) qos_preempts_any_.push_back(std::any_of(q.preempts.begin(), q.preempts.end(), [](uint8_t x) { return x != 0; }));

  // Partitions: with none configured, one default partition holds every node.
  if (cfg_.partitions.empty()) {
    Partition p;
    p.name = "default";
    p.is_default = true;
    cfg_.partitions.push_back(p);
  }
  for (const auto& p : cfg_.partitions) {
    PartRt r;
    r.name = p.name;
    r.mask.assign(nn_, p.nodes.empty() ? 1 : 0);
    for (const auto& n : p.nodes) {
      auto it = node_index.find(n);
      if (it == node_index.end())
        throw InputError(file, "", fmt::format("partition {} lists node {} which the cluster lacks; expected node names of the cluster", p.name, n));
      r.mask[it->second] = 1;
    }
    r.tier = p.priority_tier;
    r.job_factor = p.priority_job_factor;
    r.max_time_s = p.max_time_s;
    r.default_time_s = p.default_time_s;
    r.preempt_mode = p.preempt_mode;
    if (!p.qos.empty()) {
      r.qos = find_qos(p.qos);
      if (r.qos == kNoIdx) throw InputError(file, "", fmt::format("partition {} has QOS={} which is not defined; expected a QOS from the sacctmgr dump", p.name, p.qos));
    }
    for (size_t n = 0; n < nn_; ++n)
      if (r.mask[n]) r.gpus += cluster.node_gpus[n], r.nodes += 1, r.cpus += node_cpus(static_cast<NodeIdx>(n));
    max_job_factor_ = std::max(max_job_factor_, r.job_factor);
    part_.push_back(std::move(r));
  }
  uint32_t default_part = 0;
  for (size_t i = 0; i < cfg_.partitions.size(); ++i)
    if (cfg_.partitions[i].is_default) {
      default_part = static_cast<uint32_t>(i);
      break;
    }

  // Association tree: accounts, then users under them.
  auto find_assoc = [&](const std::string& name, bool user, uint32_t parent) -> uint32_t {
    for (size_t i = 0; i < assoc_.size(); ++i)
      if (assoc_[i].name == name && assoc_[i].is_user == user && (!user || assoc_[i].parent == parent))
        return static_cast<uint32_t>(i);
    return kNoIdx;
  };
  {
    AssocRt root;
    root.name = "root";
    assoc_.push_back(root);
    root_ = 0;
  }
  for (const auto& a : cfg_.accounts) {
    if (a.name == "root") {
      assoc_[0].grp_tres = a.grp_tres;
      continue;
    }
    AssocRt r;
    r.name = a.name;
    r.shares = a.fairshare;
    r.grp_tres = a.grp_tres;
    r.max_jobs = a.max_jobs;
    r.max_wall_s = a.max_wall_s;
    r.parent = a.parent.empty() ? root_ : find_assoc(a.parent, false, 0);
    if (r.parent == kNoIdx) throw InputError(file, "", fmt::format("account {} has unknown parent {}; expected a defined account", a.name, a.parent));
    assoc_.push_back(r);
  }
  for (const auto& u : cfg_.users) {
    const uint32_t acct = find_assoc(u.account, false, 0);
    if (acct == kNoIdx) throw InputError(file, "", fmt::format("user {} is under unknown account {}; expected a defined account", u.name, u.account));
    AssocRt r;
    r.name = u.name;
    r.is_user = true;
    r.parent = acct;
    r.shares = u.fairshare;
    r.grp_tres = u.grp_tres;
    r.max_jobs = u.max_jobs;
    r.max_wall_s = u.max_wall_s;
    if (!u.default_qos.empty()) {
      r.default_qos = find_qos(u.default_qos);
      if (r.default_qos == kNoIdx) throw InputError(file, "", fmt::format("user {} has DefaultQOS={} which is not defined; expected a defined QOS", u.name, u.default_qos));
    }
    if (find_assoc(u.name, true, acct) == kNoIdx) assoc_.push_back(r);
  }

  // Jobs.
  const size_t nj = wl.jobs.size();
  jpart_.assign(nj, default_part);
  jqos_.assign(nj, kNoIdx);
  jassoc_.assign(nj, 0);
  jnodes_.assign(nj, 1);
  prio_.assign(nj, 0);
  prio_at_.assign(nj, 0);
  prio_queued_.assign(nj, kNever);
  prio_terms_.assign(nj, PrioTerms{});
  queue_mark_.assign(nj, 0);
  {
    std::vector<int64_t> ids(nj);
    for (size_t j = 0; j < nj; ++j) ids[j] = wl.jobs[j].id;
    std::sort(ids.begin(), ids.end());
    ids_unique_ = std::adjacent_find(ids.begin(), ids.end()) == ids.end();
  }
  planned_.assign(nj, -1);
  acc_from_.assign(nj, -1);
  considered_.assign(nj, 0);
  nusers_ = wl.strings.size();
  const uint32_t normal = find_qos("normal");
  for (size_t j = 0; j < nj; ++j) {
    const JobSpec& js = wl.jobs[j];
    const std::string& pname = wl.strings.str(js.partition);
    if (!pname.empty()) {
      uint32_t p = kNoIdx;
      for (size_t i = 0; i < part_.size(); ++i)
        if (part_[i].name == pname) p = static_cast<uint32_t>(i);
      if (p == kNoIdx) throw InputError(file, "", fmt::format("job {} asks for partition '{}' which slurm.conf lacks; expected a PartitionName", js.id, pname));
      jpart_[j] = p;
    }
    // Association: (user, account); the user's first association when no account is given.
    const std::string& uname = wl.strings.str(js.user);
    const std::string& aname = wl.strings.str(js.account);
    uint32_t acct = aname.empty() ? kNoIdx : find_assoc(aname, false, 0);
    uint32_t ua = kNoIdx;
    if (acct != kNoIdx) ua = find_assoc(uname, true, acct);
    else if (aname.empty())
      for (size_t i = 0; i < assoc_.size() && ua == kNoIdx; ++i)
        if (assoc_[i].is_user && assoc_[i].name == uname) ua = static_cast<uint32_t>(i);
    if (ua == kNoIdx) {
      if (cfg_.enforce_associations)
        throw InputError(file, "", fmt::format("job {}: no association for user '{}' account '{}' and AccountingStorageEnforce has associations; expected the user in the sacctmgr dump", js.id, uname, aname));
      // Without enforcement, unknown users/accounts get implicit associations (1 share each).
      if (acct == kNoIdx) {
        const std::string an = aname.empty() ? "(none)" : aname;
        acct = find_assoc(an, false, 0);
        if (acct == kNoIdx) {
          AssocRt a;
          a.name = an;
          a.parent = root_;
          assoc_.push_back(a);
          acct = static_cast<uint32_t>(assoc_.size() - 1);
        }
      }
      ua = find_assoc(uname, true, acct);
      if (ua == kNoIdx) {
        AssocRt u;
        u.name = uname;
        u.is_user = true;
        u.parent = acct;
        assoc_.push_back(u);
        ua = static_cast<uint32_t>(assoc_.size() - 1);
      }
    }
    jassoc_[j] = ua;
    const std::string& qname = wl.strings.str(js.qos);
    uint32_t q = kNoIdx;
    if (!qname.empty()) {
      q = find_qos(qname);
      if (q == kNoIdx) throw InputError(file, "", fmt::format("job {} asks for QOS '{}' which is not defined; expected a QOS from the sacctmgr dump or the scheduler block", js.id, qname));
    } else {
      q = assoc_[ua].default_qos != kNoIdx ? assoc_[ua].default_qos : normal;
    }
    jqos_[j] = q;
    jnodes_[j] = js.nodes > 0 ? js.nodes : std::max<int32_t>(1, (js.gpus + max_node_gpus_ - 1) / max_node_gpus_);
  }
  for (size_t i = 0; i < assoc_.size(); ++i)
    if (assoc_[i].parent != kNoIdx) assoc_[assoc_[i].parent].children.push_back(static_cast<uint32_t>(i));
  pend_assoc_.assign(assoc_.size(), 0);
  usage_.assign(assoc_.size(), 0);
  pend_mark_.assign(assoc_.size(), 0);
  pend_qos_.assign(qos_.size() * kTres, 0);
  qos_used_.assign(qos_.size() * kTres, 0);
  qos_jobs_.assign(qos_.size(), 0);
  qu_used_.assign(qos_.size() * nusers_ * kTres, 0);
  qu_jobs_.assign(qos_.size() * nusers_, 0);
  assoc_used_.assign(assoc_.size() * kTres, 0);
  assoc_jobs_.assign(assoc_.size(), 0);
  part_failed_.assign(part_.size(), 0);
  one_tier_ = std::all_of(part_.begin(), part_.end(), [&](const PartRt& P) { return P.tier == part_[0].tier; });
  for (auto& P : part_) {
    P.keep.resize(nn_);
    for (size_t n = 0; n < nn_; ++n) P.keep[n] = P.mask[n] ? 0 : 0xFF;
  }
  nw_ = (nn_ + 63) / 64;
  part_bits_.assign(part_.size() * nw_, 0);
  for (size_t p = 0; p < part_.size(); ++p)
    for (size_t n = 0; n < nn_; ++n)
      if (part_[p].mask[n]) part_bits_[p * nw_ + (n >> 6)] |= uint64_t{1} << (n & 63);
  stopping_.assign(nj, 0);
  pre_mark_.assign(nj, 0);
  build_reservations(wl, cluster, file);
  {
    std::vector<uint32_t> by_name(assoc_.size());
    std::iota(by_name.begin(), by_name.end(), 0u);
    std::stable_sort(by_name.begin(), by_name.end(), [&](uint32_t a, uint32_t b) { return assoc_[a].name < assoc_[b].name; });
    for (size_t i = 0; i < by_name.size(); ++i)
      assoc_[by_name[i]].name_rank =
          i > 0 && assoc_[by_name[i]].name == assoc_[by_name[i - 1]].name ? assoc_[by_name[i - 1]].name_rank : static_cast<uint32_t>(i);
    // Fair Tree works on flat copies (children in CSR form) so that a recomputation touches
    // only a few contiguous arrays.
    const size_t na = assoc_.size();
    ft_off_.assign(na + 1, 0);
    ft_child_.clear();
    for (size_t i = 0; i < na; ++i) {
      ft_off_[i] = static_cast<uint32_t>(ft_child_.size());
      ft_child_.insert(ft_child_.end(), assoc_[i].children.begin(), assoc_[i].children.end());
    }
    ft_off_[na] = static_cast<uint32_t>(ft_child_.size());
    ft_order_ = ft_child_;
    ft_share_.resize(na);
    ft_key_.resize(na);
    ft_user_.resize(na);
    ft_users_ = 0;
    for (size_t i = 0; i < na; ++i) {
      ft_share_[i] = assoc_[i].shares;
      ft_key_[i] = assoc_[i].name_rank;
      ft_user_[i] = assoc_[i].is_user;
      ft_users_ += assoc_[i].is_user;
    }
    ft_usage_.resize(na);
    ft_lf_.resize(na);
    ft_fs_.resize(na);
    ft_nusers_.assign(na, 0);
    for (size_t i = 0; i < na; ++i)
      if (assoc_[i].is_user)
        for (uint32_t a = static_cast<uint32_t>(i); a != kNoIdx; a = assoc_[a].parent) ++ft_nusers_[a];
    fs_at_.assign(na, 0);
    ft_s_.assign(na, 0);
    ft_ent_.resize(ft_child_.size());
    for (size_t i = 0; i < ft_child_.size(); ++i) ft_ent_[i] = {0.0, ft_key_[ft_child_[i]], ft_child_[i]};
    for (size_t a = 0; a < na; ++a) {
      int64_t ssum = 0;
      for (uint32_t i = ft_off_[a]; i < ft_off_[a + 1]; ++i) ssum += ft_share_[ft_child_[i]];
      for (uint32_t i = ft_off_[a]; i < ft_off_[a + 1]; ++i)
        ft_s_[ft_child_[i]] = ssum > 0 ? static_cast<double>(ft_share_[ft_child_[i]]) / static_cast<double>(ssum) : 0;
    }
    ft_pos_.assign(na, 0);
    ft_before_.assign(na, 0);
    lf_at_.assign(na, 0);
    ft_wide_.assign(na, 0);
    fo_ = ft_child_;  // all usages are 0: any order is sorted
    fo_pos_.assign(na, 0);
    fo_pre_.assign(ft_child_.size(), 0);
    fo_at_.assign(na, 0);
    fo_usum_.assign(na, 0);
    for (size_t a = 0; a < na; ++a) {
      const uint32_t b = ft_off_[a], e = ft_off_[a + 1];
      bool wide = e - b >= 16;
      for (uint32_t i = b; i < e && wide; ++i) wide = ft_s_[ft_child_[i]] == ft_s_[ft_child_[b]];
      ft_wide_[a] = wide;
      for (uint32_t i = b; i < e; ++i) {
        fo_pos_[fo_[i]] = i;
        fo_pre_[i] = i == b ? 0 : fo_pre_[i - 1] + ft_nusers_[fo_[i - 1]];
      }
    }
  }
  fs_dirty_ = true;
  build_topology(wl, cluster, file);
}

void SlurmModel::build_reservations(const Workload& wl, const ClusterConfig& cluster, const std::string& file,
                                    std::span<const int32_t> busy_gpus, const std::string& busy_name) {
  std::map<std::string, NodeIdx> node_index;
  for (size_t n = 0; n < nn_; ++n) node_index[cluster.node_names[n]] = static_cast<NodeIdx>(n);
  std::vector<uint8_t> taken(nn_, 0);
  auto ids = [&](const std::vector<std::string>& names) {
    std::vector<StrId> out;
    for (const auto& x : names) {
      const StrId id = wl.strings.find(x);
      if (id != StringTable::kMissing) out.push_back(id);
    }
    return out;
  };
  for (const auto& c : cfg_.reservations) {
    ResvRt r;
    r.name = c.name;
    r.start_s = c.start_s;
    r.dur_s = c.duration_s;
    r.period_s = c.period_s();
    r.gpus.assign(nn_, 0);
    // Made at run time without IGNORE_JOBS: GPUs of running jobs that would still run in its
    // window are not available; listed nodes that are busy refuse the reservation, as
    // `scontrol create reservation` answers "Requested nodes are busy" (scontrol(1) IGNORE_JOBS).
    const bool check_busy = !busy_gpus.empty() && c.name == busy_name && !c.ignore_jobs;
    auto busy = [&](size_t n) { return check_busy ? busy_gpus[n] : 0; };
    for (const auto& n : c.nodes) {
      auto it = node_index.find(n);
      if (it == node_index.end())
        throw InputError(file, "", fmt::format("reservation {} lists node {} which the cluster lacks; expected node names of the cluster", c.name, n));
      if (busy(it->second) > 0)
        throw InputError(file, "", fmt::format("reservation {}: requested node {} is busy with running jobs; expected idle nodes or the IGNORE_JOBS flag", c.name, n));
      r.gpus[it->second] = cluster.node_gpus[it->second];
    }
    // NodeCnt: the first free nodes in node order (all are idle when the reservation is made
    // at t=0; at run time, nodes with running jobs are passed over unless IGNORE_JOBS).
    int64_t want = c.node_cnt;
    for (size_t n = 0; n < nn_ && want > 0; ++n)
      if (!taken[n] && r.gpus[n] == 0 && busy(n) == 0) r.gpus[n] = cluster.node_gpus[n], --want;
    if (want > 0) throw InputError(file, "", fmt::format("reservation {} wants NodeCnt={} but only {} nodes are free; expected at most the free nodes", c.name, c.node_cnt, c.node_cnt - want));
    // TRES=gres/gpu:N: N GPUs, packed onto nodes in order.
    int64_t g = c.gpus;
    for (size_t n = 0; n < nn_ && g > 0; ++n) {
      if (taken[n] || r.gpus[n] > 0 || busy(n) >= cluster.node_gpus[n]) continue;
      const int32_t k = static_cast<int32_t>(std::min<int64_t>(g, cluster.node_gpus[n] - busy(n)));
      r.gpus[n] = k;
      g -= k;
    }
    if (g > 0) throw InputError(file, "", fmt::format("reservation {} wants {} GPUs but the free nodes hold fewer; expected at most the free GPUs", c.name, c.gpus));
    for (size_t n = 0; n < nn_; ++n) {
      r.total_gpus += r.gpus[n];
      if (r.gpus[n] > 0) taken[n] = 1;
    }
    r.users = ids(c.users);
    r.accounts = ids(c.accounts);
    r.qos = ids(c.qos);
    r.classes = ids(c.request_classes);
    r.flex = c.flex;
    r.purge_s = c.purge_comp ? c.purge_comp_s : -1;
    r.magnetic = c.magnetic;
    for (const auto& a : c.accounts) r.assocs.push_back(a);
    for (const auto& u : c.users) r.assocs.push_back(u);
    if (r.assocs.empty()) r.assocs.push_back("(all)");
    resv_.push_back(std::move(r));
  }
  jresv_.assign(wl.jobs.size(), kNoIdx);
  for (size_t j = 0; j < wl.jobs.size(); ++j) {
    const JobSpec& js = wl.jobs[j];
    for (size_t k = 0; k < resv_.size() && jresv_[j] == kNoIdx; ++k) {
      const ResvRt& r = resv_[k];
      auto has = [](const std::vector<StrId>& v, StrId x) { return std::find(v.begin(), v.end(), x) != v.end(); };
      const bool open = r.users.empty() && r.accounts.empty() && r.qos.empty() && cfg_.reservations[k].users.empty() &&
                        cfg_.reservations[k].accounts.empty() && cfg_.reservations[k].qos.empty();
      const bool access = open || has(r.users, js.user) || has(r.accounts, js.account) || has(r.qos, js.qos);
      if (!access) continue;
      if (has(r.classes, js.klass) || r.magnetic) jresv_[j] = static_cast<uint32_t>(k);  // asked, or MAGNETIC
    }
  }
  resv_used_.assign(resv_.size() * nn_, 0);
  resv_failed_.assign(resv_.size(), 0);
  resv_overlap_.assign(resv_.size(), 0);
  adj_sub_.assign(nn_, 0);
  adj_cap_.assign(nn_, -1);
}

// Reservations seen by job j over [t0, t1) (spec §6). Outside a reservation, a job may use its
// unused reserved GPUs only if [t0, t1) misses the window. Inside, it must fit the window in
// time and space (FLEX: neither). Returns false, with the time worth retrying at, when the job's
// own reservation does not allow it in this interval.
bool SlurmModel::resv_prepare_some(JobIdx j, SimTime t0, SimTime t1, SimTime& wait_until) {
  std::fill(adj_sub_.begin(), adj_sub_.end(), 0);
  std::fill(adj_cap_.begin(), adj_cap_.end(), -1);
  const uint32_t mine = jresv_[j];
  cur_job_ = j;
  resv_deleted_ = false;
  for (size_t k = 0; k < resv_.size(); ++k) {
    const ResvRt& r = resv_[k];
    if (std::isfinite(r.deleted_s)) {
      // Purged (PURGE_COMP): it reserves nothing; its own jobs are held (ResvDeleted, spec
      // §6), except those MAGNETIC only attracted, which run as if it never was.
      if (k == mine && !r.magnetic) {
        resv_deleted_ = true;
        wait_until = kNever;
        return false;
      }
      continue;
    }
    SimTime s, e;
    r.window(t0, s, e);
    if (k == mine) {
      if (r.period_s <= 0 && t0 >= e && !r.flex) {  // a one-off that ended: held (spec §6)
        resv_deleted_ = true;
        wait_until = kNever;
        return false;
      }
      if (!r.flex) {
        if (t0 < s) {
          wait_until = s;
          return false;
        }
        if (t1 > e) {  // does not fit this occurrence: the next one, if any
          wait_until = r.period_s > 0 ? s + r.period_s : kNever;
          return false;
        }
      }
      for (size_t n = 0; n < nn_; ++n) {
        if (r.gpus[n] > 0) adj_cap_[n] = r.gpus[n] - resv_used_[k * nn_ + n];
        else if (!r.flex) mask_[n] = 0;
      }
      adj_on_ = true;
      continue;
    }
    resv_overlap_[k] = 0;
    if (e <= t0 || s >= t1) continue;
    resv_overlap_[k] = 1;
    resv_next_free_ = std::min(resv_next_free_, e);
    for (size_t n = 0; n < nn_; ++n)
      if (r.gpus[n] > 0) adj_sub_[n] += std::max(0, r.gpus[n] - resv_used_[k * nn_ + n]);
    adj_on_ = true;
  }
  return true;
}

void SlurmModel::resv_account(const Snapshot& v) {
  for (auto& r : resv_) {
    const SimTime b = std::min(v.now, r.deleted_s);  // a purged reservation stops counting
    if (b > r.acc_s)
      r.idle_gpu_s += r.overlap(r.acc_s, b) * static_cast<double>(std::max<int64_t>(0, r.total_gpus - r.used_gpus));
    r.acc_s = std::max(r.acc_s, b);
  }
}

// PURGE_COMP[=t] (spec §6; scontrol(1)): a reservation idle (none of its jobs running) for t
// within an occurrence is deleted. Idle runs from the occurrence's start or its last job's end.
void SlurmModel::resv_purge(const Snapshot& v, Decisions& out) {
  for (size_t k = 0; k < resv_.size(); ++k) {
    ResvRt& r = resv_[k];
    if (r.purge_s < 0 || std::isfinite(r.deleted_s)) continue;
    SimTime s, e;
    r.window(v.now, s, e);
    if (v.now < s || v.now >= e) continue;  // not active now
    bool busy = false;
    for (size_t n = 0; n < nn_ && !busy; ++n) busy = resv_used_[k * nn_ + n] > 0;
    if (busy) continue;
    const SimTime idle_from = std::max(s, r.last_end_s);
    const SimTime at = idle_from + r.purge_s;
    if (at >= e) continue;  // the occurrence ends first
    if (v.now >= at) r.deleted_s = at;
    else wake_special(out, at);
  }
}

// At the end of its occurrence (+ ResvOverRun), a job running in a reservation is killed,
// except under FLEX (spec §6).
void SlurmModel::resv_end_kills(const Snapshot& v, Decisions& out) {
  for (JobIdx j : v.running) {
    const uint32_t k = jresv_[j];
    if (k == kNoIdx || resv_[k].flex || v.runs[j].stop_s >= 0) continue;
    SimTime s, e;
    resv_[k].window(v.runs[j].start_s, s, e);
    const SimTime kill = e + cfg_.resv_over_run_s;
    if (v.now >= kill) {
      out.preempt(j, floorsim::PreemptMode::Cancel, kNoJob);
      charge(j, v.jobs[j], -1);
      stopping_[j] = 1;
      stopped_now_.push_back(j);
      for (const auto& sh : v.allocation_of(j)) {
        free_[sh.node] += sh.gpus;
        resv_used_[k * nn_ + sh.node] -= sh.gpus;
      }
    } else if (std::isfinite(kill)) {
      wake_special(out, kill);
    }
  }
}

// ---------------------------------------------------------------- priority and usage

void SlurmModel::recalc_usage(const Snapshot& v) {
  const auto& pr = cfg_.prio;
  const SimTime now = v.now;
  if (last_calc_s_ < 0) {
    last_calc_s_ = now;
    return;
  }
  if (now - last_calc_s_ < pr.calc_period_s) return;
  const double dt = now - last_calc_s_;
  // Decay: usage x d^dt, d = 1 - ln2/half-life (spec §3, pm:_init_decay_vars).
  const double d = pr.decay_half_life_s > 0 ? std::pow(1.0 - 0.693 / pr.decay_half_life_s, dt) : 1.0;
  if (!(d >= 0) || !std::isfinite(d)) wide_ok_ = false;  // the usage order would not survive
  {
    // Each usage times d (unrolled by hand: the compiler's loop takes 2 doubles a step).
    double* u = usage_.data();
    const size_t nu = usage_.size();
    size_t i = 0;
    for (; i + 8 <= nu; i += 8)
      for (size_t k = 0; k < 8; ++k) u[i + k] *= d;
    for (; i < nu; ++i) u[i] *= d;
  }
  for (auto& q : qos_)
    if (!q.q.flags.no_decay) q.usage_gpu_s *= d, q.usage_node_s *= d, q.usage_cpu_s *= d;
  // New usage: jobs that stopped since the last calculation, and running jobs up to now.
  for (JobIdx j : v.running) {
    if (acc_from_[j] < 0) continue;
    add_usage(v, j, now - acc_from_[j], pend_assoc_, pend_qos_);
    acc_from_[j] = now;
  }
  // In association order, as a loop over all of them would add (the sums are floating point).
  std::sort(pend_list_.begin(), pend_list_.end());
  for (uint32_t i : pend_list_) {
    if (!(pend_assoc_[i] >= 0) || !std::isfinite(pend_assoc_[i])) wide_ok_ = false;
    // Usage of a user adds to every account above it.
    for (uint32_t a = i; a != kNoIdx && pend_assoc_[i] != 0; a = assoc_[a].parent) {
      usage_[a] += pend_assoc_[i];
      if (assoc_[a].parent != kNoIdx && ft_wide_[assoc_[a].parent]) fo_moved_.push_back(a);
    }
    pend_assoc_[i] = 0;
    pend_mark_[i] = 0;
  }
  pend_list_.clear();
  if (!fo_moved_.empty()) {
    // Right to left, so that each grown child is moved into an already sorted right part.
    std::sort(fo_moved_.begin(), fo_moved_.end(), [&](uint32_t x, uint32_t y) { return fo_pos_[x] > fo_pos_[y]; });
    fo_moved_.erase(std::unique(fo_moved_.begin(), fo_moved_.end()), fo_moved_.end());
    if (wide_ok_)
      for (uint32_t a : fo_moved_) wide_moved(a);
    fo_moved_.clear();
  }
  for (size_t q = 0; q < qos_.size(); ++q) {
    qos_[q].usage_gpu_s += pend_qos_[q * kTres + 0];
    qos_[q].usage_node_s += pend_qos_[q * kTres + 1];
    qos_[q].usage_cpu_s += pend_qos_[q * kTres + 2];
    for (int t = 0; t < kTres; ++t) pend_qos_[q * kTres + t] = 0;
  }
  // PriorityUsageResetPeriod: usage starts from zero at each period boundary.
  const double period = reset_period_s_;
  if (period > 0 && std::floor(now / period) > std::floor(last_reset_s_ / period)) {
    std::fill(usage_.begin(), usage_.end(), 0.0);
    for (auto& q : qos_) q.usage_gpu_s = q.usage_node_s = q.usage_cpu_s = 0;
    last_reset_s_ = now;
  }
  last_calc_s_ = now;
  fs_dirty_ = true;
  ++fs_epoch_;
  prio_epoch(now);
}

void SlurmModel::fairshare() const {
  if (cfg_.prio.fair_tree) {
    // Fair Tree (spec §3): rank users by a DFS over children sorted by level fairshare.
    const size_t users = ft_users_;
    for (size_t i = 0; i < assoc_.size(); ++i) ft_usage_[i] = usage_[i];
    double rank = static_cast<double>(users);
    fair_tree_rank(root_, rank);
    for (size_t i = 0; i < assoc_.size(); ++i)
      if (ft_user_[i]) assoc_[i].fs = users ? ft_fs_[i] / static_cast<double>(users) : 0;
    return;
  }
  // Classic: U_eff = U_norm + (U_eff_parent - U_norm) * S_raw / S_siblings; fs = 2^(-U_eff/S_norm).
  const double total = std::max(usage_[root_], 0.0);
  std::vector<uint32_t>& stack = tree_buf_;
  stack.assign(1, root_);
  std::vector<double>& snorm = snorm_buf_;
  snorm.assign(assoc_.size(), 1.0);
  assoc_[root_].usage_efctv = 1.0;
  while (!stack.empty()) {
    const uint32_t a = stack.back();
    stack.pop_back();
    int64_t sib = 0;
    for (uint32_t c : assoc_[a].children) sib += assoc_[c].shares;
    for (uint32_t c : assoc_[a].children) {
      const AssocRt& ch = assoc_[c];
      const double sraw = sib > 0 ? static_cast<double>(ch.shares) / static_cast<double>(sib) : 0;
      snorm[c] = snorm[a] * sraw;
      const double unorm = total > 0 ? usage_[c] / total : 0;
      ch.usage_efctv = a == root_ ? unorm : unorm + (assoc_[a].usage_efctv - unorm) * sraw;
      if (ch.is_user) ch.fs = snorm[c] > 0 ? std::pow(2.0, -ch.usage_efctv / snorm[c]) : 0;
      stack.push_back(c);
    }
  }
}

void SlurmModel::fair_tree_rank(uint32_t a, double& rank) const {
  // Children sorted by level fairshare LF = S/U descending (U = 0 -> infinite); ties by name,
  // then by association index (the children's order), so the order is total and an insertion
  // sort of the previous order (usually still sorted) gives the one sorted order without
  // allocating. Users of equal LF share a rank.
  const uint32_t b = ft_off_[a], e = ft_off_[a + 1];
  int64_t ssum = 0;
  double usum = 0;
  for (uint32_t i = b; i < e; ++i) ssum += ft_share_[ft_child_[i]], usum += ft_usage_[ft_child_[i]];
  for (uint32_t i = b; i < e; ++i) {
    const uint32_t c = ft_child_[i];
    const double s = ssum > 0 ? static_cast<double>(ft_share_[c]) / static_cast<double>(ssum) : 0;
    const double u = usum > 0 ? ft_usage_[c] / usum : 0;
    ft_lf_[c] = u > 0 ? s / u : std::numeric_limits<double>::infinity();
  }
  const double* lf = ft_lf_.data();
  const uint32_t* key = ft_key_.data();
  auto before = [&](uint32_t x, uint32_t y) {
    if (lf[x] != lf[y]) return lf[x] > lf[y];
    if (key[x] != key[y]) return key[x] < key[y];
    return x < y;
  };
  uint32_t* ord = ft_order_.data();
  for (uint32_t i = b + 1; i < e; ++i) {
    const uint32_t x = ord[i];
    uint32_t k = i;
    for (; k > b && before(x, ord[k - 1]); --k) ord[k] = ord[k - 1];
    ord[k] = x;
  }
  uint32_t i = b;
  while (i < e) {
    const uint32_t c = ord[i];
    if (!ft_user_[c]) {
      fair_tree_rank(c, rank);
      ++i;
      continue;
    }
    uint32_t k = i;
    while (k < e && ft_user_[ord[k]] && lf[ord[k]] == lf[c]) {
      ft_fs_[ord[k]] = rank;
      ++k;
    }
    rank -= static_cast<double>(k - i);
    i = k;
  }
}

// One level of fair_tree_rank for the children of a: level fairshares (same sums in the same
// order), the same total order (insertion sort of the last one), and for each child its
// position and the users below the children ordered before it.
void SlurmModel::fair_tree_level(uint32_t a) const {
  if (lf_at_[a] == fs_epoch_) return;
  lf_at_[a] = fs_epoch_;
  const uint32_t b = ft_off_[a], e = ft_off_[a + 1];
  double usum = 0;
  for (uint32_t i = b; i < e; ++i) usum += usage_[ft_child_[i]];
  FtEnt* E = ft_ent_.data();
  for (uint32_t i = b; i < e; ++i) {
    const uint32_t c = E[i].idx;
    const double u = usum > 0 ? usage_[c] / usum : 0;
    E[i].lf = u > 0 ? ft_s_[c] / u : std::numeric_limits<double>::infinity();
  }
  auto before = [](const FtEnt& x, const FtEnt& y) {
    if (x.lf != y.lf) return x.lf > y.lf;
    if (x.key != y.key) return x.key < y.key;
    return x.idx < y.idx;
  };
  for (uint32_t i = b + 1; i < e; ++i) {
    if (!before(E[i], E[i - 1])) continue;
    const FtEnt x = E[i];
    uint32_t k = i;
    for (; k > b && before(x, E[k - 1]); --k) E[k] = E[k - 1];
    E[k] = x;
  }
  uint32_t seen = 0;
  for (uint32_t i = b; i < e; ++i) {
    ft_pos_[E[i].idx] = i;
    ft_before_[E[i].idx] = seen;
    seen += ft_nusers_[E[i].idx];
  }
}

// A child of a wide level whose usage grew moves right to its place in the usage order.
void SlurmModel::wide_moved(uint32_t x) {
  const uint32_t e = ft_off_[assoc_[x].parent + 1];
  const uint32_t from = fo_pos_[x];
  const double ux = usage_[x];
  uint32_t i = from;
  for (; i + 1 < e && usage_[fo_[i + 1]] < ux; ++i) {
    fo_[i] = fo_[i + 1];
    fo_pos_[fo_[i]] = i;
  }
  if (i == from) return;
  fo_[i] = x;
  fo_pos_[x] = i;
  for (uint32_t k = from + 1; k <= i; ++k) fo_pre_[k] = fo_pre_[k - 1] + ft_nusers_[fo_[k - 1]];
}

// fair_tree_level's ft_before_[x] for a child x of the wide level p, from the usage order: the
// children of larger LF come first (a prefix of fo_), then those of x's LF by (name, index).
// own: x is the user whose rank is asked, so it counts from the first of the run of users of
// its LF that it ends (fair_tree_user).
uint32_t SlurmModel::fair_tree_before_wide(uint32_t p, uint32_t x, bool own) const {
  const uint32_t b = ft_off_[p], e = ft_off_[p + 1];
  const uint32_t px = fo_pos_[x];
  {
    // Usually x's neighbours in the usage order have usages far enough from x's that their LFs
    // are strictly larger (left) and smaller (right) whatever usum is: with every quotient a
    // normal number, each of the two divisions errs by at most half an ulp, so a usage ratio
    // above 1 + 2^-49 keeps the LFs apart (u = 0 gives LF = inf, above any finite LF). Then x
    // forms its own tie group and no sum over the level is needed.
    const double* u = usage_.data();
    const double M = u[fo_[e - 1]];          // the largest usage of the level
    const double low = M * 0x1p-800;          // usages at least this give normal quotients
    constexpr double K = 1.0 + 0x1p-48;
    const double ux = u[x];
    const bool ok = M <= 0x1p800 && ft_s_[x] >= 0x1p-100 && (ux == 0 || ux >= low);
    const bool left = px == b || (ux > 0 && u[fo_[px - 1]] * K < ux && (u[fo_[px - 1]] == 0 || u[fo_[px - 1]] >= low));
    const bool right = px + 1 == e || (ux * K < u[fo_[px + 1]] && u[fo_[px + 1]] >= low);
    if (ok && left && right) return fo_pre_[px];
  }
  if (fo_at_[p] != fs_epoch_) {
    // In CSR order, as fair_tree_level adds them (unrolled by hand: the adds stay in order).
    const double* u = usage_.data();
    const uint32_t* c = ft_child_.data();
    double usum = 0;
    uint32_t i = b;
    for (; i + 4 <= e; i += 4) {
      usum += u[c[i]];
      usum += u[c[i + 1]];
      usum += u[c[i + 2]];
      usum += u[c[i + 3]];
    }
    for (; i < e; ++i) usum += u[c[i]];
    fo_usum_[p] = usum;
    fo_at_[p] = fs_epoch_;
  }
  const double usum = fo_usum_[p];
  const double s = ft_s_[x];  // the same for every child of a wide level
  auto lf = [&](uint32_t c) {
    const double u = usum > 0 ? usage_[c] / usum : 0;
    return u > 0 ? s / u : std::numeric_limits<double>::infinity();
  };
  const double L = lf(x);
  // Usually no other child has x's LF: then both neighbours decide.
  uint32_t lo = b, hi = px;  // first position with LF <= L
  if (px > b && lf(fo_[px - 1]) > L) lo = px;
  while (lo < hi) {
    const uint32_t m = lo + (hi - lo) / 2;
    if (lf(fo_[m]) > L) lo = m + 1;
    else hi = m;
  }
  uint32_t end = px + 1, h2 = e;  // first position with LF < L
  if (end < e && lf(fo_[end]) < L) h2 = end;
  while (end < h2) {
    const uint32_t m = end + (h2 - end) / 2;
    if (lf(fo_[m]) < L) h2 = m;
    else end = m + 1;
  }
  const uint32_t* key = ft_key_.data();
  auto before = [&](uint32_t y, uint32_t z) { return key[y] != key[z] ? key[y] < key[z] : y < z; };
  uint32_t last = x;  // own: the last account before x in the tie group (x: none)
  if (own)
    for (uint32_t k = lo; k < end; ++k) {
      const uint32_t y = fo_[k];
      if (!ft_user_[y] && before(y, x) && (last == x || before(last, y))) last = y;
    }
  uint32_t seen = fo_pre_[lo];
  if (!own) {
    for (uint32_t k = lo; k < end; ++k)
      if (before(fo_[k], x)) seen += ft_nusers_[fo_[k]];
  } else if (last != x) {
    for (uint32_t k = lo; k < end; ++k)
      if (fo_[k] == last || before(fo_[k], last)) seen += ft_nusers_[fo_[k]];
  }
  return seen;
}

// fair_tree_rank's walk gives rank = users - (users visited before u's tie group): at each
// level the users below the siblings ordered before the path's child; at u's own level, before
// the first of the consecutive users of u's LF that u belongs to.
void SlurmModel::fair_tree_user(uint32_t u) const {
  uint64_t seen = 0;
  for (uint32_t x = u; assoc_[x].parent != kNoIdx; x = assoc_[x].parent) {
    const uint32_t p = assoc_[x].parent;
    if (ft_off_[p + 1] - ft_off_[p] == 1) continue;  // an only child: no sibling before it
    if (wide_ok_ && ft_wide_[p]) {
      seen += fair_tree_before_wide(p, x, x == u);
      continue;
    }
    fair_tree_level(p);
    if (x != u) {
      seen += ft_before_[x];
      continue;
    }
    const uint32_t b = ft_off_[p];
    const FtEnt* E = ft_ent_.data();
    const uint32_t pos = ft_pos_[u];
    uint32_t i = pos;
    while (i > b && ft_user_[E[i - 1].idx] && E[i - 1].lf == E[pos].lf) --i;
    seen += ft_before_[E[i].idx];
  }
  const double users = static_cast<double>(ft_users_);
  assoc_[u].fs = ft_users_ ? (users - static_cast<double>(seen)) / users : 0;
}

double SlurmModel::priority(const Snapshot& v, JobIdx j, SimTime at) const {
  const auto& pr = cfg_.prio;
  const JobSpec& js = v.jobs[j];
  if (pr.type == PriorityType::Basic) {
    // priority/basic: FIFO by original submission; the value is only for display (spec §3).
    return static_cast<double>(UINT32_MAX - 1 - std::min<size_t>(j, UINT32_MAX - 2));
  }
  const JobRun& r = v.runs[j];
  const SimTime accrue = std::max(r.queued_s, begin_time(v, j));  // accrue starts at eligibility
  const double age = pr.max_age_s > 0 ? std::clamp((at - accrue) / pr.max_age_s, 0.0, 1.0) : 1.0;
  PrioTerms& c = prio_terms_[j];
  if (c.gen != prio_gen_) prio_terms(v, j, c);
  double P = js.priority /* site factor */ + pr.weight_age * age + pr.weight_fairshare * assoc_[jassoc_[j]].fs + c.size +
             c.part + c.qos + c.tres;
  // slurmctld keeps an integer priority: floor, then the range. Inside the range the floor of a
  // positive double is its truncation (exact below 2^53), which is cheaper than std::floor.
  if (P >= 1.0 && P < 4294967296.0) return static_cast<double>(static_cast<int64_t>(P));
  P = std::floor(P);
  return std::clamp(P, 1.0, 4294967295.0);
}

void SlurmModel::prio_terms(const Snapshot& v, JobIdx j, PrioTerms& c) const {
  const auto& pr = cfg_.prio;
  const JobSpec& js = v.jobs[j];
  const PartRt& p = part_[jpart_[j]];
  const double cpus_frac = js.cpus > 0 && p.cpus > 0 ? static_cast<double>(js.cpus) / static_cast<double>(p.cpus)
                                                     : static_cast<double>(js.gpus) / static_cast<double>(std::max<int64_t>(1, cluster_gpus_));
  double size = (static_cast<double>(jnodes_[j]) / static_cast<double>(std::max<size_t>(1, nn_)) + cpus_frac) / 2.0;
  if (pr.favor_small) size = 1.0 - size;
  const double part = static_cast<double>(p.job_factor) / static_cast<double>(std::max<int64_t>(1, max_job_factor_));
  const uint32_t q = jqos_[j];
  const double qos = max_qos_prio_ > 0 && q != kNoIdx ? static_cast<double>(qos_[q].q.priority) / static_cast<double>(max_qos_prio_) : 0;
  double tres = 0;
  if (p.gpus > 0) tres += pr.weight_tres_gpu * static_cast<double>(js.gpus) / static_cast<double>(p.gpus);
  if (p.nodes > 0) tres += pr.weight_tres_node * static_cast<double>(jnodes_[j]) / static_cast<double>(p.nodes);
  if (p.cpus > 0) tres += pr.weight_tres_cpu * static_cast<double>(js.cpus) / static_cast<double>(p.cpus);
  c.size = pr.weight_jobsize * size;
  c.part = pr.weight_partition * part;
  c.qos = pr.weight_qos * qos;
  c.tres = tres;
  c.gen = prio_gen_;
}

// ---------------------------------------------------------------- limits

// The counters only feed limit_reason(), which checks nothing without
// AccountingStorageEnforce=limits: then there is nothing to count. Each charge is remembered
// so that the next pass can take it back (count_running) in O(jobs charged), not O(table).
void SlurmModel::charge(JobIdx j, const JobSpec& js, int sign) {
  if (!cfg_.enforce_limits) return;
  charge_apply(j, js, sign);
  charged_.push_back({j, sign});
}

void SlurmModel::charge_apply(JobIdx j, const JobSpec& js, int sign) {
  const int64_t tr[kTres] = {js.gpus, jnodes_[j], js.cpus};
  auto add_q = [&](uint32_t q) {
    for (int t = 0; t < kTres; ++t) qos_used_[q * kTres + t] += sign * tr[t];
    qos_jobs_[q] += sign;
    const size_t qu = q * nusers_ + js.user;
    for (int t = 0; t < kTres; ++t) qu_used_[qu * kTres + t] += sign * tr[t];
    qu_jobs_[qu] += sign;
  };
  const uint32_t q = jqos_[j], pq = part_[jpart_[j]].qos;
  if (q != kNoIdx) add_q(q);
  if (pq != kNoIdx && pq != q) add_q(pq);  // a Partition QOS pools usage across partitions (spec §4)
  for (uint32_t a = jassoc_[j]; a != kNoIdx; a = assoc_[a].parent) {
    for (int t = 0; t < kTres; ++t) assoc_used_[a * kTres + t] += sign * tr[t];
    assoc_jobs_[a] += sign;
  }
}

void SlurmModel::count_running(const Snapshot& v) {
  // Back to zero by undoing the previous pass's charges (integers: exact).
  for (const auto& c : charged_) charge_apply(c.job, v.jobs[c.job], -c.sign);
  charged_.clear();
  for (JobIdx j : v.running) charge(j, v.jobs[j], +1);
  if (!resv_.empty()) {
    std::fill(resv_used_.begin(), resv_used_.end(), 0);
    for (JobIdx j : v.running)
      if (jresv_[j] != kNoIdx)
        for (const auto& sh : v.allocation_of(j)) resv_used_[jresv_[j] * nn_ + sh.node] += sh.gpus;
  }
}

// Reasons that no amount of waiting fixes in this pass ordering: partition limits.
uint16_t SlurmModel::static_reason(const Snapshot& v, JobIdx j) const {
  const JobSpec& js = v.jobs[j];
  const PartRt& p = part_[jpart_[j]];
  if (js.time_limit_s > p.max_time_s) return kPartitionTimeLimit;
  if (jnodes_[j] > p.nodes || js.gpus > p.gpus) return kPartitionNodeLimit;
  return kNone;
}

// QOS and association limits (spec §4). Only with AccountingStorageEnforce=limits. For each
// limit the first level that defines it wins: Partition QOS, then job QOS (swapped by
// OverPartQOS), then the user association and the accounts above it.
uint16_t SlurmModel::limit_reason(const Snapshot& v, JobIdx j, SimTime limit) const {
  if (!cfg_.enforce_limits) return kNone;
  const JobSpec& js = v.jobs[j];
  const int64_t tr[kTres] = {js.gpus, jnodes_[j], js.cpus};
  uint32_t lv[2] = {part_[jpart_[j]].qos, jqos_[j]};
  if (lv[1] != kNoIdx && qos_[lv[1]].q.flags.over_part_qos) std::swap(lv[0], lv[1]);
  static constexpr uint16_t kGrp[kTres] = {kQOSGrpGRES, kQOSGrpNodeLimit, kQOSGrpCpuLimit};
  static constexpr uint16_t kPerUser[kTres] = {kQOSMaxGRESPerUser, kQOSMaxNodePerUserLimit, kQOSMaxCpuPerUserLimit};
  static constexpr uint16_t kPerJob[kTres] = {kQOSMaxGRESPerJob, kQOSMaxNodePerJobLimit, kQOSMaxCpuPerJobLimit};
  static constexpr uint16_t kMins[kTres] = {kQOSGrpGRESMinutes, kQOSGrpNodeMinutes, kQOSGrpCpuMinutesLimit};
  static constexpr uint16_t kAssocGrp[kTres] = {kAssocGrpGRES, kAssocGrpNodeLimit, kAssocGrpCpuLimit};
  auto get = [](const Tres& x, int t) { return t == 0 ? x.gpu : t == 1 ? x.node : x.cpu; };
  bool grp_set[kTres] = {false, false, false};
  bool wall_set = false, jobs_set = false;
  for (uint32_t q : lv) {
    if (q == kNoIdx) continue;
    const Qos& Q = qos_[q].q;
    const size_t qu = q * nusers_ + js.user;
    for (int t = 0; t < kTres; ++t) {
      if (tr[t] <= 0 && t != 0) continue;
      const int64_t pj = get(Q.max_tres_per_job, t);
      if (pj >= 0 && tr[t] > pj) return kPerJob[t];
      const int64_t g = get(Q.grp_tres, t);
      if (g >= 0 && !grp_set[t]) {
        grp_set[t] = true;
        if (qos_used_[q * kTres + t] + tr[t] > g) return kGrp[t];
      }
      const int64_t pu = get(Q.max_tres_per_user, t);
      if (pu >= 0 && qu_used_[qu * kTres + t] + tr[t] > pu) return kPerUser[t];
      const int64_t m = get(Q.grp_tres_mins, t);
      if (m >= 0) {
        const double used_s = t == 0 ? qos_[q].usage_gpu_s : t == 1 ? qos_[q].usage_node_s : qos_[q].usage_cpu_s;
        // Without `safe`, jobs start while usage < limit; with it, the job's whole limit must fit.
        const double need_s = cfg_.enforce_safe ? used_s + static_cast<double>(tr[t]) * limit : used_s;
        if (cfg_.enforce_safe ? need_s > static_cast<double>(m) * 60 : need_s >= static_cast<double>(m) * 60) return kMins[t];
      }
    }
    if (!jobs_set && Q.max_jobs_per_user >= 0) {
      jobs_set = true;
      if (qu_jobs_[qu] + 1 > Q.max_jobs_per_user) return kQOSMaxJobsPerUserLimit;
    }
    if (Q.grp_jobs >= 0 && qos_jobs_[q] + 1 > Q.grp_jobs) return kQOSGrpJobsLimit;
    if (!wall_set && Q.max_wall_s >= 0) {
      wall_set = true;
      if (limit > Q.max_wall_s) return kQOSMaxWallDurationPerJobLimit;
    }
  }
  for (uint32_t a = jassoc_[j]; a != kNoIdx; a = assoc_[a].parent) {
    const AssocRt& A = assoc_[a];
    for (int t = 0; t < kTres; ++t) {
      const int64_t g = get(A.grp_tres, t);
      if (g >= 0 && !grp_set[t] && assoc_used_[a * kTres + t] + tr[t] > g) return kAssocGrp[t];
    }
    if (a == jassoc_[j] || !assoc_[jassoc_[j]].is_user) {
      if (A.max_jobs >= 0 && assoc_jobs_[a] + 1 > A.max_jobs) return kAssocMaxJobsLimit;
    }
    if (!wall_set && A.max_wall_s >= 0) {
      wall_set = true;
      if (limit > A.max_wall_s) return kAssocMaxWallDurationPerJobLimit;
    }
  }
  return kNone;
}

// DenyOnLimit (spec §4): a job that alone breaks a Max limit of a QOS with the flag (Grp limits
// count as Max) is rejected. Only with AccountingStorageEnforce=limits.
bool SlurmModel::denied(const Snapshot& v, JobIdx j, SimTime limit) const {
  if (!cfg_.enforce_limits) return false;
  const JobSpec& js = v.jobs[j];
  const int64_t tr[kTres] = {js.gpus, jnodes_[j], js.cpus};
  auto get = [](const Tres& x, int t) { return t == 0 ? x.gpu : t == 1 ? x.node : x.cpu; };
  for (uint32_t q : {part_[jpart_[j]].qos, jqos_[j]}) {
    if (q == kNoIdx || !qos_[q].q.flags.deny_on_limit) continue;
    const Qos& Q = qos_[q].q;
    for (int t = 0; t < kTres; ++t)
      for (const Tres* x : {&Q.max_tres_per_job, &Q.max_tres_per_user, &Q.grp_tres}) {
        const int64_t m = get(*x, t);
        if (m >= 0 && tr[t] > m) return true;
      }
    if (Q.max_wall_s >= 0 && limit > Q.max_wall_s) return true;
  }
  return false;
}

// ---------------------------------------------------------------- queue

void SlurmModel::sort_queue(const Snapshot& v) {
  const bool multifactor = cfg_.prio.type == PriorityType::Multifactor;
  queue_stamp_ += 2;
  const uint64_t queued = queue_stamp_, kept = queue_stamp_ + 1;
  bool total = !preempt_on_ && ids_unique_;
  size_t n = 0;
  const bool gone_any = !jgone_.empty();
  // ensure_fs_of with its job-independent tests out of the loop.
  const bool fs_users = multifactor && fs_dirty_ && cfg_.prio.fair_tree;
  const bool fs_all = multifactor && fs_dirty_ && !cfg_.prio.fair_tree;
  uint64_t* mark = queue_mark_.data();
  double* prio = prio_.data();
  for (JobIdx j : v.pending) {
    if (gone_any && jgone_[j]) continue;  // association deleted: cancelled in this pass
    mark[j] = queued;
    ++n;
    // The stored priority stands until the next epoch (see prio_epoch); a requeued job is a new
    // submission.
    const SimTime qs = v.runs[j].queued_s;
    if (prio_at_[j] == prio_epoch_ && prio_queued_[j] == qs) {
      if (prio[j] != prio[j]) total = false;
      continue;
    }
    prio_at_[j] = prio_epoch_;
    prio_queued_[j] = qs;
    if (fs_users) {
      const uint32_t a = jassoc_[j];
      if (fs_at_[a] != fs_epoch_) {
        fair_tree_user(a);
        fs_at_[a] = fs_epoch_;
      }
    } else if (fs_all) {
      ensure_fs();
    }
    const double P = priority(v, j, std::max(qs, prio_epoch_t_));
    prio[j] = P;
    if (P != P) total = false;  // NaN: not a total order
  }
  if (total) {
    // The last order's jobs still queued, in that order, then the new ones.
    size_t w = 0;
    for (JobIdx j : order_)
      if (queue_mark_[j] == queued) queue_mark_[j] = kept, order_[w++] = j;
    order_.resize(w);
    if (w != n)
      for (JobIdx j : v.pending)
        if (queue_mark_[j] == queued) order_.push_back(j);
  } else {
    order_.clear();
    for (JobIdx j : v.pending)
      if (queue_mark_[j] == queued) order_.push_back(j);
  }
  // js:sort_job_queue2 (spec §1): preemptor before preemptee (pairwise, only with preemption),
  // higher partition PriorityTier, higher priority, earlier submit, lower id. stable_sort is a
  // merge sort, so a comparator that is not a total order still gives a deterministic result.
  auto before = [&](JobIdx a, JobIdx b) {
    if (preempt_on_) {
      const uint32_t qa = jqos_[a], qb = jqos_[b];
      if (qa != kNoIdx && qb != kNoIdx && qa != qb) {
        if (qos_[qa].preempts[qb]) return true;
        if (qos_[qb].preempts[qa]) return false;
      }
    }
    const int64_t ta = part_[jpart_[a]].tier, tb = part_[jpart_[b]].tier;
    if (ta != tb) return ta > tb;
    if (prio_[a] != prio_[b]) return prio_[a] > prio_[b];
    const SimTime sa = v.runs[a].queued_s, sb = v.runs[b].queued_s;
    if (sa != sb) return sa < sb;
    return v.jobs[a].id < v.jobs[b].id;
  };
  if (total) {
    // Insertion sort, mostly a check; a queue that moved a lot is sorted from scratch (any
    // sort gives the one order). x_before(x) gives "x goes before y" for the inserted job x.
    auto insertion = [&](auto&& x_before) {
      JobIdx* o = order_.data();
      const size_t no = order_.size();
      size_t moves = 0;
      const size_t budget = 8 * no + 64;
      for (size_t i = 1; i < no && moves <= budget; ++i) {
        const JobIdx x = o[i];
        auto xb = x_before(x);
        if (!xb(o[i - 1])) continue;
        size_t k = i;
        for (; k > 0 && xb(o[k - 1]); --k) o[k] = o[k - 1];
        o[k] = x;
        moves += i - k;
      }
      if (moves > budget) std::sort(order_.begin(), order_.end(), before);
    };
    if (one_tier_) {
      // before() without preemption and with one PriorityTier, the inserted job's keys loaded once.
      const JobRun* runs = v.runs.data();
      const JobSpec* jobs = v.jobs.data();
      insertion([&](JobIdx x) {
        return [&, px = prio[x], qx = runs[x].queued_s, idx = jobs[x].id](JobIdx y) {
          if (px != prio[y]) return px > prio[y];
          if (qx != runs[y].queued_s) return qx < runs[y].queued_s;
          return idx < jobs[y].id;
        };
      });
    } else {
      insertion([&](JobIdx x) { return [&, x](JobIdx y) { return before(x, y); }; });
    }
    return;
  }
  // Without preemption the order is a strict weak ordering, so any stable sort gives
  // stable_sort's result; a short queue is sorted in place (no buffer).
  if (!preempt_on_ && order_.size() <= 24) {
    for (size_t i = 1; i < order_.size(); ++i) {
      const JobIdx x = order_[i];
      size_t k = i;
      for (; k > 0 && before(x, order_[k - 1]); --k) order_[k] = order_[k - 1];
      order_[k] = x;
    }
  } else {
    std::stable_sort(order_.begin(), order_.end(), before);
  }
}

void SlurmModel::start(const Snapshot& v, JobIdx j, Decisions& out, SimTime limit) {
  const JobSpec& js = v.jobs[j];
  placement::take(free_, shares_);
  out.start(j, shares_);
  charge(j, js, +1);
  if (jresv_[j] != kNoIdx)
    for (const auto& sh : shares_) resv_used_[jresv_[j] * nn_ + sh.node] += sh.gpus;
  // cons_common _will_run_test sorts the running jobs by end time at every test, so a job
  // started in this pass takes its place in the release order, not the last one.
  const EndRec e{v.now + limit, j, static_cast<uint32_t>(local_.size()), static_cast<uint32_t>(shares_.size())};
  ends_.insert(std::upper_bound(ends_.begin(), ends_.end(), e, end_before), e);
  local_.insert(local_.end(), shares_.begin(), shares_.end());
}

// preempt/qos (spec §5): victims from the preemptor's Preempt list, not exempt, sharing the
// preemptor's nodes; lowest QOS priority then fewest nodes first (or youngest first); removed
// until the job fits, then recomputed from the last victim to preempt fewer.
bool SlurmModel::try_preempt(const Snapshot& v, JobIdx j, Decisions& out, bool& waiting) {
  waiting = false;
  const uint32_t q = jqos_[j];
  if (!preempt_on_ || q == kNoIdx) return false;
  const JobSpec& js = v.jobs[j];
  // GPUs already on their way back (grace time running) count first: wait for them.
  proj_.assign(free_.begin(), free_.end());
  bool any_stopping = false;
  for (JobIdx r : v.running)
    if (v.runs[r].stop_s >= 0 || stopping_[r] == 2) {
      any_stopping = true;
      for (const auto& s : v.allocation_of(r)) proj_[s.node] += s.gpus;
    }
  if (any_stopping && place(js, proj_)) {
    waiting = true;
    return false;
  }
  cand_.clear();
  for (JobIdx r : v.running) {
    SimTime exempt_until;
    if (!preemptable(v, q, r, exempt_until)) {
      if (exempt_until >= 0) unskip_s_ = std::min(unskip_s_, exempt_until);
      continue;
    }
    bool on_nodes = false;
    for (const auto& s : v.allocation_of(r)) on_nodes |= mask_[s.node] != 0;
    if (on_nodes) cand_.push_back(r);
  }
  if (cand_.empty()) return false;
  if (cfg_.preempt_youngest_first) {
    std::stable_sort(cand_.begin(), cand_.end(), [&](JobIdx a, JobIdx b) { return v.runs[a].start_s > v.runs[b].start_s; });
  } else {
    std::stable_sort(cand_.begin(), cand_.end(), [&](JobIdx a, JobIdx b) {
      const int64_t ka = (qos_[jqos_[a]].q.priority << 16) + v.runs[a].alloc_count;
      const int64_t kb = (qos_[jqos_[b]].q.priority << 16) + v.runs[b].alloc_count;
      return ka < kb;
    });
  }
  proj_.assign(free_.begin(), free_.end());
  size_t k = 0;
  bool fits = false;
  for (; k < cand_.size() && !fits; ++k) {
    for (const auto& s : v.allocation_of(cand_[k])) proj_[s.node] += s.gpus;
    fits = place(js, proj_);
  }
  if (!fits) return false;
  // Reorder: the last victim first, then the others in order; take until the job fits.
  victims_.clear();
  victims_.push_back(cand_[k - 1]);
  for (size_t i = 0; i + 1 < k; ++i) victims_.push_back(cand_[i]);
  proj_.assign(free_.begin(), free_.end());
  size_t used = 0;
  for (; used < victims_.size(); ++used) {
    for (const auto& s : v.allocation_of(victims_[used])) proj_[s.node] += s.gpus;
    if (place(js, proj_)) {
      ++used;
      break;
    }
  }
  victims_.resize(used);
  bool grace = false;
  for (JobIdx r : victims_) {
    const Qos& RQ = qos_[jqos_[r]].q;
    PreemptMode m = RQ.preempt_mode != PreemptMode::Unset ? RQ.preempt_mode : cfg_.preempt_mode;
    floorsim::PreemptMode em = floorsim::PreemptMode::Cancel;
    if (m == PreemptMode::Requeue && v.jobs[r].requeueable) em = floorsim::PreemptMode::Requeue;
    else if (m == PreemptMode::Suspend) em = floorsim::PreemptMode::Suspend;
    const SimTime g = RQ.grace_time_s;
    out.preempt(r, em, j, g);
    ++preempts_;
    stopping_[r] = g > 0 ? 2 : 1;
    stopped_now_.push_back(r);
    charge(r, v.jobs[r], -1);
    if (g > 0) {
      grace = true;
      wake_special(out, v.now + g);
    } else {
      for (const auto& s : v.allocation_of(r)) free_[s.node] += s.gpus;
    }
  }
  if (grace) {
    waiting = true;  // the preemptor waits for the grace time to end (pr:_job_check_grace_internal)
    return false;
  }
  return place(js, free_);
}

// ---------------------------------------------------------------- main loop (spec §1)

void SlurmModel::main_pass(const Snapshot& v, Decisions& out, size_t depth) {
  ++main_passes_;
  const size_t nn = nn_;  // a local: the byte loops below would reload nn_ at every step (uint8_t aliases it)
  std::fill(part_failed_.begin(), part_failed_.end(), 0);
  std::fill(resv_failed_.begin(), resv_failed_.end(), 0);
  avail_.assign(v.cluster.node_up.begin(), v.cluster.node_up.end());
  size_t tested = 0;
  // A placement takes job.gpus GPUs from nodes with free GPUs, so a job asking for more than
  // all free GPUs together cannot fit whatever its mask. Then fit() is not asked, where asking
  // has no side effect and nothing else in the step needs mask_: no topology (--switches
  // waits), no reservations (adjusted free GPUs), no preemption (try_preempt).
  const bool quick = topo_mode_ == 0 && resv_.empty() && !preempt_on_;
  int64_t free_sum = 0;
  if (quick)
    for (size_t n = 0; n < nn; ++n) free_sum += std::max(0, free_[n]);
  for (JobIdx j : order_) {
    if (v.runs[j].state != JobState::Pending || considered_[j] == 2) continue;  // started in this pass
    const JobSpec& js = v.jobs[j];
    const SimTime begin = begin_time(v, j);
    if (begin > v.now) {
      out.set_reason(j, kBeginTime);
      wake_special(out, begin);
      unskip_s_ = std::min(unskip_s_, begin);
      continue;
    }
    if (tested >= depth) break;
    ++tested;
    const uint32_t p = jpart_[j];
    const uint32_t rv = jresv_[j];
    // A job in a reservation is held back only by its reservation, not by its partition.
    if (rv == kNoIdx ? part_failed_[p] != 0 : resv_failed_[rv] != 0) {
      out.set_reason(j, kPriority);
      continue;
    }
    if (uint16_t r = static_reason(v, j)) {
      out.set_reason(j, r);
      continue;
    }
    const SimTime limit = job_limit(j, js);
    if (denied(v, j, limit)) {
      out.preempt(j, floorsim::PreemptMode::Cancel, kNoJob);  // rejected as at submission
      considered_[j] = 2;
      continue;
    }
    if (uint16_t r = limit_reason(v, j, limit)) {
      out.set_reason(j, r);
      if ((r == kQOSGrpGRESMinutes || r == kQOSGrpNodeMinutes || r == kQOSGrpCpuMinutesLimit) &&
          !qos_[jqos_[j]].q.flags.no_decay)
        mins_blocked_ = true;
      // A limit blocks nothing unless assoc_limit_stop (spec §1).
      if (cfg_.sched.assoc_limit_stop) part_failed_[p] = 1;
      continue;
    }
    const PartRt& P = part_[p];
    if (quick && js.gpus > free_sum) {
      adj_on_ = false;  // as resv_prepare with no reservations
      resv_next_free_ = kNever;
    } else {
      mask_.resize(nn_);
      {
        uint8_t* __restrict mk = mask_.data();
        const uint8_t* __restrict src = rv == kNoIdx ? avail_.data() : v.cluster.node_up.data();
        const uint8_t* __restrict pm = P.mask.data();
        for (size_t n = 0; n < nn; ++n) mk[n] = src[n] & pm[n];
      }
      SimTime wait = kNever;
      if (!resv_prepare(j, v.now, v.now + limit, wait)) {
        out.set_reason(j, resv_deleted_ ? kResvDeleted : kReservation);
        if (std::isfinite(wait)) wake_special(out, wait);
        continue;
      }
      bool waiting = false;
      if (fit(js, free_) || try_preempt(v, j, out, waiting)) {
        start(v, j, out, limit);
        free_sum -= js.gpus;
        considered_[j] = 2;
        ++main_starts_;
        continue;
      }
    }
    out.set_reason(j, kResources);
    if (adj_on_ && !resv_blocked_ && place(js, free_)) resv_blocked_ = true;
    // A job in a reservation blocks only that reservation (spec §1).
    if (rv != kNoIdx) {
      resv_failed_[rv] = 1;
      continue;
    }
    // NODES_BUSY: the partition is failed for the rest of the pass and its nodes leave avail.
    part_failed_[p] = 1;
    {
      uint8_t* __restrict av = avail_.data();
      const uint8_t* __restrict keep = P.keep.data();
      for (size_t n = 0; n < nn; ++n) av[n] &= keep[n];
    }
  }
}

// ---------------------------------------------------------------- backfill (spec §2)

void SlurmModel::map_reset(SimTime begin, SimTime end) {
  slices_.clear();
  slices_.push_back({begin, end, kNoIdx});
  nw_ = (nn_ + 63) / 64;
  slice_mask_.assign(nw_, 0);
  pack_nonzero(avail_.data(), nn_, slice_mask_.data());
  avail_bits_ = slice_mask_;
}

// Splits the slice containing t so that a slice begins at t; returns its index (kNoIdx if t is
// at or past the map's end).
uint32_t SlurmModel::map_split(SimTime t, uint32_t from) {
  for (uint32_t i = from; i != kNoIdx; i = slices_[i].next) {
    Slice& s = slices_[i];
    if (s.begin == t) return i;
    if (s.begin < t && t < s.end) {
      const uint32_t k = static_cast<uint32_t>(slices_.size());
      slices_.push_back({t, s.end, s.next});
      slices_[i].end = t;
      slices_[i].next = k;
      slice_mask_.resize(slice_mask_.size() + nw_);
      std::copy_n(slice_mask_.begin() + static_cast<ptrdiff_t>(i * nw_), nw_, slice_mask_.begin() + static_cast<ptrdiff_t>(k * nw_));
      return k;
    }
  }
  return kNoIdx;
}

// `from`: a slice that begins at or before `start` (a hint: the walk starts there).
void SlurmModel::map_add(SimTime start, SimTime end, uint32_t from) {
  if (start < slices_[0].begin) {
    start = slices_[0].begin;
    from = 0;
  }
  if (end <= start) return;
  const uint32_t a = map_split(start, from);
  if (a == kNoIdx) return;
  map_split(end, a);
  for (uint32_t i = a; i != kNoIdx && slices_[i].begin < end; i = slices_[i].next)
    for (size_t w = 0; w < nw_; ++w) slice_mask_[i * nw_ + w] &= ~share_bits_[w];  // whole nodes (spec §2)
}

// ct:_will_run_test: release running jobs in end-time order, in groups (see below); the first
// group after which the job fits gives its start.
bool SlurmModel::will_run(const Snapshot& v, JobIdx j, const JobSpec& js, SimTime& start_s) {
  proj_.resize(nn_);
  // sum: GPUs on usable nodes, a necessary condition checked before the placement (speed).
  int64_t sum = 0, cap = 0;
  {
    int32_t* __restrict pj = proj_.data();
    const int32_t* __restrict fr = free_.data();
    const int32_t* __restrict cg = v.cluster.capacity_gpus.data();
    const uint8_t* __restrict mk = mask_.data();
    int32_t s32 = 0, c32 = 0;  // GPU counts of one cluster fit in 32 bits
    const size_t nn = nn_;
    for (size_t n = 0; n < nn; ++n) {
      const int32_t m = -static_cast<int32_t>(mk[n] != 0);  // 0 or all ones
      pj[n] = fr[n] & m;
      s32 += fr[n] & m;
      c32 += cg[n] & m;
    }
    sum = s32;
    cap = c32;
  }
  if (cap < js.gpus) return false;  // not even an empty map holds it
  // "Preemptable jobs are removed first when the job is a preemptor" (spec §2): the jobs it may
  // preempt (try_preempt's eligibility, PreemptExemptTime included) are released at now.
  for (JobIdx r : pre_) pre_mark_[r] = 0;
  pre_.clear();
  if (is_preemptor(j))
    for (JobIdx r : v.running) {
      SimTime exempt_until;
      if (!preemptable(v, jqos_[j], r, exempt_until)) continue;
      pre_.push_back(r);
      pre_mark_[r] = 1;
      for (const auto& s : v.allocation_of(r))
        if (mask_[s.node]) proj_[s.node] += s.gpus, sum += s.gpus;
    }
  if ((adj_on_ || sum >= js.gpus) && fit(js, proj_)) {
    start_s = v.now;
    return true;
  }
  // The release groups of _will_run_test (ReleaseGroups).
  SimTime last_end = 0;
  size_t walked = 0;
  auto release = [&](size_t k) {
    const EndRec& er = ends_[k];
    if (er.cnt == 0 && pre_mark_[er.job]) return false;  // a preemptee, released at now already
    const auto alloc = end_alloc(v, er);
    bool usable = false;
    for (const auto& s : alloc) usable |= mask_[s.node] != 0;
    if (!usable) return false;
    // A released job of a reservation frees reserved GPUs: they stay out of reach of
    // outsiders (adj_sub_ grows) and come within reach of insiders (adj_cap_ grows).
    const uint32_t rk = adj_on_ ? jresv_[er.job] : kNoIdx;
    if (rk == kNoIdx) {
      for (const auto& s : alloc)
        if (mask_[s.node]) proj_[s.node] += s.gpus, sum += s.gpus;
    } else {
      const bool ins = rk == jresv_[cur_job_];
      const bool outs = !ins && resv_overlap_[rk];
      for (const auto& s : alloc) {
        if (mask_[s.node]) proj_[s.node] += s.gpus, sum += s.gpus;
        if (outs) adj_sub_[s.node] += s.gpus;
        if (ins && adj_cap_[s.node] >= 0) adj_cap_[s.node] += s.gpus;
      }
    }
    return true;
  };
  if (!release_walk(release, [&] { return (adj_on_ || sum >= js.gpus) && fit(js, proj_); }, last_end, walked)) return false;
  start_s = last_end <= v.now ? v.now + 1 : last_end;
  return true;
}

// Where every capacity, free count and release is 0 or 1 GPU on a node (1-GPU nodes), the
// levels are node bitsets built by ORs alone; false (nothing usable built) where that fails.
bool SlurmModel::build_plan_ones(const Snapshot& v) {
  if (cap_max_ > 1 || cap_min_ < 0) return false;
  const size_t ne = ends_.size();
  if ((ne + 1) * nw_ > (size_t{1} << 22)) return false;
  const int32_t* __restrict fr = free_.data();
  int32_t odd = 0;  // a free count other than 0 or 1 (negative ones included)
  for (size_t n = 0; n < nn_; ++n) odd |= fr[n] & ~int32_t{1};
  if (odd != 0) return false;
  if (cap_planes_ != 1) {
    cap_planes_ = 1;
    cap_bits_.assign(nw_, 0);
    for (size_t n = 0; n < nn_; ++n) cap_bits_[n >> 6] |= static_cast<uint64_t>(cap_src_[n] & 1) << (n & 63);
  }
  lvl_bits_.resize((ne + 1) * nw_);
  lvl_t_.resize(ne + 1);
  lvl_t_[0] = v.now;
  pack_nonzero(fr, nn_, lvl_bits_.data());  // the values are 0 or 1
  const bool ok = fill_levels(v, nw_, [](uint64_t* level, const NodeShare& s) {
    const uint64_t b = uint64_t{1} << (s.node & 63);
    if (s.gpus != 1 || (level[s.node >> 6] & b) != 0) return false;  // a value other than 0 or 1
    level[s.node >> 6] |= b;
    return true;
  });
  if (!ok) return false;
  // A projection over capacity (a node of 0 GPUs holding one) makes the capacity test count.
  uint64_t over = 0;
  const uint64_t* last = lvl_bits_.data() + ne * nw_;
  for (size_t w = 0; w < nw_; ++w) over |= last[w] & ~cap_bits_[w];
  cap_needed_ = over != 0;
  return true;
}

// Levels 1..ends: each the previous one with the shares of ends_[k - 1] applied by add(level,
// share) (false: give up, and so does this), with lvl_t_, end_bits_ and run_bits_. Level 0 and
// lvl_t_[0] are the caller's.
template <class Add>
bool SlurmModel::fill_levels(const Snapshot& v, size_t per, Add&& add) {
  const size_t ne = ends_.size();
  end_bits_.assign(ne * nw_, 0);
  run_bits_.assign(nw_, 0);
  for (size_t k = 0; k < ne; ++k) {
    uint64_t* level = lvl_bits_.data() + (k + 1) * per;
    std::copy_n(level - per, per, level);
    lvl_t_[k + 1] = ends_[k].t;
    uint64_t* eb = end_bits_.data() + k * nw_;
    for (const auto& s : end_alloc(v, ends_[k])) {
      if (!add(level, s)) return false;
      eb[s.node >> 6] |= uint64_t{1} << (s.node & 63);
    }
    for (size_t w = 0; w < nw_; ++w) run_bits_[w] |= eb[w];
  }
  return true;
}

// Capacities rarely change: a copy is kept with its range; the capacity planes are rebuilt when
// it changes (cap_planes_ = 0).
bool SlurmModel::caps_refresh(const Snapshot& v) {
  const auto& cg = v.cluster.capacity_gpus;
  if (std::equal(cap_src_.begin(), cap_src_.end(), cg.begin(), cg.end())) return false;
  cap_src_.assign(cg.begin(), cg.end());
  cap_max_ = cap_src_.empty() ? 0 : *std::max_element(cap_src_.begin(), cap_src_.end());
  cap_min_ = cap_src_.empty() ? 0 : *std::min_element(cap_src_.begin(), cap_src_.end());
  cap_planes_ = 0;
  return true;
}

// A backfill cycle after submissions only sees the running jobs, their ends and the free GPUs
// of the cycle before: the plan built then is this one (only level 0's time moves to now).
bool SlurmModel::plan_reusable() const {
  if (!plan_key_ok_ || ends_.size() != plan_ends_.size() || free_ != plan_free_) return false;
  for (size_t k = 0; k < ends_.size(); ++k) {
    const EndRec& a = ends_[k];
    const EndRec& b = plan_ends_[k];
    if (a.cnt != 0 || a.t != b.t || a.job != b.job) return false;
  }
  return true;
}

// will_run for a job that fits wherever its mask holds enough GPUs (sum_decides: whole-node
// free GPU counts add up, no node count, no reservation adjustments): the first release level
// whose projected sum over the mask reaches the job's GPUs is the one where will_run's fit()
// first succeeds, so that level gives the same start. The placement (shares_) is computed only
// when the caller needs it (place_lazy), from the same projection will_run would have built.
void SlurmModel::build_plan(const Snapshot& v) {
  plan_ok_ = true;
  if (!caps_refresh(v) && plan_reusable()) {
    if (!lvl_t_.empty()) lvl_t_[0] = v.now;
    end_max_ = ends_.empty() ? v.now : std::max(v.now, ends_.back().t);
    return;
  }
  plan_key_ok_ = std::none_of(ends_.begin(), ends_.end(), [](const EndRec& e) { return e.cnt != 0; });
  if (plan_key_ok_) {
    plan_ends_ = ends_;
    plan_free_ = free_;
  }
  planes_ = 0;
  if (build_plan_ones(v)) {
    plan_groups(v);
    planes_ = 1;
    return;
  }
  // Largest value any level or capacity takes: the number of bit planes.
  lvl_val_.assign(free_.begin(), free_.end());
  for (const auto& e : ends_)
    for (const auto& s : end_alloc(v, e)) lvl_val_[s.node] += s.gpus;
  int32_t mx = 0;
  // The capacity test can only fail where a projected value exceeds its node's capacity (the
  // last level's sum is at most the capacity sum otherwise).
  bool bad = false, capn = false;
  {
    // Branch-free reductions (vectorized): a negative free count, a negative release, a
    // negative capacity; the largest value; a projection over capacity.
    const int32_t* __restrict fr = free_.data();
    const int32_t* __restrict lv = lvl_val_.data();
    const int32_t* __restrict cg = v.cluster.capacity_gpus.data();
    int32_t neg = 0, over = 0;
    for (size_t n = 0; n < nn_; ++n) {
      neg |= fr[n] | (lv[n] - fr[n]) | cg[n];
      mx = std::max(mx, std::max(lv[n], cg[n]));
      over |= cg[n] - lv[n];
    }
    bad = neg < 0;
    capn = over < 0;
  }
  if (bad) return;  // negative: leave it to will_run
  cap_needed_ = capn;
  const int planes = std::max(1, static_cast<int>(std::bit_width(static_cast<uint32_t>(mx))));
  const size_t per = static_cast<size_t>(planes) * nw_;
  auto set_node = [&](uint64_t* P, size_t n, int32_t val) {
    const unsigned sh = static_cast<unsigned>(n & 63);
    for (int b = 0; b < planes; ++b) {
      uint64_t& w = P[b * nw_ + (n >> 6)];
      w = (w & ~(uint64_t{1} << sh)) | (static_cast<uint64_t>((val >> b) & 1) << sh);
    }
  };
  auto or_node = [&](uint64_t* P, size_t n, int32_t val) {  // into zeroed planes
    if (planes == 1) {
      P[n >> 6] |= static_cast<uint64_t>(val & 1) << (n & 63);
      return;
    }
    for (int b = 0; b < planes; ++b) P[b * nw_ + (n >> 6)] |= static_cast<uint64_t>((val >> b) & 1) << (n & 63);
  };
  // Capacities rarely change: their planes are rebuilt only when they or the plane count do.
  if (cap_planes_ != planes) {
    cap_planes_ = planes;
    cap_bits_.assign(per, 0);
    for (size_t n = 0; n < nn_; ++n) or_node(cap_bits_.data(), n, v.cluster.capacity_gpus[n]);
  }
  // A plan too large for memory (huge clusters with many running jobs) leaves will_run to it.
  if ((ends_.size() + 1) * per > (size_t{1} << 22)) return;
  const size_t ne = ends_.size();
  lvl_bits_.resize((ne + 1) * per);
  lvl_t_.resize(ne + 1);
  lvl_t_[0] = v.now;
  std::fill_n(lvl_bits_.begin(), per, 0);
  for (size_t n = 0; n < nn_; ++n) or_node(lvl_bits_.data(), n, free_[n]);
  lvl_val_.assign(free_.begin(), free_.end());
  fill_levels(v, per, [&](uint64_t* level, const NodeShare& s) {
    lvl_val_[s.node] += s.gpus;
    set_node(level, s.node, lvl_val_[s.node]);
    return true;
  });
  plan_groups(v);
  planes_ = planes;
}

// end_max_, and grp_k_: the groups exactly as will_run forms them (ReleaseGroups) for a job
// whose mask meets every running job, which will_run_fast checks: the levels it tests.
void SlurmModel::plan_groups(const Snapshot& v) {
  const size_t ne = ends_.size();
  end_max_ = ne > 0 ? std::max(v.now, ends_.back().t) : v.now;
  grp_k_.assign(1, 0);
  size_t next_k = 0;  // ends released so far
  auto release = [&](size_t k) {
    next_k = k + 1;
    return true;
  };
  auto close_level = [&] {
    grp_k_.push_back(static_cast<uint32_t>(next_k));
    return false;  // a plan is built, not tested: walk every group
  };
  SimTime last_end = 0;
  size_t walked = 0;
  release_walk(release, close_level, last_end, walked);
}

// Before will_run_fast, for a backfill retry on the fast path (no advanced reservation): if the
// job's mask holds fewer than `gpus` GPUs even with every job ending by later_start released,
// will_run_fast's answer is after later_start or there is none; both mean a retry at
// later_start (1), unless its answer is past the window, which the same sum at the window's
// end tells (-1: no reservation). 0: will_run_fast must answer. Level k holds the ends before
// index k; ends at index k or later all end after time x when k = first_after(x).
// kx: first_after of an earlier later_start of the same test (they only grow), or 0.
int SlurmModel::retry_by_sums(const Snapshot& v, int64_t gpus, SimTime later_start, SimTime window_end, size_t& kx) {
  if (!plan_ok_) build_plan(v);
  if (planes_ == 0) return 0;
  kx = first_after_from(later_start, kx);
  if (plan_sum(level(kx)) >= gpus) return 0;
  if (!plan_fits_ever(gpus)) return 1;  // no answer
  // An answer is the end time of a released job (or now + 1), so it is within the window when
  // every job ends within it.
  if (end_max_ <= window_end) return 1;
  // Past the window: the answer's level is after every end by window_end. (Over 201 ends a
  // group may be skipped, and will_run_fast may have no answer: then it must say.)
  if (ends_.size() <= 201 && plan_sum(level(first_after(window_end))) < gpus) return -1;
  return 0;
}

// Before the mask walk of a backfill retry: the mask is the AND of the slices over the job's
// time, so the first slice alone bounds it. When even that bound holds fewer than `gpus` GPUs
// with every job ending by later_start released, and every job ends within the window,
// retry_by_sums would answer 1 on the real mask: retry (true) without walking.
bool SlurmModel::retry_on_slice(const Snapshot& v, int64_t gpus, uint32_t slice, const uint64_t* pbits, SimTime later_start,
                                SimTime window_end, size_t& kx) {
  if (!plan_ok_) build_plan(v);
  if (planes_ == 0 || end_max_ > window_end) return false;
  kx = first_after_from(later_start, kx);
  set_mbits(slice_mask_.data() + slice * nw_, pbits);
  return plan_sum(level(kx)) < gpus;
}

bool SlurmModel::will_run_fast(const Snapshot& v, const JobSpec& js, SimTime& start_s) {
  if (!plan_ok_) build_plan(v);
  if (planes_ == 0) {
    lazy_ok_ = false;  // will_run's own placement (shares_) stands
    expand_bits(mbits_, mask_);
    return will_run(v, cur_bf_job_, js, start_s);
  }
  if (!plan_fits_ever(js.gpus)) return false;
  lazy_ok_ = true;
  if (plan_sum(level(0)) >= js.gpus) {
    lazy_k_ = 0;
    start_s = v.now;
    return true;
  }
  // The plan's groups count every running job; will_run skips a job on none of the tested
  // job's nodes, which can move the groups. Such a mask walks the ends itself (the sums on the
  // mask are the levels' all the same: a skipped job adds nothing there).
  bool meets_all = true;
  for (size_t w = 0; w < nw_ && meets_all; ++w) meets_all = (run_bits_[w] & ~mbits_[w]) == 0;
  if (!meets_all) {
    size_t next_k = 0;
    auto release = [&](size_t k) {
      const uint64_t* eb = end_bits_.data() + k * nw_;
      uint64_t any = 0;
      if (nw_ == 2) any = (eb[0] & mbits_[0]) | (eb[1] & mbits_[1]);  // up to 128 nodes
      else if (nw_ == 1) any = eb[0] & mbits_[0];
      else
        for (size_t w = 0; w < nw_; ++w) any |= eb[w] & mbits_[w];
      next_k = k + 1;
      return any != 0;
    };
    SimTime last_end = 0;
    size_t walked = 0;
    if (!release_walk(release, [&] { return plan_sum(level(next_k)) >= js.gpus; }, last_end, walked)) return false;
    lazy_k_ = static_cast<uint32_t>(next_k);
    start_s = last_end <= v.now ? v.now + 1 : last_end;
    return true;
  }
  size_t lo = 1, hi = grp_k_.size() - 1;  // the first tested level with sum >= gpus is in [lo, hi]
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (plan_sum(level(grp_k_[mid])) >= js.gpus) hi = mid;
    else lo = mid + 1;
  }
  lazy_k_ = grp_k_[lo];
  const SimTime e = lvl_t_[lazy_k_];
  start_s = e <= v.now ? v.now + 1 : e;
  return true;
}

// The placement will_run would have made for will_run_fast's answer (same projection on the
// same mask, so the same shares_).
bool SlurmModel::place_lazy(const Snapshot& v, const JobSpec& js) {
  shares_lazy_ = false;
  if (!lazy_ok_) return !shares_.empty();  // will_run answered (and placed) itself
  if (!weighted_) {
    // placement::first_fit_masked on the level's values, visiting only the mask's nodes.
    const uint64_t* P = level(lazy_k_);
    auto value = [&](size_t n) {
      int32_t x = 0;
      for (int b = 0; b < planes_; ++b) x |= static_cast<int32_t>((P[b * nw_ + (n >> 6)] >> (n & 63)) & 1) << b;
      return x;
    };
    shares_.clear();
    // Nodes with no GPU at the level are skipped by first_fit_masked either way.
    for (size_t w = 0; w < nw_; ++w) {
      uint64_t any = 0;
      for (int b = 0; b < planes_; ++b) any |= P[b * nw_ + w];
      mbits_[w] &= any;
    }
    if (planes_ == 1) {
      // Every node left holds one GPU: the first `gpus` of them (a single-node fit of 1 GPU
      // is the first one too).
      // Kept as a node bitset (what the map needs); shares_from_bits() lists them for a start.
      int32_t need = js.gpus;
      share_bits_.assign(nw_, 0);
      for (size_t w = 0; w < nw_ && need > 0; ++w) {
        uint64_t m = mbits_[w];
        const int c = popcount64(m);
        if (c <= need) {
          share_bits_[w] = m;
          need -= c;
          continue;
        }
        uint64_t take = 0;
        for (; need > 0; m &= m - 1, --need) take |= m & (~m + 1);
        share_bits_[w] = take;
      }
      if (need > 0) return false;
      shares_lazy_ = true;
      return true;
    }
    // One node holding the job: the first in node order whose value is >= gpus, compared on the
    // bit planes a word (64 nodes) at a time, from the top plane down.
    if (js.gpus <= max_node_gpus_ && (js.gpus >> planes_) == 0)
      for (size_t w = 0; w < nw_; ++w) {
        uint64_t gt = 0, eq = mbits_[w];
        for (int b = planes_ - 1; b >= 0 && eq != 0; --b) {
          const uint64_t pb = P[b * nw_ + w];
          if ((js.gpus >> b) & 1) {
            eq &= pb;
          } else {
            gt |= eq & pb;
            eq &= ~pb;
          }
        }
        if (const uint64_t ge = gt | eq; ge != 0) {
          shares_.push_back({static_cast<NodeIdx>(w * 64 + static_cast<size_t>(std::countr_zero(ge))), js.gpus});
          return true;
        }
      }
    int32_t need = js.gpus;
    for (size_t w = 0; w < nw_ && need > 0; ++w)
      for (uint64_t m = mbits_[w]; m != 0 && need > 0; m &= m - 1) {
        const size_t n = w * 64 + static_cast<size_t>(std::countr_zero(m));
        const int32_t x = value(n);
        if (x <= 0) continue;
        const int32_t g = x < need ? x : need;
        shares_.push_back({static_cast<NodeIdx>(n), g});
        need -= g;
      }
    if (need > 0) shares_.clear();
    return need == 0;
  }
  expand_bits(mbits_, mask_);
  proj_.resize(nn_);
  for (size_t n = 0; n < nn_; ++n) proj_[n] = mask_[n] ? free_[n] : 0;
  for (size_t k = 0; k < lazy_k_; ++k)
    for (const auto& s : end_alloc(v, ends_[k]))
      if (mask_[s.node]) proj_[s.node] += s.gpus;
  return fit(js, proj_);
}

void SlurmModel::backfill_pass(const Snapshot& v, Decisions& out) {
  ++bf_passes_;
  const auto& sp = cfg_.sched;
  const SimTime res = sp.bf_resolution_s > 0 ? sp.bf_resolution_s : 1;
  avail_.assign(v.cluster.node_up.begin(), v.cluster.node_up.end());
  const SimTime map_begin = std::floor(v.now / res) * res;
  map_reset(map_begin, std::floor((v.now + sp.bf_window_s) / res) * res);
  // Running jobs are released at start + time limit (over-limit ones: + KillWait + OverTimeLimit).
  // (v.running holds none of the jobs started in this pass; those are in ends_ already.)
  for (JobIdx r : v.running) {
    if (stopping_[r] == 1) continue;  // preempted in this pass without grace: already free
    SimTime t = v.runs[r].limit_end_s;
    if (t <= v.now) t = t + sp.kill_wait_s + sp.over_time_limit_s;
    if (v.runs[r].stop_s >= 0) t = std::min(t, v.runs[r].stop_s);
    if (stopping_[r] == 2) t = std::min(t, v.now + qos_[jqos_[r]].q.grace_time_s);
    ends_.push_back({t, r, 0, 0});
  }
  // (end, job) is a total order (a job has one end), so an in-place sort gives the one order.
  std::sort(ends_.begin(), ends_.end(), end_before);
  if (sp.bf_max_job_user > 0) bf_user_.assign(nusers_, 0);
  plan_ok_ = false;
  accw_.resize(nw_);
  mbits_.resize(nw_);
  int64_t tested = 0;
  for (JobIdx j : order_) {
    if (v.runs[j].state != JobState::Pending || considered_[j] == 2) continue;
    const JobSpec& js = v.jobs[j];
    const SimTime begin = begin_time(v, j);
    if (begin > v.now) continue;
    if (static_reason(v, j)) continue;
    const PartRt& P = part_[jpart_[j]];
    SimTime limit = job_limit(j, js);
    // Over a limit: skipped with no reservation (acct_policy_job_runnable_pre_select).
    if (uint16_t r = limit_reason(v, j, limit)) {
      out.set_reason(j, r);
      continue;
    }
    if (sp.bf_max_job_user > 0) {
      if (bf_user_[js.user] >= sp.bf_max_job_user) continue;
      ++bf_user_[js.user];
    }
    if (tested >= sp.bf_max_job_test) break;
    ++tested;  // counts jobs that reach the select test
    // _set_backfill_timelimits: min(job, partition MaxTime); infinite -> 1 year.
    SimTime comp_limit = std::min(limit, P.max_time_s);
    if (!std::isfinite(comp_limit)) comp_limit = kYear_s;
    const bool no_reserve = qos_[jqos_[j]].q.flags.no_reserve;
    // NoReserve with preemption on: tested as a 1-minute job so it fits any gap (spec §2).
    const SimTime test_limit = (no_reserve && preempt_on_) ? 60 : comp_limit;
    const bool fast = sum_decides(js) && !is_preemptor(j);  // a preemptor's releases differ (will_run)
    cur_bf_job_ = j;
    const uint64_t* pbits = part_bits_.data() + jpart_[j] * nw_;
    SimTime start_res = v.now;
    SimTime later_start = 0;
    uint32_t first = 0;  // the map's first slice
    size_t kx = 0;       // retry_by_sums' level for the last later_start
    for (int guard = 0; guard < 10000; ++guard) {
      const SimTime end_time = start_res + test_limit;
      // Slices are contiguous and start_res only grows while one job is tested, so the walk
      // starts at the first slice that ends after start_res (kept across retries).
      while (first != kNoIdx && slices_[first].end <= start_res) first = slices_[first].next;
      uint64_t* __restrict acc = accw_.data();
      later_start = 0;
      if (first != kNoIdx && slices_[first].next != kNoIdx) later_start = slices_[first].end;
      // The first slice alone bounds the mask (the walk only ANDs more in): when even it cannot
      // hold the job by later_start, retry_by_sums would answer 1 (every end within the window),
      // so the walk is skipped.
      if (fast && later_start > 0 && retry_on_slice(v, js.gpus, first, pbits, later_start, v.now + sp.bf_window_s, kx)) {
        start_res = later_start;
        continue;
      }
      if (nw_ == 2) {  // up to 128 nodes: the common case, in registers
        uint64_t a0 = ~uint64_t{0}, a1 = ~uint64_t{0};
        const uint64_t* sm = slice_mask_.data();
        for (uint32_t i = first; i != kNoIdx; i = slices_[i].next) {
          if (slices_[i].begin > end_time) break;
          a0 &= sm[2 * i];
          a1 &= sm[2 * i + 1];
        }
        acc[0] = a0;
        acc[1] = a1;
      } else if (nw_ == 1) {  // up to 64 nodes
        uint64_t a0 = ~uint64_t{0};
        const uint64_t* sm = slice_mask_.data();
        for (uint32_t i = first; i != kNoIdx; i = slices_[i].next) {
          if (slices_[i].begin > end_time) break;
          a0 &= sm[i];
        }
        acc[0] = a0;
      } else {
        for (size_t w = 0; w < nw_; ++w) acc[w] = ~uint64_t{0};
        for (uint32_t i = first; i != kNoIdx; i = slices_[i].next) {
          if (slices_[i].begin > end_time) break;
          const uint64_t* __restrict sm = slice_mask_.data() + i * nw_;
          for (size_t w = 0; w < nw_; ++w) acc[w] &= sm[w];
        }
      }
      if (fast) {
        set_mbits(acc, pbits);
      } else {
        expand_bits(accw_, mask_);
        const size_t nn = nn_;
        uint8_t* __restrict mk = mask_.data();
        const uint8_t* __restrict av = avail_.data();
        const uint8_t* __restrict pm = P.mask.data();
        for (size_t n = 0; n < nn; ++n) mk[n] &= av[n] & pm[n];
      }
      SimTime wait = kNever;
      if (!resv_prepare(j, start_res, end_time, wait)) {
        if (std::isfinite(wait) && wait > start_res && wait <= v.now + sp.bf_window_s) {
          start_res = wait;
          continue;
        }
        break;
      }
      // A retry is decided by sums alone when the job cannot fit by later_start: see retry_by_sums.
      if (fast && later_start > 0) {
        const int r = retry_by_sums(v, js.gpus, later_start, v.now + sp.bf_window_s, kx);
        if (r > 0) {
          start_res = later_start;
          continue;
        }
        if (r < 0) break;
      }
      SimTime t = 0;
      if (!(fast ? will_run_fast(v, js, t) : will_run(v, j, js, t))) {
        // job_test_resv: an advanced reservation in the way moves the start to its end.
        if (std::isfinite(resv_next_free_) && resv_next_free_ > start_res &&
            (later_start == 0 || resv_next_free_ < later_start))
          later_start = resv_next_free_;
        if (later_start > 0) {
          start_res = later_start;
          continue;
        }
        break;  // never fits: no reservation
      }
      t = std::max(t, start_res);
      if (t <= v.now) {
        if (fast && place_lazy(v, js) && shares_lazy_) shares_from_bits();
        if (is_preemptor(j) && !pre_.empty() && !fit(js, free_)) {
          // It starts now only by preempting: as the main loop does (spec §5), or not at all.
          bool waiting = false;
          const bool ok = try_preempt(v, j, out, waiting);
          // Victims stopped at once are free now: they leave the release order.
          ends_.erase(std::remove_if(ends_.begin(), ends_.end(), [&](const EndRec& e) { return e.cnt == 0 && stopping_[e.job] == 1; }),
                      ends_.end());
          plan_ok_ = false;
          if (!ok) break;
        }
        start(v, j, out, limit);
        plan_ok_ = false;  // free_ and ends_ changed
        considered_[j] = 2;
        ++bf_starts_;
        break;
      }
      if (t > v.now + sp.bf_window_s) break;  // too far in the future to reserve
      if (later_start > 0 && t > later_start) {
        start_res = later_start;
        continue;
      }
      planned_[j] = t;
      if (no_reserve) break;  // NoReserve: never in the map
      // _set_slot_time: 22.05 rounds the end down to the resolution, master rounds up.
      SimTime end_res = t + comp_limit;
      end_res = cfg_.version == Version::V22_05 ? std::floor(end_res / res) * res : std::ceil(end_res / res) * res;
      const SimTime start_rounded = std::floor(t / res) * res;
      // The chosen nodes must be free in the map over [start, end]; else try from t.
      if (!fast || !place_lazy(v, js) || !shares_lazy_) {
        share_bits_.assign(nw_, 0);
        for (const auto& sh : shares_) share_bits_[sh.node >> 6] |= uint64_t{1} << (sh.node & 63);
      }
      bool overlap = false;
      // Slices before `first` end by start_rounded (boundaries are multiples of the resolution).
      for (uint32_t i = first; i != kNoIdx && !overlap; i = slices_[i].next) {
        const Slice& s = slices_[i];
        if (s.end <= start_rounded || s.begin >= end_res) continue;
        for (size_t w = 0; w < nw_; ++w) overlap |= (share_bits_[w] & ~slice_mask_[i * nw_ + w]) != 0;
      }
      if (overlap && t > start_res) {
        start_res = t;
        continue;
      }
      map_add(start_rounded, end_res, first);
      break;
    }
  }
}

// ---------------------------------------------------------------- pass

void SlurmModel::schedule(const Snapshot& v, Decisions& out) {
  const auto& sp = cfg_.sched;
  bool special = false;
  {
    size_t w = 0;
    for (SimTime t : specials_) {
      if (t <= v.now) special = true;  // due: conditions still pending ask again in this pass
      else specials_[w++] = t;
    }
    specials_.resize(w);
    for (SimTime t : specials_) out.wake_at(t);
  }
  if (!jgone_.empty()) cancel_gone(v, out);
  if (cfg_.prio.type == PriorityType::Multifactor || cfg_.enforce_limits) recalc_usage(v);
  resv_account(v);
  for (JobIdx r : stopped_now_) stopping_[r] = 0;
  stopped_now_.clear();
  free_.assign(v.cluster.free_gpus.begin(), v.cluster.free_gpus.end());
  if (topo_mode_ != 0) topo_begin(v);
  ends_.clear();
  local_.clear();
  count_running(v);
  resv_blocked_ = false;
  mins_blocked_ = false;
  if (!resv_.empty()) {
    resv_purge(v, out);
    resv_end_kills(v, out);
  }
  if (v.pending.empty()) {
    resv_note_used();
    return;
  }
  // Which passes run now: a full main pass every sched_interval, backfill every bf_interval,
  // and an event-triggered main pass limited to default_queue_depth otherwise (spec §1).
  const bool full = v.now >= next_main_s_;
  const bool bf = sp.backfill && v.now >= next_bf_s_;
  if (full) next_main_s_ = (std::floor(v.now / sp.sched_interval_s) + 1) * sp.sched_interval_s;
  if (bf) next_bf_s_ = (std::floor(v.now / sp.bf_interval_s) + 1) * sp.bf_interval_s;
  bool event_pass = events_ != ev_last_ || special;
  // controller.c _slurmctld_background: a pass queued by a submit or an end runs only once
  // batch_sched_delay has passed since the previous main pass; until then the events wait
  // (seen live on 22.05: submits at 10, 11, 12 s start at 10, 13, 13 s).
  if (event_pass && !special && !full && v.now < last_main_s_ + sp.batch_sched_delay_s) {
    event_pass = false;
    out.wake_at(last_main_s_ + sp.batch_sched_delay_s);
  } else {
    ev_last_ = events_;
  }
  // A periodic pass decides the same as the previous one of its kind when nothing happened in
  // between, no time-dependent condition expired and the order is unchanged (priority/basic
  // cannot reorder without events). Such passes are skipped: same result, less work.
  const bool time_ok = v.now < unskip_s_ && resv_.empty() && !mins_blocked_prev_;
  const bool basic = cfg_.prio.type == PriorityType::Basic;
  const bool quiet_main = !event_pass && time_ok && events_ == ev_main_ && v.cluster.total_up_gpus == up_main_;
  const bool quiet_bf = !event_pass && time_ok && events_ == ev_bf_ && v.cluster.total_up_gpus == up_bf_;
  // Without events the queue holds the same jobs, and priorities move only at an epoch (a decay
  // pass or a policy change, see prio_epoch): the order is the last one, no need to sort.
  bool run_main = event_pass || (full && !(quiet_main && (basic || prio_epoch_ == ep_main_)));
  bool run_bf = bf && !(quiet_bf && (basic || prio_epoch_ == ep_bf_));
  if (run_main || run_bf) {
    sort_queue(v);
    if (run_main && !event_pass && quiet_main && order_ == order_main_) run_main = false;
    if (run_bf && quiet_bf && order_ == order_bf_) run_bf = false;
  }
  if (run_main || run_bf) {
    if (run_main) unskip_s_ = kNever;  // the main loop records the conditions again
    for (JobIdx j : order_) considered_[j] = 0;
    if (run_main) {
      main_pass(v, out, full ? SIZE_MAX : static_cast<size_t>(std::max<int64_t>(1, sp.default_queue_depth)));
      last_main_s_ = v.now;
    }
    if (run_bf) backfill_pass(v, out);
    // Passes that started nothing are the reference for skipping the next periodic one.
    const bool acted = !out.items().empty();
    if (run_main && full) {
      ev_main_ = acted ? UINT64_MAX : events_;
      up_main_ = v.cluster.total_up_gpus;
      if (!basic) order_main_ = order_, ep_main_ = prio_epoch_;
    }
    if (run_bf) {
      ev_bf_ = acted ? UINT64_MAX : events_;
      up_bf_ = v.cluster.total_up_gpus;
      if (!basic) order_bf_ = order_, ep_bf_ = prio_epoch_;
    }
  }
  mins_blocked_prev_ = mins_blocked_;

  // Periodic passes matter only while something runs (resources change by events otherwise;
  // the engine runs a pass at every submit, end and node event). Without this a job that can
  // never start would keep the simulation alive forever.
  // Once a main and a backfill pass found nothing to do and nothing happened since, the next
  // periodic passes would be skipped anyway: only an event, a per-job wake-up or a priority
  // change (usage recalculation) can change the outcome, so the timers rest until then.
  const bool settled = !event_pass && ev_main_ == events_ && (!sp.backfill || ev_bf_ == events_) && out.items().empty();
  if ((!v.running.empty() || !out.items().empty()) && !settled) {
    out.wake_at(next_main_s_);
    if (sp.backfill) out.wake_at(next_bf_s_);
  } else if (settled && !v.running.empty() && cfg_.prio.type == PriorityType::Multifactor) {
    const SimTime calc = std::max(last_calc_s_ + cfg_.prio.calc_period_s, v.now + 1);
    out.wake_at(std::max(calc, std::min(next_main_s_, next_bf_s_)));
  }
  // A time-dependent condition (PreemptExemptTime) expires: the first periodic main pass after
  // it must run, as in slurmctld.
  if (settled && std::isfinite(unskip_s_))
    out.wake_at(std::max(next_main_s_, std::ceil(unskip_s_ / sp.sched_interval_s) * sp.sched_interval_s));
  // Usage decays: a job held by GrpTRESMins may pass at the next usage calculation.
  if (mins_blocked_ && cfg_.prio.decay_half_life_s > 0) wake_special(out, std::max(v.now + 1, last_calc_s_ + cfg_.prio.calc_period_s));
  // A job kept out only by a reservation may start at the window's next boundary.
  if (resv_blocked_)
    for (const auto& r : resv_) {
      if (std::isfinite(r.deleted_s)) continue;
      SimTime s0, e0;
      r.window(v.now, s0, e0);
      if (s0 > v.now) wake_special(out, s0);
      else if (std::isfinite(e0)) wake_special(out, e0);
    }
  resv_note_used();
  if (topo_mode_ != 0) topo_end(v, out);
}

// ---------------------------------------------------------------- topology (spec §7)

void SlurmModel::build_topology(const Workload& wl, const ClusterConfig& cluster, const std::string& file) {
  topo_mode_ = cfg_.topology == "tree" ? 1 : cfg_.topology == "block" ? 2 : 0;
  // Job options need the plugin they are for: a class asking for --switches or --segment on a
  // cluster without it is a mistake in the scenario, not something to ignore silently.
  for (const auto& o : cfg_.job_options) {
    const std::string ptr = cfg::child("/scheduler/job_options", o.klass);
    if (o.switches > 0 && topo_mode_ != 1)
      throw InputError(file, ptr + "/switches", fmt::format("class {} asks for --switches but TopologyPlugin is not topology/tree; expected topology_plugin topology/tree", o.klass));
    if (o.segment > 0 && topo_mode_ != 2)
      throw InputError(file, ptr + "/segment", fmt::format("class {} asks for --segment but TopologyPlugin is not topology/block; expected topology_plugin topology/block", o.klass));
  }
  if (topo_mode_ == 0) return;
  std::vector<topo::SwitchDef> defs;
  if (topo_mode_ == 1) {
    for (const auto& w : cfg_.switches) defs.push_back({w.name, w.nodes, w.switches});
    if (defs.empty()) {
      // No switches given: the cluster's leaves (a fabric's edge switches, or nodes_per_leaf)
      // under one root, so placement and the contention model see the same leaves.
      tree_ = topo::tree_from_leaves(cluster.node_leaf, cluster.leaf_names);
      tree_source_ = "cluster leaves";
    } else {
      const std::string err = topo::build_tree(defs, cluster.node_names, tree_);
      if (!err.empty()) throw InputError(file, "/scheduler/switches", "topology/tree: " + err);
      tree_source_ = cfg_.switches_from_fabric ? "fabric" : "switches";
    }
    group_of_node_ = &tree_.leaf_of_node;
    groups_ = tree_.switches();
    tree_.members = topo::group_nodes(tree_.leaf_of_node, groups_, node_order_);  // Weight inside a leaf
  } else {
    // topology/block was added in 23.11: 22.05 has no such plugin (spec §7).
    if (cfg_.version == Version::V22_05)
      throw InputError(file, "/scheduler/topology_plugin", "topology/block does not exist in Slurm 22.05 (added in 23.11); expected version \"master\" or another TopologyPlugin");
    for (const auto& b : cfg_.blocks) defs.push_back({b.name, b.nodes, {}});
    if (defs.empty()) {
      defs.resize(cluster.leaf_names.size());
      for (size_t l = 0; l < defs.size(); ++l) defs[l].name = cluster.leaf_names[l];
      for (size_t n = 0; n < nn_; ++n) defs[cluster.node_leaf[n]].nodes.push_back(cluster.node_names[n]);
      std::erase_if(defs, [](const topo::SwitchDef& d) { return d.nodes.empty(); });
      tree_source_ = "cluster leaves";
    } else {
      tree_source_ = "blocks";
    }
    const std::string err = topo::build_blocks(defs, cluster.node_names, cfg_.block_sizes, blocks_);
    if (!err.empty()) throw InputError(file, "/scheduler/blocks", "topology/block: " + err);
    group_of_node_ = &blocks_.block_of_node;
    groups_ = blocks_.blocks();
    blocks_.members = topo::group_nodes(blocks_.block_of_node, groups_, node_order_);
  }
  if (weighted_) {
    // Weight tiers first (spec §7): the candidates are the lowest weights that can hold a job.
    std::map<std::string, int32_t> weight_of;
    for (const auto& d : cfg_.nodes) weight_of[d.name] = d.weight;
    for (const auto& [n, wgt] : cfg_.inline_weights) weight_of.emplace(n, wgt);
    std::vector<int32_t> w(nn_, 1);
    for (size_t n = 0; n < nn_; ++n)
      if (auto it = weight_of.find(cluster.node_names[n]); it != weight_of.end()) w[n] = it->second;
    tree_.node_weight = blocks_.node_weight = w;
    tree_.by_weight = blocks_.by_weight = node_order_;
  }
  const size_t nj = wl.jobs.size();
  jsw_.assign(nj, 0);
  jsw_wait_s_.assign(nj, cfg_.sched.max_switch_wait_s);
  jseg_.assign(nj, 0);
  jsw_from_.assign(nj, -1);
  jsw_refused_.assign(nj, 0);
  jsw_waited_s_.assign(nj, -1);
  jspans_.assign(nj, 0);
  size_t base_nodes = 0;
  for (size_t b = 0; b < blocks_.blocks(); ++b)
    base_nodes = std::max<size_t>(base_nodes, static_cast<size_t>(std::count(blocks_.block_of_node.begin(), blocks_.block_of_node.end(), b)));
  for (const auto& o : cfg_.job_options) {
    const StrId k = wl.strings.find(o.klass);
    if (k == StringTable::kMissing) continue;  // a class without jobs
    const std::string ptr = cfg::child("/scheduler/job_options", o.klass);
    if (o.segment > 0 && static_cast<size_t>(o.segment) > base_nodes)
      throw InputError(file, ptr + "/segment", fmt::format("--segment={} is larger than a base block ({} nodes); expected at most the base block size", o.segment, base_nodes));
    for (size_t j = 0; j < nj; ++j) {
      const JobSpec& js = wl.jobs[j];
      if (js.klass != k) continue;
      jsw_[j] = static_cast<uint32_t>(o.switches);
      if (o.switch_wait_s >= 0) jsw_wait_s_[j] = o.switch_wait_s;
      jseg_[j] = static_cast<int32_t>(o.segment);
      const int32_t n = topo::job_nodes(js, max_node_gpus_);
      // sbatch: "the job's node count must be a multiple of the segment size".
      if (o.segment > 0 && n % o.segment != 0)
        throw InputError(file, ptr + "/segment", fmt::format("job {} of class {} asks for {} nodes, not a multiple of --segment={}; expected a node count divisible by the segment", js.id, o.klass, n, o.segment));
    }
  }
}

bool SlurmModel::place_topo(const JobSpec& js, std::span<const int32_t> f) {
  // Every JobSpec placed is the workload's (the engine's snapshot views the same vector), so its
  // address gives its index without changing every placement call; a copy would get no options.
  const auto at = reinterpret_cast<std::uintptr_t>(&js), base = reinterpret_cast<std::uintptr_t>(wl_->jobs.data());
  const size_t j = at >= base ? static_cast<size_t>((at - base) / sizeof(JobSpec)) : SIZE_MAX;
  const bool ours = j < jsw_.size() && &wl_->jobs[j] == &js;
  topo::Outcome oc;
  if (topo_mode_ == 2)
    return topo::place_block(js, f, mask_, blocks_, ours ? jseg_[j] : 0, max_node_gpus_, tscr_, shares_, oc);
  const uint32_t max_leaves = ours ? jsw_[j] : 0;
  bool best_effort = true;
  if (max_leaves > 0) {
    // eval_nodes_topo: wait4switch_start is the first evaluation; past it + the wait, the
    // allocation is best effort (spec §7).
    if (jsw_from_[j] < 0) jsw_from_[j] = now_;
    best_effort = now_ >= jsw_from_[j] + jsw_wait_s_[j];
  }
  const bool ok = topo::place_tree(js, f, mask_, tree_, max_leaves, best_effort, max_node_gpus_, tscr_, shares_, oc);
  if (oc.switch_wait) {
    jsw_refused_[j] = 1;
    // The first periodic pass after the wait ends must run even when nothing else happened.
    unskip_s_ = std::min(unskip_s_, jsw_from_[j] + jsw_wait_s_[j]);
    sw_wake_ = std::min(sw_wake_, jsw_from_[j] + jsw_wait_s_[j]);
  }
  return ok;
}

void SlurmModel::topo_begin(const Snapshot& v) {
  now_ = v.now;
  if (frag_t_ >= 0 && frag_pend_) {
    frag_int_ += frag_last_ * (v.now - frag_t_);
    frag_dur_s_ += v.now - frag_t_;
  }
  frag_t_ = v.now;
  frag_pend_ = false;
  starts_at_begin_ = main_starts_ + bf_starts_;
}

// Sampled after the pass's decisions (free_ then holds what the started jobs left): the index
// holds until the next pass, since only events (each followed by a pass) change the free GPUs.
void SlurmModel::topo_end(const Snapshot& v, Decisions& out) {
  // A --switches wait ends: backfill runs every bf_interval in slurmctld whatever happened, so
  // the first backfill pass after the end places it best effort (the main loop's next full
  // pass would too, later).
  // Kept across passes (a skipped quiet pass evaluates nothing) until it has passed.
  if (sw_wake_ <= v.now) sw_wake_ = kNever;
  if (std::isfinite(sw_wake_)) {
    const SimTime iv = cfg_.sched.backfill ? cfg_.sched.bf_interval_s : cfg_.sched.sched_interval_s;
    out.wake_at(std::max(v.now + 1, std::ceil(sw_wake_ / iv) * iv));
  }
  const uint64_t started = main_starts_ + bf_starts_ - starts_at_begin_;
  frag_pend_ = v.pending.size() > started;
  frag_last_ = topo::fragmentation(free_, *group_of_node_, groups_, frag_buf_);
  if (frag_pend_) {
    ++frag_samples_;
    frag_max_ = std::max(frag_max_, frag_last_);
  }
}

void SlurmModel::topo_started(JobIdx j, SimTime t, const Snapshot& v) {
  if (jspans_[j] != 0) return;  // counted at the first start
  uint32_t spans = 0;
  tscr_.seen.resize(groups_ + 1, 0);
  const auto alloc = v.allocation_of(j);
  for (const auto& sh : alloc) {
    const uint32_t g = (*group_of_node_)[sh.node];
    if (g != topo::kNone && !tscr_.seen[g]) tscr_.seen[g] = 1, ++spans;
  }
  for (const auto& sh : alloc)
    if ((*group_of_node_)[sh.node] != topo::kNone) tscr_.seen[(*group_of_node_)[sh.node]] = 0;
  jspans_[j] = static_cast<uint16_t>(std::min<uint32_t>(spans, UINT16_MAX));
  if (span_jobs_.size() <= spans) span_jobs_.resize(spans + 1, 0);
  ++span_jobs_[spans];
  if (jsw_[j] > 0) {
    ++sw_jobs_;
    if (jsw_refused_[j]) {
      ++sw_waited_;
      jsw_waited_s_[j] = t - jsw_from_[j];
      sw_wait_total_s_ += jsw_waited_s_[j];
    }
    if (spans > jsw_[j]) ++sw_timed_out_;
  }
}

nlohmann::json SlurmModel::topo_report(SimTime end_s) const {
  nlohmann::json t;
  t["plugin"] = topo_mode_ == 1 ? "topology/tree" : "topology/block";
  t["source"] = tree_source_;
  if (topo_mode_ == 1) {
    size_t leaves = 0;
    for (auto l : tree_.level) leaves += l == 0;
    t["leaf_switches"] = leaves;
    t["switches"] = tree_.switches();
    t["levels"] = tree_.max_level + 1;
  } else {
    t["base_blocks"] = blocks_.blocks();
    t["block_levels"] = blocks_.level_blocks;
  }
  nlohmann::json by = nlohmann::json::object();
  for (size_t k = 1; k < span_jobs_.size(); ++k)
    if (span_jobs_[k] > 0) by[std::to_string(k)] = span_jobs_[k];
  t[topo_mode_ == 1 ? "jobs_by_leaves" : "jobs_by_blocks"] = by;
  if (topo_mode_ == 1)
    t["switches_option"] = {{"jobs_started", sw_jobs_}, {"jobs_waited", sw_waited_}, {"jobs_timed_out", sw_timed_out_},
                            {"wait_s_total", sw_wait_total_s_}};
  // Time average of the index over the time some job was pending, the last interval up to the
  // end of the run included (README "Topology").
  double integ = frag_int_, dur = frag_dur_s_;
  if (frag_t_ >= 0 && frag_pend_ && end_s > frag_t_) integ += frag_last_ * (end_s - frag_t_), dur += end_s - frag_t_;
  t["fragmentation"] = {{"index_time_avg", dur > 0 ? integ / dur : 0.0}, {"index_max", frag_max_},
                        {"pending_time_s", dur}, {"samples", frag_samples_}};
  return t;
}

// Policy changes (issue 9) live in their own file to keep this one about scheduling; it is
// included here because SlurmModel is local to this translation unit.
#include "schedulers/slurm/policy_change.inc"

}  // namespace

std::unique_ptr<Scheduler> make_model(SlurmConfig cfg, const Workload& workload, const ClusterConfig& cluster,
                                      const std::string& file) {
  return std::make_unique<SlurmModel>(std::move(cfg), workload, cluster, file);
}

ClusterConfig cluster_from_conf(const SlurmConfig& cfg) {
  ClusterConfig c;
  std::map<std::string, uint32_t> leaf_of;
  for (const auto& s : cfg.switches)
    if (!s.nodes.empty()) {
      const uint32_t l = static_cast<uint32_t>(c.leaf_names.size());
      c.leaf_names.push_back(s.name);
      for (const auto& n : s.nodes) leaf_of[n] = l;
    }
  for (const auto& b : cfg.blocks) {
    const uint32_t l = static_cast<uint32_t>(c.leaf_names.size());
    c.leaf_names.push_back(b.name);
    for (const auto& n : b.nodes) leaf_of[n] = l;
  }
  if (c.leaf_names.empty()) c.leaf_names.push_back("leaf1");
  for (const auto& n : cfg.nodes) {
    c.node_names.push_back(n.name);
    c.node_gpus.push_back(n.gpus);
    auto it = leaf_of.find(n.name);
    c.node_leaf.push_back(it == leaf_of.end() ? 0 : it->second);
  }
  return c;
}

}  // namespace floorsim::slurm
