#pragma once
// The inputs of the multifactor priority that the model keeps between passes: usage waiting to be
// added (accounting), the Fair Tree by association with its kept orders (fairshare.cpp), and
// each job's policy-only priority terms (priority.cpp).
// SlurmModel (model.hpp) inherits it privately: the members keep their names in the model's
// files, and model.hpp stays a readable size.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/types.hpp"

namespace floorsim::slurm {

struct FairshareState {
  // accounting
  std::vector<double> pend_assoc_, pend_qos_;
  std::vector<uint32_t> pend_list_;  // associations with pending usage (recalc_usage visits only these)
  std::vector<uint8_t> pend_mark_;
  SimTime last_calc_s_ = -1;
  SimTime last_reset_s_ = 0;
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
};

}  // namespace floorsim::slurm
