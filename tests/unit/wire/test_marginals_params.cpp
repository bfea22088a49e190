// kway-marginals blocks (docs/mechanisms.md H.5, docs/wire_format.md 3.14): the coordinate order
// (by size, then colexicographic), the counts, the laplace-vector derivation with the L1
// sensitivity N' times the range width, and the validation rules.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "ldp/wire.h"
#include "wire_examples.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::mechanism;

namespace {

uint32_t ones(uint64_t v) {
  uint32_t n = 0;
  for (; v != 0; v &= v - 1) ++n;
  return n;
}

}  // namespace

TEST_CASE("binomial and conjunction_count: exact values, saturation, and the 65536 bound") {
  CHECK(ldp::wire::binomial(10, 3) == 120);
  CHECK(ldp::wire::binomial(64, 32) == 1832624140942590534u);
  CHECK(ldp::wire::binomial(5, 6) == 0);
  CHECK(ldp::wire::binomial(7, 0) == 1);
  CHECK(ldp::wire::conjunction_count(6, 3) == 6 + 15 + 20);
  CHECK(ldp::wire::conjunction_count(16, 16) == 65535);
  CHECK(ldp::wire::conjunction_count(64, 3) == 64 + 2016 + 41664);
  CHECK(ldp::wire::conjunction_count(5, 0) == 0);
  CHECK(ldp::wire::conjunction_count(5, 6) == 0);
}

TEST_CASE("conjunction_index: the sets of at most k attributes sorted by (size, mask) are 0, 1, ..., N' - 1") {
  // The order of docs/wire_format.md 3.14, built independently by sorting; a lexicographic order
  // within one size (or the sizes interleaved) gives other indices.
  const std::vector<std::pair<uint32_t, uint32_t>> shapes = {{1, 1}, {5, 3}, {7, 4}, {9, 9}};
  for (const auto& shape : shapes) {
    const uint32_t p = shape.first, k = shape.second;
    std::vector<uint64_t> sets;
    for (uint64_t s = 1; s < (uint64_t{1} << p); ++s) {
      if (ones(s) <= k) sets.push_back(s);
    }
    std::sort(sets.begin(), sets.end(),
              [](uint64_t a, uint64_t b) { return ones(a) != ones(b) ? ones(a) < ones(b) : a < b; });
    REQUIRE(sets.size() == ldp::wire::conjunction_count(p, k));
    for (std::size_t i = 0; i < sets.size(); ++i) {
      CAPTURE(sets[i]);
      CHECK(ldp::wire::conjunction_index(p, sets[i]) == i);
    }
    // next_conjunction walks one size in that order.
    for (uint32_t s = 1; s <= k; ++s) {
      uint64_t set = ldp::wire::first_conjunction(s);
      for (uint64_t left = ldp::wire::binomial(p, s); left > 0; --left, set = ldp::wire::next_conjunction(set)) {
        CHECK(ones(set) == s);
        CHECK(set < (uint64_t{1} << p));
        if (left > 1) CHECK(ldp::wire::next_conjunction(set) > set);
      }
    }
  }
  // The largest sets of p = 64: attributes 61..63, and all 64 bits (one set of size 64).
  CHECK(ldp::wire::conjunction_index(64, uint64_t{7} << 61) == ldp::wire::conjunction_count(64, 3) - 1);
  CHECK(ldp::wire::first_conjunction(64) == ~uint64_t{0});
}

TEST_CASE("make_kway_marginals: N' coordinates on [0, 1], scale from the L1 sensitivity N' (hi - lo)") {
  const std::vector<std::tuple<uint32_t, uint32_t, unsigned>> shapes = {
      {4, 2, 0}, {10, 3, 0}, {6, 6, 8}, {64, 2, 0}, {1, 1, 4}};
  for (const auto& shape : shapes) {
    const uint32_t p = std::get<0>(shape), k = std::get<1>(shape);
    const unsigned f = std::get<2>(shape);
    for (double eps : {0.1, 1.0, 4.0}) {
      CAPTURE(p);
      CAPTURE(k);
      CAPTURE(eps);
      const auto d = ldp::wire::make_kway_marginals(p, k, f, eps);
      REQUIRE(d.code == status::ok);
      const ldp::wire::params& b = d.block;
      const uint64_t n = ldp::wire::conjunction_count(p, k), q = uint64_t{1} << f;
      CHECK(b.mech == mechanism::kway_marginals);
      CHECK(b.get(field::domain) == n);
      CHECK(b.get(field::vector_dim) == p);
      CHECK(b.get(field::marginal_order) == k);
      CHECK(b.get_signed(field::clip_lo) == 0);
      CHECK(b.get_signed(field::clip_hi) == static_cast<int64_t>(q));
      CHECK(ldp::wire::validate(b) == status::ok);
      // Table D.1's discrete Laplace row with Delta = N' Q: one coordinate's range width per
      // conjunction (erratum 9: the width, not the paper's bound T, and all N' of them).
      const double t = static_cast<double>(b.get(field::scale_num)) / static_cast<double>(b.get(field::scale_den));
      const double level = static_cast<double>(n * q) / t;
      CHECK(ldp::wire::implemented_epsilon(b) == doctest::Approx(level).epsilon(1e-12));
      CHECK(d.epsilon_impl <= eps);
      CHECK(d.epsilon_impl >= eps * (1 - 1e-4));
    }
  }
}

TEST_CASE("kway-marginals blocks: the rules of docs/wire_format.md 3.3") {
  CHECK(ldp::wire::make_kway_marginals(4, 5, 0, 1.0).code == status::invalid_argument);    // k > p
  CHECK(ldp::wire::make_kway_marginals(4, 0, 0, 1.0).code == status::invalid_argument);    // k = 0
  CHECK(ldp::wire::make_kway_marginals(65, 1, 0, 1.0).code == status::invalid_argument);   // p > 64
  CHECK(ldp::wire::make_kway_marginals(64, 4, 0, 1.0).code == status::invalid_argument);   // N' = 679120
  CHECK(ldp::wire::make_kway_marginals(17, 17, 0, 1.0).code == status::invalid_argument);  // N' = 2^17 - 1
  CHECK(ldp::wire::make_kway_marginals(16, 16, 0, 1.0).code == status::ok);                // N' = 65535
  const ldp::wire::params good = ldp::test::example_params(mechanism::kway_marginals);
  REQUIRE(ldp::wire::validate(good) == status::ok);
  auto p = good;
  p.set(field::domain, 11);  // not N'(4, 2) = 10
  CHECK(ldp::wire::validate(p) != status::ok);
  p = good;
  p.set_signed(field::clip_hi, 2);  // range [0, 2]: not the indicators' [0, 1]
  CHECK(ldp::wire::validate(p) != status::ok);
  p = good;
  p.set_signed(field::clip_lo, -1);
  CHECK(ldp::wire::validate(p) != status::ok);
  p = good;
  p.set(field::marginal_order, 5);
  CHECK(ldp::wire::validate(p) != status::ok);
  p = good;
  p.present &= ~ldp::wire::field_bit(field::marginal_order);
  CHECK(ldp::wire::validate(p) != status::ok);
}
