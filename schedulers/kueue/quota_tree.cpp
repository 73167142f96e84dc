#include "schedulers/kueue/quota_tree.hpp"

#include <algorithm>

namespace floorsim::kueue {

NodeId QuotaTree::add(std::string name, bool cq) {
  const NodeId id = static_cast<NodeId>(parent_.size());
  name_.push_back(std::move(name));
  is_cq_.push_back(cq ? 1 : 0);
  parent_.push_back(kNoNode);
  for (auto* v : {&nominal_, &subtree_, &guaranteed_, &usage_}) v->resize(v->size() + F_, 0);
  bl_.resize(bl_.size() + F_, kNoLimit);
  ll_.resize(ll_.size() + F_, kNoLimit);
  return id;
}

bool QuotaTree::finalize() {
  const int N = size();
  child_cqs_.assign(N, {});
  child_cohorts_.assign(N, {});
  root_.assign(N, kNoNode);
  height_.assign(N, 0);
  for (NodeId n = 0; n < N; ++n) {
    if (parent_[n] == kNoNode) continue;
    (is_cq(n) ? child_cqs_ : child_cohorts_)[parent_[n]].push_back(n);
  }
  // Roots, with cycle detection: a walk up longer than N nodes is a cycle.
  for (NodeId n = 0; n < N; ++n) {
    NodeId r = n;
    int steps = 0;
    while (parent_[r] != kNoNode) {
      r = parent_[r];
      if (++steps > N) return false;
    }
    root_[n] = r;
  }
  // Post order (children before parents): iterative DFS from each root, in node order.
  post_order_.clear();
  std::vector<std::pair<NodeId, size_t>> stack;
  for (NodeId r = 0; r < N; ++r) {
    if (parent_[r] != kNoNode) continue;
    stack.push_back({r, 0});
    while (!stack.empty()) {
      auto& [n, i] = stack.back();
      const auto& cc = child_cohorts_[n];
      const auto& cq = child_cqs_[n];
      if (i < cc.size() + cq.size()) {
        const NodeId c = i < cc.size() ? cc[i] : cq[i - cc.size()];
        ++i;
        stack.push_back({c, 0});
        continue;
      }
      post_order_.push_back(n);
      stack.pop_back();
    }
  }
  // Subtree and guaranteed quotas bottom-up (spec §2); heights (getNodeHeight).
  for (NodeId n : post_order_) {
    if (!is_cq(n)) {
      int h = (child_cqs_[n].empty() && child_cohorts_[n].empty()) ? 0 : 1;
      for (NodeId c : child_cohorts_[n]) h = std::max(h, height_[c] + 1);
      height_[n] = h;
    }
    for (FrId f = 0; f < F_; ++f) {
      Qty s = nominal_[at(n, f)];
      if (!is_cq(n)) {
        for (NodeId c : child_cohorts_[n]) s += subtree_[at(c, f)] - guaranteed_[at(c, f)];
        for (NodeId c : child_cqs_[n]) s += subtree_[at(c, f)] - guaranteed_[at(c, f)];
      }
      subtree_[at(n, f)] = s;
      const Qty ll = ll_[at(n, f)];
      guaranteed_[at(n, f)] = ll == kNoLimit ? 0 : std::max<Qty>(0, s - ll);
    }
  }
  return true;
}

Qty QuotaTree::available_raw(NodeId n, FrId f) const {
  if (parent_[n] == kNoNode) return subtree_quota(n, f) - usage(n, f);
  const Qty g = guaranteed(n, f);
  const Qty local = std::max<Qty>(0, g - usage(n, f));
  Qty from_parent = available_raw(parent_[n], f);
  const Qty bl = bl_[at(n, f)];
  if (bl != kNoLimit) {
    const Qty stored_in_parent = subtree_quota(n, f) - g;
    const Qty used_in_parent = std::max<Qty>(0, usage(n, f) - g);
    from_parent = std::min(from_parent, stored_in_parent - used_in_parent + bl);
  }
  return local + from_parent;
}

Qty QuotaTree::potential_available(NodeId n, FrId f) const {
  if (parent_[n] == kNoNode) return subtree_quota(n, f);
  Qty a = guaranteed(n, f) + potential_available(parent_[n], f);
  const Qty bl = bl_[at(n, f)];
  if (bl != kNoLimit) a = std::min(a, subtree_quota(n, f) + bl);
  return a;
}

bool QuotaTree::within_nominal_in(NodeId n, FrMask m) const {
  for (FrId f = 0; f < F_; ++f)
    if ((m & fr_bit(f)) && usage(n, f) > subtree_quota(n, f)) return false;
  return true;
}

void QuotaTree::add_usage(NodeId n, FrId f, Qty v) {
  for (;;) {
    const Qty local = local_available(n, f);
    usage_[at(n, f)] += v;
    if (parent_[n] == kNoNode) return;
    v = std::max<Qty>(0, v - local);
    if (v == 0) return;
    n = parent_[n];
  }
}

void QuotaTree::remove_usage(NodeId n, FrId f, Qty v) {
  for (;;) {
    const Qty stored_in_parent = usage(n, f) - guaranteed(n, f);
    usage_[at(n, f)] -= v;
    if (stored_in_parent <= 0 || parent_[n] == kNoNode) return;
    v = std::min(v, stored_in_parent);
    n = parent_[n];
  }
}

std::pair<int, bool> QuotaTree::borrow_level(NodeId cq, FrId f, Qty v) const {
  if (!borrowing_with(cq, f, v) || !has_parent(cq)) return {0, has_parent(cq)};
  Qty remaining = v - local_available(cq, f);
  for (NodeId t = parent_[cq]; t != kNoNode; t = parent_[t]) {
    if (!borrowing_with(t, f, remaining)) return {height_[t], has_parent(t)};
    remaining -= local_available(t, f);
  }
  return {height_[root_[cq]], false};
}

}  // namespace floorsim::kueue
