// The tree forms' range estimators (docs/mechanisms.md G.2, G.3; lib/server/src/tree_estimation.cpp):
// the consistency passes against Hay et al.'s equal-variance weights, the adjoint range weights against
// the forward map applied to unit vectors, and make_tree_model's answers against the node estimates
// they are built from (whole and partial buckets, the three forms).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "ldp/server/distribution.h"
#include "ldp/server/frequency.h"
#include "ldp/wire.h"
#include "range_model.h"
#include "support_model.h"
#include "tables.h"
#include "tree_estimation.h"
#include "tree_fleet.h"

using ldp::status;
using ldp::server::distribution_options;
using ldp::server::detail::consistent_tree;
using ldp::server::detail::range_model;

namespace {

using levels_t = std::vector<std::vector<double>>;

// A deterministic stream of doubles in [0, 1) (a 64-bit LCG's top bits).
struct stream {
  uint64_t state;
  double next() {
    state = state * 6364136223846793005u + 1442695040888963407u;
    return static_cast<double>(state >> 11) * 0x1p-53;
  }
};

levels_t tree_shape(uint32_t b, uint32_t h, double fill) {
  levels_t out(h + 1);
  std::size_t nodes = 1;
  for (uint32_t l = 0; l <= h; ++l, nodes *= b) out[l].assign(nodes, fill);
  return out;
}

// sum_k phi_k u_k over the leaves for the range [a, b) of leaf positions.
double leaf_answer(const consistent_tree& t, double a, double b) {
  const std::vector<double>& u = t.consistent(t.levels());
  double sum = 0;
  for (std::size_t k = 0; k < u.size(); ++k) {
    const double at = static_cast<double>(k), phi = std::max(0.0, std::min(b, at + 1) - std::max(a, at));
    sum += phi * u[k];
  }
  return sum;
}

}  // namespace

// Equal variances everywhere: the bottom-up share of a node of height i (leaves: 1) is Hay et al.'s
// (B^i - B^(i-1)) / (B^i - 1), and the top-down pass gives the children equal shares; a tree that
// already adds up is left as it is.
TEST_CASE("consistent_tree: Hay et al.'s weights with equal variances; a consistent tree is a fixed point") {
  for (const uint32_t b : {2u, 3u, 4u}) {
    const uint32_t h = 3;
    CAPTURE(b);
    levels_t value = tree_shape(b, h, 0);
    stream s{b};
    for (double& x : value[h]) x = std::floor(100 * s.next());
    for (uint32_t l = h; l-- > 0;) {
      for (std::size_t v = 0; v < value[l].size(); ++v) {
        for (std::size_t c = v * b; c < (v + 1) * b; ++c) value[l][v] += value[l + 1][c];
      }
    }
    const consistent_tree t(b, value, tree_shape(b, h, 2.5));
    for (uint32_t l = 0; l <= h; ++l) {
      const double height = h - l + 1, bi = std::pow(b, height);
      const double hay = l == h ? 1 : (bi - bi / b) / (bi - 1);
      for (std::size_t v = 0; v < value[l].size(); ++v) {
        CHECK(t.own_share(l)[v] == doctest::Approx(hay).epsilon(1e-12));
        CHECK(t.consistent(l)[v] == doctest::Approx(value[l][v]).epsilon(1e-12));
      }
    }
  }
}

// The range weights come from the adjoint passes (range_terms); the forward map applied to the unit
// vector of node j answers the range with weight w_j. Random variances (the shares differ between
// siblings), ranges with whole and partial leaves, inside one leaf, over the whole tree, empty.
TEST_CASE("consistent_tree: adjoint range weights equal the forward map on unit vectors") {
  struct shape {
    uint32_t b, h;
  };
  for (const shape sh : {shape{2, 1}, shape{2, 3}, shape{3, 2}, shape{4, 2}}) {
    CAPTURE(sh.b);
    CAPTURE(sh.h);
    stream s{sh.b * 31u + sh.h};
    levels_t variance = tree_shape(sh.b, sh.h, 0), value = tree_shape(sh.b, sh.h, 0);
    for (uint32_t l = 0; l <= sh.h; ++l) {
      for (std::size_t v = 0; v < value[l].size(); ++v) {
        variance[l][v] = l == 0 ? 0 : 0.5 + 4 * s.next();  // a known root, as the model's
        value[l][v] = 50 * s.next() - 10;
      }
    }
    const double leaves = static_cast<double>(value[sh.h].size());
    const consistent_tree t(sh.b, value, variance);
    const std::vector<std::pair<double, double>> ranges = {
        {0, leaves},          {0, 1},   {1, leaves - 1}, {0.25, 0.75},
        {0.5, leaves - 0.25}, {1.5, 2}, {0, 0},          {leaves / 3, leaves / 2}};
    for (const auto& range : ranges) {
      const double a = range.first, b = range.second;  // not a structured binding: CAPTURE's lambda (clang)
      CAPTURE(a);
      CAPTURE(b);
      const levels_t w = t.weights(a, b);
      double combined = 0;
      for (uint32_t l = 0; l <= sh.h; ++l) {
        for (std::size_t v = 0; v < value[l].size(); ++v) {
          levels_t unit = tree_shape(sh.b, sh.h, 0);
          unit[l][v] = 1;
          CAPTURE(l);
          CAPTURE(v);
          CHECK(w[l][v] == doctest::Approx(leaf_answer(consistent_tree(sh.b, unit, variance), a, b)).epsilon(1e-12));
          combined += w[l][v] * value[l][v];
        }
      }
      CHECK(combined == doctest::Approx(leaf_answer(t, a, b)).epsilon(1e-12));
      // The sparse terms give the same answer: own estimates plus subtree upward estimates.
      std::vector<ldp::server::detail::tree_term> own, subtrees;
      t.range_terms(a, b, &own, &subtrees);
      double sparse = 0;
      for (const auto& term : own) sparse += term.weight * value[term.level][term.node];
      for (const auto& term : subtrees) sparse += term.weight * t.upward(term.level)[term.node];
      CHECK(sparse == doctest::Approx(leaf_answer(t, a, b)).epsilon(1e-12));
    }
  }
}

namespace {

constexpr uint32_t fleet_size = 3000;

// A fleet of n devices, a third of them in bucket 1 and the rest spread evenly, reports split by
// level, fixed seed.
ldp::test::tree_levels fleet(const ldp::wire::params& p, const char* name) {
  ldp::test::tree_fleet devices(p);
  ldp::test::tree_levels levels = devices.levels();
  auto rng = ldp::test::seeded_drbg(name);
  const auto d = static_cast<uint32_t>(p.get(ldp::wire::field::domain));
  for (uint32_t i = 0; i < fleet_size; ++i) devices.add(i % 3 == 0 ? 1 : (i * 7u) % d, rng, levels);
  return levels;
}

std::unique_ptr<range_model> model_of(const ldp::wire::params& p, const ldp::test::tree_levels& levels,
                                      bool consistency) {
  distribution_options o;
  o.consistency = consistency;
  std::unique_ptr<range_model> m;
  REQUIRE(ldp::server::detail::make_tree_model(p, levels, fleet_size, o, &m) == status::ok);
  return m;
}

// Group g's item estimate scaled to all n, with its variance (F.1's rule, recomputed here).
struct scaled_item {
  double value, variance, oracle;  // oracle: the variance without the group draw's term
};
scaled_item scaled(const ldp::test::tree_levels& levels, uint32_t g, uint32_t item) {
  const uint32_t items[] = {item};
  const auto e = levels[g]->estimate_items(items);
  const double n = fleet_size, n_g = static_cast<double>(levels[g]->reports()), scale = n / n_g;
  const double c = std::min(std::max(scale * e[0].value, 0.0), n);
  return {scale * e[0].value, scale * scale * e[0].variance + c * (1 - c / n) * (scale - 1),
          scale * scale * e[0].variance};
}

}  // namespace

// Without consistency a range is its fewest nodes: [0, 12) of 16 buckets (B = 2) is the node 0 of
// level 1 and node 2 of level 2; one node's variance is its scaled variance (group_view's); a
// partial bucket counts in proportion; the whole range is the root, n.
TEST_CASE("make_tree_model: hierarchical without consistency answers from its nodes") {
  const auto p = ldp::wire::make_hierarchical(2.0, 16, 2, 0, 16, 4);
  REQUIRE(p.code == status::ok);
  const auto levels = fleet(p.block, "tree estimation: hierarchical");
  const auto m = model_of(p.block, levels, false);
  const double n = fleet_size;
  const scaled_item half = scaled(levels, 0, 0), quarter = scaled(levels, 1, 2), leaf = scaled(levels, 3, 5);
  CHECK(m->answer(0, 12).fraction * n == doctest::Approx(half.value + quarter.value).epsilon(1e-12));
  CHECK(m->answer(0, 8).fraction * n == doctest::Approx(half.value).epsilon(1e-12));
  CHECK(m->answer(0, 8).variance * n * n == doctest::Approx(half.variance).epsilon(1e-12));
  CHECK(m->answer(5, 6).variance * n * n == doctest::Approx(leaf.variance).epsilon(1e-12));
  CHECK(m->answer(5.25, 5.75).fraction * n == doctest::Approx(0.5 * leaf.value).epsilon(1e-12));
  CHECK(m->answer(5, 5.5).fraction == doctest::Approx(m->answer(5.5, 6).fraction).epsilon(1e-12));
  CHECK(m->answer(0, 16).fraction == 1);
  CHECK(m->answer(0, 16).variance == 0);
  CHECK(m->answer(3, 3).fraction == 0);
  // Two nodes of different levels: their draws are positively correlated (disjoint nodes, disjoint
  // groups), so the range's variance exceeds the sum of the nodes' by 2 c1 c2 / n and their oracle
  // parts add.
  const double c1 = std::min(std::max(half.value, 0.0), n), c2 = std::min(std::max(quarter.value, 0.0), n);
  CHECK(m->answer(0, 12).variance * n * n ==
        doctest::Approx(half.variance + quarter.variance + 2 * c1 * c2 / n).epsilon(1e-9));
}

// With consistency the model's answer is the consistent tree's, built here from the scaled node
// estimates weighted by OLH's count-free variance scaled to n, (n / n_g)^2 n_g V (public: the
// weights do not depend on the estimates), additive over adjacent ranges; the whole range is n. Its
// variance is the combination's with the dense weights: sum w^2 o plus the draw term
// sum_g (n / n_g)(sum w^2 u - (sum w u)^2 / n) - (sum phi^2 u - (sum phi u)^2 / n), u the consistent
// counts (what the model sums per subtree instead).
TEST_CASE("make_tree_model: hierarchical with consistency is the consistent tree's answer") {
  const auto p = ldp::wire::make_hierarchical(2.0, 27, 3, 0, 27, 4);
  REQUIRE(p.code == status::ok);
  const auto levels = fleet(p.block, "tree estimation: consistent");
  const auto m = model_of(p.block, levels, true);
  const double n = fleet_size;
  levels_t value = tree_shape(3, 3, 0), variance = tree_shape(3, 3, 0);
  value[0][0] = n;
  const double per_report = ldp::server::detail::pure_model(ldp::wire::distribution_inner_block(p.block)).leading();
  for (uint32_t l = 1; l <= 3; ++l) {
    const double n_g = static_cast<double>(levels[l - 1]->reports());
    for (uint32_t v = 0; v < value[l].size(); ++v) {
      value[l][v] = scaled(levels, l - 1, v).value;
      variance[l][v] = n * n / n_g * per_report;
    }
  }
  const consistent_tree t(3, value, variance);
  for (const auto& range : std::vector<std::pair<double, double>>{{0, 27}, {0, 10}, {2.5, 20.25}, {4, 4.5}, {9, 18}}) {
    const double a = range.first, b = range.second;  // not a structured binding: CAPTURE's lambda (clang)
    CAPTURE(a);
    CAPTURE(b);
    const double answer = leaf_answer(t, a, b);
    CHECK(m->answer(a, b).fraction * n == doctest::Approx(answer).epsilon(1e-9));
    const levels_t w = t.weights(a, b);
    double oracle = 0, draw = 0;
    for (uint32_t l = 1; l <= 3; ++l) {
      double square = 0, linear = 0;
      for (uint32_t v = 0; v < value[l].size(); ++v) {
        oracle += w[l][v] * w[l][v] * scaled(levels, l - 1, v).oracle;
        square += w[l][v] * w[l][v] * t.consistent(l)[v];
        linear += w[l][v] * t.consistent(l)[v];
      }
      draw += n / static_cast<double>(levels[l - 1]->reports()) * (square - linear * linear / n);
    }
    double phi_square = 0;
    for (uint32_t k = 0; k < 27; ++k) {
      const double phi = std::max(0.0, std::min(b, k + 1.0) - std::max(a, static_cast<double>(k)));
      phi_square += phi * phi * t.consistent(3)[k];
    }
    draw -= phi_square - answer * answer / n;
    CHECK(m->answer(a, b).variance * n * n == doctest::Approx(oracle + std::max(0.0, draw)).epsilon(1e-9));
  }
  CHECK(m->answer(0, 27).fraction == doctest::Approx(1).epsilon(1e-12));
  CHECK(m->answer(0, 27).variance == doctest::Approx(0).scale(1e-9));
  CHECK(m->answer(0, 7.5).fraction + m->answer(7.5, 27).fraction == doctest::Approx(1).epsilon(1e-12));
  CHECK(m->answer(0, 10).variance > 0);
}

// Haar: [0, D/2) is (n + c_0) / 2 with c_0 the root coefficient x(0) - x(1) of group 0, variance
// the two halves' oracle parts over 4 plus the draw of the difference; a bucket's fraction is the
// inverse transform's; consistency does not change it.
TEST_CASE("make_tree_model: haar answers by the inverse transform") {
  const auto p = ldp::wire::make_haar(2.0, 16, 0, 16, 4);
  REQUIRE(p.code == status::ok);
  const auto levels = fleet(p.block, "tree estimation: haar");
  const auto m = model_of(p.block, levels, true), plain = model_of(p.block, levels, false);
  const double n = fleet_size;
  const scaled_item left = scaled(levels, 0, 0), right = scaled(levels, 0, 1);
  CHECK(m->answer(0, 8).fraction * n == doctest::Approx((n + left.value - right.value) / 2).epsilon(1e-12));
  // Bucket 0: n/16 + c_0/16 + c_(1,0)/8 + c_(2,0)/4 + c_(3,0)/2.
  double bucket = n / 16;
  for (uint32_t g = 0; g < 4; ++g) {
    bucket += (scaled(levels, g, 0).value - scaled(levels, g, 1).value) / std::ldexp(1.0, static_cast<int>(4 - g));
  }
  CHECK(m->answer(0, 1).fraction * n == doctest::Approx(bucket).epsilon(1e-12));
  CHECK(m->answer(0, 0.5).fraction * n == doctest::Approx(bucket / 2).epsilon(1e-12));
  CHECK(m->answer(0, 16).fraction == doctest::Approx(1).epsilon(1e-12));
  CHECK(m->answer(0, 16).variance == doctest::Approx(0).scale(1e-12));
  CHECK(m->answer(3, 11.5).fraction == plain->answer(3, 11.5).fraction);
  CHECK(m->answer(0, 5).fraction + m->answer(5, 16).fraction == doctest::Approx(1).epsilon(1e-12));
}

TEST_CASE("make_tree_model: a level without reports gives NaN; other blocks are refused") {
  const auto p = ldp::wire::make_haar(2.0, 8, 0, 8, 4);
  REQUIRE(p.code == status::ok);
  ldp::test::tree_fleet devices(p.block);
  auto levels = devices.levels();
  std::unique_ptr<range_model> m;
  REQUIRE(ldp::server::detail::make_tree_model(p.block, levels, 0, {}, &m) == status::ok);
  CHECK(std::isnan(m->answer(0, 4).fraction));
  CHECK(std::isnan(m->answer(0, 4).variance));
  const auto sw = ldp::wire::make_square_wave(2.0, 8, 0, 8, 4);
  REQUIRE(sw.code == status::ok);
  CHECK(ldp::server::detail::make_tree_model(sw.block, levels, 0, {}, &m) == status::invalid_argument);
  levels.pop_back();
  CHECK(ldp::server::detail::make_tree_model(p.block, levels, 0, {}, &m) == status::invalid_argument);
}
