// Exact checks of Ghazi et al. sparse vectors (docs/mechanisms.md C.3): the sparse-projection block, the
// device's selection and clipping (C.3 Tests 3), the l1-ball projection (Tests 1), Lemma 3.1 with
// adversarial noise (Tests 2), the aggregator's sums, merge and saved state, and the calibration of
// the release (Tests 4). The randomized property tests use fixed seeds and check deterministic
// invariants: they cannot fail by chance.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "device_context.h"
#include "ldp/device/sparse_projection.h"
#include "ldp/random.h"
#include "ldp/server/aggregator.h"
#include "ldp/server/central/discrete_gaussian.h"
#include "ldp/server/central/l1_projection.h"
#include "ldp/server/central/sparse_projection.h"
#include "ldp/wire/central_params.h"
#include "ldp/wire/report.h"
#include "ldp/wire/state.h"
#include "tables.h"

namespace {

using ldp::status;
using ldp::wire::field;

ldp::wire::params sparse_block(uint32_t d, uint32_t s, int64_t radius, unsigned frac_bits = 16) {
  ldp::wire::params p;
  REQUIRE(ldp::wire::make_sparse_projection(d, s, frac_bits, radius, &p) == status::ok);
  return p;
}

struct device_output {
  std::vector<uint32_t> indices;
  std::vector<int64_t> values;
};

// The device's fields for the candidates, copied out of the workspace.
device_output encode(const ldp::wire::params& p, const std::vector<uint32_t>& indices,
                     const std::vector<int64_t>& values) {
  ldp::test::owned_context<ldp::device::sparse_projection_context> device(p);
  REQUIRE(device.code == status::ok);
  ldp::wire::report r;
  REQUIRE(device->fields({indices, values}, &r) == status::ok);
  return {std::vector<uint32_t>(r.indices.begin(), r.indices.end()),
          std::vector<int64_t>(r.values.begin(), r.values.end())};
}

// Rewrites the header of an edited state file of block p for its body (correct CRCs).
void reseal(const ldp::wire::params& p, std::vector<unsigned char>& state) {
  REQUIRE(ldp::wire::encode_state_header(
              p.mech, ldp::wire::fingerprint(p),
              {state.data() + ldp::wire::state_header_size, state.size() - ldp::wire::state_header_size},
              {state.data(), ldp::wire::state_header_size}) == status::ok);
}

void store_le64(unsigned char* at, uint64_t v) {
  for (int i = 0; i < 8; ++i) at[i] = static_cast<unsigned char>(v >> (8 * i));
}

double l1(const std::vector<double>& x) {
  double s = 0;
  for (double v : x) s += std::fabs(v);
  return s;
}

double distance2(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return s;
}

std::vector<double> project(const std::vector<double>& y, double radius) {
  std::vector<double> x;
  REQUIRE(ldp::server::project_l1_ball(y, radius, &x) == status::ok);
  return x;
}

// The reference: bisection on theta in long double until sum max(|y| - theta, 0) = R.
std::vector<double> project_reference(const std::vector<double>& y, double radius) {
  long double norm = 0, hi = 0;
  for (double v : y) {
    norm += std::fabs(static_cast<long double>(v));
    hi = std::max(hi, std::fabs(static_cast<long double>(v)));
  }
  if (norm <= radius) return y;
  long double lo = 0;
  for (int i = 0; i < 200; ++i) {
    const long double mid = (lo + hi) / 2;
    long double sum = 0;
    for (double v : y) sum += std::max(std::fabs(static_cast<long double>(v)) - mid, 0.0L);
    (sum > radius ? lo : hi) = mid;
  }
  std::vector<double> x(y.size());
  for (std::size_t i = 0; i < y.size(); ++i) {
    const long double shrunk = std::fabs(static_cast<long double>(y[i])) - hi;
    x[i] = shrunk > 0 ? static_cast<double>(std::copysign(shrunk, static_cast<long double>(y[i]))) : 0.0;
  }
  return x;
}

// A vector with heavy-tailed entries (Cauchy-like ratios of uniforms), some exact ties and zeros.
std::vector<double> random_vector(ldp::random::drbg& rng, std::size_t d) {
  std::vector<double> y(d);
  for (double& v : y) {
    const double u = (static_cast<double>(rng.next_u32()) + 0.5) / 4294967296.0;
    const double w = (static_cast<double>(rng.next_u32()) + 0.5) / 4294967296.0;
    switch (rng.next_u32() % 8) {
      case 0: v = 0; break;
      case 1: v = 1.5; break;  // ties
      case 2: v = -1.5; break;
      default: v = (u - 0.5) / w; break;
    }
  }
  return y;
}

}  // namespace

TEST_CASE("sparse-projection blocks: symmetric clip range L and the L^2 s < 2^63 bound") {
  const auto p = sparse_block(1000, 4, 65536);
  CHECK(ldp::wire::sparse_radius(p) == 65536);
  CHECK(p.get_signed(field::clip_lo) == -65536);
  CHECK(ldp::wire::sparse_l1_bound(p) == 131072);                        // 65536 * sqrt(4)
  CHECK(ldp::wire::sparse_l1_bound(sparse_block(10, 3, 1000)) == 1732);  // floor(1000 sqrt 3)
  ldp::wire::params q;
  CHECK(ldp::wire::make_sparse_projection(10, 3, 16, 0, &q) == status::invalid_argument);
  CHECK(ldp::wire::make_sparse_projection(10, 11, 16, 10, &q) == status::invalid_argument);  // s > d
  // L^2 s = 2^62 * 2 = 2^63 fails; one less radius passes.
  CHECK(ldp::wire::make_sparse_projection(10, 2, 16, int64_t{1} << 31, &q) == status::invalid_argument);
  CHECK(ldp::wire::make_sparse_projection(10, 2, 16, (int64_t{1} << 31) - 1, &q) == status::ok);
  // An asymmetric range is not a sparse-projection block.
  auto asym = p;
  asym.set_signed(field::clip_lo, -65535);
  CHECK(ldp::wire::validate(asym) == status::invalid_parameters);
  CHECK(ldp::wire::isqrt64(UINT64_MAX) == 4294967295u);
  CHECK(ldp::wire::isqrt64(99) == 9);
  CHECK(ldp::wire::ceil_sqrt64(99) == 10);
  CHECK(ldp::wire::ceil_sqrt64(100) == 10);
}

TEST_CASE("device keeps the s largest magnitudes, ties to the lower index, in index order") {
  const auto p = sparse_block(20, 3, 1000);
  // |values|: 5, 9, 7, 9, 0, 7, 2; the three strongest are the 9s (indices 3 and 8) and the first 7.
  const auto out = encode(p, {1, 3, 4, 8, 9, 12, 15}, {5, -9, 7, 9, 0, -7, 2});
  CHECK(out.indices == std::vector<uint32_t>{3, 4, 8});
  CHECK(out.values == std::vector<int64_t>{-9, 7, 9});
  // Zeros are never sent; fewer non-zeros than s keeps them all.
  const auto few = encode(p, {0, 5, 6}, {0, -4, 0});
  CHECK(few.indices == std::vector<uint32_t>{5});
  CHECK(encode(p, {}, {}).indices.empty());
  // INT64_MIN has the largest magnitude and is clamped to -L.
  const auto extreme = encode(p, {0, 1}, {INT64_MIN, 3});
  CHECK(extreme.indices == std::vector<uint32_t>{0, 1});
  CHECK(extreme.values[0] < 0);
}

TEST_CASE("device clips into the l2 ball rounding toward zero") {
  const auto p = sparse_block(8, 2, 1000);
  // (3000, 4000) clamps to (1000, 1000), norm 1414.2 > 1000: c = 1415, values 1000*1000/1415 = 706.
  const auto out = encode(p, {2, 5}, {3000, -4000});
  CHECK(out.values == std::vector<int64_t>{706, -706});
  // Inside the ball nothing changes.
  CHECK(encode(p, {2, 5}, {600, -800}).values == std::vector<int64_t>{600, -800});
  // A tiny coordinate next to a huge one rounds to 0 and is dropped: (10, 1) has norm^2 101 > 100,
  // c = 11, values 100/11 = 9 and 10/11 = 0.
  const auto dropped = encode(sparse_block(8, 2, 10), {1, 4}, {1000000, 1});
  CHECK(dropped.indices == std::vector<uint32_t>{1});
  CHECK(dropped.values == std::vector<int64_t>{9});
}

TEST_CASE("clipping invariants hold after quantization, for random inputs (property test)") {
  auto rng = ldp::test::seeded_drbg("sparse device invariants");
  for (int trial = 0; trial < 2000; ++trial) {
    const uint32_t d = 1 + ldp::random::uniform_below(rng, 300);
    const uint32_t s = 1 + ldp::random::uniform_below(rng, std::min<uint32_t>(d, 12));
    const int64_t radius = 1 + static_cast<int64_t>(ldp::random::uniform_below(rng, 1u << 20));
    const auto p = sparse_block(d, s, radius);
    std::vector<uint32_t> idx;
    std::vector<int64_t> val;
    for (uint32_t j = 0; j < d; ++j) {
      if (ldp::random::uniform_below(rng, 3) == 0) continue;
      idx.push_back(j);
      const auto scale = static_cast<int64_t>(ldp::random::uniform_below(rng, 1u << 24));
      val.push_back(static_cast<int64_t>(ldp::random::uniform_below(rng, 2 * 1000 + 1)) * scale / 1000 - scale);
    }
    const auto out = encode(p, idx, val);
    CAPTURE(trial);
    REQUIRE(out.indices.size() <= s);
    uint64_t squares = 0, norm1 = 0;
    for (std::size_t i = 0; i < out.values.size(); ++i) {
      CHECK(out.values[i] != 0);
      if (i > 0) CHECK(out.indices[i] > out.indices[i - 1]);
      const auto m = static_cast<uint64_t>(std::llabs(out.values[i]));
      squares += m * m;
      norm1 += m;
    }
    CHECK(squares <= static_cast<uint64_t>(radius) * static_cast<uint64_t>(radius));
    CHECK(norm1 <= ldp::wire::sparse_l1_bound(p));
    // The report encodes and decodes to the same pairs.
    std::vector<unsigned char> bytes(ldp::wire::max_report_size(p));
    ldp::test::owned_context<ldp::device::sparse_projection_context> device(p);
    REQUIRE(device.code == status::ok);
    auto unused = ldp::test::seeded_drbg("sparse projection draws nothing");
    std::size_t written = 0;
    REQUIRE(device->randomize({idx, val}, unused, bytes, ldp::device::framing::report, &written) == status::ok);
    ldp::wire::report r;
    REQUIRE(ldp::wire::decode_report(p, ldp::wire::fingerprint(p), {bytes.data(), written}, &r) == status::ok);
    std::vector<uint32_t> ri(s);
    std::vector<int64_t> rv(s);
    REQUIRE(ldp::wire::read_sparse(p, r, ri, rv) == status::ok);
    CHECK(std::vector<uint32_t>(ri.begin(), ri.begin() + r.count) == out.indices);
    CHECK(std::vector<int64_t>(rv.begin(), rv.begin() + r.count) == out.values);
  }
}

TEST_CASE("device rejects bad input with a status") {
  const auto p = sparse_block(10, 2, 100);
  using ldp::device::sparse_projection_context;
  CHECK(sparse_projection_context::workspace_size(p) == 2 * 8 + 2 * 4);  // s values, then s indices
  ldp::test::owned_context<ldp::device::sparse_projection_context> device(p);
  REQUIRE(device.code == status::ok);
  ldp::wire::report r;
  const std::vector<uint32_t> unsorted{3, 3};
  const std::vector<int64_t> two{1, 2};
  CHECK(device->fields({unsorted, two}, &r) == status::invalid_argument);
  const std::vector<uint32_t> outside{3, 10};
  CHECK(device->fields({outside, two}, &r) == status::out_of_range);
  const std::vector<uint32_t> one{3};
  CHECK(device->fields({one, two}, &r) == status::invalid_argument);
  const std::vector<uint32_t> fine{1, 2};
  sparse_projection_context other;
  const ldp::span<std::byte> workspace = device.workspace;
  CHECK(sparse_projection_context::init(workspace.subspan(0, workspace.size() - 1), p, &other) ==
        status::workspace_too_small);
  CHECK(other.fields({fine, two}, &r) == status::invalid_argument);  // a failed init
  ldp::wire::params grr;
  grr.mech = ldp::wire::mechanism::grr;
  CHECK(sparse_projection_context::init(workspace, grr, &other) == status::invalid_argument);
}

TEST_CASE("l1 projection: ball, sphere, soft threshold, idempotence, KKT, non-expansive, reference") {
  auto rng = ldp::test::seeded_drbg("l1 projection invariants");
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t d = 1 + ldp::random::uniform_below(rng, 64);
    const auto y = random_vector(rng, d);
    const double radius = 0.01 + 10.0 * ldp::random::uniform_below(rng, 1000) / 1000.0;
    CAPTURE(trial);
    const auto x = project(y, radius);
    REQUIRE(x.size() == d);
    const double tol = 1e-12 * std::max(1.0, l1(y));
    CHECK(l1(x) <= radius + tol);
    double theta = 0;
    REQUIRE(ldp::server::l1_ball_threshold(y, radius, &theta) == status::ok);
    if (l1(y) > radius) {
      CHECK(std::fabs(l1(x) - radius) <= tol);  // on the sphere
      CHECK(theta > 0);
    } else {
      CHECK(x == y);
      CHECK(theta == 0);
    }
    for (std::size_t j = 0; j < d; ++j) {  // soft-threshold form with one theta
      const double expected = std::fabs(y[j]) > theta ? std::copysign(std::fabs(y[j]) - theta, y[j]) : 0.0;
      CHECK(x[j] == doctest::Approx(expected).epsilon(1e-12).scale(std::max(1.0, std::fabs(y[j]))));
    }
    const auto again = project(x, radius);  // idempotent (up to rounding)
    for (std::size_t j = 0; j < d; ++j) CHECK(again[j] == doctest::Approx(x[j]).epsilon(1e-9).scale(1.0));
    const auto ref = project_reference(y, radius);
    for (std::size_t j = 0; j < d; ++j) CHECK(x[j] == doctest::Approx(ref[j]).epsilon(1e-9).scale(1.0));
    // KKT: <y - x, w - x> <= 0 for every w in the ball; the worst w are the vertices +-R e_j.
    double tail = 0, dot_x = 0;
    for (std::size_t j = 0; j < d; ++j) {
      tail = std::max(tail, std::fabs(y[j] - x[j]));
      dot_x += (y[j] - x[j]) * x[j];
    }
    CHECK(radius * tail - dot_x <= 1e-9 * std::max(1.0, l1(y) * tail));
    // Non-expansive against another point.
    auto y2 = y;
    for (double& v : y2) v += static_cast<double>(ldp::random::uniform_below(rng, 2001)) / 1000.0 - 1.0;
    CHECK(distance2(x, project(y2, radius)) <= distance2(y, y2) * (1 + 1e-12) + 1e-18);
  }
}

TEST_CASE("l1 projection edge cases: ties, zero input, zero radius, R >= ||y||_1, bad arguments") {
  CHECK(project({3, -3, 3}, 3) == std::vector<double>{1, -1, 1});
  CHECK(project({0, 0, 0}, 1) == std::vector<double>{0, 0, 0});
  CHECK(project({2, -1}, 0) == std::vector<double>{0, 0});
  CHECK(project({2, -1}, 3) == std::vector<double>{2, -1});
  CHECK(project({2, -1}, 100) == std::vector<double>{2, -1});
  CHECK(project({5, 1}, 2) == std::vector<double>{2, 0});
  CHECK(project({}, 1).empty());
  std::vector<double> out;
  const std::vector<double> nan{std::nan("")};
  CHECK(ldp::server::project_l1_ball(nan, 1, &out) == status::invalid_argument);
  const std::vector<double> ok{1};
  CHECK(ldp::server::project_l1_ball(ok, -1, &out) == status::invalid_argument);
  CHECK(ldp::server::project_l1_ball(ok, INFINITY, &out) == status::invalid_argument);
}

TEST_CASE("Lemma 3.1: ||x_hat - x_bar||^2 <= 2 L sqrt(s) ||z||_inf for every draw, and <= ||z||^2") {
  auto rng = ldp::test::seeded_drbg("lemma 3.1 adversarial");
  const double big_l = 1.5;
  for (int trial = 0; trial < 1000; ++trial) {
    const std::size_t d = 2 + ldp::random::uniform_below(rng, 60);
    const std::size_t s = 1 + ldp::random::uniform_below(rng, static_cast<uint32_t>(std::min<std::size_t>(d, 6)));
    const double radius = big_l * std::sqrt(static_cast<double>(s));
    // x_bar: a mean of s-sparse vectors of norm <= L, so ||x_bar||_1 <= L sqrt(s); often on the sphere.
    std::vector<double> x_bar(d, 0);
    const int users = 1 + static_cast<int>(ldp::random::uniform_below(rng, 4));
    for (int u = 0; u < users; ++u) {
      for (std::size_t k = 0; k < s; ++k) {
        const std::size_t j = ldp::random::uniform_below(rng, static_cast<uint32_t>(d));
        x_bar[j] += (rng.next_u32() & 1 ? 1 : -1) * big_l / std::sqrt(static_cast<double>(s)) / users;
      }
    }
    if (l1(x_bar) > radius) x_bar = project(x_bar, radius);  // colliding supports: stay in the set
    std::vector<double> z(d, 0);
    const double size = std::ldexp(1.0, static_cast<int>(ldp::random::uniform_below(rng, 16)) - 8);
    switch (trial % 4) {
      case 0: z[ldp::random::uniform_below(rng, static_cast<uint32_t>(d))] = size; break;  // one spike
      case 1:
        z = random_vector(rng, d);
        for (double& v : z) v *= size;
        break;  // heavy tails
      case 2:
        for (double& v : z) v = (rng.next_u32() & 1 ? size : -size);
        break;  // +-||z||_inf
      default:  // aligned against x_bar
        for (std::size_t j = 0; j < d; ++j) z[j] = x_bar[j] > 0 ? -size : size;
        break;
    }
    std::vector<double> y(d), err_raw(d);
    double z_inf = 0;
    for (std::size_t j = 0; j < d; ++j) {
      y[j] = x_bar[j] + z[j];
      z_inf = std::max(z_inf, std::fabs(z[j]));
    }
    const auto x_hat = project(y, radius);
    const double err = distance2(x_hat, x_bar), raw = distance2(y, x_bar);
    CAPTURE(trial);
    CHECK(err <= 2 * radius * z_inf * (1 + 1e-9) + 1e-15);
    CHECK(err <= raw * (1 + 1e-9) + 1e-15);
  }
}

TEST_CASE("sparse aggregator: exact sums, l2 rejection, merge, saved state") {
  const auto p = sparse_block(50, 3, 1000);
  const uint64_t fp = ldp::wire::fingerprint(p);
  std::unique_ptr<ldp::server::aggregator> a, b;
  REQUIRE(ldp::server::aggregator::create(p, &a) == status::ok);
  REQUIRE(ldp::server::aggregator::create(p, &b) == status::ok);
  auto rng = ldp::test::seeded_drbg("sparse aggregator sums");
  std::vector<int64_t> expected(50, 0);
  std::vector<unsigned char> bytes(ldp::wire::max_report_size(p));
  ldp::test::owned_context<ldp::device::sparse_projection_context> device(p);
  REQUIRE(device.code == status::ok);
  for (int u = 0; u < 300; ++u) {
    std::vector<uint32_t> idx;
    std::vector<int64_t> val;
    for (uint32_t j = 0; j < 50; ++j) {
      if (ldp::random::uniform_below(rng, 10) != 0) continue;
      idx.push_back(j);
      val.push_back(static_cast<int64_t>(ldp::random::uniform_below(rng, 4001)) - 2000);
    }
    ldp::wire::report r;
    REQUIRE(device->fields({idx, val}, &r) == status::ok);
    for (std::size_t i = 0; i < r.indices.size(); ++i) expected[r.indices[i]] += r.values[i];
    std::size_t written = 0;
    REQUIRE(ldp::wire::encode_report(p, fp, r, bytes, &written) == status::ok);
    CHECK((u % 2 ? a : b)->add_report({bytes.data(), written}) == status::ok);
  }
  // A hand-made report outside the ball (each value in range, norm 1732 > 1000) is rejected.
  const std::vector<uint32_t> idx{0, 1, 2};
  const std::vector<int64_t> val{1000, 1000, 1000};
  ldp::wire::report big;
  big.mech = p.mech;
  big.indices = idx;
  big.values = val;
  std::size_t written = 0;
  REQUIRE(ldp::wire::encode_report(p, fp, big, bytes, &written) == status::ok);
  CHECK(a->add_report({bytes.data(), written}) == status::out_of_range);
  CHECK(a->rejected()[static_cast<std::size_t>(status::out_of_range)] == 1);

  REQUIRE(a->merge(*b) == status::ok);
  CHECK(a->reports() == 300);
  const auto& sparse = dynamic_cast<const ldp::server::sparse_projection_aggregator&>(*a);
  CHECK(sparse.sums() == expected);
  const auto est = a->estimate_all();
  REQUIRE(est.size() == 50);
  CHECK(est[7].value == doctest::Approx(static_cast<double>(expected[7]) / 65536.0 / 300.0));

  // Round trip, and merge order does not change the bytes.
  const auto saved = a->serialize();
  std::unique_ptr<ldp::server::aggregator> back;
  REQUIRE(ldp::server::aggregator::deserialize(saved, &back) == status::ok);
  CHECK(back->serialize() == saved);
  // A tampered sum breaks an invariant: |sum_j| <= n L. The body ends with the d sums.
  auto tampered = saved;
  store_le64(tampered.data() + tampered.size() - 8, uint64_t{1} << 62);
  reseal(p, tampered);
  CHECK(ldp::server::aggregator::deserialize(tampered, &back) == status::malformed_report);
}

TEST_CASE("sparse saved state: the sum of |sum_j| may pass 2^64 (found by fuzz_state)") {
  // n = 2^50 reports with L = 2^16: the bounds n L and n R1 pass 2^64, and three coordinate sums
  // of 3 * 2^60 each are reachable (3 * 2^44 reports at +L on each). Merged with itself, the state
  // holds three sums of 6 * 2^60, 18 * 2^60 > 2^64 in total, which deserialize() used to reject
  // as malformed_report: the server wrote a state it could not read back.
  const auto p = sparse_block(8, 2, 65536);
  std::unique_ptr<ldp::server::aggregator> a;
  REQUIRE(ldp::server::aggregator::create(p, &a) == status::ok);
  auto state = a->serialize();
  const std::size_t block = state[ldp::wire::state_header_size] | std::size_t{state[ldp::wire::state_header_size + 1]}
                                                                      << 8;
  const std::size_t n_at = ldp::wire::state_header_size + 2 + block,
                    sums_at = n_at + 8 + 8 * ldp::server::rejection_counter_count;
  REQUIRE(state.size() == sums_at + 8 * 8);
  store_le64(state.data() + n_at, uint64_t{1} << 50);
  for (std::size_t j = 0; j < 3; ++j) store_le64(state.data() + sums_at + 8 * j, uint64_t{3} << 60);
  reseal(p, state);  // 9 * 2^60 in total
  std::unique_ptr<ldp::server::aggregator> half, merged, back;
  REQUIRE(ldp::server::aggregator::deserialize(state, &half) == status::ok);
  REQUIRE(ldp::server::aggregator::deserialize(state, &merged) == status::ok);
  REQUIRE(merged->merge(*half) == status::ok);
  const auto saved = merged->serialize();
  REQUIRE(ldp::server::aggregator::deserialize(saved, &back) == status::ok);
  CHECK(back->reports() == uint64_t{1} << 51);
  CHECK(back->serialize() == saved);
  // The total bound still applies where it does not saturate: with n = 2^47, each sum of 7 * 2^60
  // is within n L = 2^63, but their total 21 * 2^60 (saturated) exceeds n R1 < 2^47 * 92682.
  store_le64(state.data() + n_at, uint64_t{1} << 47);
  for (std::size_t j = 0; j < 3; ++j) store_le64(state.data() + sums_at + 8 * j, uint64_t{7} << 60);
  reseal(p, state);
  CHECK(ldp::server::aggregator::deserialize(state, &back) == status::malformed_report);
  store_le64(state.data() + sums_at + 8, uint64_t{4} << 60);
  store_le64(state.data() + sums_at + 16, 0);  // 11 * 2^60 < n R1: loads
  reseal(p, state);
  CHECK(ldp::server::aggregator::deserialize(state, &back) == status::ok);
}

TEST_CASE("release calibration: b = 2 L sqrt(s) / (n eps), not 2L/(n eps) nor L sqrt(s)/(n eps)") {
  const int64_t radius = 1 << 16;  // L = 1 at f = 16
  const auto p = sparse_block(40, 4, radius);
  std::unique_ptr<ldp::server::aggregator> agg;
  REQUIRE(ldp::server::aggregator::create(p, &agg) == status::ok);
  std::vector<unsigned char> bytes(ldp::wire::max_report_size(p));
  ldp::test::owned_context<ldp::device::sparse_projection_context> device(p);
  REQUIRE(device.code == status::ok);
  auto unused = ldp::test::seeded_drbg("sparse projection draws nothing");
  const std::vector<uint32_t> idx{0, 1, 2, 3};
  const std::vector<int64_t> val{radius / 2, radius / 2, -radius / 2, radius / 2};
  const uint64_t n = 250;
  for (uint64_t u = 0; u < n; ++u) {
    std::size_t written = 0;
    REQUIRE(device->randomize({idx, val}, unused, bytes, ldp::device::framing::report, &written) == status::ok);
    REQUIRE(agg->add_report({bytes.data(), written}) == status::ok);
  }
  auto rng = ldp::test::seeded_drbg("sparse release calibration");
  for (double eps : {0.1, 1.0, 3.0}) {
    ldp::server::sparse_release r;
    REQUIRE(ldp::server::release_sparse_mean(*agg, {eps, 0}, rng, &r) == status::ok);
    const double b = 2 * 1.0 * 2.0 / (static_cast<double>(n) * eps);
    CHECK(r.noise_scale == doctest::Approx(b).epsilon(1e-9));
    CHECK(r.epsilon_impl <= eps);
    CHECK(r.epsilon_impl >= eps * (1 - 1e-9));
    CHECK(r.l1_radius == doctest::Approx(2.0));
    CHECK(r.noisy_mean.size() == 40);
    CHECK(l1(r.mean) <= 2.0 * (1 + 1e-12));
  }
  ldp::server::sparse_release r;
  CHECK(ldp::server::release_sparse_mean(*agg, {0, 0}, rng, &r) == status::invalid_argument);
  CHECK(ldp::server::release_sparse_mean(*agg, {1, 1}, rng, &r) == status::invalid_argument);
  std::unique_ptr<ldp::server::aggregator> empty;
  REQUIRE(ldp::server::aggregator::create(p, &empty) == status::ok);
  CHECK(ldp::server::release_sparse_mean(*empty, {1, 0}, rng, &r) == status::invalid_argument);
  // Approximate DP: sigma from zCDP, within a few percent of the continuous formula at eps < 1.
  REQUIRE(ldp::server::release_sparse_mean(*agg, {0.5, 1e-6}, rng, &r) == status::ok);
  const double classical = 2 * 1.0 * std::sqrt(2 * std::log(1.25 / 1e-6)) / (static_cast<double>(n) * 0.5);
  CHECK(r.noise_scale / classical > 0.9);
  CHECK(r.noise_scale / classical < 1.25);
  CHECK(r.epsilon_impl <= 0.5);
}

TEST_CASE("gaussian_variance: the smallest integer sigma^2 whose zCDP conversion fits epsilon") {
  for (double eps : {0.05, 0.5, 1.0, 4.0}) {
    for (double delta : {1e-3, 1e-9}) {
      uint64_t s2 = 0;
      double impl = 0;
      REQUIRE(ldp::server::gaussian_variance(2000, eps, delta, &s2, &impl) == status::ok);
      const auto level = [&](uint64_t v) {
        const double rho = 2000.0 * 2000.0 / (2.0 * static_cast<double>(v));
        return rho + 2 * std::sqrt(rho * std::log(1 / delta));
      };
      CHECK(impl <= eps);
      CHECK(level(s2) == doctest::Approx(impl));
      CHECK(level(s2 - 1) > eps / (1 + 1e-9));  // one less is too little noise
    }
  }
  uint64_t s2 = 0;
  double impl = 0;
  CHECK(ldp::server::gaussian_variance(2000, 1, 0, &s2, &impl) == status::invalid_argument);
  CHECK(ldp::server::gaussian_variance(uint64_t{1} << 40, 0.01, 1e-9, &s2, &impl) == status::invalid_argument);
}
