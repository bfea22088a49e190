// The consistency step of the hierarchical histogram (docs/mechanisms.md G.2): Hay et al.'s
// constrained inference with per-node variances over a complete B-ary tree, a linear map of the node
// estimates, and a range's answer after it as weights on those estimates, found by the map's
// adjoint passes. make_tree_model (range_model.h, tree_estimation.cpp) builds on it; the unit tests
// check the adjoint against the forward map.
#ifndef LDP_SERVER_SRC_TREE_ESTIMATION_H
#define LDP_SERVER_SRC_TREE_ESTIMATION_H

#include <cstdint>
#include <vector>

namespace ldp::server::detail {

// One term of a linear combination of node estimates: weight times node `node` of level `level`.
struct tree_term {
  uint32_t level = 0;
  uint32_t node = 0;
  double weight = 0;
};

// Levels l in [0, h] of B^l nodes (level 0 the root, level h the leaves); node v of level l spans
// the leaf positions [v B^(h-l), (v + 1) B^(h-l)). The passes, with x_v a node's estimate and s_v its
// (finite, non-negative) variance:
// - bottom-up: z_v = a_v x_v + (1 - a_v) sum_c z_c with a_v = S_v / (s_v + S_v), S_v = sum_c V_c,
//   V_v = a_v s_v (leaves: z = x, V = s, a = 1): the inverse-variance average of a node's own
//   estimate and its children's sum, both unbiased for its count and independent;
// - top-down: u_root = z_root, u_c = z_c + (V_c / S_v)(u_v - sum_c' z_c'): the children's
//   discrepancy shared in proportion to their variances, which is the weighted least-squares
//   consistent tree (Hay et al.'s equal shares are the case of equal variances within a family).
class consistent_tree {
 public:
  // value[l] and variance[l] hold level l's B^l estimates (a known root: variance 0).
  consistent_tree(uint32_t branching, std::vector<std::vector<double>> value,
                  const std::vector<std::vector<double>>& variance);

  [[nodiscard]] uint32_t levels() const noexcept { return static_cast<uint32_t>(value_.size() - 1); }
  [[nodiscard]] uint32_t branching() const noexcept { return b_; }
  // The consistent estimates u of level l.
  [[nodiscard]] const std::vector<double>& consistent(uint32_t l) const noexcept { return u_[l]; }
  // The bottom-up estimates z of level l: a linear function of the subtree's estimates alone.
  [[nodiscard]] const std::vector<double>& upward(uint32_t l) const noexcept { return z_[l]; }
  // a_v of level l: z_v's weight on the node's own estimate, the rest going to its children's z.
  [[nodiscard]] const std::vector<double>& own_share(uint32_t l) const noexcept { return share_[l]; }

  // The consistent answer sum_k phi_k u_k over the leaf positions [a, b) (0 <= a <= b <= B^h; phi_k
  // the part of leaf k inside) as sum over `own` of weight x_v plus sum over `subtrees` of weight z_v.
  // Only nodes the range cuts (at most two a level) have own terms; their other children enter
  // through their z, so the work is O(h B) and the weights on a subtree's nodes are the subtree term's
  // weight times z's. Both lists are replaced.
  void range_terms(double a, double b, std::vector<tree_term>* own, std::vector<tree_term>* subtrees) const;
  // The same answer's weight on every node's estimate, [l][v]: range_terms with the subtree terms
  // spread over their nodes (for the tests).
  [[nodiscard]] std::vector<std::vector<double>> weights(double a, double b) const;

 private:
  [[nodiscard]] double overlap(uint32_t l, uint32_t v, double a, double b) const noexcept;
  [[nodiscard]] bool cut(uint32_t l, uint32_t v, double a, double b) const noexcept;
  // The adjoint of the top-down pass: the weight on u_v of the range (its part for a node the range
  // does not cut), recording gamma = sum_c (V_c / S_v) ubar_c of every cut node in `gammas`.
  double top_adjoint(uint32_t l, uint32_t v, double a, double b, std::vector<tree_term>* gammas) const;
  // The adjoint of the bottom-up pass from cut node v with weight zbar on z_v.
  void bottom_adjoint(uint32_t l, uint32_t v, double zbar, double a, double b, const std::vector<tree_term>& gammas,
                      std::vector<tree_term>* own, std::vector<tree_term>* subtrees) const;
  [[nodiscard]] double child_share(uint32_t l, uint32_t c) const noexcept;  // V_c / S_parent
  void spread(uint32_t l, uint32_t v, double weight, std::vector<std::vector<double>>* out) const;

  uint32_t b_;
  std::vector<std::vector<double>> value_, z_, v_, children_v_, share_, u_;
  std::vector<double> span_;  // leaves under a node of level l
};

}  // namespace ldp::server::detail

#endif
