// The tree forms' range estimators (docs/mechanisms.md G.2 hierarchical histogram, G.3 Haar): a
// range's answer is linear in the scaled OLH estimates of the levels' items (group_view, F.1), and
// its variance is that linear combination's: the oracle parts sum as w^2 (distinct items and groups
// taken as uncorrelated), the group draw is taken for the combination as a whole (tree_model).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "estimation.h"
#include "ldp/wire/distribution_block.h"
#include "ldp/wire/mechanism.h"
#include "range_model.h"
#include "string_groups.h"
#include "support_model.h"
#include "tree_estimation.h"

namespace ldp::server::detail {

consistent_tree::consistent_tree(uint32_t branching, std::vector<std::vector<double>> value,
                                 const std::vector<std::vector<double>>& variance)
    : b_(branching), value_(std::move(value)) {
  const std::size_t levels = value_.size();
  z_.resize(levels);
  v_.resize(levels);
  children_v_.resize(levels);
  share_.resize(levels);
  u_.resize(levels);
  span_.assign(levels, 1);
  for (std::size_t l = levels - 1; l-- > 0;) span_[l] = span_[l + 1] * b_;
  for (std::size_t l = levels; l-- > 0;) {
    const std::size_t nodes = value_[l].size();
    z_[l].resize(nodes);
    v_[l].resize(nodes);
    children_v_[l].assign(nodes, 0);
    share_[l].assign(nodes, 1);
    for (std::size_t v = 0; v < nodes; ++v) {
      const double own = variance[l][v];
      if (l + 1 == levels) {
        z_[l][v] = value_[l][v];
        v_[l][v] = own;
        continue;
      }
      double sum = 0, spread = 0;
      for (std::size_t c = v * b_; c < (v + 1) * b_; ++c) {
        sum += z_[l + 1][c];
        spread += v_[l + 1][c];
      }
      // A node known exactly (the root) keeps its value; children without noise would override it.
      const double a = own + spread > 0 ? spread / (own + spread) : 1;
      share_[l][v] = a;
      children_v_[l][v] = spread;
      z_[l][v] = a * value_[l][v] + (1 - a) * sum;
      v_[l][v] = a * own;
    }
  }
  u_[0] = z_[0];
  for (std::size_t l = 0; l + 1 < levels; ++l) {
    u_[l + 1].resize(value_[l + 1].size());
    for (std::size_t v = 0; v < value_[l].size(); ++v) {
      double sum = 0;
      for (std::size_t c = v * b_; c < (v + 1) * b_; ++c) sum += z_[l + 1][c];
      for (std::size_t c = v * b_; c < (v + 1) * b_; ++c) {
        u_[l + 1][c] =
            z_[l + 1][c] + child_share(static_cast<uint32_t>(l + 1), static_cast<uint32_t>(c)) * (u_[l][v] - sum);
      }
    }
  }
}

double consistent_tree::child_share(uint32_t l, uint32_t c) const noexcept {
  const double total = children_v_[l - 1][c / b_];
  return total > 0 ? v_[l][c] / total : 1.0 / b_;
}

double consistent_tree::overlap(uint32_t l, uint32_t v, double a, double b) const noexcept {
  const double lo = v * span_[l], hi = lo + span_[l];
  return std::max(0.0, std::min(b, hi) - std::max(a, lo));
}

bool consistent_tree::cut(uint32_t l, uint32_t v, double a, double b) const noexcept {
  const double part = overlap(l, v, a, b);
  return l < levels() && part > 0 && part < span_[l];
}

namespace {

double gamma_of(const std::vector<tree_term>& gammas, uint32_t l, uint32_t v) noexcept {
  for (const tree_term& t : gammas) {
    if (t.level == l && t.node == v) return t.weight;
  }
  return 0;  // unreachable: every cut node has its gamma
}

}  // namespace

double consistent_tree::top_adjoint(uint32_t l, uint32_t v, double a, double b, std::vector<tree_term>* gammas) const {
  if (!cut(l, v, a, b)) return overlap(l, v, a, b) / span_[l];
  double gamma = 0;
  for (uint32_t c = v * b_; c < (v + 1) * b_; ++c) gamma += child_share(l + 1, c) * top_adjoint(l + 1, c, a, b, gammas);
  gammas->push_back({l, v, gamma});
  return gamma;
}

void consistent_tree::bottom_adjoint(uint32_t l, uint32_t v, double zbar, double a, double b,
                                     const std::vector<tree_term>& gammas, std::vector<tree_term>* own,
                                     std::vector<tree_term>* subtrees) const {
  const double share = share_[l][v], gamma = gamma_of(gammas, l, v);
  own->push_back({l, v, share * zbar});
  for (uint32_t c = v * b_; c < (v + 1) * b_; ++c) {
    const bool inner = cut(l + 1, c, a, b);
    // z_c enters u_c (weight ubar_c) and, through the sum, every sibling's u (-gamma), and z_v.
    const double ubar = inner ? gamma_of(gammas, l + 1, c) : overlap(l + 1, c, a, b) / span_[l + 1];
    const double weight = ubar - gamma + (1 - share) * zbar;
    if (inner) {
      bottom_adjoint(l + 1, c, weight, a, b, gammas, own, subtrees);
    } else {
      subtrees->push_back({l + 1, c, weight});
    }
  }
}

void consistent_tree::range_terms(double a, double b, std::vector<tree_term>* own,
                                  std::vector<tree_term>* subtrees) const {
  own->clear();
  subtrees->clear();
  if (!cut(0, 0, a, b)) {
    if (overlap(0, 0, a, b) > 0) subtrees->push_back({0, 0, overlap(0, 0, a, b) / span_[0]});  // u_root = z_root
    return;
  }
  std::vector<tree_term> gammas;
  const double root = top_adjoint(0, 0, a, b, &gammas);
  bottom_adjoint(0, 0, root, a, b, gammas, own, subtrees);
}

void consistent_tree::spread(uint32_t l, uint32_t v, double weight, std::vector<std::vector<double>>* out) const {
  (*out)[l][v] += share_[l][v] * weight;
  if (l == levels()) return;
  for (uint32_t c = v * b_; c < (v + 1) * b_; ++c) spread(l + 1, c, (1 - share_[l][v]) * weight, out);
}

std::vector<std::vector<double>> consistent_tree::weights(double a, double b) const {
  std::vector<std::vector<double>> out(value_.size());
  for (std::size_t l = 0; l < value_.size(); ++l) out[l].assign(value_[l].size(), 0);
  std::vector<tree_term> own, subtrees;
  range_terms(a, b, &own, &subtrees);
  for (const tree_term& t : own) out[t.level][t.node] += t.weight;
  for (const tree_term& t : subtrees) spread(t.level, t.node, t.weight, &out);
  return out;
}

namespace {

// Group g's items (the nodes of level g + 1, or the halves of level g's Haar coefficients) scaled to
// all n reports (group_view::scaled), with each estimate's oracle part (its variance without its own
// draw term) and the plug-in count of the draw term of a combination: the form's own estimate of
// the item's count, not clipped, since the draw term's sums are linear in it (clipping at 0 biased
// the variance of ranges with nearly empty buckets up by 3 percent at n = 200).
struct group_items {
  double scale = 0;   // n / n_g
  double weight = 0;  // the consistency passes' variance of the group's items (consistent_form)
  std::vector<double> value, oracle, count;
};

// A range's answer: constant + sum over `items` of weight x (level = group, node = item) + sum over
// `subtrees` of weight z (consistent_tree's upward estimates, the consistent hierarchical form).
struct linear_form {
  double constant = 0;
  std::vector<tree_term> items, subtrees;
};

enum class tree_form : uint8_t { hierarchical, consistent, haar };

// D <= 2^16 buckets: at most 16 levels.
constexpr uint32_t max_levels = 16;

// The estimator of G.2 / G.3 over the D = B^h buckets. Variance of a combination L = sum w_t x_t
// (docs/mechanisms.md G.2): the oracle noise of distinct items and groups is taken as uncorrelated,
// so it contributes sum w_t^2 o_t. Between groups it is (disjoint reports); between the items of one
// group it is not quite: OLH's multiply-add-shift hash is pairwise independent only, so the support
// of two items close in index correlates through the reports of third items (measured with 500
// reports on items 2 and 5 of 16: correlation 0.07 for items 0 and 1 at epsilon 1; 0.18, 0.13, 0.10
// for items 0 and 1, 3, 8 at epsilon 4), which moves range variances by up to ~6 percent
// (tests/statistical/server/test_range_variance.cpp). The group draw adds, given the group sizes
// n_g, the variance of sum_g (n / n_g) sum_{i in group g} f_g(x_i) over the random split of the n
// users into groups, with f_g(x) the weight of the item of group g that x's bucket has: sampling
// without replacement gives n^2 / (n - 1) [sum_g (n / n_g) var(f_g) - var(sum_g f_g)] (population
// variances; n / (n - 1) taken as 1 as group_view does), and sum_g f_g is the range's indicator phi
// up to a constant for an unbiased form. For one item this is group_view::draw_variance; summing the
// items' own draw terms instead leaves out their covariances (negative within a group, positive
// between disjoint nodes of different groups, negative between nested ones): measured at epsilon 4,
// Haar ranges then came out 14 percent under their empirical variance.
class tree_model final : public range_model {
 public:
  tree_model(const wire::params& p, uint64_t n, tree_form form) : form_(form), n_(static_cast<double>(n)) {
    b_ = static_cast<uint32_t>(wire::distribution_branching(p));
    h_ = wire::distribution_levels(p);
    inner_leading_ = pure_model(wire::distribution_inner_block(p)).leading();
    d_ = static_cast<uint32_t>(p.get(wire::field::domain));
  }

  // Reads the groups and prepares the form; a group without reports leaves every answer NaN.
  // overflow when memory runs out (group_view::scaled).
  [[nodiscard]] status build(const group_view& view, double confidence) {
    for (uint32_t g = 0; g < h_; ++g) {
      if (view.reports(g) == 0) return status::ok;
    }
    groups_.resize(h_);
    std::vector<uint32_t> list;
    for (uint32_t g = 0; g < h_; ++g) {
      list.resize(list.empty() ? b_ : list.size() * b_);
      std::iota(list.begin(), list.end(), uint32_t{0});
      std::vector<estimate> est;
      const status s = view.scaled(g, list, confidence, &est);
      if (s != status::ok) return s;
      group_items& t = groups_[g];
      const auto n_g = static_cast<double>(view.reports(g));
      t.scale = n_ / n_g;
      t.weight = t.scale * t.scale * n_g * inner_leading_;
      for (const estimate& e : est) {
        t.value.push_back(e.value);
        t.oracle.push_back(e.variance - view.draw_variance(e.value, n_g));
      }
    }
    switch (form_) {
      case tree_form::hierarchical:
        for (group_items& t : groups_) t.count = t.value;
        break;
      case tree_form::consistent: build_consistent(); break;
      case tree_form::haar: build_haar_counts(); break;
    }
    usable_ = true;
    return status::ok;
  }

  range_answer answer(double a, double b) const override {
    if (!usable_) return {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
    linear_form f;
    switch (form_) {
      case tree_form::hierarchical: decompose(a, b, &f); break;
      case tree_form::consistent: consistent_form(a, b, &f); break;
      case tree_form::haar: haar_form(a, b, &f); break;
    }
    return evaluate(f, a, b);
  }

 private:
  // G.2 without consistency: the partial end buckets' leaves in proportion, and the whole buckets
  // between as the fewest nodes, at most 2 (B - 1) a level (the root is n).
  void decompose(double a, double b, linear_form* f) const {
    if (!(a < b)) return;
    const auto first = static_cast<uint32_t>(a), last = std::min(static_cast<uint32_t>(std::ceil(b)) - 1, d_ - 1);
    const double head = std::min(b, first + 1.0) - a, tail = b - std::max(a, static_cast<double>(last));
    uint64_t lo = first, hi = uint64_t{last} + 1;
    if (head < 1) {
      f->items.push_back({h_ - 1, first, head});
      ++lo;
    }
    if (last != first && tail < 1) {
      f->items.push_back({h_ - 1, last, tail});
      --hi;
    }
    for (uint32_t level = h_; lo < hi; --level) {
      const auto take = [&](uint64_t node) {
        if (level == 0) {
          f->constant += n_;
        } else {
          f->items.push_back({level - 1, static_cast<uint32_t>(node), 1});
        }
      };
      while (lo < hi && lo % b_ != 0) take(lo++);
      while (lo < hi && hi % b_ != 0) take(--hi);
      lo /= b_;
      hi /= b_;
    }
  }

  void build_consistent() {
    std::vector<std::vector<double>> value(h_ + 1), variance(h_ + 1);
    value[0] = {n_};
    variance[0] = {0};
    for (uint32_t g = 0; g < h_; ++g) {
      value[g + 1] = groups_[g].value;
      variance[g + 1].assign(groups_[g].value.size(), groups_[g].weight);
    }
    // The passes weigh by a public variance, OLH's at count 0 scaled to n, (n / n_g)^2 n_g V for the
    // per-report V of the inner block: so the weights depend on the group sizes alone and the map is
    // linear in the estimates. The estimates' own plug-in variances (which grow with the count, and at
    // high epsilon are mostly the group draw's) would weigh each estimate by a function of itself:
    // measured at epsilon 4, that biased range answers by a quarter of their standard deviation and
    // put their variance 15 percent off the linear formula. Equal weights within a level make the
    // top-down shares equal, Hay et al.'s mean consistency.
    tree_ = std::make_unique<consistent_tree>(b_, std::move(value), variance);
    for (uint32_t g = 0; g < h_; ++g) groups_[g].count = tree_->consistent(g + 1);
    // Per subtree root v of level l, what its upward estimate z_v = sum_j zeta_j x_j carries: the
    // oracle variance sum zeta_j^2 o_j, and for each level m >= l of the subtree sum zeta_j^2 c_j
    // and sum zeta_j c_j over its nodes j of level m (the draw term's pieces).
    oracle_.assign(h_ + 1, {});
    draw_square_.assign(h_ + 1, {});
    draw_linear_.assign(h_ + 1, {});
    for (uint32_t l = h_ + 1; l-- > 0;) {
      const std::size_t nodes = tree_->upward(l).size();
      oracle_[l].assign(nodes, 0);
      draw_square_[l].assign(h_ + 1 - l, std::vector<double>(nodes, 0));
      draw_linear_[l].assign(h_ + 1 - l, std::vector<double>(nodes, 0));
      for (std::size_t v = 0; v < nodes; ++v) {
        const double a = tree_->own_share(l)[v], rest = 1 - a;
        const double o = l == 0 ? 0 : groups_[l - 1].oracle[v], c = l == 0 ? n_ : groups_[l - 1].count[v];
        oracle_[l][v] = a * a * o;
        draw_square_[l][0][v] = a * a * c;
        draw_linear_[l][0][v] = a * c;
        if (l == h_) continue;
        for (std::size_t ch = v * b_; ch < (v + 1) * b_; ++ch) {
          oracle_[l][v] += rest * rest * oracle_[l + 1][ch];
          for (uint32_t m = 1; m <= h_ - l; ++m) {
            draw_square_[l][m][v] += rest * rest * draw_square_[l + 1][m - 1][ch];
            draw_linear_[l][m][v] += rest * draw_linear_[l + 1][m - 1][ch];
          }
        }
      }
    }
  }

  void consistent_form(double a, double b, linear_form* f) const {
    std::vector<tree_term> own;
    tree_->range_terms(a, b, &own, &f->subtrees);
    for (const tree_term& t : own) {
      if (t.level == 0) {
        f->constant += t.weight * n_;
      } else {
        f->items.push_back({t.level - 1, t.node, t.weight});
      }
    }
  }

  // G.3: coefficient (g, a) is x(2a) - x(2a + 1) of group g; a node's mass is its parent's over 2
  // plus or minus the parent's coefficient over 2, so a bucket's is n / D plus sum_g +-c / 2^(h - g).
  // The plug-in counts of group g's items are the reconstructed masses of level g + 1's nodes (item
  // 2a + s is that node).
  void build_haar_counts() {
    std::vector<double> mass = {n_};
    for (uint32_t g = 0; g < h_; ++g) {
      std::vector<double> next(mass.size() * 2);
      for (std::size_t a = 0; a < mass.size(); ++a) {
        const double c = groups_[g].value[2 * a] - groups_[g].value[2 * a + 1];
        next[2 * a] = (mass[a] + c) / 2;
        next[2 * a + 1] = (mass[a] - c) / 2;
      }
      mass = std::move(next);
      groups_[g].count = mass;
    }
  }

  // The range's count is n (b - a) / D plus, on each level, the coefficients whose halves the range
  // covers unequally (at most the two nodes holding its ends), weight (part in the left half - part
  // in the right half) / (the node's span): +w on item 2a, -w on item 2a + 1.
  void haar_form(double a, double b, linear_form* f) const {
    if (!(a < b)) return;
    f->constant = n_ * (b - a) / d_;
    const auto first = static_cast<uint32_t>(a), last = std::min(static_cast<uint32_t>(std::ceil(b)) - 1, d_ - 1);
    for (uint32_t g = 0; g < h_; ++g) {
      const uint32_t shift = h_ - g;
      const double span = std::ldexp(1.0, static_cast<int>(shift));
      const uint32_t ends[2] = {first >> shift, last >> shift};
      for (uint32_t e = 0; e < (ends[0] == ends[1] ? 1u : 2u); ++e) {
        const uint32_t node = ends[e];
        const double lo = node * span, mid = lo + span / 2, hi = lo + span;
        const double left = std::max(0.0, std::min(b, mid) - std::max(a, lo));
        const double right = std::max(0.0, std::min(b, hi) - std::max(a, mid));
        const double w = (left - right) / span;
        if (w != 0) {
          f->items.push_back({g, 2 * node, w});
          f->items.push_back({g, 2 * node + 1, -w});
        }
      }
    }
  }

  // n var(phi) of the range's indicator phi (buckets the range cuts in proportion), with the range's
  // own count c as the plug-in of sum phi_k c_k, so that a one-node range gets group_view's draw
  // term (for an estimate in [0, n]): sum phi_k^2 c_k is c less the cut buckets' (phi - phi^2) c_k.
  double range_spread(double a, double b, double c) const {
    if (!(a < b)) return 0;
    const auto first = static_cast<uint32_t>(a), last = std::min(static_cast<uint32_t>(std::ceil(b)) - 1, d_ - 1);
    double square = c;
    for (const uint32_t k : {first, last}) {
      const double phi = std::max(0.0, std::min(b, k + 1.0) - std::max(a, static_cast<double>(k)));
      square -= (phi - phi * phi) * groups_[h_ - 1].count[k];  // the buckets' plug-ins
      if (last == first) break;
    }
    return square - c * c / n_;
  }

  range_answer evaluate(const linear_form& f, double a, double b) const {
    double value = f.constant, oracle = 0;
    std::array<double, max_levels> square{}, first{};  // per group: sum w^2 c and sum w c
    for (const tree_term& t : f.items) {
      const group_items& g = groups_[t.level];
      value += t.weight * g.value[t.node];
      oracle += t.weight * t.weight * g.oracle[t.node];
      square[t.level] += t.weight * t.weight * g.count[t.node];
      first[t.level] += t.weight * g.count[t.node];
    }
    for (const tree_term& t : f.subtrees) {
      value += t.weight * tree_->upward(t.level)[t.node];
      oracle += t.weight * t.weight * oracle_[t.level][t.node];
      for (uint32_t m = t.level == 0 ? 1 : 0; m + t.level <= h_; ++m) {
        square[t.level + m - 1] += t.weight * t.weight * draw_square_[t.level][m][t.node];
        first[t.level + m - 1] += t.weight * draw_linear_[t.level][m][t.node];
      }
    }
    double draw = -range_spread(a, b, value);
    for (uint32_t g = 0; g < h_; ++g) draw += groups_[g].scale * (square[g] - first[g] * first[g] / n_);
    const double variance = oracle + std::max(0.0, draw);  // the plug-ins may make the draw negative
    return {value / n_, variance / (n_ * n_)};
  }

  tree_form form_;
  double n_;
  double inner_leading_ = 0;  // OLH's variance per report at count 0: q (1 - q) / (p - q)^2
  uint32_t b_ = 0, h_ = 0, d_ = 0;
  bool usable_ = false;
  std::vector<group_items> groups_;
  std::unique_ptr<consistent_tree> tree_;
  std::vector<std::vector<double>> oracle_;                                  // [l][v]
  std::vector<std::vector<std::vector<double>>> draw_square_, draw_linear_;  // [l][m - l][v]
};

}  // namespace

status make_tree_model(const wire::params& p, const std::vector<std::unique_ptr<frequency_aggregator>>& levels,
                       uint64_t n, const distribution_options& o, std::unique_ptr<range_model>* out) {
  if (out == nullptr || !wire::in_family(p.mech, wire::mechanism_family::distribution) ||
      levels.size() != wire::distribution_levels(p) || levels.empty() ||
      p.get(wire::field::domain) > wire::distribution_max_buckets) {
    return status::invalid_argument;
  }
  tree_form form = tree_form::haar;
  switch (wire::distribution_of(p.mech)) {
    case wire::distribution_member::square_wave: return status::invalid_argument;
    case wire::distribution_member::hierarchical:
      form = o.consistency ? tree_form::consistent : tree_form::hierarchical;
      break;
    case wire::distribution_member::haar: form = tree_form::haar; break;
  }
  try {
    auto model = std::make_unique<tree_model>(p, n, form);
    const status s = model->build(group_view(p, levels, n), o.confidence);
    if (s != status::ok) return s;
    *out = std::move(model);
    return status::ok;
  } catch (...) {  // std::bad_alloc, std::length_error
    return status::overflow;
  }
}

}  // namespace ldp::server::detail
