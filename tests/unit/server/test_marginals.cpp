// The server answers of kway-marginals (docs/mechanisms.md H.5): marginals by inclusion-exclusion
// from exact conjunction fractions equal the cells counted directly, their variances are the sums
// of the coordinates' variances, the disjunctions through the exact polynomial and through
// Chebyshev's p_k (within gamma), and the polynomial of Alg 6 itself (p_k(0) = 0, |p_k - 1| <= gamma
// on 1..k, sum_s C(w, s) a_s = p_k(w) from the Stirling numbers).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "ldp/server.h"
#include "ldp/wire.h"

using ldp::status;
using ldp::server::estimate;
using ldp::wire::field;

namespace {

// A fixed dataset of records of p bits: record i is a hash of i, with attribute j set about
// (j + 1) / (p + 1) of the time, so the attributes are dependent on nothing but differ in rate.
std::vector<uint64_t> records(uint32_t p, std::size_t n) {
  std::vector<uint64_t> out;
  for (std::size_t i = 0; i < n; ++i) {
    uint64_t h = (i + 1) * 0x9e3779b97f4a7c15u, r = 0;
    for (uint32_t j = 0; j < p; ++j) {
      h ^= h >> 29;
      h *= 0xbf58476d1ce4e5b9u;
      if (h % (p + 1) <= j) r |= uint64_t{1} << j;
    }
    out.push_back(r);
  }
  return out;
}

// The exact conjunction fractions of the dataset as estimates with variance `variance(j)`.
template <class Variance>
std::vector<estimate> exact_coordinates(const ldp::wire::params& b, const std::vector<uint64_t>& data,
                                        Variance variance) {
  const auto p = static_cast<uint32_t>(b.get(field::vector_dim));
  const auto k = static_cast<uint32_t>(b.get(field::marginal_order));
  std::vector<estimate> out(static_cast<std::size_t>(b.get(field::domain)));
  for (uint32_t s = 1; s <= k; ++s) {
    uint64_t set = ldp::wire::first_conjunction(s);
    for (uint64_t left = ldp::wire::binomial(p, s); left > 0; --left, set = ldp::wire::next_conjunction(set)) {
      const uint32_t j = ldp::wire::conjunction_index(p, set);
      double count = 0;
      for (uint64_t x : data) count += (x & set) == set ? 1 : 0;
      out[j] = {j, count / static_cast<double>(data.size()), variance(j), 0, 0, {}};
    }
  }
  return out;
}

}  // namespace

TEST_CASE("marginal_estimate: the cells of exact conjunction fractions are the cells counted directly") {
  const auto b = ldp::wire::make_kway_marginals(6, 3, 0, 1.0).block;
  const std::vector<uint64_t> data = records(6, 500);
  const auto coordinates = exact_coordinates(b, data, [](uint32_t) { return 0.0; });
  const std::vector<std::vector<uint32_t>> asks = {{2}, {0, 5}, {5, 0}, {1, 3, 4}, {4, 0, 2}};
  for (const auto& attributes : asks) {
    ldp::server::marginal_table table;
    REQUIRE(ldp::server::marginal_estimate(b, coordinates, attributes, 0.95, &table) == status::ok);
    REQUIRE(table.cells.size() == (std::size_t{1} << attributes.size()));
    double total = 0;
    for (const estimate& cell : table.cells) {
      double count = 0;
      for (uint64_t x : data) {
        bool match = true;
        for (std::size_t i = 0; i < attributes.size(); ++i) match &= (x >> attributes[i] & 1) == (cell.item >> i & 1);
        count += match ? 1 : 0;
      }
      CAPTURE(cell.item);
      CHECK(cell.value == doctest::Approx(count / static_cast<double>(data.size())).epsilon(1e-12));
      total += cell.value;
    }
    CHECK(total == doctest::Approx(1.0));
  }
}

TEST_CASE("marginal_estimate: variance sum_T var(T) over the cell's inclusion-exclusion terms, interval +- z sd") {
  const auto b = ldp::wire::make_kway_marginals(4, 2, 0, 1.0).block;  // 4 singletons then 6 pairs
  const auto coordinates = exact_coordinates(b, records(4, 100), [](uint32_t j) { return 0.01 * (j + 1); });
  const std::vector<uint32_t> attributes = {1, 3};
  ldp::server::marginal_table table;
  REQUIRE(ldp::server::marginal_estimate(b, coordinates, attributes, 0.95, &table) == status::ok);
  const double v1 = coordinates[1].variance, v3 = coordinates[3].variance;
  const double v13 = coordinates[ldp::wire::conjunction_index(4, 0b1010)].variance;
  CHECK(v13 == doctest::Approx(0.01 * (4 + 4 + 1)));  // {1, 3} is pair 4 in colex order: 01, 02, 12, 03, 13
  CHECK(table.cells[0].variance == doctest::Approx(v1 + v3 + v13));  // 1 - f1 - f3 + f13
  CHECK(table.cells[1].variance == doctest::Approx(v1 + v13));       // f1 - f13
  CHECK(table.cells[2].variance == doctest::Approx(v3 + v13));       // f3 - f13
  CHECK(table.cells[3].variance == doctest::Approx(v13));            // f13
  const estimate& c = table.cells[0];
  CHECK(c.ci_high - c.value == doctest::Approx(1.959963984540054 * std::sqrt(c.variance)));
  CHECK(c.value - c.ci_low == doctest::Approx(1.959963984540054 * std::sqrt(c.variance)));
  estimate single;
  REQUIRE(ldp::server::conjunction_estimate(b, coordinates, 0b1010, 0.95, &single) == status::ok);
  CHECK(single.value == coordinates[8].value);
  CHECK(single.variance == v13);
}

TEST_CASE("marginal and conjunction queries refuse what the block cannot answer") {
  const auto b = ldp::wire::make_kway_marginals(4, 2, 0, 1.0).block;
  const auto coordinates = exact_coordinates(b, records(4, 10), [](uint32_t) { return 0.0; });
  ldp::server::marginal_table table;
  const std::vector<uint32_t> three = {0, 1, 2}, repeated = {1, 1}, outside = {4}, none = {};
  CHECK(ldp::server::marginal_estimate(b, coordinates, three, 0.95, &table) == status::invalid_argument);
  CHECK(ldp::server::marginal_estimate(b, coordinates, repeated, 0.95, &table) == status::invalid_argument);
  CHECK(ldp::server::marginal_estimate(b, coordinates, outside, 0.95, &table) == status::invalid_argument);
  CHECK(ldp::server::marginal_estimate(b, coordinates, none, 0.95, &table) == status::invalid_argument);
  const std::vector<estimate> short_list(coordinates.begin(), coordinates.end() - 1);
  const std::vector<uint32_t> pair = {0, 1};
  CHECK(ldp::server::marginal_estimate(b, short_list, pair, 0.95, &table) == status::invalid_argument);
  estimate e;
  CHECK(ldp::server::conjunction_estimate(b, coordinates, 0b10000, 0.95, &e) == status::invalid_argument);
  CHECK(ldp::server::conjunction_estimate(b, coordinates, 0b0111, 0.95, &e) == status::invalid_argument);
  CHECK(ldp::server::conjunction_estimate(b, coordinates, 0, 0.95, &e) == status::invalid_argument);
}

TEST_CASE("the polynomial of Alg 6: p_k(0) = 0, |p_k(w) - 1| <= gamma on 1..k, and its subset weights") {
  struct shape {
    uint32_t k;
    double gamma;
    std::size_t degree;  // r m when the Chebyshev form is used, else k
  };
  // k = 10, gamma 1/4: r = 3, m = 2, degree 6 < 10; k = 17, gamma 0.1: r = 4, m = 4, degree 16;
  // k = 30, gamma 1/4: r = 6, m = 2; the others take the exact polynomial.
  for (const shape& s : {shape{1, 0.1, 1}, shape{3, 0.1, 3}, shape{8, 0.01, 8}, shape{10, 0.25, 6}, shape{17, 0.1, 16},
                         shape{30, 0.25, 12}}) {
    CAPTURE(s.k);
    CAPTURE(s.gamma);
    const std::vector<double> c = ldp::server::disjunction_polynomial(s.k, s.gamma);
    REQUIRE(c.size() == s.degree + 1);
    CHECK(c[0] == 0);
    CHECK(ldp::server::disjunction_polynomial_value(s.k, s.gamma, 0) == 0);
    const std::vector<double> a = ldp::server::subset_weights(c, s.k);
    REQUIRE(a.size() == std::min<std::size_t>(s.degree, s.k));
    double worst = 0;
    for (uint32_t w = 0; w <= s.k; ++w) {
      CAPTURE(w);
      const double value = ldp::server::disjunction_polynomial_value(s.k, s.gamma, w);
      if (w >= 1) {
        CHECK(std::fabs(value - 1) <= s.gamma);
        worst = std::max(worst, std::fabs(value - 1));
      }
      // The monomials agree with the Chebyshev form, and sum_s C(w, s) a_s = p_k(w) (C.4).
      double horner = 0, subsets = 0;
      for (std::size_t m = c.size(); m-- > 0;) horner = horner * w + c[m];
      for (std::size_t i = 0; i < a.size(); ++i)
        subsets += static_cast<double>(ldp::wire::binomial(w, static_cast<uint32_t>(i + 1))) * a[i];
      CHECK(horner == doctest::Approx(value).epsilon(1e-9).scale(1));
      CHECK(subsets == doctest::Approx(value).epsilon(1e-9).scale(1));
    }
    if (s.degree < s.k) CHECK(worst > 0);  // an approximation: not the exact polynomial
  }
  // The exact polynomial 1 - prod (1 - x / j): a_s = (-1)^(s + 1), inclusion-exclusion itself.
  const std::vector<double> exact = ldp::server::subset_weights(ldp::server::disjunction_polynomial(6, 0.01), 6);
  REQUIRE(exact.size() == 6);
  for (std::size_t s = 0; s < 6; ++s) CHECK(exact[s] == doctest::Approx(s % 2 == 0 ? 1.0 : -1.0));
  CHECK(ldp::server::disjunction_polynomial(0, 0.1).empty());
  CHECK(ldp::server::disjunction_polynomial(4, 1.0).empty());
}

TEST_CASE("disjunction_estimate: exact weights give 1 - the all-zero cell; Chebyshev's within gamma of it") {
  const auto b = ldp::wire::make_kway_marginals(12, 12, 0, 1.0).block;  // N' = 4095
  const std::vector<uint64_t> data = records(12, 300);
  const auto coordinates = exact_coordinates(b, data, [](uint32_t) { return 1e-4; });
  const uint64_t set = 0b101101111011;  // 9 attributes
  const std::vector<uint32_t> attributes = {0, 1, 3, 4, 5, 6, 8, 9, 11};
  ldp::server::marginal_table table;
  REQUIRE(ldp::server::marginal_estimate(b, coordinates, attributes, 0.95, &table) == status::ok);
  double truth = 0;
  for (uint64_t x : data) truth += (x & set) != 0 ? 1 : 0;
  truth /= static_cast<double>(data.size());
  CHECK(1 - table.cells[0].value == doctest::Approx(truth).epsilon(1e-9));
  const std::vector<double> exact = ldp::server::subset_weights(ldp::server::disjunction_polynomial(12, 0.01), 12);
  estimate e;
  REQUIRE(ldp::server::disjunction_estimate(b, coordinates, set, exact, 0.95, &e) == status::ok);
  CHECK(e.value == doctest::Approx(truth).epsilon(1e-9));
  CHECK(e.variance == doctest::Approx(table.cells[0].variance));  // weights +-1 on the same 511 sets
  // gamma = 1/4 at k = 12: r = 4, m = 2, degree 8; each record's p_k(|x cap Y|) is within gamma of
  // its disjunction, so the average is too; the large sets get smaller weights.
  const std::vector<double> cheb = ldp::server::subset_weights(ldp::server::disjunction_polynomial(12, 0.25), 12);
  REQUIRE(cheb.size() == 8);
  REQUIRE(ldp::server::disjunction_estimate(b, coordinates, set, cheb, 0.95, &e) == status::ok);
  CHECK(std::fabs(e.value - truth) <= 0.25);
  CHECK(e.value != doctest::Approx(truth).epsilon(1e-6));
}
