#pragma once
// The slurm model's state: one class, SlurmModel, behind slurm.hpp's make_model(). Its member
// functions live in one file per Slurm mechanism; README.md maps each to slurmctld's source files
// and to the Slurm documentation it follows.
// Hot helpers called from one file are [[gnu::always_inline]]: with external linkage GCC keeps
// small member functions out of line that it inlined while the model had internal linkage in
// one file (bench_slurm: 6.6% more instructions on KTH 100x1 without them).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "schedulers/common/placement.hpp"
#include "schedulers/slurm/bitset.hpp"
#include "schedulers/slurm/fairshare_state.hpp"
#include "schedulers/slurm/pass_state.hpp"
#include "schedulers/slurm/plan_state.hpp"
#include "schedulers/slurm/release_groups.hpp"
#include "schedulers/slurm/reservations.hpp"
#include "schedulers/slurm/select.hpp"
#include "schedulers/slurm/slurm.hpp"
#include "schedulers/slurm/topology.hpp"

namespace floorsim::slurm {

constexpr int kTres = 3;  // 0 gpu, 1 node, 2 cpu
constexpr uint32_t kNoIdx = UINT32_MAX;

struct PartRt {
  std::string name;
  std::vector<uint8_t> mask;  // by node
  std::vector<uint8_t> keep;  // by node: 0 on its nodes, 0xFF elsewhere (NODES_BUSY clears avail)
  int64_t tier = 1, job_factor = 1;
  SimTime max_time_s = kNever, default_time_s = -1;
  uint32_t qos = kNoIdx;
  int64_t gpus = 0, nodes = 0, cpus = 0;
  PreemptMode preempt_mode = PreemptMode::Unset;
  bool down = false;               // State=DOWN: its jobs queue, none starts (PartitionDown)
  // Its nodes as configured, in service or not (mask holds only those in service): what
  // submission tests a job against (submit_check.cpp); conf_cpus their CPUs where given.
  std::vector<uint8_t> conf_mask;
  int64_t conf_cpus = 0;
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

// Free CPUs and memory (MiB) by node, each empty where the cluster gives none.
struct NodeRes {
  std::vector<int32_t> cpus, mem;
};

class SlurmModel final : public Scheduler, private FairshareState, private PassState, private PlanState {
 public:
  ~SlurmModel() override;
  // Work counts for the speed work (docs/performance.md): printed to stderr when the model is
  // destroyed if FLOORSIM_SLURM_COUNTS is set, read by tests; never in the outputs.
  struct WorkCounts {
    uint64_t schedules = 0, main_tests = 0, bf_tests = 0, bf_idle = 0, sorts = 0, sorts_skipped = 0, prio_computed = 0;
    uint64_t bf_nofit = 0, bf_tests_skipped = 0;  // backfill tests ending with neither start nor plan; skipped by nofit_
    uint64_t shortcut_differs = 0;  // check_pass_shortcuts: a skipped step that would have changed something
    uint64_t one_node_picks = 0;    // one-node placements taken from the plan's levels (one_node_bits)
    uint64_t bf_retries = 0;        // backfill tests' retries at a later start (backfill_job's loop)
    uint64_t bf_sure_retries = 0;   // ... of which taken at once as certain (sure_retries; with the check, found)
    uint64_t bf_answers_kept = 0;   // will-run answers taken from wrf_cache_ (with the check, found)
  };
  const WorkCounts& work_counts() const { return wc_; }
  SlurmModel(SlurmConfig cfg, const Workload& wl, const ClusterConfig& cluster, const std::string& file)
      : cfg_(std::move(cfg)) {
    build(wl, cluster, file);
  }

  std::string_view name() const override { return "slurm"; }
  std::string_view reason_name(uint16_t code) const override { return reason_text(code); }
  std::vector<std::string> extra_columns() const override {
    if (topo_mode_ == 0) return {"priority", "planned_start_s", "eff_qos", "started_by"};
    // Topology runs only (outputs without a topology stay as they were): what the job spans.
    return {"priority", "planned_start_s", "eff_qos", "started_by", topo_mode_ == 1 ? "leaves" : "blocks", "switch_wait_s"};
  }
  void extra_values(JobIdx j, std::vector<std::string>& out) const override {
    out.push_back(std::to_string(static_cast<uint64_t>(prio_[j])));
    out.push_back(planned_[j] >= 0 ? fmt::format("{}", planned_[j]) : std::string());
    out.push_back(jqos_[j] == kNoIdx ? std::string() : qos_[jqos_[j]].q.name);
    out.push_back(started_by_name(started_by_[j]));
    if (topo_mode_ != 0) {
      out.push_back(jspans_[j] > 0 ? std::to_string(jspans_[j]) : std::string());
      out.push_back(jsw_waited_s_[j] >= 0 ? fmt::format("{}", jsw_waited_s_[j]) : std::string());
    }
  }
  // metrics.json scheduler_report (model.cpp).
  nlohmann::json report(const Snapshot& fv) const override;

  // Accounting and reservation bookkeeping at job starts and ends (model.cpp).
  void on_job_event(const JobEvent& ev, const Snapshot& v) override;

  void schedule(const Snapshot& v, Decisions& out) override;
  // COMPLETING (completing.cpp): GPUs of ended jobs held until the hand-off.
  struct Hold {
    SimTime until;
    JobIdx job;
    std::vector<NodeShare> shares;
  };
  std::vector<Hold> holds_;
  void hold_completing(const Snapshot& v, JobIdx j, SimTime t);
  void holds_apply(const Snapshot& v, Decisions& out);
  void holds_to_ends();
  // Policy changes at run time (policy_change.cpp).
  ChangeOutcome on_policy_change(const PolicyChange& c, const Snapshot& v, Decisions& out) override;
  ChangeScope change_scope(const PolicyChange& c, const Snapshot& v) const override;
  // What the build could not apply (warnings), handed to the caller's sink by make_model().
  std::vector<std::string> built_warnings_;

 private:
  ChangeOutcome change_qos(const PolicyChange& c);
  ChangeOutcome change_weight(const PolicyChange& c);
  ChangeOutcome change_resv(const PolicyChange& c, const Snapshot& v);
  ChangeOutcome delete_assoc(const PolicyChange& c, const Snapshot& v, Decisions& out);
  void cancel_gone(const Snapshot& v, Decisions& out);
  void classes_where(const Snapshot& v, ChangeScope& s, const std::function<bool(JobIdx)>& pred) const;
  std::vector<uint8_t> nodes_of_qos(uint32_t q) const;
  std::vector<uint32_t> assoc_subtree(const std::string& target) const;
  std::vector<uint8_t> jgone_;  // by job: its association was deleted, or refused at submission (cancelled then)
  // By job (empty: none): refused at submission (submit_check.cpp), or pending for good (jblock_).
  std::vector<uint16_t> jrefused_, jblock_;
  std::map<std::string, size_t> refused_by_;  // sbatch's message -> jobs
  void build_submit_checks(const Workload& wl);
  uint16_t submit_refusal(JobIdx j, const JobSpec& js, uint16_t& pend);
  bool ever_fits(JobIdx j, const JobSpec& js);
  // Requests with slurm.conf's job defaults applied (job_defaults.cpp), by job; empty when no
  // default is set. spec() maps the workload's JobSpec (every caller of place() passes the
  // workload's own, v.jobs[j]) to it.
  std::vector<JobSpec> jeff_;
  void build_job_defaults(const Workload& wl);
  const JobSpec& spec(const JobSpec& js) const {
    if (jeff_.empty()) return js;
    const auto i = &js - wl_->jobs.data();
    return i >= 0 && static_cast<size_t>(i) < jeff_.size() ? jeff_[static_cast<size_t>(i)] : js;
  }
  const Workload* wl_ = nullptr;
  const ClusterConfig* cluster_ = nullptr;
  std::string file_;
  // ---- construction ----
  void build(const Workload& wl, const ClusterConfig& cluster, const std::string& file);
  void build_node_order(const ClusterConfig& cluster);
  void build_qos(const std::string& file);
  uint32_t build_partitions(const ClusterConfig& cluster, const std::string& file);
  uint32_t find_assoc(const std::string& name, bool user, uint32_t parent) const;
  void build_associations(const std::string& file);
  void build_jobs(const Workload& wl, uint32_t default_part, const std::string& file);
  uint32_t job_association(const JobSpec& js, const Workload& wl, const std::string& file);
  void build_counters(size_t nj);
  void build_billing(const Workload& wl);
  void build_fair_tree();
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
    to_assoc[a] += dt * jbill_[j] * uf;  // billable TRES (build_billing)
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
  [[gnu::always_inline]] inline double priority(const Snapshot& v, JobIdx j, SimTime at) const;
  // slurmctld sets a job's priority at submission (priority_p_set) and again for every pending
  // job when the decay thread runs, every PriorityCalcPeriod (_decay_thread, fair_tree_decay); the
  // queue is sorted by that stored value in between (priority_multifactor.c). An epoch is such a recalculation
  // (or a policy change): a job's priority is computed at max(its queue time, the epoch's time).
  void prio_epoch(SimTime t) {
    ++prio_epoch_;
    prio_epoch_t_ = t;
  }
  void prio_terms(const Snapshot& v, JobIdx j, PrioTerms& c) const;

  // ---- pass helpers ----
  void count_running(const Snapshot& v);
  // The counters only feed limit_reason(), which checks nothing without
  // AccountingStorageEnforce=limits: then there is nothing to count. Each charge is remembered
  // so that the next pass can take it back (count_running) in O(jobs charged), not O(table).
  void charge(JobIdx j, const JobSpec& js, int sign) {
    if (!cfg_.enforce_limits) return;
    charge_apply(j, js, sign);
    charged_.push_back({j, sign});
  }
  void charge_apply(JobIdx j, const JobSpec& js, int sign);
  uint16_t limit_reason(const Snapshot& v, JobIdx j, SimTime limit) const;
  uint16_t static_reason(const Snapshot& v, JobIdx j) const {  // reasons no waiting fixes: partition limits
    const JobSpec& js = v.jobs[j];
    const PartRt& p = part_[jpart_[j]];
    if (!jblock_.empty() && jblock_[j] != kNone) return jblock_[j];  // a partition limit (EnforcePartLimits=NO)
    if (p.down) return kPartitionDown;
    if (js.time_limit_s > p.max_time_s) return kPartitionTimeLimit;
    if (jnodes_[j] > p.nodes || js.gpus > p.gpus) return kPartitionNodeLimit;
    return kNone;
  }
  // DenyOnLimit (limits.cpp), only with AccountingStorageEnforce=limits.
  bool denied(const Snapshot& v, JobIdx j, SimTime limit) const { return cfg_.enforce_limits && denied_on_limit(v, j, limit); }
  bool denied_on_limit(const Snapshot& v, JobIdx j, SimTime limit) const;
  SimTime begin_time(const Snapshot& v, JobIdx j) const {
    const JobRun& r = v.runs[j];
    SimTime b = r.eligible_s;
    // A requeued job waits requeue_delay + 1 s with Reason=BeginTime (job_mgr.c batch_requeue_fini).
    if (r.requeues > 0 && !r.suspended && r.queued_s > 0) b = std::max(b, r.queued_s + cfg_.sched.requeue_delay_s + 1);
    return b;
  }
  SimTime job_limit(JobIdx j, const JobSpec& js) const {
    const PartRt& p = part_[jpart_[j]];
    SimTime l = js.time_limit_s;
    if (!std::isfinite(l)) l = p.default_time_s >= 0 ? p.default_time_s : p.max_time_s;
    return l;
  }
  void sort_queue(const Snapshot& v);  // sort_queue_fresh unless sort_inputs_same (priority.cpp)
  void sort_queue_fresh(const Snapshot& v);
  bool sort_inputs_same(const Snapshot& v) const;
  // What order_ was last sorted from (see sort_inputs_same).
  struct SortKey {
    bool valid = false;
    uint64_t epoch = 0, gen = 0, requeues = 0;
  };
  SortKey sort_key_;
  std::vector<JobIdx> sorted_pending_;
  uint64_t requeues_ = 0;  // job events other than submit, start and end (a job queued again)
  // Backfill's answer-shaping fields of a job on the plan's path (sum_decides, no preemptor):
  // its test reads only these, the map and the release plan (backfill.cpp, backfill_pass).
  struct NoFitKey {
    int32_t gpus, nodes, cpus, gpu_milli, mem_mib;
    JobSpec::MemPer mem_per;
    uint32_t part;
    bool no_reserve;
    SimTime limit_s;
    bool operator==(const NoFitKey&) const = default;
  };
  std::vector<NoFitKey> nofit_;  // tested since the map or the running jobs last changed: no start, no plan
  bool bf_planned_ = false;      // backfill_job gave the job a planned start
  // busy_gpus (by node; empty = none) are GPUs held by running jobs into the window of the
  // reservation named busy_name, which is being created or updated at run time (scontrol(1) IGNORE_JOBS).
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
  // Placement on mask_: cons_tres's choice (select.hpp: lowest Weight, then the tightest fit by
  // available CPUs, cpu_view_); shares are listed in node order.
  bool place(const JobSpec& js, std::span<const int32_t> f) { return place(js, f, rfree_); }
  // r: the free CPUs and memory that go with f (rfree_ with free_, rproj_ with proj_); used only
  // where the cluster gives CPUs or memory (res_on_, resources.cpp: units each node can give,
  // then the same choice).
  bool place(const JobSpec& js, std::span<const int32_t> f, const NodeRes& r) {
    if (res_on_) return place_res(js, f, r);
    return place_gpus(js, f);
  }
  bool place_gpus(const JobSpec& js, std::span<const int32_t> f) {
    if (topo_mode_ != 0) return place_topo(js, f);
    cur_cpn_ = js.cpus > 0 ? (js.cpus + std::max(1, js.nodes) - 1) / std::max(1, js.nodes) : 1;
    const SelectInput in{f, std::span<const int32_t>(cpu_view_, nn_), cur_cpn_, mask_, node_weight_, max_node_gpus_};
    if (!select_nodes(js, in, node_order_, shares_)) return false;
    std::sort(shares_.begin(), shares_.end(), [](const NodeShare& a, const NodeShare& b) { return a.node < b.node; });
    return true;
  }
  // Available CPUs by node (cons_tres's tightness measure): the node's CPUs less one CPU per node
  // of each job there (or the CPUs it asked for, spread over its nodes).
  std::vector<int32_t> node_cpus_, cfree_, cproj_;
  std::vector<int32_t> jcpn_;  // by job: CPUs it holds on each of its nodes
  const int32_t* cpu_view_ = nullptr;  // cfree_, or cproj_ while will_run projects
  int32_t cur_cpn_ = 1;                // CPUs per node of the job being placed
  void build_cpus(const ClusterConfig& cluster, const Workload& wl);
  void cpus_begin(const Snapshot& v);
  void cpus_take(JobIdx j, std::span<const NodeShare> sh, std::vector<int32_t>& c, int sign) const {
    for (const auto& s : sh) c[s.node] -= sign * jcpn_[j];
  }
  bool fit(const JobSpec& js, std::span<const int32_t> base) { return fit(js, base, rfree_); }
  bool fit(const JobSpec& js, std::span<const int32_t> base, const NodeRes& r) {
    if (!adj_on_) return place(js, base, r);
    adjusted(base, jfree_);
    return place(js, jfree_, r);
  }
  // ---- CPUs and memory (resources.cpp; only where the cluster gives them) ----
  void build_resources(const Workload& wl, const ClusterConfig& cluster);
  bool place_res(const JobSpec& js, std::span<const int32_t> f, const NodeRes& r);
  bool whole_nodes(const JobSpec& asked) const;  // its partition is OverSubscribe=EXCLUSIVE
  void res_add(NodeRes& r, std::span<const NodeShare> sh, int sign) const {
    if (!res_on_) return;
    for (const auto& s : sh) {
      if (!r.cpus.empty()) r.cpus[s.node] += sign * s.cpus;
      if (!r.mem.empty()) r.mem[s.node] += sign * s.mem_mib;
    }
  }
  void res_from(NodeRes& r, const Snapshot& v) const {
    if (!res_on_) return;
    r.cpus.assign(v.cluster.free_cpus.begin(), v.cluster.free_cpus.end());
    r.mem.assign(v.cluster.free_mem_mib.begin(), v.cluster.free_mem_mib.end());
  }
  bool res_on_ = false;              // some node gives CPUs or memory
  NodeRes rfree_, rproj_;            // free CPUs and memory with free_ and with proj_
  std::vector<int32_t> cap_cpus_, cap_mem_, own_cpus_;  // by node (empty: not given; 0: not on that node); own_cpus_: without FORCE:N
  std::vector<int32_t> ufree_;       // place_res: the job's units by node
  JobSpec ujob_;                     // place_res: a CPU-only job as CPU units
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
  bool resv_boundaries_spent(const Snapshot& v);
  bool try_preempt(const Snapshot& v, JobIdx j, Decisions& out, bool& waiting);
  // May a job of QOS q preempt running job r now (preempt_qos.c, preempt.c)? When only PreemptExemptTime keeps
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
  enum class Attempt : uint8_t { Started, Refused, NoFit };
  void main_started(const Snapshot& v, JobIdx j, SimTime limit, Decisions& out);
  void fail_partition(uint32_t p);
  Attempt main_attempt(const Snapshot& v, JobIdx j, uint32_t rv, SimTime limit, Decisions& out);
  SimTime refused_wait_ = kNever;  // main_attempt's retry time when the reservation refused
  void backfill_pass(const Snapshot& v, Decisions& out);
  void backfill_begin(const Snapshot& v);
  void backfill_job(const Snapshot& v, JobIdx j, SimTime limit, Decisions& out);
  [[gnu::always_inline]] inline void and_slices(uint32_t first, SimTime end_time);
  [[gnu::always_inline]] inline void slide_slices(uint32_t first, SimTime end_time);
  bool backfill_start(const Snapshot& v, JobIdx j, const JobSpec& js, SimTime limit, bool fast, Decisions& out);
  [[gnu::always_inline]] inline bool backfill_reserve(const Snapshot& v, const JobSpec& js, SimTime t, SimTime comp_limit,
                                                      uint32_t first, bool fast, bool retry_ok);
  // Backfill map (backfill.c).
  [[gnu::always_inline]] inline void map_reset(SimTime begin, SimTime end);
  [[gnu::always_inline]] inline void map_add(SimTime start, SimTime end, uint32_t from = 0);  // the nodes of share_bits_
  uint32_t map_split(SimTime t, uint32_t from = 0);
  bool will_run(const Snapshot& v, JobIdx j, const JobSpec& js, SimTime& start_s);
  // will_run's fast path (same answers): see build_plan().
  // Without a node count first fit places a job wherever its mask holds enough GPUs (on one
  // node when one holds them all, else spread), so the sum decides and place_lazy places.
  // Not with a topology plugin: a tree or block placement can refuse a job that the sum admits
  // (--switches, a block level), and it must place the job itself (place_topo).
  bool sum_decides(const JobSpec& js) const {
    // Not where CPUs or memory bind: the plan holds GPUs only (will_run checks all three).
    return cfg_.plan_backfill && resv_.empty() && topo_mode_ == 0 && js.gpus > 0 && js.nodes <= 0 && !res_on_;
  }
  void build_plan(const Snapshot& v);
  void build_plan_levels(const Snapshot& v);
  [[gnu::always_inline]] inline bool build_plan_ones(const Snapshot& v);
  template <class Add>
  [[gnu::always_inline]] inline bool fill_levels(const Snapshot& v, size_t per, Add&& add);
  [[gnu::always_inline]] inline bool caps_refresh(const Snapshot& v);
  [[gnu::always_inline]] inline bool plan_reusable() const;
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
      uint32_t* __restrict nz = mnz_.data();
      uint32_t c = 0;
      for (size_t w = 0; w < nw_; ++w) {
        const uint64_t x = nodes[w] & ab[w] & pbits[w];
        mb[w] = x;
        nz[c] = static_cast<uint32_t>(w);
        c += x != 0;
      }
      mnz_n_ = c;
    }
  }
  [[gnu::always_inline]] int64_t plan_sum(const uint64_t* planes) const {
    const uint64_t* m = mbits_.data();
    if (planes_ == 1 && nw_ == 2) return popcount64(m[0] & planes[0]) + popcount64(m[1] & planes[1]);
    return plan_sum_any(planes);
  }
  // plan_sum(planes) >= gpus, the high plane first over more than 128 nodes: a partial sum
  // that already holds the job answers (lower planes only add).
  [[gnu::always_inline]] bool plan_holds(const uint64_t* planes, int64_t gpus) const {
    if (nw_ <= 2 || planes_ < 2 || planes_ > 4) return plan_sum(planes) >= gpus;
    const uint64_t* __restrict m = mbits_.data();
    const uint32_t* __restrict nz = mnz_.data();
    const size_t nw = nw_;
    int64_t s = 0;
    if (mnz_n_ == nw) {  // no word of the mask is 0 (the usual case): no index to follow
      for (int b = planes_ - 1; b >= 0; --b) {
        const uint64_t* __restrict p = planes + static_cast<size_t>(b) * nw;
        int64_t c = 0;
        for (size_t w = 0; w < nw; ++w) c += popcount64(m[w] & p[w]);
        s += c << b;
        if (s >= gpus) return true;
      }
      return false;
    }
    for (int b = planes_ - 1; b >= 0; --b) {
      const uint64_t* __restrict p = planes + static_cast<size_t>(b) * nw;
      int64_t c = 0;
      for (uint32_t i = 0; i < mnz_n_; ++i) c += popcount64(m[nz[i]] & p[nz[i]]);
      s += c << b;
      if (s >= gpus) return true;
    }
    return false;
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
    // Over the mask's words that are not 0 (mnz_), every plane of a word at once; counts per
    // plane, shifted once.
    const size_t nw = nw_;
    const uint32_t* __restrict nz = mnz_.data();
    const uint32_t nzn = mnz_n_;
    auto run = [&]<int kPlanes>() {
      int64_t c[kPlanes] = {};
      for (uint32_t i = 0; i < nzn; ++i) {
        const uint32_t w = nz[i];
        const uint64_t x = m[w];
        for (int b = 0; b < kPlanes; ++b) c[b] += popcount64(x & planes[b * nw + w]);
      }
      int64_t s = 0;
      for (int b = 0; b < kPlanes; ++b) s += c[b] << b;
      return s;
    };
    switch (planes_) {
      case 1: return run.template operator()<1>();
      case 2: return run.template operator()<2>();
      case 3: return run.template operator()<3>();
      case 4: return run.template operator()<4>();
      default: {
        int64_t s = 0;
        for (int b = 0; b < planes_; ++b) {
          const uint64_t* __restrict p = planes + b * nw;
          int64_t c = 0;
          for (uint32_t i = 0; i < nzn; ++i) c += popcount64(m[nz[i]] & p[nz[i]]);
          s += c << b;
        }
        return s;
      }
    }
  }
  // Sums only grow from level to level: the last tested level says whether any holds `gpus`
  // on the mask, and the capacities whether even an empty map does.
  bool plan_fits_ever(int64_t gpus) const {
    return plan_holds(level(grp_k_.back()), gpus) && !(cap_needed_ && !plan_holds(cap_bits_.data(), gpus));
  }
  [[gnu::always_inline]] inline bool will_run_fast(const Snapshot& v, const JobSpec& js, SimTime& start_s);
  [[gnu::always_inline]] inline bool will_run_fast_memo(const Snapshot& v, const JobSpec& js, SimTime& start_s, const WrfCache::Answer* kept);
  [[gnu::always_inline]] inline const WrfCache::Answer* wrf_kept(const JobSpec& js);  // wrf_cache_'s answer for mbits_ under this plan
  void lvl_proj_to(const Snapshot& v, size_t k);
  [[gnu::always_inline]] inline int retry_by_sums(const Snapshot& v, int64_t gpus, SimTime later_start, SimTime window_end, size_t& kx);
  [[gnu::always_inline]] inline bool retry_on_slice(const Snapshot& v, int64_t gpus, uint32_t slice, uint32_t p, const uint64_t* pbits, SimTime later_start,
                      SimTime window_end, size_t& kx);
  // The first level whose later ends all end after x: ends_ is in end time order.
  size_t first_after(SimTime x) const { return static_cast<size_t>(std::upper_bound(lvl_t_.begin() + 1, lvl_t_.end(), x) - lvl_t_.begin()) - 1; }
  // The same from k, first_after of an earlier, smaller x (a test's later_starts grow): a few
  // steps, then steps of 2, 4, 8, ... and a binary search (a later_start may pass many ends).
  size_t first_after_from(SimTime x, size_t k) const {
    const size_t ne = lvl_t_.size() - 1;
    const SimTime* t = lvl_t_.data();
    for (int i = 0; i < 4; ++i, ++k)
      if (k >= ne || t[k + 1] > x) return k;
    size_t step = 1;
    while (k + step <= ne && t[k + step] <= x) {
      k += step;
      step <<= 1;
    }
    // t[k] <= x (or k is where it started); past k + step (or ne) every t is after x.
    return static_cast<size_t>(std::upper_bound(t + k + 1, t + std::min(ne + 1, k + step), x) - t) - 1;
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
  int64_t one_node_bits(int32_t per);  // place_lazy: a one-node job's pick from the planes
  bool cpus_never_short();             // ... valid: no candidate is short of a CPU
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

  // ---- topology (topology.html; schedulers/slurm/topology.hpp) ----
  void build_topology(const Workload& wl, const ClusterConfig& cluster, const std::string& file);
  void unswitched_out_of_service(const ClusterConfig& cluster, std::span<const uint32_t> nodes);
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
  std::vector<int32_t> node_weight_;  // slurm.conf Weight by node (1 where unset)
  std::vector<PartRt> part_;
  std::vector<QosRt> qos_;
  std::vector<AssocRt> assoc_;
  std::vector<double> usage_;  // by association: decayed billable TRES-seconds of the subtree (users add up)
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
  std::vector<double> jbill_;  // billable TRES per second of running (TRESBillingWeights)
  std::vector<double> prio_;
  std::vector<uint64_t> prio_at_;       // by job: the epoch prio_ was computed in
  std::vector<SimTime> prio_queued_;    // by job: its queued_s then (a requeue computes afresh)
  uint64_t prio_epoch_ = 1;
  double reset_period_s_ = 0;  // PriorityUsageResetPeriod in seconds (0: NONE or NOW)
  SimTime prio_epoch_t_ = -kNever;
  std::vector<SimTime> planned_, acc_from_;
  std::vector<uint8_t> considered_;
  // Which loop started the job last (jobs.csv started_by): slurmctld logs "sched: Allocate" for
  // the main loop (job_scheduler.c) and "backfill: Started" for backfill (backfill.c).
  enum class StartedBy : uint8_t { None, Main, Backfill };
  static std::string started_by_name(StartedBy b) {
    return b == StartedBy::Main ? "main" : b == StartedBy::Backfill ? "backfill" : "";
  }
  std::vector<StartedBy> started_by_;

  // timers
  SimTime next_main_s_ = 0, next_bf_s_ = 0;
  uint64_t main_passes_ = 0, bf_passes_ = 0, bf_starts_ = 0, main_starts_ = 0, preempts_ = 0;
  WorkCounts wc_;

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
  std::vector<uint32_t> jresv_;     // by job: the reservation it is bound to now (kNoIdx: none)
  std::vector<uint32_t> jresv_at_;  // by job: the reservation it asked for or MAGNETIC attracted
  std::vector<uint8_t> jmag_;       // by job: only attracted (MAGNETIC), so it may run outside
  std::vector<int32_t> resv_used_;  // insiders' GPUs by reservation x node
  std::vector<uint8_t> resv_failed_;
  std::vector<int32_t> adj_sub_, adj_cap_, jfree_;
  bool adj_on_ = false;
  bool resv_blocked_ = false;
  bool resv_deleted_ = false;  // resv_prepare refused because the job's reservation is gone
  bool resv_spent_ = false;    // reservation boundaries can start nothing more (resv_boundaries_spent)
  SimTime resv_next_free_ = kNever;
  std::vector<uint8_t> resv_overlap_;  // by reservation: overlaps the interval resv_prepare tested
  JobIdx cur_bf_job_ = 0, cur_job_ = 0;  // the job backfill tests; cur_job_: see resv_prepare
  mutable SimTime final_now_ = 0;
  [[gnu::always_inline]] inline int64_t slice_gpus(uint32_t i, uint32_t p);
  uint32_t sure_retries(const Snapshot& v, int64_t gpus, const uint64_t* pbits, uint32_t first, SimTime end_time, SimTime test_limit,
                        SimTime t_m, uint32_t budget, SimTime& to);
  [[gnu::always_inline]] inline uint32_t last_short_slice(uint32_t first, SimTime end_time, int64_t gpus, uint32_t p, uint32_t& ok);
  size_t nw_ = 1;                     // 64-bit words per node bitset
  std::vector<int64_t> bf_user_;
  void shares_from_bits() {
    shares_.clear();
    for (size_t w = 0; w < nw_; ++w)
      for (uint64_t m = share_bits_[w]; m != 0; m &= m - 1)
        shares_.push_back({static_cast<NodeIdx>(w * 64 + static_cast<size_t>(std::countr_zero(m))), 1});
  }
  int group_jump(size_t kstar, SimTime& last_end, size_t& next_k) const;  // backfill_plan.cpp
  mutable std::vector<uint32_t> tree_buf_;
  // Fair Tree's wide levels (fairshare_state.hpp, fairshare.cpp).
  [[gnu::always_inline]] inline void wide_moved(uint32_t x);
  [[gnu::always_inline]] inline uint32_t fair_tree_before_wide(uint32_t p, uint32_t x, bool own) const;
};

}  // namespace floorsim::slurm
