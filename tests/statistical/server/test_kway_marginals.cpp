// kway-marginals on the real DRBG path, device to server (docs/mechanisms.md H.5, D.2, D.3). Fixed
// seeds; each check states its false-failure probability.
//
// - Monte-Carlo privacy audit (D.2 (b)): p = 2, k = 2 (N' = 3 indicators, f = 0), the empty record
//   against the full one (every indicator differs, the L1 distance N' Q), event "every coordinate
//   <= 0", whose ratio is e^{N' Q / t} = e^{epsilon_impl} exactly (independent coordinates, each
//   e^{Q/t}). Clopper-Pearson at 1e-7 per proportion (false failure below 4e-7). The point
//   estimate must reach 0.9 epsilon_impl, 11 standard errors below the truth at N = 200000: a
//   scale computed without the factor N' (a level of 3 epsilon) fails the upper check, one from
//   twice the width the lower one.
// - Unbiasedness, exact variance and coverage of the marginals: R = 500 aggregators of the same
//   n = 400 records (p = 4, k = 3, epsilon 1). For each of the 12 cells of the marginals over
//   {0, 2, 3} and {1, 3}: the mean of the R estimates within 5.5 standard errors of the exact cell
//   (two-sided 3.8e-8 each, 4.6e-7 for all); the stated variance is the same in every run and
//   (R - 1) S^2 / sigma^2 lies inside the central 1 - 1e-6 of chi-square(R - 1) for the cells 000
//   (7 inclusion-exclusion terms) and 111 (one); the 95% interval covers the exact cell in a
//   fraction of the runs whose Clopper-Pearson interval at 1e-6 contains 0.95 (cells 000 and
//   111). Each estimate sums n times up to 7 discrete Laplace draws (near normal), so the
//   variance and coverage levels hold to the normal approximation.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "ldp/device.h"
#include "ldp/server.h"
#include "ldp/wire.h"
#include "stats.h"
#include "tables.h"

using ldp::status;
using ldp::wire::field;

namespace {

// A device of the block: one context, reports into a buffer.
class device {
 public:
  explicit device(const ldp::wire::params& p)
      : workspace_(ldp::device::vector_mean_context::workspace_size(p)),
        out_(ldp::device::max_output_size(p, ldp::device::framing::report)) {
    REQUIRE(ldp::device::vector_mean_context::init(workspace_, p, &context_) == status::ok);
  }
  ldp::span<const unsigned char> report(uint64_t record, ldp::random::drbg& rng) {
    std::size_t written = 0;
    REQUIRE(ldp::device::randomize_kway_marginals(context_, record, rng, out_, ldp::device::framing::report,
                                                  &written) == status::ok);
    return {out_.data(), written};
  }
  const std::vector<int64_t>& values(uint64_t record, ldp::random::drbg& rng, const ldp::wire::params& p) {
    ldp::wire::report r;
    REQUIRE(ldp::wire::decode_report(p, ldp::wire::fingerprint(p), report(record, rng), &r) == status::ok);
    values_.assign(r.count, 0);
    REQUIRE(ldp::wire::read_vector(r, values_) == status::ok);
    return values_;
  }

 private:
  std::vector<std::byte> workspace_;
  std::vector<unsigned char> out_;
  std::vector<int64_t> values_;
  ldp::device::vector_mean_context context_;
};

}  // namespace

TEST_CASE("kway-marginals audit: the empty and the full record, every coordinate <= 0") {
  constexpr uint64_t runs = 200000;
  constexpr double alpha = 1e-7;
  const auto derived = ldp::wire::make_kway_marginals(2, 2, 0, 1.0);
  REQUIRE(derived.code == status::ok);
  const ldp::wire::params& p = derived.block;
  device d(p);
  auto rng = ldp::test::seeded_drbg("kway-marginals audit");
  const auto all_low = [&](uint64_t record) {
    for (int64_t z : d.values(record, rng, p)) {
      if (z > 0) return false;
    }
    return true;
  };
  uint64_t k1 = 0, k0 = 0;
  for (uint64_t i = 0; i < runs; ++i) k1 += all_low(0) ? 1 : 0;
  for (uint64_t i = 0; i < runs; ++i) k0 += all_low(0b11) ? 1 : 0;
  REQUIRE(k0 > 0);
  const auto pi = ldp::test::clopper_pearson(k1, runs, alpha), qi = ldp::test::clopper_pearson(k0, runs, alpha);
  CAPTURE(k1);
  CAPTURE(k0);
  CHECK(derived.epsilon_impl <= 1.0);
  CHECK(std::log(pi.lo / qi.hi) <= derived.epsilon_impl);
  CHECK(std::log(static_cast<double>(k1) / static_cast<double>(k0)) >= 0.9 * derived.epsilon_impl);
}

TEST_CASE("kway-marginals: marginal cells unbiased, with the stated variance and 95% coverage") {
  constexpr std::size_t runs = 500, n = 400;
  const ldp::wire::params p = ldp::wire::make_kway_marginals(4, 3, 0, 1.0).block;
  // Fixed records: attribute j set in about (j + 1) / 5 of them, from a hash of the index.
  std::vector<uint64_t> records(n);
  for (std::size_t i = 0; i < n; ++i) {
    uint64_t h = (i + 1) * 0x9e3779b97f4a7c15u;
    for (uint32_t j = 0; j < 4; ++j) {
      h ^= h >> 31;
      h *= 0x94d049bb133111ebu;
      if (h % 5 <= j) records[i] |= uint64_t{1} << j;
    }
  }
  const std::vector<std::vector<uint32_t>> asks = {{0, 2, 3}, {1, 3}};
  std::vector<std::vector<double>> truth;
  for (const auto& a : asks) {
    std::vector<double> cells(std::size_t{1} << a.size());
    for (uint64_t x : records) {
      uint32_t cell = 0;
      for (std::size_t i = 0; i < a.size(); ++i) cell |= static_cast<uint32_t>(x >> a[i] & 1) << i;
      cells[cell] += 1.0 / n;
    }
    truth.push_back(cells);
  }
  device d(p);
  auto rng = ldp::test::seeded_drbg("kway-marginals unbiased");
  // values[ask][cell][run], and the stated variance of each cell.
  std::vector<std::vector<std::vector<double>>> values(asks.size());
  std::vector<std::vector<double>> stated(asks.size());
  std::vector<std::vector<uint64_t>> covered(asks.size());
  for (std::size_t a = 0; a < asks.size(); ++a) {
    values[a].assign(truth[a].size(), {});
    stated[a].assign(truth[a].size(), 0);
    covered[a].assign(truth[a].size(), 0);
  }
  for (std::size_t run = 0; run < runs; ++run) {
    std::unique_ptr<ldp::server::aggregator> agg;
    REQUIRE(ldp::server::aggregator::create(p, &agg) == status::ok);
    for (uint64_t x : records) REQUIRE(agg->add_report(d.report(x, rng)) == status::ok);
    const std::vector<ldp::server::estimate> coordinates = agg->estimate_all(0.95);
    for (std::size_t a = 0; a < asks.size(); ++a) {
      ldp::server::marginal_table table;
      REQUIRE(ldp::server::marginal_estimate(p, coordinates, asks[a], 0.95, &table) == status::ok);
      for (const ldp::server::estimate& e : table.cells) {
        values[a][e.item].push_back(e.value);
        if (run == 0) stated[a][e.item] = e.variance;
        CHECK(e.variance == stated[a][e.item]);
        covered[a][e.item] += e.ci_low <= truth[a][e.item] && truth[a][e.item] <= e.ci_high ? 1 : 0;
      }
    }
  }
  for (std::size_t a = 0; a < asks.size(); ++a) {
    for (std::size_t cell = 0; cell < truth[a].size(); ++cell) {
      CAPTURE(a);
      CAPTURE(cell);
      const std::vector<double>& v = values[a][cell];
      double mean = 0;
      for (double x : v) mean += x;
      mean /= runs;
      double s2 = 0;
      for (double x : v) s2 += (x - mean) * (x - mean);
      s2 /= runs - 1;
      CHECK(std::fabs(mean - truth[a][cell]) <= 5.5 * std::sqrt(stated[a][cell] / runs));
      if (a == 0 && (cell == 0 || cell == 7)) {
        const double tail = ldp::test::chi_square_sf((runs - 1) * s2 / stated[a][cell], runs - 1);
        CAPTURE(s2 / stated[a][cell]);
        CHECK(tail > 5e-7);
        CHECK(tail < 1 - 5e-7);
        const auto ci = ldp::test::clopper_pearson(covered[a][cell], runs, 1e-6);
        CAPTURE(covered[a][cell]);
        CHECK(ci.lo <= 0.95);
        CHECK(0.95 <= ci.hi);
      }
    }
  }
}
