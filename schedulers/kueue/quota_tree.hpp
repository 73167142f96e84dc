#pragma once
// Kueue quota arithmetic over a flat tree of ClusterQueue and Cohort nodes (spec kueue §2,
// kueue pkg/cache/scheduler/resource_node.go). Pure data: nodes are integers, quantities live
// in node-major arrays indexed node*F + fr, where fr is a (flavor, resource) pair.
//
// Quantities are generic integer units (the simulator uses GPUs, CPU millicores and MiB; the
// conformance fixtures use cpu). kNoLimit stands for a nil borrowingLimit / lendingLimit.
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace floorsim::kueue {

using Qty = int64_t;
using NodeId = int32_t;
using FrId = uint16_t;
inline constexpr Qty kNoLimit = std::numeric_limits<Qty>::max() / 4;
inline constexpr NodeId kNoNode = -1;
inline constexpr int kMaxFrs = 64;     // flavors x resources in one model (FrMask is 64 bits)
inline constexpr int kMaxWlFrs = 8;    // distinct (flavor, resource) pairs one workload uses

using FrMask = uint64_t;
inline FrMask fr_bit(FrId f) { return FrMask{1} << f; }

// What one workload charges: at most kMaxWlFrs (fr, quantity) pairs, no allocation.
struct Usage {
  uint8_t n = 0;
  std::array<FrId, kMaxWlFrs> fr{};
  std::array<Qty, kMaxWlFrs> qty{};
  void add(FrId f, Qty q) {
    for (uint8_t i = 0; i < n; ++i)
      if (fr[i] == f) {
        qty[i] += q;
        return;
      }
    fr[n] = f;
    qty[n] = q;
    ++n;
  }
  FrMask mask() const {
    FrMask m = 0;
    for (uint8_t i = 0; i < n; ++i) m |= fr_bit(fr[i]);
    return m;
  }
  Qty get(FrId f) const {
    for (uint8_t i = 0; i < n; ++i)
      if (fr[i] == f) return qty[i];
    return 0;
  }
};

class QuotaTree {
 public:
  explicit QuotaTree(int num_frs = 1) : F_(num_frs) {}

  // ---- building (then finalize) ----
  NodeId add_cohort(std::string name) { return add(std::move(name), false); }
  NodeId add_cq(std::string name) { return add(std::move(name), true); }
  void set_parent(NodeId child, NodeId parent) { parent_[child] = parent; }
  // nominalQuota, borrowingLimit and lendingLimit of one (flavor, resource); kNoLimit = nil.
  void set_quota(NodeId n, FrId f, Qty nominal, Qty borrowing_limit = kNoLimit, Qty lending_limit = kNoLimit) {
    nominal_[at(n, f)] = nominal;
    bl_[at(n, f)] = borrowing_limit;
    ll_[at(n, f)] = lending_limit;
  }
  // Computes subtree quotas, guaranteed quotas, children, roots and heights. Returns false if
  // the cohort parents form a cycle (spec §1: a cycle blocks admission).
  bool finalize();

  // ---- structure ----
  int frs() const { return F_; }
  int size() const { return static_cast<int>(parent_.size()); }
  bool is_cq(NodeId n) const { return is_cq_[n] != 0; }
  NodeId parent(NodeId n) const { return parent_[n]; }
  bool has_parent(NodeId n) const { return parent_[n] != kNoNode; }
  NodeId root(NodeId n) const { return root_[n]; }
  const std::string& name(NodeId n) const { return name_[n]; }
  const std::vector<NodeId>& child_cqs(NodeId n) const { return child_cqs_[n]; }
  const std::vector<NodeId>& child_cohorts(NodeId n) const { return child_cohorts_[n]; }
  // Distance to the furthest leaf; a cohort of CQs has height 1 (classical getNodeHeight).
  int height(NodeId n) const { return height_[n]; }
  const std::vector<NodeId>& post_order() const { return post_order_; }

  // ---- quota (spec §2) ----
  Qty nominal(NodeId n, FrId f) const { return nominal_[at(n, f)]; }
  Qty borrowing_limit(NodeId n, FrId f) const { return bl_[at(n, f)]; }
  Qty lending_limit(NodeId n, FrId f) const { return ll_[at(n, f)]; }
  Qty subtree_quota(NodeId n, FrId f) const { return subtree_[at(n, f)]; }
  // localQuota / guaranteedQuota: the part never lent to the parent (0 without a lendingLimit).
  Qty guaranteed(NodeId n, FrId f) const { return guaranteed_[at(n, f)]; }
  Qty usage(NodeId n, FrId f) const { return usage_[at(n, f)]; }
  Qty local_available(NodeId n, FrId f) const {
    const Qty d = guaranteed(n, f) - usage(n, f);
    return d > 0 ? d : 0;
  }
  // Quota the node may still take now, through its ancestors (clamped at 0).
  Qty available(NodeId n, FrId f) const {
    const Qty a = available_raw(n, f);
    return a > 0 ? a : 0;
  }
  // The most this node could ever hold if every other node were empty.
  Qty potential_available(NodeId n, FrId f) const;
  bool borrowing_with(NodeId n, FrId f, Qty v) const { return usage(n, f) + v > subtree_quota(n, f); }
  bool borrowing(NodeId n, FrId f) const { return borrowing_with(n, f, 0); }
  // ClusterQueueSnapshot.Fits: every fr of the usage fits in available().
  bool fits(NodeId n, const Usage& u) const {
    for (uint8_t i = 0; i < u.n; ++i)
      if (u.qty[i] > available(n, u.fr[i])) return false;
    return true;
  }
  bool within_nominal_in(NodeId n, FrMask m) const;  // IsWithinNominalInResources

  // addUsage / removeUsage: the part above the guaranteed quota bubbles up to the parent.
  void add_usage(NodeId n, FrId f, Qty v);
  void remove_usage(NodeId n, FrId f, Qty v);
  void add(NodeId n, const Usage& u) {
    for (uint8_t i = 0; i < u.n; ++i) add_usage(n, u.fr[i], u.qty[i]);
  }
  void remove(NodeId n, const Usage& u) {
    for (uint8_t i = 0; i < u.n; ++i) remove_usage(n, u.fr[i], u.qty[i]);
  }

  // FindHeightOfLowestSubtreeThatFits (PR/classical/hierarchical_preemption.go): the borrow
  // level of taking v more of fr in CQ n, and whether that subtree is below the root
  // (mayReclaimInHierarchy).
  std::pair<int, bool> borrow_level(NodeId cq, FrId f, Qty v) const;

  // The whole usage array, for snapshot save / restore around simulations.
  const std::vector<Qty>& usage_array() const { return usage_; }
  void restore_usage(const std::vector<Qty>& u) { usage_ = u; }

 private:
  NodeId add(std::string name, bool cq);
  size_t at(NodeId n, FrId f) const { return static_cast<size_t>(n) * F_ + f; }
  Qty available_raw(NodeId n, FrId f) const;

  int F_;
  std::vector<std::string> name_;
  std::vector<uint8_t> is_cq_;
  std::vector<NodeId> parent_, root_;
  std::vector<int> height_;
  std::vector<std::vector<NodeId>> child_cqs_, child_cohorts_;
  std::vector<NodeId> post_order_;
  std::vector<Qty> nominal_, bl_, ll_, subtree_, guaranteed_, usage_;
};

}  // namespace floorsim::kueue
